/* The complex lowerings of ops whose real lowering cannot see complex
 * values (ops/complex.c); each op's row names its own (ops/registry.h). */
#ifndef TT_OPS_COMPLEX_H
#define TT_OPS_COMPLEX_H

#include "ops/lower.h"

tt_status_t tt_complex_abs(tt_lower_t *L);
tt_status_t tt_complex_add(tt_lower_t *L);
tt_status_t tt_complex_angle(tt_lower_t *L);
tt_status_t tt_complex_cos(tt_lower_t *L);
tt_status_t tt_complex_cumprod(tt_lower_t *L);
tt_status_t tt_complex_cumsum(tt_lower_t *L);
tt_status_t tt_complex_div(tt_lower_t *L);
tt_status_t tt_complex_exp(tt_lower_t *L);
tt_status_t tt_complex_expm1(tt_lower_t *L);
tt_status_t tt_complex_isfinite(tt_lower_t *L);
tt_status_t tt_complex_isinf(tt_lower_t *L);
tt_status_t tt_complex_isnan(tt_lower_t *L);
tt_status_t tt_complex_log(tt_lower_t *L);
tt_status_t tt_complex_log1p(tt_lower_t *L);
tt_status_t tt_complex_logcumsumexp(tt_lower_t *L);
tt_status_t tt_complex_mean(tt_lower_t *L);
tt_status_t tt_complex_mean_dim(tt_lower_t *L);
tt_status_t tt_complex_mul(tt_lower_t *L);
tt_status_t tt_complex_neg(tt_lower_t *L);
tt_status_t tt_complex_pow(tt_lower_t *L);
tt_status_t tt_complex_prod(tt_lower_t *L);
tt_status_t tt_complex_prod_dim(tt_lower_t *L);
tt_status_t tt_complex_reciprocal(tt_lower_t *L);
tt_status_t tt_complex_rsqrt(tt_lower_t *L);
tt_status_t tt_complex_rsub(tt_lower_t *L);
tt_status_t tt_complex_sgn(tt_lower_t *L);
tt_status_t tt_complex_sigmoid(tt_lower_t *L);
tt_status_t tt_complex_silu(tt_lower_t *L);
tt_status_t tt_complex_sin(tt_lower_t *L);
tt_status_t tt_complex_sqrt(tt_lower_t *L);
tt_status_t tt_complex_sub(tt_lower_t *L);
tt_status_t tt_complex_sum(tt_lower_t *L);
tt_status_t tt_complex_sum_dim(tt_lower_t *L);
tt_status_t tt_complex_tan(tt_lower_t *L);
tt_status_t tt_complex_tanh(tt_lower_t *L);
tt_status_t tt_complex_trace(tt_lower_t *L);
tt_status_t tt_complex_vdot(tt_lower_t *L);
/* ops/complex_math.c */
/* exp(z) and log(z) with C99's special values where XLA's expansions differ:
 * exp(+-inf + i{inf, NaN}) is inf + iNaN or 0, exp(x + 0i) keeps its 0
 * imaginary part; log(z) has real part inf where a part is infinite, else
 * NaN where a part is NaN (XLA's abs drops a NaN imaginary part). */
tt_val_t tt_cx_exp(tt_graph_t *g, tt_val_t z);
tt_val_t tt_cx_log(tt_graph_t *g, tt_val_t z);
/* log1p(z) as CPU computes it (see tt_complex_log1p). */
tt_val_t tt_cx_log1p(tt_graph_t *g, tt_val_t z);
tt_status_t tt_complex_cosh(tt_lower_t *L);
tt_status_t tt_complex_acos(tt_lower_t *L);
tt_status_t tt_complex_asin(tt_lower_t *L);
tt_status_t tt_complex_atan(tt_lower_t *L);
tt_status_t tt_complex_acosh(tt_lower_t *L);
tt_status_t tt_complex_asinh(tt_lower_t *L);
tt_status_t tt_complex_atanh(tt_lower_t *L);
tt_status_t tt_complex_exp2(tt_lower_t *L);
tt_status_t tt_complex_log10(tt_lower_t *L);
tt_status_t tt_complex_log2(tt_lower_t *L);
tt_status_t tt_complex_nan_to_num(tt_lower_t *L);
tt_status_t tt_complex_sinh(tt_lower_t *L);

#endif
