/* Typed builders with shape inference; shape errors become graph errors. */
#include "ir/builder.h"

#include <stdint.h>
#include <string.h>

#define T(v) tt_graph_type(g, (v))
#define CHECK_VAL(v) \
  do {               \
    if ((v) < 0 || tt_graph_failed(g)) return -1; \
  } while (0)

static tt_val_t node1(tt_graph_t *g, tt_opk_t kind, int sub, const tt_val_t *in, int nin,
                      const int64_t *ints, int nints, double f, tt_type_t type) {
  return tt_graph_append(g, kind, sub, in, nin, ints, nints, f, &type);
}

static void shape_str(const tt_type_t *t, char *buf, unsigned long n) { tt_type_describe(t, buf, n); }

tt_val_t tt_b_param(tt_graph_t *g, const tt_type_t *type) {
  return tt_graph_append(g, TT_OPK_PARAM, 0, NULL, 0, NULL, 0, 0.0, type);
}

tt_val_t tt_b_const_f(tt_graph_t *g, tt_dtype_t dtype, double v) {
  /* complex constants: a real one converted (imaginary part zero) */
  if (tt_dtype_is_complex(dtype)) return tt_b_convert(g, tt_b_const_f(g, tt_dtype_real_part(dtype), v), dtype);
  if (!tt_dtype_is_float(dtype)) return tt_b_const_i(g, dtype, (int64_t)v);
  int64_t bits = 0;
  return node1(g, TT_OPK_CONSTANT, 0, NULL, 0, &bits, 1, v, tt_type_make(dtype, 0, NULL));
}

tt_val_t tt_b_const_i(tt_graph_t *g, tt_dtype_t dtype, int64_t v) {
  if (tt_dtype_is_float(dtype) || tt_dtype_is_complex(dtype)) return tt_b_const_f(g, dtype, (double)v);
  if (dtype == TT_BOOL) v = v != 0;
  return node1(g, TT_OPK_CONSTANT, 0, NULL, 0, &v, 1, (double)v, tt_type_make(dtype, 0, NULL));
}

tt_val_t tt_b_full_f(tt_graph_t *g, tt_dtype_t dtype, int rank, const int64_t *dims, double v) {
  tt_val_t c = tt_b_const_f(g, dtype, v);
  return tt_b_broadcast(g, c, rank, dims, NULL);
}

tt_val_t tt_b_full_i(tt_graph_t *g, tt_dtype_t dtype, int rank, const int64_t *dims, int64_t v) {
  tt_val_t c = tt_b_const_i(g, dtype, v);
  return tt_b_broadcast(g, c, rank, dims, NULL);
}

tt_val_t tt_b_like_f(tt_graph_t *g, tt_val_t x, double v) {
  CHECK_VAL(x);
  tt_type_t t = *T(x);
  return tt_b_full_f(g, t.dtype, t.rank, t.dims, v);
}

tt_val_t tt_b_iota(tt_graph_t *g, tt_dtype_t dtype, int rank, const int64_t *dims, int dim) {
  if (dim < 0 || dim >= rank) return tt_graph_fail(g, TT_INTERNAL, "iota dimension %d out of range", dim);
  int64_t d = dim;
  return node1(g, TT_OPK_IOTA, 0, NULL, 0, &d, 1, 0.0, tt_type_make(dtype, rank, dims));
}

tt_val_t tt_b_unary(tt_graph_t *g, tt_unary_t op, tt_val_t x) {
  CHECK_VAL(x);
  tt_type_t t = *T(x);
  /* stablehlo's abs and sign take signed or float operands only (an unsigned
   * one fails to compile): an unsigned value is its own |x|, its sign is x != 0. */
  if (tt_dtype_is_unsigned(t.dtype) && op == TT_UN_ABS) return x;
  if (tt_dtype_is_unsigned(t.dtype) && op == TT_UN_SIGN)
    return tt_b_convert(g, tt_b_compare(g, TT_CMP_NE, x, tt_b_like_f(g, x, 0.0)), t.dtype);
  if (op == TT_UN_IS_FINITE) t.dtype = TT_BOOL;
  if (op == TT_UN_ABS && tt_dtype_is_complex(t.dtype)) t.dtype = tt_dtype_real_part(t.dtype); /* |z| is real */
  if (op == TT_UN_REAL || op == TT_UN_IMAG) {
    if (!tt_dtype_is_complex(t.dtype)) return tt_graph_fail(g, TT_INTERNAL, "real/imag of a non-complex value");
    t.dtype = tt_dtype_real_part(t.dtype);
  }
  return node1(g, TT_OPK_UNARY, (int)op, &x, 1, NULL, 0, 0.0, t);
}

static int same_shape(const tt_type_t *a, const tt_type_t *b) {
  if (a->rank != b->rank) return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return 0;
  return 1;
}

static tt_val_t check_same(tt_graph_t *g, tt_val_t x, tt_val_t y, const char *what, int same_dtype) {
  if (!same_shape(T(x), T(y)) || (same_dtype && T(x)->dtype != T(y)->dtype)) {
    char a[128], b[128];
    shape_str(T(x), a, sizeof a);
    shape_str(T(y), b, sizeof b);
    return tt_graph_fail(g, TT_INTERNAL, "%s: operands differ: %s vs %s", what, a, b);
  }
  return 0;
}

tt_val_t tt_b_binary(tt_graph_t *g, tt_binary_t op, tt_val_t x, tt_val_t y) {
  CHECK_VAL(x);
  CHECK_VAL(y);
  if (check_same(g, x, y, "binary op", 1) < 0) return -1;
  tt_val_t in[2] = {x, y};
  tt_type_t t = *T(x);
  if (op == TT_BIN_COMPLEX) {
    if (t.dtype != TT_F32 && t.dtype != TT_F64) return tt_graph_fail(g, TT_INTERNAL, "complex of %s parts", tt_dtype_name(t.dtype));
    t.dtype = tt_dtype_to_complex(t.dtype);
  }
  return node1(g, TT_OPK_BINARY, (int)op, in, 2, NULL, 0, 0.0, t);
}

