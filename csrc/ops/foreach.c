/* _foreach ops (torch.optim's multi-tensor paths): every element of the
 * tensor lists is lowered by the matching single-tensor op, all in ONE
 * program per call. */
#include <string.h>

#include "ops/common.h"
#include "ops/complex_rules.h"
#include "ops/families.h"
#include "ops/out_rules.h"

#define FE_MAX_ARGS 16

/* Which single-tensor op computes one element of each foreach overload. */
typedef enum {
  FE_OUT = 0,      /* the base op's result is element j's output */
  FE_INPLACE = 1,  /* ... and is written into self[j] (checked castable, as CPU does) */
  FE_WRITES = 2,   /* the base op writes its argument 0 itself (zero_, copy_) */
  FE_WRITE_OUT = 3 /* the base op's write into argument 0 becomes the output (functional zero/copy) */
} fe_mode_t;

typedef struct {
  const char *name;
  const char *base;
  fe_mode_t mode;
  /* The base op's arguments by position: a digit picks the foreach argument,
   * '-' passes None (its default); NULL passes the arguments as they are. */
  const char *argmap;
} fe_map_t;

#define OUT(name, base) {name, base, FE_OUT, NULL}
#define INP(name, base) {name, base, FE_INPLACE, NULL}
static const fe_map_t fe_maps[] = {
/* base_si: the in-place scalar forms' element op (CPU's per-tensor loop calls
 * the in-place op, which may round differently: mul_.Scalar) */
#define FE_BIN_SI(op, base_t, base_s, base_si)                                             \
  OUT("_foreach_" op ".List", base_t), INP("_foreach_" op "_.List", base_t),             \
  OUT("_foreach_" op ".Scalar", base_s), INP("_foreach_" op "_.Scalar", base_si),        \
  OUT("_foreach_" op ".ScalarList", base_s), INP("_foreach_" op "_.ScalarList", base_si)
#define FE_BIN(op, base_t, base_s) FE_BIN_SI(op, base_t, base_s, base_s)
    FE_BIN("add", "add.Tensor", "add.Scalar"),
    FE_BIN("sub", "sub.Tensor", "sub.Scalar"),
    FE_BIN_SI("mul", "mul.Tensor", "mul.Scalar", "mul_.Scalar"),
    FE_BIN("div", "div.Tensor", "div.Scalar"),
    /* CPU's foreach maximum/minimum run clamp_min/clamp_max per tensor (their
     * complex refusal says "maximum_cpu"/"minimum_cpu", not maximum's words) */
    FE_BIN("maximum", "clamp_min.Tensor", "clamp_min"),
    FE_BIN("minimum", "clamp_max.Tensor", "clamp_max"),
    FE_BIN("clamp_min", "clamp_min.Tensor", "clamp_min"),
    FE_BIN("clamp_max", "clamp_max.Tensor", "clamp_max"),
    FE_BIN("pow", "pow.Tensor_Tensor", "pow.Tensor_Scalar"),
#undef FE_BIN
#undef FE_BIN_SI
    OUT("_foreach_add.Tensor", "add.Tensor"), INP("_foreach_add_.Tensor", "add.Tensor"),
    OUT("_foreach_mul.Tensor", "mul.Tensor"), INP("_foreach_mul_.Tensor", "mul.Tensor"),
    OUT("_foreach_div.Tensor", "div.Tensor"), INP("_foreach_div_.Tensor", "div.Tensor"),
    OUT("_foreach_pow.ScalarAndTensor", "pow.Scalar"),
#define FE_UN(op) OUT("_foreach_" op, op), INP("_foreach_" op "_", op)
    FE_UN("sqrt"), FE_UN("rsqrt"), FE_UN("neg"), FE_UN("abs"), FE_UN("exp"), FE_UN("expm1"),
    FE_UN("log"), FE_UN("log1p"), FE_UN("reciprocal"), FE_UN("sign"), FE_UN("sigmoid"),
    FE_UN("tanh"), FE_UN("sin"), FE_UN("cos"), FE_UN("erf"), FE_UN("floor"), FE_UN("ceil"),
    FE_UN("round"), FE_UN("trunc"), FE_UN("acos"), FE_UN("asin"), FE_UN("atan"), FE_UN("cosh"),
    FE_UN("sinh"), FE_UN("tan"), FE_UN("log10"), FE_UN("log2"), FE_UN("lgamma"), FE_UN("frac"),
    FE_UN("erfc"),
#undef FE_UN
    OUT("_foreach_clone", "clone"), OUT("_foreach_max", "max"), OUT("_foreach_mm", "mm"),
    /* norm(self, ord, dtype) is linalg_vector_norm(self, ord, dim=None, keepdim=False, dtype) per tensor. */
    {"_foreach_norm.Scalar", "linalg_vector_norm", FE_OUT, "01--2"},
#define FE_C(op)                                                                           \
  OUT("_foreach_" op ".Scalar", op), INP("_foreach_" op "_.Scalar", op),                   \
  OUT("_foreach_" op ".ScalarList", op), INP("_foreach_" op "_.ScalarList", op)
    FE_C("addcmul"), FE_C("addcdiv"),
#undef FE_C
    OUT("_foreach_lerp.List", "lerp.Tensor"), INP("_foreach_lerp_.List", "lerp.Tensor"),
    OUT("_foreach_lerp.Scalar", "lerp.Scalar"), INP("_foreach_lerp_.Scalar", "lerp.Scalar"),
    OUT("_foreach_lerp.ScalarList", "lerp.Scalar"), INP("_foreach_lerp_.ScalarList", "lerp.Scalar"),
    {"_foreach_zero_", "zero_", FE_WRITES, NULL}, {"_foreach_copy_", "copy_", FE_WRITES, NULL},
    /* The functional forms (functionalization's): what the in-place op would write. */
    {"_foreach_zero", "zero_", FE_WRITE_OUT, NULL}, {"_foreach_copy", "copy_", FE_WRITE_OUT, NULL},
    {NULL, NULL, 0, NULL},
};
#undef OUT
#undef INP

