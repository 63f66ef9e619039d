/* The complex-dtype rule: lowerings written for real dtypes never see a
 * complex value unless the op is listed here (as is, or with a complex
 * lowering); everything else is refused with a clear error. */
#include "ops/complex_rules.h"

#include <pthread.h>
#include <string.h>

#include "ops/registry.h"

/* Ops whose real lowerings only move, select or convert elements: checked
 * against CPU on complex inputs (tests/python/test_complex.py). */
static const tt_complex_rule_t as_is[] = {
    {"_tt_materialize", TT_COMPLEX_AS_IS}, {"clone", TT_COMPLEX_AS_IS}, {"_to_copy", TT_COMPLEX_AS_IS},
    {"_tt_foreign_call", TT_COMPLEX_AS_IS}, /* a JAX module: its own complex arithmetic */
    {"copy_", TT_COMPLEX_AS_IS}, {"fill_.Scalar", TT_COMPLEX_AS_IS}, {"fill_.Tensor", TT_COMPLEX_AS_IS},
    {"zero_", TT_COMPLEX_AS_IS}, {"cat", TT_COMPLEX_AS_IS}, {"stack", TT_COMPLEX_AS_IS},
    {"select_scatter", TT_COMPLEX_AS_IS}, {"slice_scatter", TT_COMPLEX_AS_IS},
    {"flip", TT_COMPLEX_AS_IS}, {"roll", TT_COMPLEX_AS_IS}, {"repeat", TT_COMPLEX_AS_IS},
    {"constant_pad_nd", TT_COMPLEX_AS_IS}, {"full", TT_COMPLEX_AS_IS}, {"mm", TT_COMPLEX_AS_IS}, {"bmm", TT_COMPLEX_AS_IS},
    {"dot", TT_COMPLEX_AS_IS}, {"index_select", TT_COMPLEX_AS_IS}, {"gather", TT_COMPLEX_AS_IS},
    {"index.Tensor", TT_COMPLEX_AS_IS}, {"masked_fill.Scalar", TT_COMPLEX_AS_IS},
    {"masked_fill_.Scalar", TT_COMPLEX_AS_IS}, {"masked_fill.Tensor", TT_COMPLEX_AS_IS},
    {"masked_fill_.Tensor", TT_COMPLEX_AS_IS}, {"tril", TT_COMPLEX_AS_IS}, {"triu", TT_COMPLEX_AS_IS},
    {"diagonal_scatter", TT_COMPLEX_AS_IS}, {"as_strided_scatter", TT_COMPLEX_AS_IS},
    {"_index_put_impl_", TT_COMPLEX_AS_IS}, {"index_put", TT_COMPLEX_AS_IS},
    {"index_copy", TT_COMPLEX_AS_IS}, {"index_copy_", TT_COMPLEX_AS_IS},
    {"index_fill.int_Scalar", TT_COMPLEX_AS_IS}, {"index_fill.int_Tensor", TT_COMPLEX_AS_IS},
    {"index_fill_.int_Scalar", TT_COMPLEX_AS_IS}, {"index_fill_.int_Tensor", TT_COMPLEX_AS_IS},
    {"scatter.src", TT_COMPLEX_AS_IS}, {"scatter.value", TT_COMPLEX_AS_IS},
    {"scatter_.src", TT_COMPLEX_AS_IS}, {"scatter_.value", TT_COMPLEX_AS_IS},
    {"scatter_add", TT_COMPLEX_AS_IS}, {"scatter_add_", TT_COMPLEX_AS_IS},
    {"index_add", TT_COMPLEX_AS_IS}, {"index_add_", TT_COMPLEX_AS_IS},
    {"take", TT_COMPLEX_AS_IS}, {"put_", TT_COMPLEX_AS_IS}, {"put", TT_COMPLEX_AS_IS},
    {"masked_scatter_", TT_COMPLEX_AS_IS},
    {"equal", TT_COMPLEX_AS_IS}, {"_tt_count_nonzero", TT_COMPLEX_AS_IS}, {"_tt_nonzero", TT_COMPLEX_AS_IS},
    {"count_nonzero", TT_COMPLEX_AS_IS}, {"count_nonzero.dim_IntList", TT_COMPLEX_AS_IS},
    {"any", TT_COMPLEX_AS_IS}, {"all", TT_COMPLEX_AS_IS}, {"any.dim", TT_COMPLEX_AS_IS}, {"all.dim", TT_COMPLEX_AS_IS},
    {"any.dims", TT_COMPLEX_AS_IS}, {"all.dims", TT_COMPLEX_AS_IS},
    {"logical_not", TT_COMPLEX_AS_IS}, {"mv", TT_COMPLEX_AS_IS},
    {"reflection_pad1d", TT_COMPLEX_AS_IS}, {"reflection_pad2d", TT_COMPLEX_AS_IS},
    {"normal_", TT_COMPLEX_AS_IS}, {"uniform_", TT_COMPLEX_AS_IS},
    {NULL, NULL},
};

