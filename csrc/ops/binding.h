/* What a region parameter a lowering adds is bound to when its program
 * launches: a storage's buffer, a device scalar, or host bytes. The engine
 * binds them (exec/run.h). */
#ifndef TT_OPS_BINDING_H
#define TT_OPS_BINDING_H

#include <stdint.h>

#include "base/dtype.h"
#include "ops/args.h"

typedef enum tt_bind_kind_e {
  TT_BIND_STORAGE, /* the storage's current buffer */
  TT_BIND_SCALAR,  /* a cached device scalar */
  TT_BIND_HOST,    /* host bytes uploaded for this launch */
  TT_BIND_RNG,     /* a random draw: host = {seed, offset}, uploaded as its three-fry key */
} tt_bind_kind_t;

typedef struct tt_binding_s {
  tt_bind_kind_t kind;
  tt_storage_t *storage; /* borrowed */
  tt_dtype_t dtype;
  uint64_t bits;         /* scalar bits */
  uint64_t host[2];      /* TT_BIND_HOST payload: a ui64[2]; TT_BIND_RNG: seed, offset */
} tt_binding_t;

/* splitmix64's finalizer: a bijection that scatters nearby inputs. */
static inline uint64_t tt_binding_mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* The ui64[2] state a TT_BIND_RNG parameter is bound to. Each draw gets its
 * own three-fry key, mixed from (seed, offset), with the counter at 0:
 * keying by seed with the offset as the counter made draw k+1 the stream of
 * draw k shifted by one block (rand(6) twice gave overlapping values).
 * Distinct offsets give distinct keys (mix64 is a bijection). The draw is
 * kept as (seed, offset) so that a replayed program (exec/plan.h) can bind
 * a fresh draw in its place. */
static inline void tt_binding_rng_state(uint64_t seed, uint64_t offset, uint64_t out[2]) {
  out[0] = tt_binding_mix64(seed ^ tt_binding_mix64(offset));
  out[1] = 0;
}

#endif
