/* The two ops of torch.amp.GradScaler, as CPU's kernels
 * (ATen's cpu/AmpGradScalerKernels): _amp_foreach_non_finite_check_and_unscale_
 * (multiply every gradient by inv_scale in its opmath type; found_inf := 1
 * when any element of any gradient is inf or NaN, else left as it was) and
 * _amp_update_scale_ (back the scale off after an overflow, grow it after
 * growth_interval clean steps unless it would overflow float32). Both stay
 * on device: no host read of found_inf. */
#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"

/* A one-element tensor argument of dtype dt, as a rank-0 value; CPU's
 * check messages. */
static tt_val_t scalar_arg(tt_lower_t *L, int i, tt_dtype_t dt, const char *name, const char *type) {
  tt_val_t v = tt_op_one_element(L, i, name);
  if (v >= 0 && tt_l_arg_dtype(L, i) != dt) return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s must be a %s tensor.", name, type);
  return v;
}

/* _amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, Tensor inv_scale) -> () */
static tt_status_t lower_unscale(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int n = tt_l_list_len(L, 0);
  if (n <= 0) return NULL; /* an empty list: nothing to do, as CPU */
  tt_val_t found = scalar_arg(L, 1, TT_F32, "found_inf", "float"), inv = scalar_arg(L, 2, TT_F32, "inv_scale", "float");
  if (tt_graph_failed(g)) return NULL;
  tt_val_t all_finite = -1;
  for (int j = 0; j < n; j++) {
    tt_dtype_t dt = L->args[0].t[j].dtype;
    if (!tt_dtype_is_float(dt))
      return tt_op_refuse_dtype(dt, "_amp_foreach_non_finite_check_and_unscale_cpu");
    tt_dtype_t om = tt_op_math_type(dt);
    tt_val_t v = tt_b_convert(g, tt_l_tensor_elem(L, 0, j), om);
    tt_val_t finite = tt_b_compare(g, TT_CMP_LT, tt_b_unary(g, TT_UN_ABS, v), tt_b_like_f(g, v, __builtin_inf()));
    const tt_type_t *t = tt_graph_type(g, finite);
    int64_t dims[TT_MAX_RANK];
    for (int d = 0; d < t->rank; d++) dims[d] = d;
    tt_val_t ok = tt_b_reduce(g, TT_RED_AND, finite, t->rank, dims);
    all_finite = all_finite < 0 ? ok : tt_b_binary(g, TT_BIN_AND, all_finite, ok);
    /* inv_scale == 1 leaves val as it is on CPU; val * 1 is val */
    tt_l_write(L, 0, j, tt_b_convert(g, tt_b_binary(g, TT_BIN_MUL, v, tt_op_fit_like(L, inv, v)), dt));
  }
  tt_val_t next = tt_b_select(g, all_finite, found, tt_b_full_f(g, TT_F32, 0, NULL, 1.0));
  tt_l_write(L, 1, 0, tt_b_reshape(g, next, tt_l_arg_rank(L, 1), tt_l_arg_sizes(L, 1)));
  return NULL;
}

/* _amp_update_scale_(Tensor(a!) self, Tensor(b!) growth_tracker, Tensor found_inf,
 * float scale_growth_factor, float scale_backoff_factor, int growth_interval) -> Tensor(a!) */
static tt_status_t lower_update_scale(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  tt_val_t scale = scalar_arg(L, 0, TT_F32, "current_scale", "float");
  tt_val_t tracker = scalar_arg(L, 1, TT_I32, "growth_tracker", "int");
  tt_val_t found = scalar_arg(L, 2, TT_F32, "found_inf", "float");
  if (tt_graph_failed(g)) return NULL;
  /* float * double in double, stored as float (CPU's arithmetic) */
  tt_val_t s64 = tt_b_convert(g, scale, TT_F64);
  tt_val_t backed = tt_b_convert(g, tt_b_binary(g, TT_BIN_MUL, s64, tt_l_scalar_arg(L, 4, TT_F64)), TT_F32);
  tt_val_t grown = tt_b_convert(g, tt_b_binary(g, TT_BIN_MUL, s64, tt_l_scalar_arg(L, 3, TT_F64)), TT_F32);
  tt_val_t inf = tt_b_full_f(g, TT_F32, 0, NULL, __builtin_inf());
  tt_val_t grown_ok = tt_b_compare(g, TT_CMP_LT, tt_b_unary(g, TT_UN_ABS, grown), inf);
  tt_val_t successful = tt_b_binary(g, TT_BIN_ADD, tracker, tt_b_full_i(g, TT_I32, 0, NULL, 1));
  tt_val_t at_interval = tt_b_compare(g, TT_CMP_EQ, successful, tt_b_convert(g, tt_l_scalar_arg(L, 5, TT_I64), TT_I32));
  tt_val_t overflow = tt_b_compare(g, TT_CMP_NE, found, tt_b_full_f(g, TT_F32, 0, NULL, 0.0));
  tt_val_t zero_i = tt_b_full_i(g, TT_I32, 0, NULL, 0);
  tt_val_t clean_scale = tt_b_select(g, tt_b_binary(g, TT_BIN_AND, at_interval, grown_ok), grown, scale);
  tt_val_t new_scale = tt_b_select(g, overflow, backed, clean_scale);
  tt_val_t new_tracker = tt_b_select(g, overflow, zero_i, tt_b_select(g, at_interval, zero_i, successful));
  tt_l_write(L, 0, 0, tt_b_reshape(g, new_scale, tt_l_arg_rank(L, 0), tt_l_arg_sizes(L, 0)));
  tt_l_write(L, 1, 0, tt_b_reshape(g, new_tracker, tt_l_arg_rank(L, 1), tt_l_arg_sizes(L, 1)));
  L->returns_arg = 0;
  return NULL;
}

const tt_op_def_t tt_ops_amp[] = {
    {"_amp_foreach_non_finite_check_and_unscale_", lower_unscale, 0},
    {"_amp_update_scale_", lower_update_scale, 0},
    {NULL, NULL, 0},
};