tt_val_t tt_b_compare(tt_graph_t *g, tt_cmp_t cmp, tt_val_t x, tt_val_t y) {
  CHECK_VAL(x);
  CHECK_VAL(y);
  if (check_same(g, x, y, "compare", 1) < 0) return -1;
  tt_val_t in[2] = {x, y};
  tt_type_t t = *T(x);
  t.dtype = TT_BOOL;
  return node1(g, TT_OPK_COMPARE, (int)cmp, in, 2, NULL, 0, 0.0, t);
}

tt_val_t tt_b_select(tt_graph_t *g, tt_val_t pred, tt_val_t on_true, tt_val_t on_false) {
  CHECK_VAL(pred);
  CHECK_VAL(on_true);
  CHECK_VAL(on_false);
  if (check_same(g, on_true, on_false, "select", 1) < 0) return -1;
  if (T(pred)->rank != 0 && check_same(g, pred, on_true, "select predicate", 0) < 0) return -1;
  tt_val_t in[3] = {pred, on_true, on_false};
  return node1(g, TT_OPK_SELECT, 0, in, 3, NULL, 0, 0.0, *T(on_true));
}

tt_val_t tt_b_clamp(tt_graph_t *g, tt_val_t lo, tt_val_t x, tt_val_t hi) {
  CHECK_VAL(lo);
  CHECK_VAL(x);
  CHECK_VAL(hi);
  tt_val_t in[3] = {lo, x, hi};
  return node1(g, TT_OPK_CLAMP, 0, in, 3, NULL, 0, 0.0, *T(x));
}

tt_val_t tt_b_convert(tt_graph_t *g, tt_val_t x, tt_dtype_t dtype) {
  CHECK_VAL(x);
  tt_dtype_t from = T(x)->dtype;
  if (from == dtype) return x;
  /* Complex <-> real spelled out, as PyTorch defines them: to real keeps the
   * real part, to bool tests both parts, from real sets a zero imaginary part. */
  if (tt_dtype_is_complex(from) && !tt_dtype_is_complex(dtype)) {
    if (dtype == TT_BOOL) return tt_b_compare(g, TT_CMP_NE, x, tt_b_like_f(g, x, 0.0));
    return tt_b_convert(g, tt_b_unary(g, TT_UN_REAL, x), dtype);
  }
  if (!tt_dtype_is_complex(from) && tt_dtype_is_complex(dtype)) {
    tt_val_t re = tt_b_convert(g, x, tt_dtype_real_part(dtype));
    return tt_b_binary(g, TT_BIN_COMPLEX, re, tt_b_like_f(g, re, 0.0));
  }
  tt_type_t t = *T(x);
  t.dtype = dtype;
  return node1(g, TT_OPK_CONVERT, 0, &x, 1, NULL, 0, 0.0, t);
}

tt_val_t tt_b_bitcast(tt_graph_t *g, tt_val_t x, tt_dtype_t dtype) {
  CHECK_VAL(x);
  if (T(x)->dtype == dtype) return x;
  tt_type_t t = *T(x);
  size_t from = tt_dtype_size(t.dtype), to = tt_dtype_size(dtype);
  if (t.dtype == TT_BOOL || dtype == TT_BOOL)
    return tt_graph_fail(g, TT_INTERNAL, "bitcast to or from bool (i1 has no byte layout)");
  if (tt_dtype_is_complex(t.dtype) || tt_dtype_is_complex(dtype))
    return tt_graph_fail(g, TT_INTERNAL, "bitcast to or from complex (split it into real and imaginary parts)");
  /* StableHLO's rule: a narrower type adds a trailing dim of the size ratio;
   * a wider one consumes a trailing dim of that size. */
  if (to < from) {
    if (t.rank >= TT_MAX_RANK) return tt_graph_fail(g, TT_INVALID_ARGUMENT, "bitcast: rank %d exceeds %d", t.rank + 1, TT_MAX_RANK);
    t.dims[t.rank++] = (int64_t)(from / to);
  } else if (to > from) {
    if (t.rank == 0 || t.dims[t.rank - 1] != (int64_t)(to / from))
      return tt_graph_fail(g, TT_INTERNAL, "bitcast %s -> %s needs a trailing dim of %d", tt_dtype_name(t.dtype),
                           tt_dtype_name(dtype), (int)(to / from));
    t.rank--;
  }
  t.dtype = dtype;
  return node1(g, TT_OPK_BITCAST, 0, &x, 1, NULL, 0, 0.0, t);
}

tt_val_t tt_b_reshape(tt_graph_t *g, tt_val_t x, int rank, const int64_t *dims) {
  CHECK_VAL(x);
  tt_type_t t = tt_type_make(T(x)->dtype, rank, dims);
  if (rank > TT_MAX_RANK) return tt_graph_fail(g, TT_INVALID_ARGUMENT, "rank %d exceeds %d", rank, TT_MAX_RANK);
  if (tt_type_numel(&t) != tt_type_numel(T(x))) {
    char a[128], b[128];
    shape_str(T(x), a, sizeof a);
    shape_str(&t, b, sizeof b);
    return tt_graph_fail(g, TT_INVALID_ARGUMENT, "cannot reshape %s to %s", a, b);
  }
  if (same_shape(&t, T(x))) return x;
  return node1(g, TT_OPK_RESHAPE, 0, &x, 1, NULL, 0, 0.0, t);
}

