/* Helpers shared by the special-function lowerings (special_*.c): short
 * arithmetic builders, polynomial/Chebyshev evaluation, and the wrappers that
 * give PyTorch's dtype rules (integers -> float32, bf16/f16 computed in f32
 * and rounded once). */
#ifndef TT_OPS_SPECIAL_H
#define TT_OPS_SPECIAL_H

#include "ops/lower.h"

tt_val_t tt_sp_c(tt_graph_t *g, tt_val_t like, double v);
tt_val_t tt_sp_add(tt_graph_t *g, tt_val_t x, tt_val_t y);
tt_val_t tt_sp_sub(tt_graph_t *g, tt_val_t x, tt_val_t y);
tt_val_t tt_sp_mul(tt_graph_t *g, tt_val_t x, tt_val_t y);
tt_val_t tt_sp_div(tt_graph_t *g, tt_val_t x, tt_val_t y);
tt_val_t tt_sp_lt(tt_graph_t *g, tt_val_t x, double v);
tt_val_t tt_sp_le(tt_graph_t *g, tt_val_t x, double v);
tt_val_t tt_sp_gt(tt_graph_t *g, tt_val_t x, double v);
tt_val_t tt_sp_eq(tt_graph_t *g, tt_val_t x, double v);
tt_val_t tt_sp_isnan(tt_graph_t *g, tt_val_t x);
tt_val_t tt_sp_and(tt_graph_t *g, tt_val_t a, tt_val_t b);
tt_val_t tt_sp_or(tt_graph_t *g, tt_val_t a, tt_val_t b);
/* pred ? v : x, v a constant. */
tt_val_t tt_sp_where_c(tt_graph_t *g, tt_val_t pred, double v, tt_val_t x);

/* c[0] x^(n-1) + ... + c[n-1] (coefficients highest degree first). */
tt_val_t tt_sp_poly(tt_graph_t *g, tt_val_t x, const double *c, int n);
/* The same with an implicit leading coefficient 1 (degree n). */
tt_val_t tt_sp_poly1(tt_graph_t *g, tt_val_t x, const double *c, int n);
/* Clenshaw sum of a Chebyshev series (Cephes' chbevl convention). */
tt_val_t tt_sp_chbevl(tt_graph_t *g, tt_val_t x, const double *c, int n);

/* Unary op on argument 0: result float type of the input, fn applied in the
 * math type, rounded once. */
tt_status_t tt_sp_unary(tt_lower_t *L, tt_val_t (*fn)(tt_graph_t *, tt_val_t));
/* Binary op on arguments a, b (tensors or numbers): promoted float result,
 * fn applied in the math type to the broadcast operands, rounded once. */
tt_status_t tt_sp_binary(tt_lower_t *L, int a, int b, tt_val_t (*fn)(tt_graph_t *, tt_val_t, tt_val_t));

#endif
