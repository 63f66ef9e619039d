/* out= step of the facade (api/out_write.h). */
#include "api/out_write.h"

#include <string.h>

#include "ops/common.h"
#include "ops/complex_refusal.h"
#include "ops/out_rules.h"

/* abs.out of a complex input (CPU's unary_op_impl_with_complex_to_float_out):
 * a real out takes the real result by canCast; a complex out goes through
 * TensorIterator's same-dtype check against the input (and holds |z| + 0j). */
static tt_status_t complex_abs_out(tt_dtype_t in, tt_dtype_t result, tt_dtype_t out) {
  if (!tt_dtype_is_complex(out)) {
    if (tt_op_can_cast(result, out)) return NULL;
    return tt_status_make(TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type %s",
                          tt_op_type_name(result), tt_op_type_name(out));
  }
  if (out == in) return NULL;
  return tt_status_make(TT_INVALID_ARGUMENT, "Found dtype %s but expected %s", tt_op_type_name(out), tt_op_type_name(in));
}

tt_status_t tt_call_check_out_input(const char *name, tt_dtype_t in, tt_dtype_t out) {
  /* CPU's nansum_out refuses a complex input before the dims and out's dtype */
  if (!strcmp(name, "nansum.out") && tt_dtype_is_complex(in)) return tt_status_make(TT_INVALID_ARGUMENT, TT_NANSUM_COMPLEX_MSG);
  return tt_op_check_out_input(name, in, out);
}

tt_status_t tt_call_check_out_dtype(const char *name, int k, tt_dtype_t result, tt_dtype_t out, tt_dtype_t in,
                                    int64_t in_numel) {
  if (tt_op_out_unchecked_if_empty(name, in, in_numel)) return NULL;
  tt_status_t first = tt_call_check_out_input(name, in, out);
  if (first) return first;
  const char *rule = tt_op_out_rule_for_input(name, in); /* nansum of an integral input: sum's rule */
  if (rule != name) {
    name = rule;
    if (tt_op_out_dtype_from_out(rule)) result = out; /* which computes in out's dtype */
  }
  if (!strcmp(name, "abs.out") && tt_dtype_is_complex(in)) return complex_abs_out(in, result, out);
  /* so do clamp's and floor's checks of a complex input (their meta
   * functions), and of a complex operand other than the first: its result
   * (clamp_max(int, 1j, out=int32) is clamp's refusal, not the dtype rule's
   * error; maximum(bool, complex, out=int32) maximum's) */
  if (tt_dtype_is_complex(in) || tt_dtype_is_complex(result)) {
    tt_status_t s = tt_complex_refusal_of_out(name);
    if (s) return s;
  }
  return tt_op_check_out(name, k, result, out);
}

tt_status_t tt_call_check_out_dtype_first(const char *name, int k, tt_dtype_t result, tt_dtype_t out, tt_dtype_t in,
                                          int64_t in_numel) {
  if (tt_op_out_empty_first(name, k, in_numel)) return NULL; /* the empty dim's IndexError first, else the check after */
  if (result == TT_DTYPE_INVALID) { /* the meta kernel raised: its own error comes with the call */
    tt_status_t first = tt_call_check_out_input(name, in, out); /* unless CPU checks the input's dtype first */
    if (first || in == TT_DTYPE_INVALID || !tt_op_out_dtype_before_dims(name)) return first;
    /* amax/amin's rule compares out with the input; any/all's looks at out
     * alone; cummax/cummin's second output, their indices, is Long */
    result = k == 0 ? in : TT_I64;
  }
  return tt_call_check_out_dtype(name, k, result, out, in, in_numel);
}

tt_status_t tt_call_check_out_operands(const char *name, tt_dtype_t operands, tt_dtype_t out) {
  if (!tt_complex_binary_out(name) || operands == TT_DTYPE_INVALID || out == TT_DTYPE_INVALID ||
      tt_op_can_cast(operands, out))
    return NULL;
  return tt_status_make(TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type %s",
                        tt_op_type_name(operands), tt_op_type_name(out));
}

tt_status_t tt_call_check_out_complex32(const char *name, int k, tt_dtype_t out, int operands) {
  if (operands && !tt_complex_binary_out(name)) return NULL;
  tt_status_t s = tt_complex_refusal_of_out(name); /* a complex operand's own refusal first, as above */
  return s ? s : tt_op_check_out_complex32(name, k, out);
}

const char *tt_call_out_result_with(const char *name) { return tt_op_out_result_with(name); }

const char *tt_call_out_rule_if_0dim(const char *name, int *arg) { return tt_op_out_rule_if_0dim(name, arg); }

int tt_call_out_input_from_out(const char *name) { return tt_op_out_input_from_out(name); }

tt_status_t tt_call_out_input_dtype(const char *name, tt_dtype_t in, int64_t in_numel, int64_t res_numel, tt_dtype_t out,
                                    tt_dtype_t *convert) {
  return tt_op_out_input_dtype(name, in, in_numel, res_numel, out, convert);
}

const char *tt_call_out_into(const char *name, tt_dtype_t in, tt_dtype_t out, tt_dtype_t default_float) {
  return tt_op_out_into(name, in, out, default_float);
}

tt_status_t tt_call_check_out_write(const char *name, int k, const tt_tensor_ref_t *out, tt_dtype_t result,
                                    const int64_t *res, int res_rank, const tt_tensor_ref_t *ins, int nins,
                                    tt_out_resize_t *resize, char *warn, size_t cap) {
  int64_t in_numel = nins > 0 ? tt_view_numel(&ins[0].view) : -1;
  tt_status_t s = tt_call_check_out_dtype(name, k, result, out->dtype, nins > 0 ? ins[0].dtype : TT_DTYPE_INVALID, in_numel);
  if (s) return s;
  for (int i = 0; i < nins; i++)
    if ((s = tt_op_out_overlap(out, &ins[i]))) return s;
  *resize = tt_op_out_resize(out->view.sizes, out->view.rank, res, res_rank, warn, cap);
  return NULL;
}