tt_val_t tt_b_transpose(tt_graph_t *g, tt_val_t x, const int64_t *perm) {
  CHECK_VAL(x);
  const tt_type_t *in = T(x);
  tt_type_t t = *in;
  int identity = 1, seen = 0;
  for (int i = 0; i < in->rank; i++) {
    if (perm[i] < 0 || perm[i] >= in->rank || (seen & (1 << perm[i])))
      return tt_graph_fail(g, TT_INTERNAL, "transpose: bad permutation");
    seen |= 1 << perm[i];
    t.dims[i] = in->dims[perm[i]];
    if (perm[i] != i) identity = 0;
  }
  if (identity) return x;
  return node1(g, TT_OPK_TRANSPOSE, 0, &x, 1, perm, in->rank, 0.0, t);
}

tt_val_t tt_b_broadcast(tt_graph_t *g, tt_val_t x, int rank, const int64_t *dims,
                        const int64_t *bdims) {
  CHECK_VAL(x);
  const tt_type_t *in = T(x);
  int64_t def[TT_MAX_RANK];
  if (!bdims) { /* trailing alignment */
    for (int i = 0; i < in->rank; i++) def[i] = rank - in->rank + i;
    bdims = def;
  }
  for (int i = 0; i < in->rank; i++) {
    if (bdims[i] < 0 || bdims[i] >= rank ||
        (in->dims[i] != 1 && in->dims[i] != dims[bdims[i]]))
      return tt_graph_fail(g, TT_INTERNAL, "broadcast_in_dim: operand dim %d does not fit", i);
  }
  tt_type_t t = tt_type_make(in->dtype, rank, dims);
  if (same_shape(&t, in)) {
    int id = 1;
    for (int i = 0; i < rank; i++) id &= bdims[i] == i;
    if (id) return x;
  }
  return node1(g, TT_OPK_BROADCAST, 0, &x, 1, bdims, in->rank, 0.0, t);
}

tt_val_t tt_b_broadcast_to(tt_graph_t *g, tt_val_t x, int rank, const int64_t *dims) {
  CHECK_VAL(x);
  const tt_type_t *in = T(x);
  if (in->rank > rank) return tt_graph_fail(g, TT_INTERNAL, "broadcast_to: rank shrinks");
  /* Size-1 dims that stretch must be reshaped away first. */
  int64_t kd[TT_MAX_RANK], kb[TT_MAX_RANK];
  int nk = 0;
  int needs_reshape = 0;
  for (int i = 0; i < in->rank; i++) {
    int od = rank - in->rank + i;
    if (in->dims[i] == dims[od]) {
      kd[nk] = in->dims[i];
      kb[nk++] = od;
    } else if (in->dims[i] == 1) {
      needs_reshape = 1;
    } else {
      return tt_graph_fail(g, TT_INVALID_ARGUMENT, "shape mismatch in broadcast");
    }
  }
  if (needs_reshape) x = tt_b_reshape(g, x, nk, kd);
  return tt_b_broadcast(g, x, rank, dims, kb);
}

tt_val_t tt_b_slice(tt_graph_t *g, tt_val_t x, const int64_t *start, const int64_t *limit,
                    const int64_t *stride) {
  CHECK_VAL(x);
  const tt_type_t *in = T(x);
  tt_type_t t = *in;
  int64_t ints[3 * TT_MAX_RANK];
  int identity = 1;
  for (int i = 0; i < in->rank; i++) {
    if (start[i] < 0 || limit[i] > in->dims[i] || start[i] > limit[i] || stride[i] < 1)
      return tt_graph_fail(g, TT_INTERNAL, "slice out of range on dim %d", i);
    t.dims[i] = (limit[i] - start[i] + stride[i] - 1) / stride[i];
    ints[i] = start[i];
    ints[in->rank + i] = limit[i];
    ints[2 * in->rank + i] = stride[i];
    if (start[i] != 0 || limit[i] != in->dims[i] || stride[i] != 1) identity = 0;
  }
  if (identity) return x;
  return node1(g, TT_OPK_SLICE, 0, &x, 1, ints, 3 * in->rank, 0.0, t);
}

tt_val_t tt_b_slice_dim(tt_graph_t *g, tt_val_t x, int dim, int64_t start, int64_t limit,
                        int64_t stride) {
  CHECK_VAL(x);
  const tt_type_t *in = T(x);
  int64_t s[TT_MAX_RANK], l[TT_MAX_RANK], st[TT_MAX_RANK];
  for (int i = 0; i < in->rank; i++) {
    s[i] = 0;
    l[i] = in->dims[i];
    st[i] = 1;
  }
  s[dim] = start;
  l[dim] = limit;
  st[dim] = stride;
  return tt_b_slice(g, x, s, l, st);
}

tt_val_t tt_b_dus(tt_graph_t *g, tt_val_t operand, tt_val_t update, const int64_t *starts) {
  CHECK_VAL(operand);
  CHECK_VAL(update);
  const tt_type_t *o = T(operand);
  tt_val_t in[2 + TT_MAX_RANK];
  int rank = o->rank;
  in[0] = operand;
  in[1] = update;
  for (int i = 0; i < rank; i++) in[2 + i] = tt_b_const_i(g, TT_I64, starts[i]);
  if (tt_graph_failed(g)) return -1;
  return node1(g, TT_OPK_DUS, 0, in, 2 + rank, NULL, 0, 0.0, *T(operand));
}

tt_val_t tt_b_dus_v(tt_graph_t *g, tt_val_t operand, tt_val_t update, const tt_val_t *starts) {
  CHECK_VAL(operand);
  CHECK_VAL(update);
  tt_val_t in[2 + TT_MAX_RANK];
  int rank = T(operand)->rank;
  in[0] = operand;
  in[1] = update;
  for (int i = 0; i < rank; i++) {
    CHECK_VAL(starts[i]);
    in[2 + i] = starts[i];
  }
  return node1(g, TT_OPK_DUS, 0, in, 2 + rank, NULL, 0, 0.0, *T(operand));
}

