/* Compile claims: when several processes of one host miss the same key at
 * once (the ranks of a job starting together), one compiles and the others
 * wait for its tier-2 entry instead of compiling the same program N times.
 * A claim is a file "<key>.ttx.claim" holding the owner's pid, created with
 * O_EXCL in the host-local tier-2 directory. A claim whose owner died is
 * taken over; waiters give up after a bound and compile themselves, so a
 * claim can delay a compile but never block one. */
#ifndef TT_CACHE_CLAIM_H
#define TT_CACHE_CLAIM_H

#include "cache/key.h"
#include "cache/store.h"

typedef enum tt_cache_claim_e {
  TT_CLAIM_OWNED,      /* this process compiles, then releases */
  TT_CLAIM_BUSY,       /* another process holds the claim */
  TT_CLAIM_UNAVAILABLE /* the directory refused the file: compile without claiming */
} tt_cache_claim_t;

tt_cache_claim_t tt_cache_claim(tt_cache_dir_t *d, const tt_cache_key_t *key);
void tt_cache_claim_release(tt_cache_dir_t *d, const tt_cache_key_t *key);
/* Whether a live process holds key's claim; removes a dead owner's claim. */
int tt_cache_claim_held(tt_cache_dir_t *d, const tt_cache_key_t *key);

#endif
