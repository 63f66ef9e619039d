/* The complex-dtype rule: lowerings written for real dtypes never see a
 * complex value unless the op's row says so (TT_OPF_COMPLEX: as is; or a
 * complex lowering); everything else is refused with a clear error. */
#include "ops/complex_rules.h"

#include "ops/complex_refusal.h"
#include "ops/registry.h"

static tt_dtype_t complex_in(const tt_arg_t *args, int nargs) {
  for (int i = 0; i < nargs; i++) {
    const tt_arg_t *a = &args[i];
    if (a->kind == TT_ARG_COMPLEX) return TT_C128; /* a Python complex */
    if (a->kind == TT_ARG_FLOATS && a->floats_complex) return TT_C128; /* a scalar list holding one */
    if (a->kind == TT_ARG_DTYPE && tt_dtype_is_complex((tt_dtype_t)a->i)) return (tt_dtype_t)a->i;
    int n = a->kind == TT_ARG_TENSOR ? 1 : a->kind == TT_ARG_TENSORS ? a->n : 0;
    for (int j = 0; j < n; j++) {
      const tt_tensor_ref_t *r = &a->t[j];
      /* a real view of complex storage (view_as_real, .imag) reads as real */
      if (tt_dtype_is_complex(r->dtype)) return r->dtype;
    }
  }
  return TT_DTYPE_INVALID;
}

tt_status_t tt_complex_route(const tt_op_def_t *def, const tt_arg_t *args, int nargs, tt_dtype_t default_float,
                             tt_lower_fn *out_fn) {
  *out_fn = def->fn;
  tt_dtype_t dt = complex_in(args, nargs);
  if (dt == TT_DTYPE_INVALID || (def->flags & TT_OPF_COMPLEX)) return TT_OK_STATUS;
  if (def->complex) {
    *out_fn = def->complex;
    return TT_OK_STATUS;
  }
  const char *pt = dt == TT_C64 ? "ComplexFloat" : "ComplexDouble";
  /* CPU refuses complex values for these (no ordering, isposinf, deg2rad): its words */
  tt_status_t cpu = tt_complex_args_first(def, args, nargs);
  if (!cpu) cpu = tt_complex_empty_dims_first(def, args, nargs);
  if (cpu) return cpu;
  if (tt_complex_empty_result_computes(def, args, nargs)) return TT_OK_STATUS; /* def->fn: CPU runs no kernel */
  cpu = tt_complex_refusal(def, dt, args, nargs, default_float);
  if (cpu) return cpu;
  if (def->flags & (TT_OPF_UNORDERED | TT_OPF_UNORDERED_CHECK)) {
    return tt_status_make(def->flags & TT_OPF_UNORDERED ? TT_NOT_IMPLEMENTED : TT_INVALID_ARGUMENT,
                          "%s: not implemented for '%s' (complex numbers have no ordering; CPU has no such kernel either)",
                          def->name, pt);
  }
  return tt_status_make(TT_NOT_IMPLEMENTED, "%s: complex dtype %s is not supported on TPU yet", def->name,
                        tt_dtype_name(dt));
}