tt_val_t tt_b_dslice(tt_graph_t *g, tt_val_t operand, const tt_val_t *starts, const int64_t *sizes) {
  CHECK_VAL(operand);
  const tt_type_t *o = T(operand);
  tt_val_t in[1 + TT_MAX_RANK];
  in[0] = operand;
  for (int i = 0; i < o->rank; i++) in[1 + i] = starts[i];
  tt_type_t t = tt_type_make(o->dtype, o->rank, sizes);
  return node1(g, TT_OPK_DSLICE, 0, in, 1 + o->rank, sizes, o->rank, 0.0, t);
}

/* a and b hold the same values: the same node, or reshapes of the same
 * shape of such values (stack's unsqueezes of one input). */
static int same_value(tt_graph_t *g, tt_val_t a, tt_val_t b) {
  while (a != b) {
    const tt_node_t *na = tt_graph_node(g, a), *nb = tt_graph_node(g, b);
    if (na->kind != TT_OPK_RESHAPE || nb->kind != TT_OPK_RESHAPE || !same_shape(T(a), T(b))) return 0;
    a = na->inputs[0];
    b = nb->inputs[0];
  }
  return 1;
}

tt_val_t tt_b_concat(tt_graph_t *g, int n, const tt_val_t *xs, int dim) {
  if (n <= 0) return tt_graph_fail(g, TT_INTERNAL, "concatenate of nothing");
  for (int i = 0; i < n; i++) CHECK_VAL(xs[i]);
  if (n == 1) return xs[0];
  tt_type_t t = *T(xs[0]);
  t.dims[dim] = 0;
  for (int i = 0; i < n; i++) t.dims[dim] += T(xs[i])->dims[dim];
  /* n copies of one value of size 1 along dim (stack([x, x])) are a
   * broadcast, which a reduce after it can see through (tt_b_reduce) */
  int copies = T(xs[0])->dims[dim] == 1;
  for (int i = 1; i < n && copies; i++) copies = same_value(g, xs[0], xs[i]);
  if (copies) {
    int64_t id[TT_MAX_RANK];
    for (int i = 0; i < t.rank; i++) id[i] = i;
    return tt_b_broadcast(g, xs[0], t.rank, t.dims, id);
  }
  int64_t d = dim;
  return node1(g, TT_OPK_CONCAT, 0, xs, n, &d, 1, 0.0, t);
}

tt_val_t tt_b_pad(tt_graph_t *g, tt_val_t x, tt_val_t padval, const int64_t *lo, const int64_t *hi,
                  const int64_t *interior) {
  CHECK_VAL(x);
  CHECK_VAL(padval);
  const tt_type_t *in = T(x);
  tt_type_t t = *in;
  int64_t ints[3 * TT_MAX_RANK];
  for (int i = 0; i < in->rank; i++) {
    int64_t inter = interior ? interior[i] : 0;
    t.dims[i] = lo[i] + hi[i] + in->dims[i] + (in->dims[i] > 0 ? (in->dims[i] - 1) * inter : 0);
    ints[i] = lo[i];
    ints[in->rank + i] = hi[i];
    ints[2 * in->rank + i] = inter;
  }
  tt_val_t ins[2] = {x, padval};
  return node1(g, TT_OPK_PAD, 0, ins, 2, ints, 3 * in->rank, 0.0, t);
}

tt_val_t tt_b_reverse(tt_graph_t *g, tt_val_t x, int ndims, const int64_t *dims) {
  CHECK_VAL(x);
  if (ndims == 0) return x;
  return node1(g, TT_OPK_REVERSE, 0, &x, 1, dims, ndims, 0.0, *T(x));
}

static tt_type_t drop_dims(const tt_type_t *in, int ndims, const int64_t *dims) {
  tt_type_t t = *in;
  t.rank = 0;
  for (int i = 0; i < in->rank; i++) {
    int dropped = 0;
    for (int j = 0; j < ndims; j++) dropped |= dims[j] == i;
    if (!dropped) t.dims[t.rank++] = in->dims[i];
  }
  return t;
}

static tt_val_t reduce_init(tt_graph_t *g, tt_reduce_t kind, tt_dtype_t dt) {
  switch (kind) {
    case TT_RED_SUM: return tt_b_const_i(g, dt, 0);
    case TT_RED_PROD: return tt_b_const_i(g, dt, 1);
    case TT_RED_AND: return tt_b_const_i(g, dt, 1);
    case TT_RED_OR: return tt_b_const_i(g, dt, 0);
    case TT_RED_MAX:
    case TT_RED_ARGMAX:
      if (tt_dtype_is_float(dt)) return tt_b_const_f(g, dt, -__builtin_inf());
      if (dt == TT_BOOL) return tt_b_const_i(g, dt, 0);
      return tt_b_const_i(g, dt, tt_dtype_is_unsigned(dt) ? 0 : (dt == TT_I64 ? INT64_MIN : -(INT64_C(1) << (8 * tt_dtype_size(dt) - 1))));
    case TT_RED_MIN:
    case TT_RED_ARGMIN:
      if (tt_dtype_is_float(dt)) return tt_b_const_f(g, dt, __builtin_inf());
      if (dt == TT_BOOL) return tt_b_const_i(g, dt, 1);
      if (dt == TT_I64) return tt_b_const_i(g, dt, INT64_MAX);
      return tt_b_const_i(g, dt, tt_dtype_is_unsigned(dt) ? (INT64_C(1) << (8 * tt_dtype_size(dt))) - 1 : (INT64_C(1) << (8 * tt_dtype_size(dt) - 1)) - 1);
    default: return tt_graph_fail(g, TT_INTERNAL, "no init for reduction %d", (int)kind);
  }
}

