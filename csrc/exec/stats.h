/* An engine's counters: compile-cache statistics and device memory held by
 * storages (fields of tt_engine_t, exec/engine.h). */
#ifndef TT_EXEC_STATS_H
#define TT_EXEC_STATS_H

#include <stdint.h>

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
  uint64_t fast_compiles;   /* compiled quickly first (tiered compilation, exec/tiered.h) */
  uint64_t upgrades;        /* hot quick executables replaced by optimized ones */
  double compile_seconds, load_seconds; /* load: reading + deserializing tier 2/3 entries */
} tt_cache_stats_t;

/* Compiled graphs (exec/plan.h): captures made, captures abandoned (the
 * graph then runs op by op), replays, and the replays recorded into the
 * open region as calls (exec/plan_defer.h). */
typedef struct tt_plan_stats_s {
  uint64_t captures, capture_failures, replays, deferred;
} tt_plan_stats_t;

/* Bytes held by storages' device buffers (scalars and transfers excluded):
 * live now, the peak since the last reset, and how many buffers were taken
 * and given back. Updated atomically (exec/storage.c): buffers are freed from
 * whichever thread drops a storage's last reference. */
typedef struct tt_memory_stats_s {
  int64_t live_bytes, peak_bytes;
  int64_t num_allocs, num_frees;
  int64_t live_buffers, peak_buffers;
  int64_t allocated_bytes, freed_bytes; /* totals since start */
} tt_memory_stats_t;

/* Launch timing (engine field `timing`; exec/run.c times, api/engine_state.h
 * turns it on): the device time of the programs an engine launches, for
 * benchmarks that compare a step's wall time with the time its programs take.
 *
 * When on, every launch (eager op, DeferAndFuse region, compiled plan) waits
 * for its program before returning and adds the time from handing it to the
 * plugin until its results are ready. The host therefore never runs ahead of
 * the device while it is on: turn it on for a measuring round of its own, not
 * for the round whose wall time you report. The time includes the plugin's
 * own work to start a program (argument checks, dispatch) -- on XLA's CPU
 * plugin cheap programs run inline on the calling thread, so a per-thread
 * CPU split would count them as host time; this counts them as device time.
 * Transfers (uploads, downloads) are not launches and are not counted.
 *
 * Threading: a field of the engine (exec/engine.h), read and written under
 * its owner's serialization like every other field. */
typedef struct tt_launch_timing_s {
  int on;
  uint64_t ns;       /* summed launch-to-ready time since it was turned on */
  uint64_t launches; /* launches timed */
} tt_launch_timing_t;

/* DeferAndFuse's region counters (exec/region.h). */
typedef struct tt_region_stats_s {
  uint64_t flushes;      /* regions run */
  uint64_t last_nodes;   /* nodes in the last region run */
  uint64_t last_outputs; /* live outputs of the last region run */
  uint64_t last_ops;     /* ATen ops in the last region run */
  uint64_t repeat_cuts;  /* regions closed by the repeated-ops heuristic */
  uint64_t chunk_cuts;   /* regions closed after TORCH_TPU_DEFER_CHUNK_OPS ops */
  uint64_t ops;          /* ATen ops recorded so far, all regions */
} tt_region_stats_t;

#endif
