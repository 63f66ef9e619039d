/* CPU's refusals of complex values (see complex_refusal.h). */
#include "ops/complex_refusal.h"

#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"

typedef enum {
  K_DISPATCH, /* text: the kernel whose AT_DISPATCH has no complex case */
  K_BINARY,   /* the same for a binary TensorIterator kernel: it refuses its operands' common type */
  K_NOT_IMPL, /* text: CPU's NotImplementedError */
  K_RUNTIME,  /* text: CPU's RuntimeError */
  K_META,     /* text: CPU's RuntimeError from its meta function, for either operand: before out's dtype */
} kind_t;

typedef struct {
  const char *packet;   /* the functional name: "clamp_min" for clamp_min_.Tensor */
  const char *overload; /* "" the default overload, NULL any */
  kind_t kind;
  const char *text;
} row_t;

#define CLAMP_MSG "clamp is not supported for complex types"

/* The first matching row wins: specific overloads first. */
static const row_t kRows[] = {
    {"amax", NULL, K_DISPATCH, "max_values_cpu"},
    {"amin", NULL, K_DISPATCH, "min_values_cpu"},
    {"aminmax", NULL, K_DISPATCH, "aminmax_cpu"},
    {"argmax", NULL, K_RUNTIME, "argmax(): does not support complex input"},
    {"argmin", NULL, K_RUNTIME, "argmin(): does not support complex input"},
    {"clamp_max", "Tensor", K_BINARY, "minimum_cpu"},
    {"clamp_min", "Tensor", K_BINARY, "maximum_cpu"},
    {"clamp", NULL, K_NOT_IMPL, CLAMP_MSG},
    {"clamp_max", NULL, K_NOT_IMPL, CLAMP_MSG},
    {"clamp_min", NULL, K_NOT_IMPL, CLAMP_MSG},
    {"hardtanh", NULL, K_NOT_IMPL, CLAMP_MSG},
    {"relu", NULL, K_NOT_IMPL, CLAMP_MSG},
    {"cummax", NULL, K_DISPATCH, "cummax_cpu"},
    {"cummin", NULL, K_DISPATCH, "cummin_cpu"},
    {"floor_divide", NULL, K_BINARY, "div_floor_cpu"},
    {"fmax", NULL, K_META, "fmax not implemented for complex tensors."},
    {"fmin", NULL, K_META, "fmin not implemented for complex tensors."},
    {"maximum", NULL, K_META, "maximum not implemented for complex tensors."},
    {"minimum", NULL, K_META, "minimum not implemented for complex tensors."},
    {"heaviside", NULL, K_META, "heaviside is not yet implemented for complex tensors."},
    {"fmod", NULL, K_BINARY, "fmod_cpu"},
    {"remainder", NULL, K_BINARY, "remainder_cpu"},
    {"ge", NULL, K_BINARY, "ge_cpu"},
    {"gt", NULL, K_BINARY, "gt_cpu"},
    {"le", NULL, K_BINARY, "le_cpu"},
    {"lt", NULL, K_BINARY, "lt_cpu"},
    {"kthvalue", NULL, K_DISPATCH, "kthvalue_cpu"},
    {"max", "", K_DISPATCH, "max_all"},
    {"max", "dim", K_META, "max(): does not support complex input"}, /* before out's dtypes too */
    {"min", "", K_DISPATCH, "min_all"},
    {"min", "dim", K_META, "min(): does not support complex input"},
    {"median", "", K_DISPATCH, "median_cpu"},
    {"mode", NULL, K_DISPATCH, "mode_cpu"},
    {"median", "dim", K_DISPATCH, "median_out"},
    {"nanmedian", "", K_DISPATCH, "median_cpu"},
    {"nanmedian", "dim", K_DISPATCH, "median_out"},
    {"round", "decimals", K_DISPATCH, "round_cpu"},
    {"round", "", K_DISPATCH, "round_vml_cpu"},
    {"sort", NULL, K_RUNTIME, " Sort does not support complex dtypes on CPU"}, /* sic: CPU's leading space */
    {"topk", NULL, K_RUNTIME, " topk does not support complex dtypes on CPU"},
    {"threshold", NULL, K_DISPATCH, "threshold_cpu"},
    {"softshrink", NULL, K_DISPATCH, "softshrink_check"},
    {"hardshrink", NULL, K_DISPATCH, "hardshrink_cpu"},
    {"glu", NULL, K_DISPATCH, "glu_cpu"},
    {"floor", NULL, K_NOT_IMPL, "floor is not supported for complex inputs"},
    /* sign's meta check, before out's dtype too (fuzz 455:44) */
    {"sign", NULL, K_NOT_IMPL, "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."},
    {"ceil", NULL, K_NOT_IMPL, "ceil is not supported for complex inputs"},
    {"trunc", NULL, K_NOT_IMPL, "trunc is not supported for complex inputs"},
    {"isposinf", NULL, K_RUNTIME, "isposinf does not support complex inputs."},
    {"isneginf", NULL, K_RUNTIME, "isneginf does not support complex inputs."},
    {"deg2rad", NULL, K_RUNTIME, "deg2rad is not supported for complex tensors."},
    /* real-only kernels' dispatch refusals (their AT_DISPATCH has no complex case) */
    {"nextafter", NULL, K_BINARY, "nextafter_cpu"}, {"bitwise_and", NULL, K_BINARY, "bitwise_and_cpu"},
    {"bitwise_or", NULL, K_BINARY, "bitwise_or_cpu"}, {"bitwise_xor", NULL, K_BINARY, "bitwise_xor_cpu"},
    {"bitwise_not", NULL, K_DISPATCH, "bitwise_not_cpu"}, {"bitwise_left_shift", NULL, K_BINARY, "lshift_cpu"},
    {"bitwise_right_shift", NULL, K_BINARY, "rshift_cpu"}, {"atan2", NULL, K_BINARY, "atan2_cpu"},
    {"hypot", NULL, K_BINARY, "hypot_cpu"}, {"copysign", NULL, K_BINARY, "copysign_cpu"},
    {"gcd", NULL, K_BINARY, "gcd_cpu"}, {"lcm", NULL, K_BINARY, "lcm_cpu"},
    {"xlogy", NULL, K_BINARY, "xlogy_cpu"}, {"igamma", NULL, K_BINARY, "igamma_cpu"},
    {"igammac", NULL, K_BINARY, "igammac_cpu"}, {"logaddexp2", NULL, K_BINARY, "logaddexp2_cpu"},
    {"special_zeta", NULL, K_BINARY, "zeta_cpu"}, {"special_xlog1py", NULL, K_BINARY, "xlog1py_cpu"},
    {"erfinv", NULL, K_DISPATCH, "erfinv_vml_cpu"}, {"lgamma", NULL, K_DISPATCH, "lgamma_vml_cpu"},
    {"digamma", NULL, K_DISPATCH, "digamma"}, {"erf", NULL, K_DISPATCH, "erf_vml_cpu"},
    {"erfc", NULL, K_DISPATCH, "erfc_vml_cpu"}, {"i0", NULL, K_DISPATCH, "i0_vml_cpu"},
    {"frac", NULL, K_DISPATCH, "frac_cpu"}, {"logit", NULL, K_DISPATCH, "logit_cpu"},
    {"special_entr", NULL, K_DISPATCH, "entr_cpu"}, {"special_erfcx", NULL, K_DISPATCH, "erfcx_cpu"},
    {"special_ndtri", NULL, K_DISPATCH, "ndtri_cpu"}, {"special_log_ndtr", NULL, K_DISPATCH, "log_ndtr_cpu"},
    {"special_i0e", NULL, K_DISPATCH, "i0e_cpu"}, {"special_i1", NULL, K_DISPATCH, "i1_cpu"},
    {"special_i1e", NULL, K_DISPATCH, "i1e_cpu"},
    {"signbit", NULL, K_NOT_IMPL, "signbit is not implemented for complex tensors."}, /* before out's dtype check too */
    {"rad2deg", NULL, K_RUNTIME, "rad2deg is not supported for complex tensors."},
};