/* x seen through reshapes that come back to x's own shape: the node of
 * x's type at the start of such a chain (a reshape of a reshape of y with
 * y's shape is y). */
static tt_val_t through_reshapes(tt_graph_t *g, tt_val_t x) {
  tt_val_t v = x;
  while (tt_graph_node(g, v)->kind == TT_OPK_RESHAPE) {
    v = tt_graph_node(g, v)->inputs[0];
    if (same_shape(T(v), T(x))) return v;
  }
  return x;
}

static int in_list(int64_t v, int n, const int64_t *list) {
  for (int i = 0; i < n; i++)
    if (list[i] == v) return 1;
  return 0;
}

/* reduce(broadcast_in_dim(y)) as broadcast(reduce(y)), or -1 where that is
 * not the same reduction. Why: a max/min reduce whose operand repeats along
 * a kept dim (x.expand(12, 2, 30).softmax(-1), or stack([x, x])) makes
 * LLVM's loop vectorizer in XLA's CPU plugin recurse exponentially through
 * the unrolled NaN-aware max chain (rows of 26-32: seconds, then hours; graph
 * fuzzer dynamic 16:13). Reducing y itself avoids the pattern and the
 * repeated work. A reduced dim that the broadcast added or stretched from 1
 * only repeats values: dropped for max/min/and/or (idempotent), not for
 * sum/prod (which count the copies), nor when it is empty (the init). */
static tt_val_t reduce_before_broadcast(tt_graph_t *g, tt_reduce_t kind, tt_val_t x, int ndims,
                                        const int64_t *dims) {
  tt_val_t b = through_reshapes(g, x);
  const tt_node_t *n = tt_graph_node(g, b);
  if (n->kind != TT_OPK_BROADCAST) return -1;
  tt_val_t y = n->inputs[0];
  const tt_type_t *yt = T(y), *bt = T(b);
  int idem = kind == TT_RED_MAX || kind == TT_RED_MIN || kind == TT_RED_AND || kind == TT_RED_OR;
  int64_t ydims[TT_MAX_RANK];
  int ny = 0;
  for (int j = 0; j < ndims; j++) {
    int src = -1;
    for (int i = 0; i < yt->rank; i++)
      if (n->ints[i] == dims[j]) src = i;
    int repeats = src < 0 || yt->dims[src] != bt->dims[dims[j]];
    if (repeats && (!idem || bt->dims[dims[j]] == 0)) return -1;
    if (src >= 0) ydims[ny++] = src;
  }
  for (int a = 1; a < ny; a++) /* ascending, as reduce's dims */
    for (int c = a; c > 0 && ydims[c - 1] > ydims[c]; c--) {
      int64_t t = ydims[c];
      ydims[c] = ydims[c - 1];
      ydims[c - 1] = t;
    }
  tt_val_t r = tt_b_reduce(g, kind, y, ny, ydims);
  /* y's kept dims go where the broadcast put them, less the reduced dims before */
  int64_t bd[TT_MAX_RANK];
  int nb = 0;
  for (int i = 0; i < yt->rank; i++) {
    if (in_list(i, ny, ydims)) continue;
    int64_t before = 0;
    for (int j = 0; j < ndims; j++) before += dims[j] < n->ints[i];
    bd[nb++] = n->ints[i] - before;
  }
  tt_type_t t = drop_dims(bt, ndims, dims);
  return tt_b_broadcast(g, r, t.rank, t.dims, bd);
}

tt_val_t tt_b_reduce(tt_graph_t *g, tt_reduce_t kind, tt_val_t x, int ndims, const int64_t *dims) {
  CHECK_VAL(x);
  if (ndims == 0) return x;
  tt_val_t rb = reduce_before_broadcast(g, kind, x, ndims, dims);
  if (rb >= 0 || tt_graph_failed(g)) return rb;
  tt_val_t init = reduce_init(g, kind, T(x)->dtype);
  CHECK_VAL(init);
  tt_type_t t = drop_dims(T(x), ndims, dims);
  tt_val_t in[2] = {x, init};
  return node1(g, TT_OPK_REDUCE, (int)kind, in, 2, dims, ndims, 0.0, t);
}

tt_val_t tt_b_argreduce(tt_graph_t *g, tt_reduce_t kind, tt_val_t x, int dim, tt_val_t *out_index) {
  *out_index = -1;
  CHECK_VAL(x);
  tt_type_t in = *T(x);
  tt_val_t idx = tt_b_iota(g, TT_I64, in.rank, in.dims, dim);
  tt_val_t init = reduce_init(g, kind, in.dtype);
  tt_val_t init_i = tt_b_const_i(g, TT_I64, 0);
  if (tt_graph_failed(g)) return -1;
  int64_t d = dim;
  tt_type_t types[2];
  types[0] = drop_dims(&in, 1, &d);
  types[1] = types[0];
  types[1].dtype = TT_I64;
  tt_val_t ins[4] = {x, idx, init, init_i};
  tt_val_t node = tt_graph_append_multi(g, TT_OPK_REDUCE, (int)kind, ins, 4, &d, 1, types, 2);
  *out_index = tt_b_get(g, node, 1);
  return tt_b_get(g, node, 0);
}

static tt_val_t window_node(tt_graph_t *g, tt_opk_t kind, int sub, const tt_val_t *ins, int nin,
                            const tt_type_t *in, const int64_t *window, const int64_t *strides,
                            const int64_t *pad_lo, const int64_t *pad_hi, tt_type_t out) {
  int64_t ints[4 * TT_MAX_RANK];
  int r = in->rank;
  for (int i = 0; i < r; i++) {
    ints[i] = window[i];
    ints[r + i] = strides[i];
    ints[2 * r + i] = pad_lo[i];
    ints[3 * r + i] = pad_hi[i];
  }
  return node1(g, kind, sub, ins, nin, ints, 4 * r, 0.0, out);
}

