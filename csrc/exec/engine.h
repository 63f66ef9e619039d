/* The engine: one object holding all the state of one device's eager
 * engine. The PJRT runtime and device, the compile-cache tiers, the eager
 * mode, the open region, the launch queue, the in-flight ring, the device
 * scalars, the pending asynchronous checks, the repeat window, the compile
 * pool, the RNG, the CPU-fallback bookkeeping and the statistics are fields
 * here, and every engine function takes the engine it works on. Nothing in
 * exec/ or api/ keeps mutable state of its own; a process may create several
 * engines (the C tests do) and use them side by side.
 *
 * Threading model. An engine is not internally locked: its owner calls it
 * from one thread at a time. The Python binding owns the process's engine
 * and serializes its callers with the engine lock (api/engine_lock.h), so any
 * number of Python threads may use tpu tensors at once, one op at a time,
 * with the GIL released whenever the host waits for the device or a compile
 * (base/blocking.h). Inside an engine, the compile pool's threads share the
 * pool's queue under its own mutex (exec/compile_pool.h), and the memory
 * counters are atomic (a storage may be released from any thread holding the
 * engine's lock). Two engines share nothing but the plugin's code: calls on
 * different engines need no common lock. */
#ifndef TT_EXEC_ENGINE_H
#define TT_EXEC_ENGINE_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/env.h"
#include "cache/tier1.h"
#include "cache/tier2.h"
#include "cache/tier3.h"
#include "exec/async_errors.h"
#include "exec/compile_pool.h"
#include "exec/engine_type.h"
#include "exec/fallback.h"
#include "exec/inflight.h"
#include "exec/launch_queue.h"
#include "exec/mode.h"
#include "exec/region.h"
#include "exec/repeat.h"
#include "exec/retired.h"
#include "exec/scalars.h"
#include "exec/stats.h"
#include "exec/tiered.h"
#include "pjrt/runtime.h"

struct tt_engine_s {
  tt_env_t env; /* the environment, read once at creation (base/env.h) */
  /* Device and compile cache. */
  tt_pjrt_runtime_t *rt;
  tt_tier1_t *tier1;
  tt_cache_dir_t *tier2; /* NULL when off */
  tt_cache_dir_t *tier3; /* NULL when off */
  uint64_t options_key;  /* compile options + plugin identity + our version */
  uint64_t options_key_exact; /* the same with excess precision off (below) */
  int exact_precision;   /* torch.tpu.allow_excess_precision(False): compile with every rounding kept */
  int opt_level;         /* XLA's backend optimization level of every compile; -1: the plugin's (exec/opt_level.h) */
  int64_t small_program; /* the small-program bound (exec/opt_level.h); 0: none */
  /* Eager engine. */
  tt_eager_mode_t mode;
  tt_dtype_t default_float; /* torch.get_default_dtype() of the embedding: F32, F64, F16 or BF16 */
  int eager_buckets;        /* ops on padded tensors run at their bucket's shape (ops/bucket.h) */
  int64_t eager_bucket_min; /* the least capacity of a small tensor's grown dim (ops/bucket.h) */
  int fuse_plans;           /* replays of compiled graphs join the open region (exec/plan_defer.h) */
  /* Per op id: 1 for the ops the embedding's framework tags pointwise
   * (TensorIterator's result layout, ops/result_layout.h); NULL: none. */
  unsigned char *pointwise_ops;
  int npointwise_ops;
  /* Per op id: 2 for the in-place binary ops, self.op_(other), 1 for the
   * other in-place pointwise ops, whose iterator checks precede a dtype
   * refusal (api/iterator_first.h); NULL: none. */
  unsigned char *inplace_iterator_ops;
  int ninplace_iterator_ops;
  int matmul_precision;     /* float32 matmul precision (tt_precision_t, ir/graph.h) of the next calls */
  /* Where the lowering asks for the precision instead, when set (the
   * embedding's per-thread setting, asked on the calling thread during the
   * op's lowering, and only by float32 contractions): NULL = the field above. */
  int (*matmul_precision_source)(void *ctx);
  void *matmul_precision_ctx;
  tt_region_t region;
  tt_launchq_t launchq;
  tt_inflight_t inflight;
  tt_retired_t retired; /* replaced buffers destroyed once the launches before them are done */
  tt_scalars_t scalars;
  tt_async_errors_t async_errors;
  tt_repeat_t repeat;
  tt_compile_pool_t pool;
  tt_tiered_t tiered; /* quick executables waiting for their optimized compile */
  atomic_int cancel_waits;             /* shutting down: waits for a peer's compile return */
  atomic_int no_classic_emitters;      /* the plugin refused xla_cpu_use_fusion_emitters: small programs compile
                                          as every other program (exec/find.c) */
  const char *_Atomic compile_fault;   /* tests: fail compiles whose name contains this */
  atomic_int refuse_classic;           /* tests: compiles asking for classic emitters fail as a newer plugin's */
  atomic_int modules_dumped;           /* TORCH_TPU_DUMP_MODULES_TO: files written (exec/module_dump.c) */
  atomic_int module_dump_warned;       /* ... and whether a failure to write one has been said */
  /* RNG (Philox key and offset) and the CPU fallback's bookkeeping. */
  uint64_t rng_seed, rng_offset;
  tt_fallback_t fallback;
  /* Counters. */
  tt_cache_stats_t stats;
  tt_memory_stats_t memory;
  tt_plan_stats_t plans;
  tt_launch_timing_t timing; /* device time of launches, when on (exec/stats.h) */
  uint64_t storage_serial; /* the next storage's serial (exec/storage.h) */
  /* Per-call scratch of the op facade (api/call.c), sized on first use. */
  struct tt_call_scratch_s *call_scratch;
};

/* Loads the plugin (see tt_pjrt_discover_plugin for the search order) and
 * creates an engine on its first device: tier 1, tiers 2 and 3 as the
 * environment asks (a tier that cannot be opened is left off with a
 * warning), the eager mode from the environment, PyTorch's default seed. */
tt_status_t tt_engine_create(const char *fallback_plugin, tt_engine_t **out_engine);
/* Whether programs compiled from now on may keep values in more precision
 * than their types (XLA's default, allowed = 1) or must keep every rounding
 * (0). Part of the compile-cache key: both kinds of executables coexist. */
void tt_engine_set_allow_excess_precision(tt_engine_t *e, int allowed);
/* The options half of the cache key of the programs launched now. */
uint64_t tt_engine_options_key(const tt_engine_t *e);

/* Runs what is queued, waits for launches in flight, joins the compile
 * pool, frees every cache and the runtime. NULL is a no-op. */
void tt_engine_destroy(tt_engine_t *e);

#define TT_VERSION "0.1.0"

#endif