/* Whether op `name` (in place: a trailing '_' on its packet) is
 * packet.overload (want NULL: any overload). */
static int names_op(const char *name, int inplace, const char *packet, const char *want) {
  /* "clamp_min_.Tensor" -> packet "clamp_min", overload "Tensor" */
  const char *dot = strchr(name, '.');
  size_t plen = dot ? (size_t)(dot - name) : strlen(name);
  if (inplace && plen > 1 && name[plen - 1] == '_') plen--;
  const char *overload = dot ? dot + 1 : "";
  if (strlen(packet) != plen || strncmp(packet, name, plen)) return 0;
  return !want || !strcmp(want, overload);
}

static int names(const tt_op_def_t *def, const char *packet, const char *want) {
  return names_op(def->name, (def->flags & TT_OPF_INPLACE) != 0, packet, want);
}

static const row_t *find_row(const tt_op_def_t *def) {
  for (size_t i = 0; i < sizeof kRows / sizeof kRows[0]; i++)
    if (names(def, kRows[i].packet, kRows[i].overload)) return &kRows[i];
  return NULL;
}

/* The row of out overload out_name's functional, or NULL. */
static const row_t *out_row(const char *out_name) {
  /* "clamp.Tensor_out" -> its functional "clamp.Tensor"; "floor.out" ->
   * "floor"; "max.dim_max" -> "max.dim" (an overload named by its outs) */
  char fn[128];
  const char *dot = strchr(out_name, '.');
  size_t n = strlen(out_name);
  if (!dot || n >= sizeof fn) return NULL;
  memcpy(fn, out_name, n + 1);
  size_t at = (size_t)(dot - out_name);
  if (!strcmp(dot, ".out")) fn[at] = '\0';
  else if (n > 4 && !strcmp(out_name + n - 4, "_out")) fn[n - 4] = '\0';
  else if (!strcmp(dot, ".dim_max") || !strcmp(dot, ".dim_min")) fn[n - 4] = '\0';
  else return NULL;
  for (size_t i = 0; i < sizeof kRows / sizeof kRows[0]; i++)
    if (names_op(fn, 0, kRows[i].packet, kRows[i].overload)) return &kRows[i];
  return NULL;
}