tt_val_t tt_b_reduce_window(tt_graph_t *g, tt_reduce_t kind, tt_val_t x, tt_val_t init,
                            const int64_t *window, const int64_t *strides, const int64_t *pad_lo,
                            const int64_t *pad_hi) {
  CHECK_VAL(x);
  if (init < 0) init = reduce_init(g, kind, T(x)->dtype);
  CHECK_VAL(init);
  tt_type_t in = *T(x), t = in;
  for (int i = 0; i < in.rank; i++) {
    int64_t padded = in.dims[i] + pad_lo[i] + pad_hi[i];
    t.dims[i] = padded < window[i] ? 0 : (padded - window[i]) / strides[i] + 1;
  }
  tt_val_t ins[2] = {x, init};
  return window_node(g, TT_OPK_REDUCE_WINDOW, (int)kind, ins, 2, &in, window, strides, pad_lo,
                     pad_hi, t);
}

tt_val_t tt_b_lowest(tt_graph_t *g, tt_dtype_t dtype) {
  /* Not a double -inf cast to an integer type: that is undefined behaviour. */
  if (tt_dtype_is_float(dtype)) return tt_b_const_f(g, dtype, -__builtin_inf());
  int64_t v = dtype == TT_I8 ? INT8_MIN : dtype == TT_I16 ? INT16_MIN : dtype == TT_I32 ? INT32_MIN
            : dtype == TT_U8 || dtype == TT_BOOL ? 0 : INT64_MIN;
  return tt_b_const_i(g, dtype, v);
}

tt_val_t tt_b_argmax_window(tt_graph_t *g, tt_val_t x, tt_val_t idx, const int64_t *window,
                            const int64_t *strides, const int64_t *dilations, const int64_t *pad_lo,
                            const int64_t *pad_hi, tt_val_t *out_index) {
  *out_index = -1;
  CHECK_VAL(x);
  CHECK_VAL(idx);
  tt_type_t in = *T(x);
  tt_val_t init = tt_b_lowest(g, in.dtype);
  tt_val_t init_i = tt_b_const_i(g, TT_I64, INT64_MAX);
  if (tt_graph_failed(g)) return -1;
  tt_type_t types[2];
  types[0] = in;
  for (int i = 0; i < in.rank; i++) {
    int64_t padded = in.dims[i] + pad_lo[i] + pad_hi[i];
    int64_t span = dilations[i] * (window[i] - 1) + 1;
    types[0].dims[i] = padded < span ? 0 : (padded - span) / strides[i] + 1;
  }
  types[1] = types[0];
  types[1].dtype = TT_I64;
  int64_t ints[5 * TT_MAX_RANK];
  int r = in.rank;
  for (int i = 0; i < r; i++) {
    ints[i] = window[i];
    ints[r + i] = strides[i];
    ints[2 * r + i] = pad_lo[i];
    ints[3 * r + i] = pad_hi[i];
    ints[4 * r + i] = dilations[i];
  }
  tt_val_t ins[4] = {x, idx, init, init_i};
  tt_val_t node = tt_graph_append_multi(g, TT_OPK_REDUCE_WINDOW, (int)TT_RED_ARGMAX, ins, 4, ints, 5 * r, types, 2);
  *out_index = tt_b_get(g, node, 1);
  return tt_b_get(g, node, 0);
}

tt_val_t tt_b_select_scatter(tt_graph_t *g, tt_val_t operand, tt_val_t source,
                             const int64_t *window, const int64_t *strides, const int64_t *pad_lo,
                             const int64_t *pad_hi) {
  CHECK_VAL(operand);
  CHECK_VAL(source);
  tt_val_t init = tt_b_const_i(g, T(source)->dtype, 0);
  CHECK_VAL(init);
  tt_type_t in = *T(operand);
  tt_type_t out = in;
  out.dtype = T(source)->dtype;
  tt_val_t ins[3] = {operand, source, init};
  return window_node(g, TT_OPK_SELECT_SCATTER, 0, ins, 3, &in, window, strides, pad_lo, pad_hi, out);
}

tt_val_t tt_b_dot(tt_graph_t *g, tt_val_t lhs, tt_val_t rhs, int nbatch, const int64_t *lhs_batch,
                  const int64_t *rhs_batch, int ncontract, const int64_t *lhs_contract,
                  const int64_t *rhs_contract) {
  return tt_b_dot_prec(g, TT_PREC_HIGHEST, lhs, rhs, nbatch, lhs_batch, rhs_batch, ncontract, lhs_contract,
                       rhs_contract);
}

