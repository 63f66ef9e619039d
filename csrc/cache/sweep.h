/* Size limit and clean-up of a cache directory (tiers 2 and 3). */
#ifndef TT_CACHE_SWEEP_H
#define TT_CACHE_SWEEP_H

#include <stdint.h>

#include "base/status.h"

typedef struct tt_cache_sweep_result_s {
  uint64_t entries, bytes;      /* what the directory holds after the sweep */
  uint64_t evicted;             /* entries removed to get under the limit */
  uint64_t stale_temps_removed; /* temp files of writers that died mid-write */
} tt_cache_sweep_result_t;

/* Lists dir once: removes temp files older than stale_tmp_seconds and, when
 * the entries exceed max_bytes (0: no limit), removes the least recently used
 * ones until they fit in target_bytes. Safe with other processes sweeping,
 * reading and writing the same directory at once. */
tt_status_t tt_cache_sweep(const char *dir, uint64_t max_bytes, uint64_t target_bytes, double stale_tmp_seconds,
                           tt_cache_sweep_result_t *out);

/* "512M", "2G", "1.5GiB", "1000000" -> bytes; fallback when empty or not a size. */
uint64_t tt_cache_parse_bytes(const char *text, uint64_t fallback);

#endif