tt_status_t tt_complex_refusal_of_out(const char *out_name) {
  const row_t *r = out_row(out_name);
  if (!r) return NULL;
  if (r->kind == K_META) return tt_status_make(TT_INVALID_ARGUMENT, "%s", r->text);
  return r->kind == K_NOT_IMPL ? tt_status_make(TT_NOT_IMPLEMENTED, "%s", r->text) : NULL;
}

int tt_complex_binary_out(const char *out_name) {
  const row_t *r = out_row(out_name);
  /* a comparison's bool result goes into any out */
  return r && r->kind == K_BINARY && strcmp(r->packet, "ge") && strcmp(r->packet, "gt") && strcmp(r->packet, "le") &&
         strcmp(r->packet, "lt");
}

/* Reductions whose empty-input checks CPU makes before its kernel
 * dispatches on the dtype (zero_numel_check_dims and the like): for an
 * empty complex input their errors come first. */
typedef enum {
  Z_LIST, /* amax/amin: dim list at dim_arg, each dim named as given; none with numel 0 */
  Z_DIM,  /* one dim at dim_arg (None: dim_default), named wrapped */
  Z_ALL,  /* max()/min(): numel 0 */
} zkind_t;

typedef struct {
  const char *packet, *overload;
  zkind_t kind;
  int dim_arg;
  int dim_default;
  const char *name; /* as CPU's message starts */
} zrow_t;

static const zrow_t kEmptyFirst[] = {
    {"amax", NULL, Z_LIST, 1, 0, "amax()"},
    {"amin", NULL, Z_LIST, 1, 0, "amin()"},
    {"max", "dim", Z_DIM, 1, 0, "max()"},
    {"min", "dim", Z_DIM, 1, 0, "min()"},
    {"max", "", Z_ALL, 0, 0, "max()"},
    {"min", "", Z_ALL, 0, 0, "min()"},
    {"kthvalue", "", Z_DIM, 2, -1, "kthvalue()"},
    {"median", "dim", Z_DIM, 1, 0, "median()"},
    {"nanmedian", "dim", Z_DIM, 1, 0, "median()"}, /* sic: CPU's nanmedian says median() */
    {"mode", "", Z_DIM, 1, -1, "mode()"},
    {"aminmax", "", Z_DIM, 1, 0, "aminmax"}, /* sic: no parentheses; dim None is the all-reduce */
};

