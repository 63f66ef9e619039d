/* Element-function helpers shared by the elementwise, activation and foreach
 * lowerings (erf, NaN-propagating max/min, half-precision upcasting). */
#ifndef TT_OPS_ELEMENTWISE_H
#define TT_OPS_ELEMENTWISE_H

#include "ops/lower.h"

/* erf(x) for a floating x, accurate to a few ulp in f32. */
tt_val_t tt_ew_erf(tt_graph_t *g, tt_val_t x);
/* The standard normal CDF (1 + erf(x / sqrt 2)) / 2 for a floating x, as
 * erfc(-x / sqrt 2) / 2: the sum cancels for negative x (GELU). */
tt_val_t tt_ew_normal_cdf(tt_graph_t *g, tt_val_t x);
/* max/min that return NaN when either operand is NaN (PyTorch's maximum). */
tt_val_t tt_ew_max(tt_graph_t *g, tt_val_t x, tt_val_t y);
tt_val_t tt_ew_min(tt_graph_t *g, tt_val_t x, tt_val_t y);
/* Runtime scalar argument i in dtype, broadcast like x. */
tt_val_t tt_ew_scalar_like(tt_lower_t *L, int i, tt_val_t x);

#endif