tt_val_t tt_b_dot_prec(tt_graph_t *g, int precision, tt_val_t lhs, tt_val_t rhs, int nbatch,
                       const int64_t *lhs_batch, const int64_t *rhs_batch, int ncontract,
                       const int64_t *lhs_contract, const int64_t *rhs_contract) {
  CHECK_VAL(lhs);
  CHECK_VAL(rhs);
  const tt_type_t *a = T(lhs), *b = T(rhs);
  if (a->dtype != b->dtype) return tt_graph_fail(g, TT_INTERNAL, "dot: dtypes differ");
  int64_t ints[2 + 4 * TT_MAX_RANK];
  int n = 0;
  ints[n++] = nbatch;
  for (int i = 0; i < nbatch; i++) ints[n++] = lhs_batch[i];
  for (int i = 0; i < nbatch; i++) ints[n++] = rhs_batch[i];
  ints[n++] = ncontract;
  for (int i = 0; i < ncontract; i++) ints[n++] = lhs_contract[i];
  for (int i = 0; i < ncontract; i++) ints[n++] = rhs_contract[i];
  tt_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = a->dtype;
  for (int i = 0; i < nbatch; i++) {
    if (a->dims[lhs_batch[i]] != b->dims[rhs_batch[i]])
      return tt_graph_fail(g, TT_INVALID_ARGUMENT, "dot: batch dims differ");
    t.dims[t.rank++] = a->dims[lhs_batch[i]];
  }
  for (int i = 0; i < ncontract; i++)
    if (a->dims[lhs_contract[i]] != b->dims[rhs_contract[i]])
      return tt_graph_fail(g, TT_INVALID_ARGUMENT, "dot: contracting dims differ (%lld vs %lld)",
                           (long long)a->dims[lhs_contract[i]], (long long)b->dims[rhs_contract[i]]);
  for (int s = 0; s < 2; s++) {
    const tt_type_t *x = s ? b : a;
    const int64_t *bd = s ? rhs_batch : lhs_batch, *cd = s ? rhs_contract : lhs_contract;
    for (int i = 0; i < x->rank; i++) {
      int used = 0;
      for (int j = 0; j < nbatch; j++) used |= bd[j] == i;
      for (int j = 0; j < ncontract; j++) used |= cd[j] == i;
      if (!used) t.dims[t.rank++] = x->dims[i];
    }
  }
  if (t.rank > TT_MAX_RANK) return tt_graph_fail(g, TT_INVALID_ARGUMENT, "dot: result rank too large");
  tt_val_t ins[2] = {lhs, rhs};
  return node1(g, TT_OPK_DOT, precision, ins, 2, ints, n, 0.0, t);
}

tt_val_t tt_b_conv(tt_graph_t *g, tt_val_t lhs, tt_val_t rhs, const tt_conv_params_t *p) {
  CHECK_VAL(lhs);
  CHECK_VAL(rhs);
  const tt_type_t *a = T(lhs), *b = T(rhs);
  int nsp = p->nsp;
  if (a->rank != nsp + 2 || b->rank != nsp + 2)
    return tt_graph_fail(g, TT_INTERNAL, "conv: rank mismatch");
  tt_type_t t = *a;
  t.dims[0] = a->dims[0] / p->batch_groups;
  t.dims[1] = b->dims[0];
  for (int i = 0; i < nsp; i++) {
    int64_t in = (a->dims[2 + i] - 1) * p->lhs_dilation[i] + 1 + p->pad_lo[i] + p->pad_hi[i];
    int64_t k = (b->dims[2 + i] - 1) * p->rhs_dilation[i] + 1;
    t.dims[2 + i] = in < k ? 0 : (in - k) / p->stride[i] + 1;
  }
  int64_t ints[1 + 5 * 3 + 2];
  int n = 0;
  ints[n++] = nsp;
  for (int i = 0; i < nsp; i++) ints[n++] = p->stride[i];
  for (int i = 0; i < nsp; i++) ints[n++] = p->pad_lo[i];
  for (int i = 0; i < nsp; i++) ints[n++] = p->pad_hi[i];
  for (int i = 0; i < nsp; i++) ints[n++] = p->lhs_dilation[i];
  for (int i = 0; i < nsp; i++) ints[n++] = p->rhs_dilation[i];
  ints[n++] = p->feature_groups;
  ints[n++] = p->batch_groups;
  tt_val_t ins[2] = {lhs, rhs};
  return node1(g, TT_OPK_CONV, p->precision, ins, 2, ints, n, 0.0, t);
}

tt_val_t tt_b_gather(tt_graph_t *g, tt_val_t operand, tt_val_t indices, const tt_gather_dims_t *d) {
  CHECK_VAL(operand);
  CHECK_VAL(indices);
  const tt_type_t *o = T(operand), *ix = T(indices);
  /* Result: batch dims of indices (all but the last) interleaved with offset dims. */
  tt_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = o->dtype;
  t.rank = (ix->rank - 1) + d->n_offset;
  int64_t offs[TT_MAX_RANK];
  int no = 0;
  for (int i = 0; i < o->rank; i++) {
    int collapsed = 0;
    for (int j = 0; j < d->n_collapsed; j++) collapsed |= d->collapsed[j] == i;
    if (!collapsed) offs[no++] = d->slice_sizes[i];
  }
  if (no != d->n_offset) return tt_graph_fail(g, TT_INTERNAL, "gather: offset dims mismatch");
  int bi = 0, oi = 0;
  for (int i = 0; i < t.rank; i++) {
    int is_off = 0;
    for (int j = 0; j < d->n_offset; j++) is_off |= d->offset_dims[j] == i;
    t.dims[i] = is_off ? offs[oi++] : ix->dims[bi++];
  }
  int64_t ints[4 + 4 * TT_MAX_RANK];
  int n = 0;
  ints[n++] = d->n_offset;
  for (int i = 0; i < d->n_offset; i++) ints[n++] = d->offset_dims[i];
  ints[n++] = d->n_collapsed;
  for (int i = 0; i < d->n_collapsed; i++) ints[n++] = d->collapsed[i];
  ints[n++] = d->n_start_map;
  for (int i = 0; i < d->n_start_map; i++) ints[n++] = d->start_index_map[i];
  ints[n++] = o->rank;
  for (int i = 0; i < o->rank; i++) ints[n++] = d->slice_sizes[i];
  tt_val_t ins[2] = {operand, indices};
  return node1(g, TT_OPK_GATHER, 0, ins, 2, ints, n, 0.0, t);
}

tt_val_t tt_b_scatter(tt_graph_t *g, tt_reduce_t kind, tt_val_t operand, tt_val_t indices,
                      tt_val_t updates, const tt_scatter_dims_t *d) {
  CHECK_VAL(operand);
  CHECK_VAL(indices);
  CHECK_VAL(updates);
  int64_t ints[3 + 3 * TT_MAX_RANK];
  int n = 0;
  ints[n++] = d->n_window;
  for (int i = 0; i < d->n_window; i++) ints[n++] = d->update_window_dims[i];
  ints[n++] = d->n_inserted;
  for (int i = 0; i < d->n_inserted; i++) ints[n++] = d->inserted_window_dims[i];
  ints[n++] = d->n_to_operand;
  for (int i = 0; i < d->n_to_operand; i++) ints[n++] = d->scatter_to_operand[i];
  tt_val_t ins[3] = {operand, indices, updates};
  return node1(g, TT_OPK_SCATTER, (int)kind, ins, 3, ints, n, 0.0, *T(operand));
}