#define NONZERO_MSG "%s: Expected reduction dim %lld to have non-zero size."
#define UNSPECIFIED_MSG "%s: Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."

/* dim wrapped into [0, rank), or -1 when out of range (the Meta kernel's
 * IndexError then comes first, see torchtpu/_kernels.py). */
static int wrap(int64_t d, int rank) {
  if (d < -rank || d >= rank) return -1;
  return (int)(d < 0 ? d + rank : d);
}

/* maybe_wrap_dim's IndexError (a 0-dim tensor takes -1 and 0), or NULL. */
static tt_status_t dim_range(int64_t d, int rank) {
  int r = rank ? rank : 1;
  if (d >= -r && d < r) return NULL;
  return tt_status_make(TT_INDEX_ERROR, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -r,
                        r - 1, (long long)d);
}

/* The checks CPU makes on dims (and kthvalue's k) before its kernel
 * dispatches on the dtype, whatever the numel: a dim out of range, a dim
 * listed twice, k out of the slice. */
static tt_status_t dims_first(const zrow_t *z, const tt_view_t *v, const tt_arg_t *args, int nargs, int64_t numel) {
  const tt_arg_t *a = z->dim_arg < nargs ? &args[z->dim_arg] : NULL;
  if (z->kind == Z_LIST && a && a->kind == TT_ARG_INTS) {
    /* zero_numel_check_dims' pass first (each dim wrapped, then its size), then the dim mask's */
    int seen[TT_MAX_RANK] = {0};
    for (int k = 0; k < a->n; k++) {
      tt_status_t e = dim_range(a->ints[k], v->rank);
      if (e) return e;
      if (numel == 0 && v->rank && v->sizes[wrap(a->ints[k], v->rank)] == 0) return NULL; /* the empty-dim error below */
    }
    for (int k = 0; k < a->n; k++) {
      int w = v->rank ? wrap(a->ints[k], v->rank) : 0;
      if (seen[w]++) return tt_status_make(TT_INVALID_ARGUMENT, "dim %d appears multiple times in the list of dims", w);
    }
  }
  int given = a && a->kind == TT_ARG_INT, kth = !strcmp(z->packet, "kthvalue");
  if (z->kind != Z_DIM || (!given && !kth)) return NULL;
  int64_t d = given ? a->i : z->dim_default;
  tt_status_t e = dim_range(d, v->rank);
  if (e || !kth) return e;
  int w = v->rank ? wrap(d, v->rank) : 0;
  int64_t slice = v->rank ? v->sizes[w] : 1, k = nargs > 1 && args[1].kind == TT_ARG_INT ? args[1].i : 1;
  if (numel == 0 && slice == 0) return NULL; /* the empty-dim error below comes first */
  if (k < 1 || k > slice)
    return tt_status_make(TT_INVALID_ARGUMENT, "kthvalue(): selected number k out of range for dimension %d", w);
  return NULL;
}

tt_status_t tt_complex_empty_dims_first(const tt_op_def_t *def, const tt_arg_t *args, int nargs) {
  const zrow_t *z = NULL;
  for (size_t i = 0; i < sizeof kEmptyFirst / sizeof kEmptyFirst[0] && !z; i++)
    if (names(def, kEmptyFirst[i].packet, kEmptyFirst[i].overload)) z = &kEmptyFirst[i];
  if (!z || nargs < 1 || args[0].kind != TT_ARG_TENSOR) return NULL;
  const tt_view_t *v = &args[0].t->view;
  int64_t numel = 1;
  for (int d = 0; d < v->rank; d++) numel *= v->sizes[d];
  tt_status_t first = dims_first(z, v, args, nargs, numel);
  if (first || numel != 0) return first;
  const tt_arg_t *a = z->dim_arg < nargs ? &args[z->dim_arg] : NULL;
  int given = a && (a->kind == TT_ARG_INT || (a->kind == TT_ARG_INTS && a->n > 0));
  if (z->kind == Z_ALL || (z->kind == Z_LIST && !given))
    return tt_status_make(TT_INVALID_ARGUMENT, UNSPECIFIED_MSG, z->name);
  if (z->kind == Z_LIST) {
    const int64_t *dims = a->kind == TT_ARG_INT ? &a->i : a->ints;
    for (int k = 0; k < (a->kind == TT_ARG_INT ? 1 : a->n); k++) {
      int w = wrap(dims[k], v->rank);
      if (w < 0) return NULL;
      if (v->sizes[w] == 0) return tt_status_make(TT_INDEX_ERROR, NONZERO_MSG, z->name, (long long)dims[k]);
    }
    return NULL;
  }
  if (!given && !strcmp(z->packet, "aminmax"))
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  if (v->rank == 0) return NULL;
  int w = wrap(given ? a->i : z->dim_default, v->rank);
  if (w >= 0 && v->sizes[w] == 0) return tt_status_make(TT_INDEX_ERROR, NONZERO_MSG, z->name, (long long)w);
  return NULL;
}