static const fe_map_t *fe_find(const char *name) {
  for (const fe_map_t *m = fe_maps; m->name; m++)
    if (!strcmp(m->name, name)) return m;
  return NULL;
}

/* The list length all list arguments must share; records PyTorch's error. */
static int fe_length(tt_lower_t *L) {
  int n = -1;
  for (int k = 0; k < L->nargs; k++) {
    const tt_arg_t *a = &L->args[k];
    if (a->kind == TT_ARG_TENSORS) {
      if (n >= 0 && a->n != n) {
        tt_l_fail(L, TT_INVALID_ARGUMENT, "Tensor lists must have the same number of tensors, got %d and %d", n, a->n);
        return -1;
      }
      n = a->n;
    }
  }
  if (n < 0) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: expected a list of Tensors", L->op);
    return -1;
  }
  for (int k = 0; k < L->nargs; k++) {
    const tt_arg_t *a = &L->args[k];
    if ((a->kind == TT_ARG_FLOATS || a->kind == TT_ARG_INTS) && a->n != n) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "Tensor list must have same number of elements as scalar list, got %d and %d", n, a->n);
      return -1;
    }
  }
  return n;
}

/* The single-op arguments of element j: list entries become their j-th
 * item, in the base op's order (m->argmap); returns their count, 0 on error. */