tt_val_t tt_b_rng(tt_graph_t *g, tt_val_t state, const tt_type_t *type, tt_val_t *out_state) {
  *out_state = -1;
  CHECK_VAL(state);
  tt_type_t types[2] = {*T(state), *type};
  tt_val_t node = tt_graph_append_multi(g, TT_OPK_RNG, 0, &state, 1, NULL, 0, types, 2);
  *out_state = tt_b_get(g, node, 0);
  return tt_b_get(g, node, 1);
}

tt_val_t tt_b_sort(tt_graph_t *g, int n, const tt_val_t *xs, int dim, int descending, int stable) {
  tt_type_t types[TT_MAX_RANK];
  if (n > TT_MAX_RANK) return tt_graph_fail(g, TT_INTERNAL, "sort: too many operands");
  for (int i = 0; i < n; i++) {
    CHECK_VAL(xs[i]);
    types[i] = *T(xs[i]);
  }
  int64_t ints[3] = {dim, descending, stable};
  return tt_graph_append_multi(g, TT_OPK_SORT, 0, xs, n, ints, 3, types, n);
}

tt_val_t tt_b_get(tt_graph_t *g, tt_val_t multi, int index) {
  CHECK_VAL(multi);
  const tt_node_t *n = tt_graph_node(g, multi);
  if (n->nresults <= 1) return index == 0 ? multi : tt_graph_fail(g, TT_INTERNAL, "get: no result %d", index);
  int64_t i = index;
  tt_type_t t = n->types[index];
  return node1(g, TT_OPK_GET, 0, &multi, 1, &i, 1, 0.0, t);
}

static int square_batch(tt_graph_t *g, const tt_type_t *a, const char *what) {
  if (a->rank < 2 || a->dims[a->rank - 1] != a->dims[a->rank - 2]) {
    char buf[128];
    shape_str(a, buf, sizeof buf);
    tt_graph_fail(g, TT_INTERNAL, "%s: expected square matrices, got %s", what, buf);
    return 0;
  }
  return 1;
}

tt_val_t tt_b_cholesky(tt_graph_t *g, tt_val_t a, int lower) {
  CHECK_VAL(a);
  if (!square_batch(g, T(a), "cholesky")) return -1;
  int64_t l = lower != 0;
  return node1(g, TT_OPK_CHOLESKY, 0, &a, 1, &l, 1, 0.0, *T(a));
}

tt_val_t tt_b_triangular_solve(tt_graph_t *g, tt_val_t a, tt_val_t b, int left_side, int lower,
                               int unit_diagonal, int transpose_a) {
  CHECK_VAL(a);
  CHECK_VAL(b);
  const tt_type_t *ta = T(a), *tb = T(b);
  int r = ta->rank, ok = r >= 2 && tb->rank == r && ta->dtype == tb->dtype &&
                         ta->dims[r - 1] == ta->dims[r - 2];
  for (int i = 0; ok && i < r - 2; i++) ok = ta->dims[i] == tb->dims[i];
  if (ok) ok = ta->dims[r - 1] == tb->dims[left_side ? r - 2 : r - 1];
  if (!ok) {
    char x[128], y[128];
    shape_str(ta, x, sizeof x);
    shape_str(tb, y, sizeof y);
    return tt_graph_fail(g, TT_INTERNAL, "triangular_solve: operands %s and %s do not fit", x, y);
  }
  int64_t ints[4] = {left_side != 0, lower != 0, unit_diagonal != 0, transpose_a != 0};
  tt_val_t ins[2] = {a, b};
  return node1(g, TT_OPK_TRIANGULAR_SOLVE, 0, ins, 2, ints, 4, 0.0, *tb);
}

tt_val_t tt_b_fft(tt_graph_t *g, tt_val_t x, tt_fft_t type, int n, const int64_t *lengths) {
  CHECK_VAL(x);
  tt_type_t t = *T(x);
  if (n < 1 || n > 3 || n > t.rank) return tt_graph_fail(g, TT_INTERNAL, "fft over %d of %d dims", n, t.rank);
  for (int i = 0; i < n; i++) {
    int d = t.rank - n + i;
    /* IRFFT reads length/2+1 elements of the last dim; all else the length */
    int64_t want = type == TT_FFT_IRFFT && i == n - 1 ? lengths[i] / 2 + 1 : lengths[i];
    if (t.dims[d] != want) return tt_graph_fail(g, TT_INTERNAL, "fft: dim %d is %lld, expected %lld", d, (long long)t.dims[d], (long long)want);
    if (type == TT_FFT_RFFT && i == n - 1) t.dims[d] = lengths[i] / 2 + 1;
    if (type == TT_FFT_IRFFT && i == n - 1) t.dims[d] = lengths[i];
  }
  int real_in = type == TT_FFT_RFFT;
  if (real_in ? !(t.dtype == TT_F32 || t.dtype == TT_F64) : !tt_dtype_is_complex(t.dtype))
    return tt_graph_fail(g, TT_INTERNAL, "fft: operand of type %s", tt_dtype_name(t.dtype));
  if (type == TT_FFT_RFFT) t.dtype = tt_dtype_to_complex(t.dtype);
  if (type == TT_FFT_IRFFT) t.dtype = tt_dtype_real_part(t.dtype);
  return node1(g, TT_OPK_FFT, (int)type, &x, 1, lengths, n, 0.0, t);
}