int tt_complex_empty_result_computes(const tt_op_def_t *def, const tt_arg_t *args, int nargs) {
  if (nargs < 1 || args[0].kind != TT_ARG_TENSOR) return 0;
  const tt_view_t *v = &args[0].t->view;
  int64_t numel = 1;
  for (int d = 0; d < v->rank; d++) numel *= v->sizes[d];
  /* past tt_complex_empty_dims_first, an empty input's reduced dims are not empty: the result is */
  if (names(def, "amax", NULL) || names(def, "amin", NULL)) return numel == 0;
  /* kthvalue and mode of a 0-dim tensor copy it (values.copy_(self)) */
  if (names(def, "mode", "")) return numel == 0 || v->rank == 0;
  if (names(def, "kthvalue", "")) return v->rank == 0;
  /* median()/nanmedian() of an empty input: a NaN, filled before the dispatch */
  if (names(def, "median", "") || names(def, "nanmedian", "")) return numel == 0;
  return 0;
}

tt_status_t tt_complex_args_first(const tt_op_def_t *def, const tt_arg_t *args, int nargs) {
  /* clamp's meta function asks for a bound before it looks at the dtype
   * (fuzz 412:545: clamp(complex128, None, None)) */
  if (names(def, "clamp", NULL)) {
    int lo = nargs > 1 && args[1].kind != TT_ARG_NONE, hi = nargs > 2 && args[2].kind != TT_ARG_NONE;
    if (!lo && !hi) return tt_status_make(TT_INVALID_ARGUMENT, "torch.clamp: At least one of 'min' or 'max' must not be None");
  }
  /* sort's and topk's meta functions wrap the dim (and topk checks k)
   * before their kernels refuse complex values (fuzz 487:760, 492:1230:
   * sort/argsort of a complex tensor with dim 3 is the IndexError on CPU);
   * sort.stable(self, stable, dim), topk(self, k, dim) */
  int sort = names(def, "sort", "stable"), topk = names(def, "topk", NULL);
  if ((sort || topk) && nargs > 0 && args[0].kind == TT_ARG_TENSOR) {
    const tt_view_t *v = &args[0].t->view;
    int64_t d = nargs > 2 && args[2].kind == TT_ARG_INT ? args[2].i : -1;
    tt_status_t e = dim_range(d, v->rank);
    if (e || !topk || nargs < 2 || args[1].kind != TT_ARG_INT) return e;
    int64_t k = args[1].i, slice = v->rank ? v->sizes[wrap(d, v->rank)] : 1;
    if (k < 0 || k > slice) return tt_status_make(TT_INVALID_ARGUMENT, "selected index k out of range");
  }
  return NULL;
}

int tt_complex_refusal_before_shapes(const tt_op_def_t *def) {
  const row_t *r = find_row(def);
  return r && r->kind != K_DISPATCH && r->kind != K_BINARY;
}

/* A binary kernel's dispatch refusal names the type its iterator computes
 * in, result_type(self, other): a Python complex beside an integral tensor
 * is the default complex type, beside a float16 one ComplexHalf, a
 * complex64 tensor beside a float64 one ComplexDouble (fuzz 486:946:
 * floor_divide(bool, -1.81-1.96j) is '"div_floor_cpu" not implemented for
 * 'ComplexFloat'', tpu named ComplexDouble; 508:324: a number self). */