static int fe_element_args(tt_lower_t *L, const fe_map_t *m, const tt_arg_t *all, int j, tt_arg_t *el) {
  int n = m->argmap ? (int)strlen(m->argmap) : L->nargs;
  for (int k = 0; k < n; k++) {
    int from = m->argmap ? (m->argmap[k] == '-' ? -1 : m->argmap[k] - '0') : k;
    if (from < 0 || from >= L->nargs) {
      memset(&el[k], 0, sizeof el[k]); /* None */
      continue;
    }
    el[k] = all[from];
    const tt_arg_t *a = &all[from];
    if (a->kind == TT_ARG_TENSORS) {
      if (!a->t[j].storage && !a->t[j].is_host_scalar) {
        tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: tensor list argument %d has None at %d", L->op, from, j);
        return 0;
      }
      el[k].kind = TT_ARG_TENSOR;
      el[k].t = &a->t[j];
      el[k].n = 0;
    } else if (a->kind == TT_ARG_FLOATS) {
      int c = a->floats_complex && a->floats_complex[j];
      el[k].kind = c ? TT_ARG_COMPLEX : TT_ARG_FLOAT;
      el[k].f = a->floats[j];
      el[k].f_im = c ? a->floats_im[j] : 0.0;
    } else if (a->kind == TT_ARG_INTS) {
      el[k].kind = TT_ARG_INT;
      el[k].i = a->ints[j];
    }
  }
  return n > 0 ? n : 1;
}

/* Lowers element j with the base op; its result (or its write into its
 * argument 0) becomes element j's output or write. The foreach rows take
 * complex lists (TT_OPF_COMPLEX): each element goes through its base op's
 * complex rule, so _foreach_add computes where add does and
 * _foreach_maximum is refused in maximum's (CPU's) words. */
static tt_status_t fe_element(tt_lower_t *L, const tt_op_def_t *base, const fe_map_t *m, const tt_arg_t *all,
                              int j) {
  tt_arg_t el[FE_MAX_ARGS];
  int nel = fe_element_args(L, m, all, j, el);
  if (!nel) return NULL;
  tt_lower_fn fn;
  tt_status_t s = tt_complex_route(base, el, nel, L->default_float, &fn);
  if (s) return s;
  int nouts = L->nouts, nwrites = L->nwrites, nargs = L->nargs;
  L->args = el;
  L->nargs = nel;
  s = fn(L);
  L->args = (tt_arg_t *)all;
  L->nargs = nargs;
  L->returns_arg = -1;
  if (s || tt_graph_failed(L->g)) return s;
  fe_mode_t mode = m->mode;
  if (mode == FE_WRITES) { /* the base op wrote its argument 0: retarget to element j */
    for (int w = nwrites; w < L->nwrites; w++) L->write_elem[w] = j;
    return NULL;
  }
  if (mode == FE_WRITE_OUT) {
    if (L->nwrites != nwrites + 1 || L->nouts != nouts)
      return tt_status_make(TT_INTERNAL, "%s: element op %s gave %d writes", L->op, base->name, L->nwrites - nwrites);
    tt_l_output(L, L->write_val[--L->nwrites]);
    return NULL;
  }
  if (L->nouts != nouts + 1 || L->nwrites != nwrites)
    return tt_status_make(TT_INTERNAL, "%s: element op %s gave %d results", L->op, base->name, L->nouts - nouts);
  if (mode == FE_INPLACE) {
    tt_val_t v = L->outs[--L->nouts];
    tt_dtype_t rdt = tt_graph_type(L->g, v)->dtype, sdt = all[0].t[j].dtype;
    if (!tt_op_can_cast(rdt, sdt))
      return tt_status_make(TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type %s",
                            tt_op_type_name(rdt), tt_op_type_name(sdt));
    tt_l_write(L, 0, j, v);
  }
  return NULL;
}

/* The element op of map entry m, looked up in the op table once (a name
 * search over every op would otherwise run on each foreach call). */
static const tt_op_def_t *fe_base(const fe_map_t *m) {
  static const tt_op_def_t *resolved[sizeof fe_maps / sizeof fe_maps[0]];
  size_t i = (size_t)(m - fe_maps);
  if (!resolved[i]) {
    int id = tt_ops_find(m->base);
    resolved[i] = id >= 0 ? tt_ops_get(id) : NULL;
  }
  return resolved[i];
}

