/* What this process's puts did to keep a cache directory tidy
 * (cache/sweep.h): a value type, readable above the cache layer. */
#ifndef TT_CACHE_DIR_STATS_H
#define TT_CACHE_DIR_STATS_H

#include <stdint.h>

typedef struct tt_cache_dir_stats_s {
  uint64_t sweeps, evicted, stale_temps_removed;
} tt_cache_dir_stats_t;

#endif
