/* Mean and sum of squared deviations over some dims, as the normalization
 * ops and var/std need them: accurate where the values sit far from zero,
 * and exact on a constant group (mean = the value, deviations 0) as CPU's
 * Welford moments are. */
#ifndef TT_OPS_MOMENTS_H
#define TT_OPS_MOMENTS_H

#include "ops/common.h"

/* Over x's dims `dims` (nd of them, ascending; n elements per group):
 * returns the mean, shaped as x without those dims, and sets *m2 to
 * sum((x - mean)^2) there (>= 0). A group whose max equals its min (all
 * equal and finite) gets exactly that value and m2 = 0; otherwise
 * mean = sum(x) / n refined once by the mean of x - that estimate, and m2
 * from the same deviations, corrected for the refinement. */
tt_val_t tt_moments(tt_lower_t *L, tt_val_t x, int nd, const int64_t *dims, int64_t n, tt_val_t *m2);

/* v / n, a true division as CPU's mean's: n enters the program as a runtime
 * scalar, since XLA turns a division by a constant into a multiplication
 * by its rounded reciprocal (ones(3, 41).mean(1) came out 0.99999994). */
tt_val_t tt_div_count(tt_lower_t *L, tt_val_t v, double n);

#endif
