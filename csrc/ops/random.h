/* Samplers shared by the random op families (random.c, random_dist.c,
 * multinomial.c, rrelu.c): all draw from the device generator's state. */
#ifndef TT_OPS_RANDOM_H
#define TT_OPS_RANDOM_H

#include "ops/lower.h"

/* Fresh random bits of element type bt (TT_U32 or TT_U64); advances the generator. */
tt_val_t tt_rand_bits(tt_lower_t *L, tt_dtype_t bt, int rank, const int64_t *dims);
/* The type samplers compute in: f64 for f64, else f32. */
tt_dtype_t tt_rand_compute_type(tt_dtype_t dt);
/* Uniform in [0, 1) with the precision of `prec` (exact when converted to
 * prec, never 1), in the compute type of prec. */
tt_val_t tt_rand_uniform01(tt_lower_t *L, tt_dtype_t prec, int rank, const int64_t *dims);
/* Uniform in the open (0, 1), in compute type ct (TT_F32 or TT_F64): for
 * samplers taking logs or dividing, where an endpoint would give inf or NaN. */
tt_val_t tt_rand_uniform_open(tt_lower_t *L, tt_dtype_t ct, int rank, const int64_t *dims);
/* Standard normal samples (Box-Muller) in the compute type of dt. */
tt_val_t tt_rand_std_normal(tt_lower_t *L, tt_dtype_t dt, int rank, const int64_t *dims);
/* Writes v (any float type) into argument 0 (self) in self's dtype; the op returns self. */
tt_status_t tt_rand_write_self(tt_lower_t *L, tt_val_t v);

#endif