static tt_status_t lower_foreach(tt_lower_t *L) {
  const fe_map_t *m = fe_find(L->op);
  const tt_op_def_t *base = m ? fe_base(m) : NULL;
  if (!base) return tt_status_make(TT_INTERNAL, "%s: no element lowering", L->op);
  if (L->nargs > FE_MAX_ARGS || (m->argmap && strlen(m->argmap) > FE_MAX_ARGS)) return tt_status_make(TT_INTERNAL, "%s: too many arguments", L->op);
  int n = fe_length(L);
  const tt_arg_t *all = L->args;
  for (int j = 0; j < n; j++) {
    tt_status_t s = fe_element(L, base, m, all, j);
    if (s || tt_graph_failed(L->g)) return s;
  }
  return NULL;
}

const tt_op_def_t tt_ops_foreach[] = {
#define FE(name) {name, lower_foreach, TT_OPF_COMPLEX}
#define FE_BIN(op)                                                                           \
  FE("_foreach_" op ".List"), FE("_foreach_" op "_.List"), FE("_foreach_" op ".Scalar"),     \
  FE("_foreach_" op "_.Scalar"), FE("_foreach_" op ".ScalarList"), FE("_foreach_" op "_.ScalarList")
    FE_BIN("add"), FE_BIN("sub"), FE_BIN("mul"), FE_BIN("div"), FE_BIN("maximum"), FE_BIN("minimum"),
    FE_BIN("clamp_min"), FE_BIN("clamp_max"), FE_BIN("pow"),
#undef FE_BIN
    FE("_foreach_add.Tensor"), FE("_foreach_add_.Tensor"), FE("_foreach_mul.Tensor"), FE("_foreach_mul_.Tensor"),
    FE("_foreach_div.Tensor"), FE("_foreach_div_.Tensor"), FE("_foreach_pow.ScalarAndTensor"),
#define FE_UN(op) FE("_foreach_" op), FE("_foreach_" op "_")
    FE_UN("sqrt"), FE_UN("rsqrt"), FE_UN("neg"), FE_UN("abs"), FE_UN("exp"), FE_UN("expm1"),
    FE_UN("log"), FE_UN("log1p"), FE_UN("reciprocal"), FE_UN("sign"), FE_UN("sigmoid"),
    FE_UN("tanh"), FE_UN("sin"), FE_UN("cos"), FE_UN("erf"), FE_UN("floor"), FE_UN("ceil"),
    FE_UN("round"), FE_UN("trunc"), FE_UN("acos"), FE_UN("asin"), FE_UN("atan"), FE_UN("cosh"), FE_UN("sinh"),
    FE_UN("tan"), FE_UN("log10"), FE_UN("log2"), FE_UN("lgamma"), FE_UN("frac"), FE_UN("erfc"),
#undef FE_UN
    FE("_foreach_clone"), FE("_foreach_max"), FE("_foreach_mm"), FE("_foreach_norm.Scalar"), FE("_foreach_zero"),
    FE("_foreach_copy"),
#define FE_C(op) FE("_foreach_" op ".Scalar"), FE("_foreach_" op "_.Scalar"), FE("_foreach_" op ".ScalarList"), FE("_foreach_" op "_.ScalarList")
    FE_C("addcmul"), FE_C("addcdiv"),
#undef FE_C
    FE("_foreach_lerp.List"), FE("_foreach_lerp_.List"), FE("_foreach_lerp.Scalar"), FE("_foreach_lerp_.Scalar"),
    FE("_foreach_lerp.ScalarList"), FE("_foreach_lerp_.ScalarList"),
    {"_foreach_zero_", lower_foreach, TT_OPF_UNIFORM_WRITE | TT_OPF_COMPLEX}, FE("_foreach_copy_"),
#undef FE
    {NULL, NULL, 0},
};
