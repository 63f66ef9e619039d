/* Tier 1 of the compile cache: loaded executables in process memory.
 * Thread safety: all functions lock internally. */
#ifndef TT_CACHE_TIER1_H
#define TT_CACHE_TIER1_H

#include <stddef.h>

#include "cache/key.h"
#include "pjrt/runtime.h"

typedef struct tt_tier1_s tt_tier1_t;

tt_status_t tt_tier1_create(tt_tier1_t **out_cache);
/* Destroys every executable it holds. */
void tt_tier1_destroy(tt_tier1_t *c, tt_pjrt_runtime_t *rt);
/* Borrowed executable or NULL. */
tt_pjrt_executable_t *tt_tier1_lookup(tt_tier1_t *c, const tt_cache_key_t *k);
/* Takes ownership of exe. If the key is already present (a race), exe is
 * destroyed and the existing one returned. */
tt_pjrt_executable_t *tt_tier1_insert(tt_tier1_t *c, tt_pjrt_runtime_t *rt, const tt_cache_key_t *k,
                                      tt_pjrt_executable_t *exe);
size_t tt_tier1_size(tt_tier1_t *c);

#endif