static tt_status_t binary_refusal(const row_t *r, tt_dtype_t dt, const tt_arg_t *args, int nargs,
                                  tt_dtype_t default_float) {
  static const int both[2] = {0, 1};
  int operands = nargs > 1 && (args[0].kind == TT_ARG_TENSOR || args[1].kind == TT_ARG_TENSOR); /* a number self too */
  for (int i = 0; operands && i < 2; i++) {
    tt_arg_kind_t k = args[i].kind;
    operands = k == TT_ARG_TENSOR || k == TT_ARG_COMPLEX || k == TT_ARG_FLOAT || k == TT_ARG_INT || k == TT_ARG_BOOL;
  }
  if (operands) {
    int complex32 = 0;
    tt_dtype_t rt = tt_op_result_type_of(args, nargs, both, 2, default_float, &complex32);
    if (complex32) return tt_op_refuse_type_named("ComplexHalf", "%s", r->text);
    if (tt_dtype_is_complex(rt)) dt = rt;
  }
  return tt_op_refuse_dtype(dt, "%s", r->text);
}

/* clamp of a real self with a complex bound: CPU's meta refuses a complex
 * self, or bounds promoting an integral self to complex. Past it a floating
 * self's Scalar bound is read with toDouble (a nonzero imaginary part
 * overflows), and Tensor bounds reach the kernel of their common type:
 * clamp_min's maximum, clamp_max's minimum, or clamp_cpu for both. NULL
 * where the clamp message stands. */
static tt_status_t clamp_real_self(const tt_arg_t *args, int nargs, tt_dtype_t default_float, int inplace) {
  if (nargs < 3 || args[0].kind != TT_ARG_TENSOR || tt_dtype_is_complex(args[0].t->dtype)) return NULL;
  int lo = args[1].kind != TT_ARG_NONE, hi = args[2].kind != TT_ARG_NONE;
  if (args[1].kind == TT_ARG_TENSOR || args[2].kind == TT_ARG_TENSOR) {
    int idx[3] = {0}, n = 1, complex32 = 0;
    if (lo) idx[n++] = 1;
    if (hi) idx[n++] = 2;
    tt_dtype_t rt = tt_op_result_type_of(args, nargs, idx, n, default_float, &complex32);
    const char *kernel = lo && hi ? "clamp_cpu" : lo ? "maximum_cpu" : "minimum_cpu";
    if (inplace && tt_dtype_is_complex(rt)) /* clamp_: the common type cast into self */
      return tt_status_make(TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type %s",
                            complex32 ? "ComplexHalf" : tt_op_type_name(rt), tt_op_type_name(args[0].t->dtype));
    if (complex32) return tt_op_refuse_type_named("ComplexHalf", "%s", kernel);
    return tt_dtype_is_complex(rt) ? tt_op_refuse_dtype(rt, "%s", kernel) : NULL;
  }
  if (!tt_dtype_is_float(args[0].t->dtype)) return NULL;
  for (int i = 1; i < 3; i++)
    if (args[i].kind == TT_ARG_COMPLEX && args[i].f_im != 0.0)
      return tt_status_make(TT_INVALID_ARGUMENT, "value cannot be converted to type double without overflow");
  return NULL;
}

tt_status_t tt_complex_refusal(const tt_op_def_t *def, tt_dtype_t dt, const tt_arg_t *args, int nargs,
                               tt_dtype_t default_float) {
  if (names(def, "clamp", NULL)) {
    tt_status_t s = clamp_real_self(args, nargs, default_float, (def->flags & TT_OPF_INPLACE) != 0);
    if (s) return s;
  }
  const row_t *r = find_row(def);
  if (r) {
    switch (r->kind) {
      case K_DISPATCH: return tt_op_refuse_dtype(dt, "%s", r->text);
      case K_BINARY: return binary_refusal(r, dt, args, nargs, default_float);
      case K_NOT_IMPL: return tt_status_make(TT_NOT_IMPLEMENTED, "%s", r->text);
      case K_RUNTIME:
      case K_META: return tt_status_make(TT_INVALID_ARGUMENT, "%s", r->text);
    }
  }
  return NULL;
}