static const tt_complex_rule_t *const tables[] = {as_is, tt_complex_elementwise, tt_complex_fft, NULL};

/* CPU has no kernel for these on complex values (no ordering): its error
 * is a RuntimeError, not NotImplementedError. */
static const char *const unordered[] = {
    "lt", "le", "gt", "ge", "max", "min", "maximum", "minimum", "fmax", "fmin", "clamp", "clamp_min",
    "clamp_max", "amax", "amin", "aminmax", "argmax", "argmin", "sort", "topk", "msort", "kthvalue",
    "median", "nanmedian", "cummax", "cummin", "floor", "ceil", "trunc", "round", "remainder", "fmod",
    "floor_divide", "heaviside", "relu", "hardtanh", "threshold", NULL,
};

#define MAX_IDS 4096
/* Per op id, resolved for every op at once on first use (pthread_once:
 * engines on several threads may route at once), read-only after. */
static signed char state[MAX_IDS]; /* 1 listed, -1 not listed */
static tt_lower_fn fns[MAX_IDS];
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

static void resolve(int id, const tt_op_def_t *def) {
  state[id] = -1;
  for (const tt_complex_rule_t *const *t = tables; *t; t++)
    for (const tt_complex_rule_t *r = *t; r->name; r++)
      if (strcmp(r->name, def->name) == 0) {
        state[id] = 1;
        fns[id] = r->fn ? r->fn : def->fn;
        return;
      }
}

static void resolve_all(void) {
  int n = tt_ops_count();
  for (int id = 0; id < n && id < MAX_IDS; id++) resolve(id, tt_ops_get(id));
}

static tt_dtype_t complex_in(const tt_arg_t *args, int nargs) {
  for (int i = 0; i < nargs; i++) {
    const tt_arg_t *a = &args[i];
    if (a->kind == TT_ARG_COMPLEX) return TT_C128; /* a Python complex */
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

static int is_unordered(const char *name) {
  size_t n = strcspn(name, ".");
  if (n && name[n - 1] == '_') n--; /* in-place form */
  for (const char *const *u = unordered; *u; u++)
    if (strlen(*u) == n && strncmp(*u, name, n) == 0) return 1;
  return 0;
}

tt_status_t tt_complex_route(int id, const tt_op_def_t *def, const tt_arg_t *args, int nargs, tt_lower_fn *out_fn) {
  *out_fn = def->fn;
  tt_dtype_t dt = complex_in(args, nargs);
  if (dt == TT_DTYPE_INVALID) return TT_OK_STATUS;
  if (id >= 0 && id < MAX_IDS) {
    pthread_once(&resolved, resolve_all);
    if (state[id] > 0) {
      *out_fn = fns[id];
      return TT_OK_STATUS;
    }
  }
  const char *pt = dt == TT_C64 ? "ComplexFloat" : "ComplexDouble";
  if (is_unordered(def->name))
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: not implemented for '%s' (complex numbers have no ordering)",
                          def->name, pt);
  return tt_status_make(TT_NOT_IMPLEMENTED, "%s: complex dtype %s is not supported on TPU yet", def->name,
                        tt_dtype_name(dt));
}
