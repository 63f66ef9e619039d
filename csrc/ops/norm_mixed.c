/* CPU's mixed-dtype rule of the normalization ops (ops/norm_mixed.h). */
#include "ops/norm_mixed.h"

int tt_norm_check_mixed(tt_lower_t *L, int inputi, const int *parami, int n) {
  tt_dtype_t x = tt_l_arg_dtype(L, inputi);
  int first = -1;
  for (int k = 0; k < n && first < 0; k++)
    if (!tt_l_is_none(L, parami[k])) first = k;
  if (first < 0) return 1;
  if (tt_l_arg_dtype(L, parami[first]) == x) { /* not mixed: CPU's kernel reads every parameter as the input's type */
    for (int k = first + 1; k < n; k++) {
      tt_dtype_t q = tt_l_is_none(L, parami[k]) ? x : tt_l_arg_dtype(L, parami[k]);
      if (q != x) {
        tt_l_fail(L, TT_INVALID_ARGUMENT, "expected scalar type %s but found %s", tt_op_type_name(x), tt_op_type_name(q));
        return 0;
      }
    }
    return 1;
  }
  for (int k = first; k < n; k++)
    if (!tt_l_is_none(L, parami[k]) && tt_l_arg_dtype(L, parami[k]) != TT_F32) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "mixed dtype (CPU): expect parameter to have scalar type of Float");
      return 0;
    }
  if (x != TT_F16 && x != TT_BF16) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "mixed dtype (CPU): all inputs must share same datatype.");
    return 0;
  }
  return 1;
}
