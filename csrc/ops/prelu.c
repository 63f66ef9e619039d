/* Lowerings of _prelu_kernel and _prelu_kernel_backward: weight arrives
 * already shaped to broadcast against self (prelu reshapes it). */
#include "ops/families.h"
#include "ops/dispatch_refusal.h"
#include "ops/nn_util.h"

/* Both tensors converted to the compute type and broadcast together. */
static int operands(tt_lower_t *L, const int *ids, int n, tt_val_t *out, tt_dtype_t *dt, tt_dtype_t *ct, int64_t *dims) {
  *dt = tt_l_arg_dtype(L, 1);
  if (!tt_dtype_is_float(*dt)) {
    tt_l_refuse_dtype(L, *dt, "prelu_cpu");
    return -1;
  }
  *ct = tt_op_math_type(*dt);
  int r = tt_op_broadcast_shape(L, ids, n, dims);
  if (tt_graph_failed(L->g)) return -1;
  for (int i = 0; i < n; i++) out[i] = tt_op_operand(L, ids[i], *ct, r, dims);
  return r;
}

/* _prelu_kernel(self, weight): self > 0 ? self : weight * self */
static tt_status_t lower_prelu(tt_lower_t *L) {
  static const int ids[2] = {0, 1};
  tt_val_t v[2];
  tt_dtype_t dt, ct;
  int64_t dims[TT_MAX_RANK];
  tt_dtype_t sdt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(sdt)) return tt_op_refuse_dtype(sdt, "prelu_cpu");
  if (operands(L, ids, 2, v, &dt, &ct, dims) < 0) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t pos = tt_b_compare(g, TT_CMP_GT, v[0], tt_b_like_f(g, v[0], 0));
  tt_val_t y = tt_b_select(g, pos, v[0], tt_b_binary(g, TT_BIN_MUL, v[1], v[0]));
  tt_l_output(L, tt_b_convert(g, y, sdt));
  return NULL;
}

/* _prelu_kernel_backward(grad_output, self, weight) -> (grad_self,
 * grad_weight), both of the broadcast shape (autograd sums grad_weight to
 * the weight's shape). */
static tt_status_t lower_prelu_backward(tt_lower_t *L) {
  static const int ids[3] = {0, 1, 2};
  tt_val_t v[3];
  tt_dtype_t dt, ct;
  int64_t dims[TT_MAX_RANK];
  if (operands(L, ids, 3, v, &dt, &ct, dims) < 0) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t pos = tt_b_compare(g, TT_CMP_GT, v[1], tt_b_like_f(g, v[1], 0));
  tt_val_t gx = tt_b_select(g, pos, v[0], tt_b_binary(g, TT_BIN_MUL, v[2], v[0]));
  tt_val_t gw = tt_b_select(g, pos, tt_b_like_f(g, v[0], 0), tt_b_binary(g, TT_BIN_MUL, v[1], v[0]));
  tt_l_output(L, tt_b_convert(g, gx, dt));
  tt_l_output(L, tt_b_convert(g, gw, tt_l_arg_dtype(L, 2)));
  return NULL;
}

const tt_op_def_t tt_ops_prelu[] = {
    {"_prelu_kernel", lower_prelu, 0},
    {"_prelu_kernel_backward", lower_prelu_backward, 0},
    {NULL, NULL, 0},
};
