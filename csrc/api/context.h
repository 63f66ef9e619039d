/* The process-wide state of the core: the runtime, the compile cache, RNG
 * state and counters. One device per process. Created once by tt_init. */
#ifndef TT_API_CONTEXT_H
#define TT_API_CONTEXT_H

#include <stdint.h>

#include "api/mode.h"
#include "cache/tier1.h"
#include "cache/tier2.h"
#include "cache/tier3.h"
#include "pjrt/runtime.h"

typedef struct tt_cache_stats_s {
  uint64_t requests, hits, misses, executables;
  uint64_t tier1_hits, tier2_hits, tier3_hits; /* hits = their sum */
  uint64_t tier2_writes, tier3_writes;
  uint64_t corrupt_entries; /* truncated, corrupt or foreign entries found (and replaced) */
  uint64_t write_errors;    /* entries that could not be stored (full disk, read-only dir) */
  uint64_t compile_waits;   /* compiles avoided by waiting for another process's (cache/claim.h) */
  uint64_t tier1_evicted;   /* executables evicted from tier 1 by its entry limit */
  uint64_t async_compiles;  /* tier-1 misses handed to the compile pool (exec/compile_pool.h) */
  uint64_t compile_joins;   /* misses that joined a compile of the same key already under way */
  double compile_seconds, load_seconds; /* load: reading + deserializing tier 2/3 entries */
} tt_cache_stats_t;

/* Bytes held by storages' device buffers (scalars and transfers excluded):
 * live now, the peak since the last reset, and how many buffers were taken
 * and given back. Updated atomically (api/storage.c): buffers are freed from
 * whichever thread drops a storage's last reference. */
typedef struct tt_memory_stats_s {
  int64_t live_bytes, peak_bytes;
  int64_t num_allocs, num_frees;
  int64_t live_buffers, peak_buffers;
  int64_t allocated_bytes, freed_bytes; /* totals since start */
} tt_memory_stats_t;

/* The counters read, or their peaks reset to the live values, atomically
 * (defined in api/storage.c beside the accounting). Need a context. */
tt_memory_stats_t tt_memory_snapshot(void);
void tt_memory_reset_peak(void);

typedef struct tt_ctx_s {
  tt_pjrt_runtime_t *rt;
  tt_tier1_t *tier1;
  tt_cache_dir_t *tier2; /* NULL when off */
  tt_cache_dir_t *tier3; /* NULL when off */
  uint64_t options_key; /* compile options + plugin identity + our version */
  uint64_t rng_seed, rng_offset;
  tt_cache_stats_t stats;
  tt_eager_mode_t mode;
  tt_memory_stats_t memory;
} tt_ctx_t;

/* Loads the plugin (see tt_pjrt_discover_plugin for the search order) and
 * creates the context. Idempotent: later calls return the first result. */
tt_status_t tt_init(const char *fallback_plugin);
/* NULL before a successful tt_init. */
tt_ctx_t *tt_ctx(void);
void tt_shutdown(void);

#define TT_VERSION "0.1.0"

#endif
