/* Lowerings of native_group_norm and its backward. (The forward used to run
 * PyTorch's composite, whose input.view() fails on channels_last input.) */
#include "ops/dispatch_refusal.h"
#include "ops/exact_diff.h"
#include "ops/families.h"
#include "ops/moments.h"
#include "ops/nn_util.h"
#include "ops/norm_mixed.h"

/* The checks both directions make of (input at `xarg`, N, C, HxW, group):
 * PyTorch's divisibility message, a floating dtype (CPU's refusal naming
 * `kernel`), N*C*HxW elements. */
static tt_status_t check_group_args(tt_lower_t *L, int xarg, int64_t n, int64_t c, int64_t hw, int64_t grp,
                                    const char *kernel, const char *op) {
  if (grp <= 0 || c % grp)
    return tt_status_make(TT_INVALID_ARGUMENT, "Expected number of channels in input to be divisible by num_groups, but got input of shape with %lld channels and num_groups=%lld",
                          (long long)c, (long long)grp);
  tt_dtype_t dt = tt_l_arg_dtype(L, xarg);
  if (!tt_dtype_is_float(dt)) return tt_op_refuse_dtype(dt, "%s", kernel);
  int64_t numel = 1;
  int r = tt_l_arg_rank(L, xarg);
  const int64_t *xs = tt_l_arg_sizes(L, xarg);
  for (int i = 0; i < r; i++) numel *= xs[i];
  if (numel != n * c * hw)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: input has %lld elements, expected N*C*HxW = %lld", op, (long long)numel, (long long)(n * c * hw));
  return TT_OK_STATUS;
}

/* native_group_norm_backward(grad_out, input, mean, rstd, weight?, N, C,
 * HxW, group, output_mask) -> (grad_input, grad_weight, grad_bias). With
 * xhat = (x - mean) * rstd per (n, group) and gw = grad_out * weight[c]:
 * grad_input = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)) over each group. */
static tt_status_t lower_group_norm_backward(tt_lower_t *L) {
  int64_t n = tt_l_int(L, 5, 0), c = tt_l_int(L, 6, 0), hw = tt_l_int(L, 7, 0), grp = tt_l_int(L, 8, 1);
  TT_RETURN_IF_ERROR(check_group_args(L, 1, n, c, hw, grp, "GroupNormBackwardKernelImpl", "native_group_norm_backward"));
  tt_dtype_t dt = tt_l_arg_dtype(L, 1), ct = tt_op_math_type(dt);
  tt_graph_t *g = L->g;
  int64_t cg = c / grp;
  int64_t d4[4] = {n, grp, cg, hw}, d2[2] = {n, grp};
  tt_val_t x = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 1), ct), 4, d4);
  tt_val_t go = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 0), ct), 4, d4);
  int64_t bd2[2] = {0, 1}, bdc[2] = {1, 2};
  tt_val_t mean = tt_b_broadcast(g, tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 2), ct), 2, d2), 4, d4, bd2);
  tt_val_t rstd = tt_b_broadcast(g, tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 3), ct), 2, d2), 4, d4, bd2);
  tt_val_t xhat = tt_b_binary(g, TT_BIN_MUL, tt_b_binary(g, TT_BIN_SUB, x, mean), rstd);
  int has_w = !tt_l_is_none(L, 4);
  int64_t dgc[2] = {grp, cg};
  tt_val_t w = has_w ? tt_b_broadcast(g, tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 4), ct), 2, dgc), 4, d4, bdc) : -1;
  tt_val_t gw = has_w ? tt_b_binary(g, TT_BIN_MUL, go, w) : go;
  int64_t red[2] = {2, 3};
  double cnt = (cg * hw) != 0 ? (double)(cg * hw) : 1.0; /* empty groups: sums of nothing, 0 */
  tt_val_t m1 = tt_b_broadcast(g, tt_div_count(L, tt_b_reduce(g, TT_RED_SUM, gw, 2, red), cnt), 4, d4, bd2);
  tt_val_t m2 = tt_b_broadcast(g, tt_div_count(L, tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, gw, xhat), 2, red), cnt), 4, d4, bd2);
  tt_val_t dx = tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_SUB, gw, m1), tt_b_binary(g, TT_BIN_MUL, xhat, m2));
  dx = tt_b_binary(g, TT_BIN_MUL, dx, rstd);
  tt_l_output(L, tt_b_convert(g, tt_b_reshape(g, dx, tt_l_arg_rank(L, 1), tt_l_arg_sizes(L, 1)), dt));
  int64_t rd[2] = {0, 3};
  tt_dtype_t wdt = has_w ? tt_l_arg_dtype(L, 4) : dt;
  tt_val_t dw = tt_b_reshape(g, tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, go, xhat), 2, rd), 1, &c);
  tt_val_t db = tt_b_reshape(g, tt_b_reduce(g, TT_RED_SUM, go, 2, rd), 1, &c);
  tt_l_output(L, tt_b_convert(g, dw, wdt));
  tt_l_output(L, tt_b_convert(g, db, wdt));
  return NULL;
}

