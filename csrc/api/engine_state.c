/* The engine's settings and counters for the embedding (api/engine_state.h). */
#include "api/engine_state.h"

#include <stdio.h>

#include "api/call.h"
#include "api/compiled.h"
#include "exec/compile_pool.h"
#include "exec/engine.h"
#include "exec/fallback.h"

const char *tt_engine_version(void) { return TT_VERSION; }

tt_cache_report_t tt_engine_cache_report(const tt_engine_t *e) {
  tt_cache_report_t r = {.stats = e->stats};
  if (e->tier2) {
    r.tier2 = tt_cache_dir_stats(e->tier2);
    r.tier2_dir = tt_cache_dir_path(e->tier2);
  }
  if (e->tier3) {
    r.tier3 = tt_cache_dir_stats(e->tier3);
    r.tier3_dir = tt_cache_dir_path(e->tier3);
  }
  return r;
}

const tt_pjrt_info_t *tt_engine_runtime_info(const tt_engine_t *e, int64_t stablehlo_version[3]) {
  stablehlo_version[0] = stablehlo_version[1] = stablehlo_version[2] = 0;
  tt_pjrt_runtime_stablehlo_version(e->rt, stablehlo_version);
  return tt_pjrt_runtime_info(e->rt);
}

int tt_engine_device_memory(tt_engine_t *e, tt_pjrt_memory_t *out) { return tt_pjrt_device_memory(e->rt, out); }

void tt_engine_rng_state(const tt_engine_t *e, uint64_t *seed, uint64_t *offset) {
  *seed = e->rng_seed;
  *offset = e->rng_offset;
}

void tt_engine_set_rng_state(tt_engine_t *e, uint64_t seed, uint64_t offset) {
  e->rng_seed = seed;
  e->rng_offset = offset;
}

bool tt_engine_allows_excess_precision(const tt_engine_t *e) { return !e->exact_precision; }

tt_status_t tt_engine_change_excess_precision(tt_engine_t *e, bool allowed) {
  tt_status_t s = tt_materialize(e, "torch.tpu.allow_excess_precision");
  if (s) return s;
  tt_engine_set_allow_excess_precision(e, allowed);
  return TT_OK_STATUS;
}

tt_region_stats_t tt_engine_region_stats(tt_engine_t *e) { return *tt_region_stats(e); }
tt_memory_stats_t tt_engine_memory(const tt_engine_t *e) { return tt_memory_snapshot(e); }
void tt_engine_reset_memory_peak(tt_engine_t *e) { tt_memory_reset_peak(e); }

void tt_engine_set_defer_chunk_ops(tt_engine_t *e, int n) { tt_region_set_chunk_ops(e, n); }
int tt_engine_defer_chunk_ops(tt_engine_t *e) { return tt_region_chunk_ops(e); }

void tt_engine_stop_compiles(tt_engine_t *e) { tt_compile_pool_shutdown(e); }

void tt_engine_set_fallback(tt_engine_t *e, bool on) { tt_fallback_set_enabled(&e->fallback, on); }
bool tt_engine_fallback_enabled(const tt_engine_t *e) { return tt_fallback_enabled(&e->fallback); }

tt_status_t tt_engine_fallback_enter(tt_engine_t *e, const char *op, bool *out_first) {
  tt_status_t s = tt_fallback_enter(&e->fallback, op, out_first);
  if (s) return s;
  char why[256];
  snprintf(why, sizeof why, "%s has no TPU lowering and ran on the CPU (the CPU fallback)", op);
  tt_compiled_capture_refuse(e, why);
  return TT_OK_STATUS;
}

int tt_engine_fallback_op_count(const tt_engine_t *e) { return tt_fallback_op_count(&e->fallback); }
const char *tt_engine_fallback_op(const tt_engine_t *e, int i, uint64_t *out_runs) {
  return tt_fallback_op(&e->fallback, i, out_runs);
}
void tt_engine_fallback_reset(tt_engine_t *e) { tt_fallback_reset(&e->fallback); }
tt_status_t tt_engine_fallback_unsupported(const char *op, const char *what) { return tt_fallback_unsupported(op, what); }

void tt_engine_set_eager_buckets(tt_engine_t *e, int on) { e->eager_buckets = on != 0; }

int tt_engine_eager_buckets(const tt_engine_t *e) { return e->eager_buckets; }

void tt_engine_set_eager_bucket_min(tt_engine_t *e, int64_t n) { e->eager_bucket_min = n < 1 ? 1 : n; }

int64_t tt_engine_eager_bucket_min(const tt_engine_t *e) { return e->eager_bucket_min; }

void tt_engine_set_tiered_compile(tt_engine_t *e, int threshold) { tt_tiered_set_threshold(e, threshold); }

int tt_engine_tiered_compile(tt_engine_t *e) { return tt_tiered_threshold(e); }

tt_status_t tt_engine_set_launch_timing(tt_engine_t *e, bool on) {
  tt_status_t s = tt_synchronize(e); /* what ran before is not counted, nor left running */
  e->timing = (tt_launch_timing_t){.on = on};
  return s;
}

tt_launch_timing_t tt_engine_launch_timing(const tt_engine_t *e) { return e->timing; }
