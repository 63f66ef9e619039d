/* The engine's settings and counters as the embedding reads and sets them:
 * the binding asks these functions instead of reaching into tt_engine_t's
 * fields. Threading: as every api/ call, under the embedding's engine lock. */
#ifndef TT_API_ENGINE_STATE_H
#define TT_API_ENGINE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/status.h"
#include "exec/engine_type.h"
#include "cache/dir_stats.h"
#include "exec/mode.h" /* eager modes: tt_set_eager_mode, tt_get_eager_mode */
#include "exec/stats.h"
#include "pjrt/info.h"

/* The core's version string. */
const char *tt_engine_version(void);

/* The compile-cache counters and the shared (tier 2) and persistent (tier 3)
 * directories: a path is NULL and its counters zero when that tier is off. */
typedef struct tt_cache_report_s {
  tt_cache_stats_t stats;
  tt_cache_dir_stats_t tier2, tier3;
  const char *tier2_dir, *tier3_dir;
} tt_cache_report_t;
tt_cache_report_t tt_engine_cache_report(const tt_engine_t *e);

/* The plugin's description and the StableHLO version its compiler emits
 * ({0, 0, 0} when it does not say). */
const tt_pjrt_info_t *tt_engine_runtime_info(const tt_engine_t *e, int64_t stablehlo_version[3]);
/* The plugin allocator's counters of device 0; 0 when the plugin has none. */
int tt_engine_device_memory(tt_engine_t *e, tt_pjrt_memory_t *out);

/* The default generator's (seed, offset): each random op draws from
 * (seed, offset) and advances offset. */
void tt_engine_rng_state(const tt_engine_t *e, uint64_t *seed, uint64_t *offset);
void tt_engine_set_rng_state(tt_engine_t *e, uint64_t seed, uint64_t offset);

/* torch.tpu.allow_excess_precision: whether the compiler may keep
 * intermediate values in a wider type. Setting it first runs deferred work
 * under the old setting. */
bool tt_engine_allows_excess_precision(const tt_engine_t *e);
tt_status_t tt_engine_change_excess_precision(tt_engine_t *e, bool allowed);

/* The engine's memory counters read, or their peaks reset to the live values. */
tt_memory_stats_t tt_engine_memory(const tt_engine_t *e);
void tt_engine_reset_memory_peak(tt_engine_t *e);

/* DeferAndFuse's region counters and its chunk length (ops per region). */
tt_region_stats_t tt_engine_region_stats(tt_engine_t *e);
void tt_engine_set_defer_chunk_ops(tt_engine_t *e, int n);
int tt_engine_defer_chunk_ops(tt_engine_t *e);

/* Eager buckets (TORCH_TPU_EAGER_BUCKETS): ops on padded tensors run at
 * their bucket's shape (ops/bucket.h). */
void tt_engine_set_eager_buckets(tt_engine_t *e, int on);
int tt_engine_eager_buckets(const tt_engine_t *e);
/* The least capacity of a small tensor's grown dim (TORCH_TPU_EAGER_BUCKET_MIN,
 * ops/bucket.h); values below 1 are 1. */
void tt_engine_set_eager_bucket_min(tt_engine_t *e, int64_t n);
int64_t tt_engine_eager_bucket_min(const tt_engine_t *e);

/* Tiered compilation's threshold (exec/tiered.h; 0 off, -1 the
 * environment's TORCH_TPU_TIERED_COMPILE) and its current value. */
void tt_engine_set_tiered_compile(tt_engine_t *e, int threshold);
int tt_engine_tiered_compile(tt_engine_t *e);

/* Launch timing (its counters and what they mean: exec/stats.h): turning it on or off first waits for
 * the launches in flight (their errors are returned) and zeroes the counters. */
tt_status_t tt_engine_set_launch_timing(tt_engine_t *e, bool on);
tt_launch_timing_t tt_engine_launch_timing(const tt_engine_t *e);

/* Stops the compile threads (at the embedding's exit, while the plugin is whole). */
void tt_engine_stop_compiles(tt_engine_t *e);

/* The CPU fallback: on/off, the ops that ran there and how often. Entering
 * it for an op also ends any graph capture (a capture cannot hold a CPU op);
 * *out_first says whether this is the op's first fallback run. */
void tt_engine_set_fallback(tt_engine_t *e, bool on);
bool tt_engine_fallback_enabled(const tt_engine_t *e);
tt_status_t tt_engine_fallback_enter(tt_engine_t *e, const char *op, bool *out_first);
int tt_engine_fallback_op_count(const tt_engine_t *e);
const char *tt_engine_fallback_op(const tt_engine_t *e, int i, uint64_t *out_runs);
void tt_engine_fallback_reset(tt_engine_t *e);
/* The error for an input the fallback cannot take (sparse, quantized...). */
tt_status_t tt_engine_fallback_unsupported(const char *op, const char *what);

#endif
