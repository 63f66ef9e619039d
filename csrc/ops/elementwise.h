/* Element-function helpers shared by the elementwise, activation and foreach
 * lowerings (erf, sinh/cosh, nan_to_num, NaN-propagating max/min). */
#ifndef TT_OPS_ELEMENTWISE_H
#define TT_OPS_ELEMENTWISE_H

#include "ops/lower.h"

/* erf(x) for a floating x, accurate to a few ulp in f32. */
tt_val_t tt_ew_erf(tt_graph_t *g, tt_val_t x);
/* float32 erf is +-1 exactly from here on (CPU's erff, and the true value
 * rounded to float32). */
#define TT_ERF_F32_SATURATES 3.9277801513671875
/* The standard normal CDF (1 + erf(x / sqrt 2)) / 2 for a floating x, not
 * through that sum, which cancels for negative x (GELU); ops/normal_cdf.c. */
tt_val_t tt_ew_normal_cdf(tt_graph_t *g, tt_val_t x);
/* hypot(x, y) as C's: m sqrt(1 + (n/m)^2) with m = max(|x|, |y|), no
 * overflow or squares; inf wins over NaN. */
tt_val_t tt_ew_hypot(tt_graph_t *g, tt_val_t x, tt_val_t y);
/* max/min that return NaN when either operand is NaN (PyTorch's maximum). */
tt_val_t tt_ew_max(tt_graph_t *g, tt_val_t x, tt_val_t y);
tt_val_t tt_ew_min(tt_graph_t *g, tt_val_t x, tt_val_t y);
/* sinh/cosh of a floating x in its own type, accurate and overflow-free
 * up to the largest finite result. */
tt_val_t tt_ew_sinh(tt_graph_t *g, tt_val_t x);
tt_val_t tt_ew_cosh(tt_graph_t *g, tt_val_t x);
/* nan_to_num(x, nan=arg 1, posinf=arg 2, neginf=arg 3) of a floating x. */
tt_val_t tt_ew_nan_to_num(tt_lower_t *L, tt_val_t x);
/* Runtime scalar argument i in dtype, broadcast like x. */
tt_val_t tt_ew_scalar_like(tt_lower_t *L, int i, tt_val_t x);

#endif