/* native_group_norm(input, weight?, bias?, N, C, HxW, group, eps) -> (out,
 * mean, rstd): per (n, group) mean and biased variance in the opmath type,
 * rstd = 1 / sqrt(var + eps), out = (x - mean) * rstd * weight[c] + bias[c];
 * mean and rstd [N, group] in the input's dtype, as CPU. */
static tt_status_t lower_group_norm(tt_lower_t *L) {
  int64_t n = tt_l_int(L, 3, 0), c = tt_l_int(L, 4, 0), hw = tt_l_int(L, 5, 0), grp = tt_l_int(L, 6, 1);
  double eps = tt_l_float(L, 7, 1e-5);
  TT_RETURN_IF_ERROR(check_group_args(L, 0, n, c, hw, grp, "GroupNormKernelImpl", "native_group_norm"));
  static const int params[2] = {1, 2};
  if (!tt_norm_check_mixed(L, 0, params, 2)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), ct = tt_op_math_type(dt);
  tt_graph_t *g = L->g;
  int64_t cg = c / grp;
  int64_t d4[4] = {n, grp, cg, hw}, d2[2] = {n, grp}, dgc[2] = {grp, cg};
  int64_t bd2[2] = {0, 1}, bdc[2] = {1, 2}, red[2] = {2, 3};
  tt_val_t x = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 0), ct), 4, d4);
  tt_val_t m2 = -1;
  tt_val_t mean = tt_moments(L, x, 2, red, cg * hw, &m2);
  if (cg * hw == 0) { /* CPU's empty groups: mean 0, rstd 1/sqrt(eps) */
    mean = tt_b_like_f(g, mean, 0.0);
    m2 = tt_b_like_f(g, m2, 0.0);
  }
  tt_val_t xc = tt_exact_diff(g, x, tt_b_broadcast(g, mean, 4, d4, bd2));
  tt_val_t var = tt_div_count(L, m2, cg * hw != 0 ? (double)(cg * hw) : 1.0);
  tt_val_t rstd = tt_b_unary(g, TT_UN_RSQRT, tt_nn_addc(g, var, eps));
  tt_val_t y = tt_b_binary(g, TT_BIN_MUL, xc, tt_b_broadcast(g, rstd, 4, d4, bd2));
  if (!tt_l_is_none(L, 1))
    y = tt_b_binary(g, TT_BIN_MUL, y, tt_b_broadcast(g, tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 1), ct), 2, dgc), 4, d4, bdc));
  if (!tt_l_is_none(L, 2))
    y = tt_b_binary(g, TT_BIN_ADD, y, tt_b_broadcast(g, tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 2), ct), 2, dgc), 4, d4, bdc));
  tt_l_output(L, tt_b_convert(g, tt_b_reshape(g, y, tt_l_arg_rank(L, 0), tt_l_arg_sizes(L, 0)), dt));
  tt_l_output(L, tt_b_convert(g, tt_b_reshape(g, mean, 2, d2), dt));
  tt_l_output(L, tt_b_convert(g, tt_b_reshape(g, rstd, 2, d2), dt));
  return NULL;
}

const tt_op_def_t tt_ops_group_norm[] = {
    {"native_group_norm", lower_group_norm, 0, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"native_group_norm_backward", lower_group_norm_backward, 0},
    {NULL, NULL, 0},
};
