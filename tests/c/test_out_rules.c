/* The out= dtype decisions the glue asks the core for before an out
 * overload's functional op runs, where PyTorch's meta kernel is not CPU's
 * meta function (api/out_write.h, ops/out_rules.h): pure functions, no
 * plugin. */
#include <string.h>

#include "api/call.h"
#include "api/out_write.h"
#include "check.h"

int main(void) {
  /* amax/amin/any/all check out's dtype before the dims: the meta kernel
   * raised (no result dtype), the rule still applies */
  CHECK_ERR(tt_call_check_out_dtype_first("amin.out", 0, TT_DTYPE_INVALID, TT_F64, TT_I16, 3), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype_first("amax.out", 0, TT_DTYPE_INVALID, TT_F32, TT_F32, 3));
  CHECK_ERR(tt_call_check_out_dtype_first("all.dim", 0, TT_DTYPE_INVALID, TT_I32, TT_F32, 3), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype_first("any.dims_out", 0, TT_DTYPE_INVALID, TT_U8, TT_F32, 3));
  /* logsumexp: out floating or complex, first; a complex result into a real out is computed */
  CHECK_ERR(tt_call_check_out_dtype_first("logsumexp.out", 0, TT_DTYPE_INVALID, TT_I32, TT_I32, 5), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype_first("logsumexp.out", 0, TT_DTYPE_INVALID, TT_F16, TT_C64, 5));
  CHECK_OK(tt_call_check_out_dtype_first("logsumexp.out", 0, TT_C64, TT_F32, TT_C64, 5));
  /* mean.dtype_out: canCast(self, out) first, also before a dtype= is compared with out's */
  CHECK_ERR(tt_call_check_out_dtype_first("mean.dtype_out", 0, TT_F32, TT_F32, TT_C128, 3), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_call_check_out_dtype_first("mean.dtype_out", 0, TT_DTYPE_INVALID, TT_I32, TT_F64, 3), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype_first("mean.out", 0, TT_F32, TT_F32, TT_C128, 3));
  CHECK_ERR(tt_call_check_out_dtype_arg("mean.dtype_out", TT_BF16, TT_F32, TT_C128, 0), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_call_check_out_dtype_arg("mean.out", TT_I64, TT_I64, TT_F32, 0), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype_arg("mean.out", TT_F32, TT_F32, TT_F32, 0));
  CHECK_OK(tt_call_check_out_dtype_arg("mean.out", TT_F32, TT_F64, TT_F32, 0)); /* set_output's: after the dims */
  CHECK_ERR(tt_call_check_out_dtype_arg("mean.out", TT_F32, TT_F64, TT_F32, 1), TT_INVALID_ARGUMENT);
  /* nansum: a floating input's dtype= first, in its words; an integral input is sum's */
  CHECK_ERR(tt_call_check_out_dtype_arg("nansum.out", TT_F32, TT_F16, TT_F32, 0), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype_arg("nansum.out", TT_F32, TT_F16, TT_F32, 1));
  CHECK_OK(tt_call_check_out_dtype_arg("nansum.out", TT_F32, TT_F64, TT_I64, 0));
  CHECK_ERR(tt_call_check_out_dtype_arg("nansum.out", TT_F32, TT_F64, TT_I64, 1), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype_first("nansum.out", 0, TT_C64, TT_C64, TT_I64, 4));
  /* cummax/cummin: values against the input, indices against Long, before the dim */
  CHECK_ERR(tt_call_check_out_dtype_first("cummax.out", 0, TT_DTYPE_INVALID, TT_F16, TT_C64, 3), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_call_check_out_dtype_first("cummin.out", 1, TT_DTYPE_INVALID, TT_I32, TT_F32, 3), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype_first("cummax.out", 1, TT_DTYPE_INVALID, TT_I64, TT_F32, 3));
  CHECK_OK(tt_call_check_out_dtype_first("cummax.out", 0, TT_DTYPE_INVALID, TT_F32, TT_F32, 3));
  /* max.dim/min.dim: an empty input's dim error first (the call's), a complex input's refusal before the rule */
  CHECK_OK(tt_call_check_out_dtype_first("min.dim_min", 0, TT_C64, TT_F32, TT_C64, 0));
  CHECK_ERR(tt_call_check_out_dtype_first("min.dim_min", 0, TT_F32, TT_F16, TT_F32, 3), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_call_check_out_dtype("max.dim_max", 0, TT_F32, TT_F16, TT_F32, 0), TT_INVALID_ARGUMENT); /* after the call */
  CHECK_ERR(tt_call_check_out_dtype_first("max.dim_max", 0, TT_C64, TT_C64, TT_C64, 3), TT_INVALID_ARGUMENT);
  /* other overloads leave it to the call's own error */
  CHECK_OK(tt_call_check_out_dtype_first("argmax.out", 0, TT_DTYPE_INVALID, TT_F64, TT_F32, 3));
  CHECK_OK(tt_call_check_out_dtype_first("amin.out", 0, TT_DTYPE_INVALID, TT_F64, TT_DTYPE_INVALID, -1));

  /* nansum: an empty real input runs no kernel, so its bool out is not refused */
  CHECK_OK(tt_call_check_out_dtype_first("nansum.out", 0, TT_F32, TT_BOOL, TT_F32, 0));
  CHECK_ERR(tt_call_check_out_dtype_first("nansum.out", 0, TT_F32, TT_BOOL, TT_F32, 2), TT_NOT_IMPLEMENTED);
  CHECK_ERR(tt_call_check_out_dtype_first("nansum.out", 0, TT_C64, TT_BOOL, TT_C64, 0), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_call_check_out_dtype("nansum.out", 0, TT_F32, TT_C64, TT_F32, 3), TT_NOT_IMPLEMENTED);
  CHECK_OK(tt_call_check_out_dtype("nansum.out", 0, TT_F32, TT_C64, TT_F32, 0));
  /* not for other ops */
  CHECK_ERR(tt_call_check_out_dtype("sum.out", 0, TT_F32, TT_BOOL, TT_F32, 0), TT_INVALID_ARGUMENT);

  /* pow.Tensor_Scalar_out's result is result_type(self, exponent) */
  const char *with = tt_call_out_result_with("pow.Tensor_Scalar_out");
  CHECK(with && !strcmp(with, "exponent"));
  with = tt_call_out_result_with("pow.Tensor_Tensor_out");
  CHECK(with && !strcmp(with, "exponent"));
  CHECK(tt_call_out_result_with("add.out") == NULL);
  CHECK_ERR(tt_call_check_out_dtype_first("pow.Tensor_Scalar_out", 0, TT_I64, TT_BOOL, TT_BOOL, 2), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype_first("pow.Tensor_Scalar_out", 0, TT_BOOL, TT_BOOL, TT_BOOL, 2));

  /* lerp.Tensor_out with a 0-dim weight (argument 2) takes lerp.Scalar_out's canCast */
  int arg = -1;
  const char *rule = tt_call_out_rule_if_0dim("lerp.Tensor_out", &arg);
  CHECK(rule && !strcmp(rule, "lerp.Scalar_out") && arg == 2);
  CHECK(tt_call_out_rule_if_0dim("lerp.Scalar_out", &arg) == NULL);
  CHECK_ERR(tt_call_check_out_dtype_first("lerp.Tensor_out", 0, TT_F32, TT_F16, TT_F32, 2), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype_first("lerp.Scalar_out", 0, TT_F32, TT_F16, TT_F32, 2));

  /* where PyTorch's meta refuses complex operands, a binary kernel's cast of
   * its operands' type into out comes first (fuzz 486:946); not a comparison's */
  CHECK_ERR(tt_call_check_out_operands("floor_divide.out", TT_C64, TT_I32), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_call_check_out_operands("floor_divide.Scalar_out", TT_C64, TT_F32), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_operands("floor_divide.out", TT_C64, TT_C64));
  CHECK_OK(tt_call_check_out_operands("lt.Tensor_out", TT_C64, TT_I32));
  CHECK_OK(tt_call_check_out_operands("argmax.out", TT_C64, TT_I32));
  /* a complex second operand's own refusal (clamp's, maximum's) comes before the rule */
  CHECK_ERR(tt_call_check_out_dtype("clamp_max.out", 0, TT_C64, TT_I32, TT_I32, 3), TT_NOT_IMPLEMENTED);
  CHECK_ERR(tt_call_check_out_dtype("maximum.out", 0, TT_C64, TT_C64, TT_BOOL, 3), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_dtype("add.out", 0, TT_C64, TT_C64, TT_BOOL, 3));
  /* a complex32 result: the cast rule in ComplexHalf's words; an op's own refusal first */
  CHECK_ERR(tt_call_check_out_complex32("remainder.Scalar_out", 0, TT_F16, 0), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_complex32("remainder.Scalar_out", 0, TT_C64, 0));
  CHECK_OK(tt_call_check_out_complex32("mm.out", 0, TT_F16, 0)); /* an exact rule: the call's own error */
  CHECK_ERR(tt_call_check_out_complex32("clamp_max.out", 0, TT_C64, 0), TT_NOT_IMPLEMENTED);
  CHECK_ERR(tt_call_check_out_complex32("floor_divide.out", 0, TT_I32, 1), TT_INVALID_ARGUMENT);
  CHECK_OK(tt_call_check_out_complex32("add.out", 0, TT_I32, 1)); /* operands' type: binary refusals only */
  return check_summary();
}
