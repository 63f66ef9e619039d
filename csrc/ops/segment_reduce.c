/* Lowerings of segment_reduce (sum, mean, max, min, prod over segments given
 * by lengths or offsets along an axis) and its backward. Shapes depend only
 * on the count of segments, so everything stays static: each element's
 * segment is the number of segment ends at or before it (a scatter of marks
 * and a prefix sum), then one scatter reduces the elements in order, as
 * CPU's loop does. segment_reduce's size companion downloads {shortest segment,
 * rows of lengths that sum to the axis size} first for CPU's checks. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/scan.h"

typedef enum { RED_SUM, RED_MEAN, RED_MAX, RED_MIN, RED_PROD } red_t;

/* The problem: data seen as [O, S, I] around the axis, K segments per row. */
typedef struct seg_s {
  red_t red;
  int axis, rank, offsets; /* offsets: the segments come as offsets (else lengths) */
  int seg_arg;             /* argument index of lengths or offsets */
  int64_t dims[TT_MAX_RANK];
  int64_t O, S, I, K;
  tt_dtype_t dt;
} seg_t;

static int parse_reduce(tt_lower_t *L, const char *s, red_t *out) {
  static const struct { const char *name; red_t red; } names[] = {
      {"sum", RED_SUM}, {"mean", RED_MEAN}, {"max", RED_MAX}, {"amax", RED_MAX},
      {"min", RED_MIN}, {"amin", RED_MIN}, {"prod", RED_PROD},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (s && !strcmp(s, names[i].name)) return *out = names[i].red, 1;
  tt_l_fail(L, TT_INVALID_ARGUMENT, "reduce argument must be either sum, prod, mean, amax or amin, got %s", s ? s : "None");
  return 0;
}

/* Reads and checks what CPU checks before looking at the data. di: data,
 * ri: reduce, li/oi: lengths/offsets, ii: indices (-1: none), ai: axis. */
static int setup(tt_lower_t *L, int di, int ri, int li, int ii, int oi, int ai, seg_t *P) {
  memset(P, 0, sizeof *P);
  P->rank = tt_l_arg_rank(L, di);
  P->dt = tt_l_arg_dtype(L, di);
  int axis = tt_op_wrap_dim(L, tt_l_int(L, ai, 0), P->rank);
  if (tt_graph_failed(L->g)) return 0;
  P->axis = axis;
  if (ii >= 0 && !tt_l_is_none(L, ii))
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "segment_reduce(): indices based reduction is not supported yet."), 0;
  P->offsets = !tt_l_is_none(L, oi);
  if (!P->offsets && tt_l_is_none(L, li))
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "segment_reduce(): Either lengths or offsets must be defined."), 0;
  if (!parse_reduce(L, tt_l_str(L, ri, NULL), &P->red)) return 0;
  P->seg_arg = P->offsets ? oi : li;
  const char *what = P->offsets ? "offsets" : "lengths";
  int srank = tt_l_arg_rank(L, P->seg_arg);
  const int64_t *ss = tt_l_arg_sizes(L, P->seg_arg), *ds = tt_l_arg_sizes(L, di);
  if (P->rank < srank)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "segment_reduce(): data (%d dims) must have at least as many dims as %s (%d)", P->rank, what, srank), 0;
  if (axis != srank - 1)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "segment_reduce(): Expected axis to be the last dimension of %s but got %d.", what, axis), 0;
  for (int d = 0; d < axis; d++)
    if (ss[d] != ds[d])
      return tt_l_fail(L, TT_INVALID_ARGUMENT, "segment_reduce(): %s has size %lld at dim %d but data has %lld; they must agree before the axis",
                       what, (long long)ss[d], d, (long long)ds[d]), 0;
  tt_dtype_t sdt = tt_l_arg_dtype(L, P->seg_arg);
  if (sdt != TT_I32 && sdt != TT_I64)
    return tt_l_refuse_dtype(L, sdt, "_segment_reduce_%s_cpu_kernel1", what), 0;
  if (!tt_dtype_is_float(P->dt))
    return tt_l_refuse_dtype(L, P->dt, "_segment_reduce_cpu"), 0;
  P->K = ss[axis] - P->offsets;
  if (P->K < 0) return tt_l_fail(L, TT_INVALID_ARGUMENT, "segment_reduce(): offsets must have at least one element along the axis"), 0;
  memcpy(P->dims, ds, sizeof(int64_t) * (size_t)P->rank);
  P->O = 1;
  P->I = 1;
  for (int d = 0; d < axis; d++) P->O *= ds[d];
  for (int d = axis + 1; d < P->rank; d++) P->I *= ds[d];
  P->S = ds[axis];
  return 1;
}

/* Segment bounds as [O, K] int64: lengths, ends (exclusive), and starts [O]. */
static void bounds(tt_lower_t *L, const seg_t *P, tt_val_t *len, tt_val_t *ends, tt_val_t *start) {
  tt_graph_t *g = L->g;
  int64_t ok[2] = {P->O, P->K}, o1[2] = {P->O, P->K + 1};
  tt_val_t s = tt_b_convert(g, tt_l_tensor(L, P->seg_arg), TT_I64);
  if (P->offsets) {
    s = tt_b_reshape(g, s, 2, o1);
    *start = tt_b_reshape(g, tt_b_slice_dim(g, s, 1, 0, 1, 1), 1, &P->O);
    *ends = tt_b_slice_dim(g, s, 1, 1, P->K + 1, 1);
    *len = tt_b_binary(g, TT_BIN_SUB, *ends, tt_b_slice_dim(g, s, 1, 0, P->K, 1));
  } else {
    *len = tt_b_reshape(g, s, 2, ok);
    *ends = tt_graph_failed(g) ? -1 : tt_op_scan(g, TT_RED_SUM, *len, 1);
    *start = tt_b_full_i(g, TT_I64, 1, &P->O, 0);
  }
}

/* [O, S, 2] scatter/gather coordinates (row, segment) of every element; the
 * segment is K (outside) for elements in no segment. Also returns the
 * in-segment mask [O, S] and the segment index clamped into [0, K). */
static tt_val_t coords(tt_graph_t *g, const seg_t *P, tt_val_t ends, tt_val_t start, tt_val_t *out_valid, tt_val_t *out_clamped) {
  int64_t os[2] = {P->O, P->S}, ok[2] = {P->O, P->K}, ok1[3] = {P->O, P->K, 1}, os1[3] = {P->O, P->S, 1};
  /* marks[o, e] counts the segment ends at e; ends past the axis drop out. */
  tt_val_t oi = tt_b_iota(g, TT_I64, 2, ok, 0);
  tt_val_t mi[2] = {tt_b_reshape(g, oi, 3, ok1), tt_b_reshape(g, ends, 3, ok1)};
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  sd.n_inserted = sd.n_to_operand = 2;
  sd.inserted_window_dims[1] = sd.scatter_to_operand[1] = 1;
  tt_val_t marks = tt_b_scatter(g, TT_RED_SUM, tt_b_full_i(g, TT_I64, 2, os, 0), tt_b_concat(g, 2, mi, 2), tt_b_full_i(g, TT_I64, 2, ok, 1), &sd);
  if (tt_graph_failed(g)) return -1; /* tt_op_scan reads its operand's type */
  tt_val_t seg = tt_op_scan(g, TT_RED_SUM, marks, 1);
  tt_val_t j = tt_b_iota(g, TT_I64, 2, os, 1);
  int64_t b0 = 0;
  tt_val_t valid = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_LT, seg, tt_b_full_i(g, TT_I64, 2, os, P->K)),
                               tt_b_compare(g, TT_CMP_GE, j, tt_b_broadcast(g, start, 2, os, &b0)));
  *out_valid = valid;
  *out_clamped = tt_b_clamp(g, tt_b_const_i(g, TT_I64, 0), seg, tt_b_const_i(g, TT_I64, P->K > 0 ? P->K - 1 : 0));
  seg = tt_b_select(g, valid, seg, tt_b_full_i(g, TT_I64, 2, os, P->K));
  tt_val_t ci[2] = {tt_b_reshape(g, tt_b_iota(g, TT_I64, 2, os, 0), 3, os1), tt_b_reshape(g, seg, 3, os1)};
  return tt_b_concat(g, 2, ci, 2);
}

/* Per segment: x [O, S, I] folded by `kind` into init [O, K, I], in order. */
static tt_val_t seg_fold(tt_graph_t *g, tt_reduce_t kind, tt_val_t init, tt_val_t idx, tt_val_t x) {
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  sd.n_window = 1;
  sd.update_window_dims[0] = 2;
  sd.n_inserted = sd.n_to_operand = 2;
  sd.inserted_window_dims[1] = sd.scatter_to_operand[1] = 1;
  return tt_b_scatter(g, kind, init, idx, x, &sd);
}

/* Per element: the segment's value of v [O, K, I or 1] (idx clamped into range). */
static tt_val_t seg_gather(tt_graph_t *g, const seg_t *P, tt_val_t v, tt_val_t clamped) {
  if (v < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *t = tt_graph_type(g, v);
  int64_t os1[3] = {P->O, P->S, 1};
  tt_val_t ci[2] = {tt_b_reshape(g, tt_b_iota(g, TT_I64, 2, (int64_t[]){P->O, P->S}, 0), 3, os1), tt_b_reshape(g, clamped, 3, os1)};
  tt_gather_dims_t gd;
  memset(&gd, 0, sizeof gd);
  gd.n_offset = 1;
  gd.offset_dims[0] = 2;
  gd.n_collapsed = gd.n_start_map = 2;
  gd.collapsed[1] = gd.start_index_map[1] = 1;
  gd.slice_sizes[0] = gd.slice_sizes[1] = 1;
  gd.slice_sizes[2] = t->dims[2];
  return tt_b_gather(g, v, tt_b_concat(g, 2, ci, 2), &gd);
}

/* x / n as CPU divides a scalar_t by an int64 count: the count converted to
 * the data type, the quotient computed in float (for bf16/f16) and rounded. */
static tt_val_t div_count(tt_graph_t *g, tt_val_t x, tt_val_t n) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  tt_dtype_t dt = tt_graph_type(g, x)->dtype, mt = tt_op_math_type(dt);
  tt_val_t q = tt_b_binary(g, TT_BIN_DIV, tt_b_convert(g, x, mt), tt_b_convert(g, tt_b_convert(g, n, dt), mt));
  return tt_b_convert(g, q, dt);
}

/* The starting value of every segment: `initial`, else the identity. */
static tt_val_t start_value(tt_lower_t *L, const seg_t *P, int initi, int rank, const int64_t *dims) {
  tt_graph_t *g = L->g;
  if (!tt_l_is_none(L, initi)) return tt_b_broadcast(g, tt_l_scalar_arg(L, initi, P->dt), rank, dims, NULL);
  double v = P->red == RED_MAX ? -INFINITY : P->red == RED_MIN ? INFINITY : P->red == RED_PROD ? 1.0 : 0.0;
  return tt_b_full_f(g, P->dt, rank, dims, v);
}

static tt_val_t as_osi(tt_graph_t *g, const seg_t *P, tt_val_t x, int64_t mid) {
  int64_t d[3] = {P->O, mid, P->I};
  return tt_b_reshape(g, x, 3, d);
}

/* The [O, K, I] result back in data's layout with the axis sized K. */
static tt_val_t unflatten(tt_graph_t *g, const seg_t *P, tt_val_t v) {
  int64_t d[TT_MAX_RANK];
  memcpy(d, P->dims, sizeof(int64_t) * (size_t)P->rank);
  d[P->axis] = P->K;
  return tt_b_reshape(g, v, P->rank, d);
}

static const tt_reduce_t FOLD[] = {[RED_SUM] = TT_RED_SUM, [RED_MEAN] = TT_RED_SUM, [RED_MAX] = TT_RED_MAX,
                                   [RED_MIN] = TT_RED_MIN, [RED_PROD] = TT_RED_PROD};

/* size companion of segment_reduce(...) -> int64[2] {shortest segment (INT64_MAX if
 * none), 1 if every row of lengths sums to the axis size} */
static tt_status_t lower_segment_size(tt_lower_t *L) {
  seg_t P;
  if (!setup(L, 0, 1, 2, 3, 4, 5, &P)) return NULL;
  tt_graph_t *g = L->g;
  int64_t one = 1;
  if (P.O * P.K == 0) {
    tt_val_t p[2] = {tt_b_full_i(g, TT_I64, 1, &one, INT64_MAX), tt_b_full_i(g, TT_I64, 1, &one, 1)};
    tt_l_output(L, tt_b_concat(g, 2, p, 0));
    return NULL;
  }
  tt_val_t len, ends, start;
  bounds(L, &P, &len, &ends, &start);
  int64_t all[2] = {0, 1}, d1 = 1;
  tt_val_t mn = tt_b_reduce(g, TT_RED_MIN, len, 2, all);
  tt_val_t rows = tt_b_reduce(g, TT_RED_SUM, len, 1, &d1);
  tt_val_t ok = tt_b_reduce(g, TT_RED_AND, tt_b_compare(g, TT_CMP_EQ, rows, tt_b_full_i(g, TT_I64, 1, &P.O, P.S)), 1, all);
  tt_val_t p[2] = {tt_b_reshape(g, mn, 1, &one), tt_b_reshape(g, tt_b_convert(g, ok, TT_I64), 1, &one)};
  tt_l_output(L, tt_b_concat(g, 2, p, 0));
  return NULL;
}

/* segment_reduce(data, reduce, *, lengths, indices, offsets, axis, unsafe, initial, [min, rows_ok]) */
static tt_status_t lower_segment_reduce(tt_lower_t *L) {
  seg_t P;
  if (!setup(L, 0, 1, 2, 3, 4, 5, &P)) return NULL;
  int64_t chk[2];
  if (tt_l_ints(L, 8, chk, 2) != 2) return tt_l_fail(L, TT_INTERNAL, "%s: missing downloaded segment checks", L->op), NULL;
  if (!P.offsets && !tt_l_bool(L, 6, 0)) { /* CPU's !unsafe checks on lengths */
    if (P.O * P.K == 0)
      return tt_status_make(TT_INVALID_ARGUMENT, "min(): Expected reduction dim to be specified for input.numel() == 0. "
                                                 "Specify the reduction dim with the 'dim' argument.");
    if (chk[0] < 0) return tt_status_make(TT_INVALID_ARGUMENT, "lengths contains negative value!");
    if (!chk[1])
      return tt_status_make(TT_INVALID_ARGUMENT, "segment_reduce(): Expected all rows of lengths along axis to sum to "
                                                 "data.size(lengths.dim()-1) when !unsafe.");
  }
  if (chk[0] < 0 && P.I > 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "Expected segment_length >= 0 to be true, but got false.  (Could this error "
                                               "message be improved?  If so, please report an enhancement request to PyTorch.)");
  tt_graph_t *g = L->g;
  int64_t okI[3] = {P.O, P.K, P.I};
  tt_val_t acc = start_value(L, &P, 7, 3, okI);
  if (P.O * P.K * P.I == 0) {
    tt_l_output(L, unflatten(g, &P, acc));
    return NULL;
  }
  tt_val_t len, ends, start, valid, clamped;
  bounds(L, &P, &len, &ends, &start);
  if (P.S > 0) {
    tt_val_t idx = coords(g, &P, ends, start, &valid, &clamped);
    tt_val_t x = as_osi(g, &P, tt_l_tensor(L, 0), P.S);
    tt_val_t folded = seg_fold(g, FOLD[P.red], acc, idx, x);
    if (P.red == RED_MAX || P.red == RED_MIN) {
      /* CPU's max/min keep a NaN once seen (from the data or `initial`);
       * the scatter's combiner does not, so NaNs are counted apart. */
      tt_val_t isnan = tt_b_convert(g, tt_b_compare(g, TT_CMP_NE, x, x), TT_I64);
      tt_val_t nans = seg_fold(g, TT_RED_SUM, tt_b_full_i(g, TT_I64, 3, okI, 0), idx, isnan);
      tt_val_t any = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_GT, nans, tt_b_full_i(g, TT_I64, 3, okI, 0)),
                                 tt_b_compare(g, TT_CMP_NE, acc, acc));
      folded = tt_b_select(g, any, tt_b_full_f(g, P.dt, 3, okI, NAN), folded);
    }
    acc = folded;
  }
  if (P.red == RED_MEAN) {
    /* Empty segments keep `initial`, or are NaN without one; NaN sums stay. */
    int64_t b01[2] = {0, 1};
    tt_val_t n = tt_b_broadcast(g, len, 3, okI, b01);
    tt_val_t pos = tt_b_compare(g, TT_CMP_GT, n, tt_b_full_i(g, TT_I64, 3, okI, 0));
    tt_val_t empty = tt_l_is_none(L, 7) ? tt_b_full_f(g, P.dt, 3, okI, NAN) : acc;
    acc = tt_b_select(g, pos, div_count(g, acc, n), empty);
  }
  tt_l_output(L, unflatten(g, &P, acc));
  return NULL;
}

/* _segment_reduce_backward(grad, output, data, reduce, *, lengths, offsets, axis, initial):
 * CPU's rules: sum passes the gradient; mean divides it by the length; max
 * and min pass it to the elements equal to the result (or NaN), a positive
 * gradient split evenly among them;
 * prod multiplies by result / x, or, for x zero or NaN, by the product of
 * the segment's other elements (and `initial`). */
static tt_status_t lower_segment_backward(tt_lower_t *L) {
  seg_t P;
  if (!setup(L, 2, 3, 4, -1, 5, 6, &P)) return NULL;
  tt_graph_t *g = L->g;
  int64_t osi[3] = {P.O, P.S, P.I}, okI[3] = {P.O, P.K, P.I};
  if (P.O * P.S * P.I == 0 || P.K == 0) {
    tt_l_output(L, tt_b_full_f(g, P.dt, P.rank, P.dims, 0));
    return NULL;
  }
  tt_val_t len, ends, start, valid, clamped;
  bounds(L, &P, &len, &ends, &start);
  tt_val_t idx = coords(g, &P, ends, start, &valid, &clamped);
  int64_t b01[2] = {0, 1};
  tt_val_t in = tt_b_broadcast(g, valid, 3, osi, b01);
  tt_val_t x = as_osi(g, &P, tt_l_tensor(L, 2), P.S);
  tt_val_t gr = seg_gather(g, &P, as_osi(g, &P, tt_b_convert(g, tt_l_tensor(L, 0), P.dt), P.K), clamped);
  tt_val_t out = seg_gather(g, &P, as_osi(g, &P, tt_b_convert(g, tt_l_tensor(L, 1), P.dt), P.K), clamped);
  tt_val_t zero = tt_b_full_f(g, P.dt, 3, osi, 0), res = gr;
  tt_val_t nan = tt_b_compare(g, TT_CMP_NE, x, x);
  if (P.red == RED_MEAN) {
    tt_val_t n = tt_b_broadcast_to(g, seg_gather(g, &P, tt_b_reshape(g, len, 3, (int64_t[]){P.O, P.K, 1}), clamped), 3, osi);
    res = div_count(g, gr, n);
  } else if (P.red == RED_MAX || P.red == RED_MIN) {
    tt_val_t hit = tt_b_binary(g, TT_BIN_AND, in, tt_b_binary(g, TT_BIN_OR, nan, tt_b_compare(g, TT_CMP_EQ, x, out)));
    tt_val_t cnt = seg_fold(g, TT_RED_SUM, tt_b_full_i(g, TT_I64, 3, okI, 0), idx, tt_b_convert(g, hit, TT_I64));
    cnt = seg_gather(g, &P, cnt, clamped);
    /* CPU divides only the positive gradients among ties (grad > 0). */
    tt_val_t split = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_GE, cnt, tt_b_full_i(g, TT_I64, 3, osi, 2)),
                                 tt_b_compare(g, TT_CMP_GT, gr, zero));
    res = tt_b_select(g, hit, tt_b_select(g, split, div_count(g, gr, cnt), gr), zero);
  } else if (P.red == RED_PROD) {
    tt_val_t iszero = tt_b_compare(g, TT_CMP_EQ, x, zero);
    tt_val_t special = tt_b_binary(g, TT_BIN_OR, nan, iszero);
    tt_val_t one = tt_b_full_f(g, P.dt, 3, osi, 1);
    tt_val_t others = seg_fold(g, TT_RED_PROD, start_value(L, &P, 7, 3, okI), idx, tt_b_select(g, special, one, x));
    others = seg_gather(g, &P, others, clamped);
    tt_val_t nz = seg_gather(g, &P, seg_fold(g, TT_RED_SUM, tt_b_full_i(g, TT_I64, 3, okI, 0), idx, tt_b_convert(g, iszero, TT_I64)), clamped);
    tt_val_t nn = seg_gather(g, &P, seg_fold(g, TT_RED_SUM, tt_b_full_i(g, TT_I64, 3, okI, 0), idx, tt_b_convert(g, nan, TT_I64)), clamped);
    /* The other elements' zeros and NaNs, this one's own left out. */
    nz = tt_b_binary(g, TT_BIN_SUB, nz, tt_b_convert(g, iszero, TT_I64));
    nn = tt_b_binary(g, TT_BIN_SUB, nn, tt_b_convert(g, nan, TT_I64));
    tt_val_t izero = tt_b_full_i(g, TT_I64, 3, osi, 0);
    tt_val_t excl = tt_b_select(g, tt_b_compare(g, TT_CMP_GT, nz, izero), tt_b_binary(g, TT_BIN_MUL, others, zero), others);
    excl = tt_b_select(g, tt_b_compare(g, TT_CMP_GT, nn, izero), tt_b_full_f(g, P.dt, 3, osi, NAN), excl);
    tt_val_t plain = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, gr, out), x);
    res = tt_b_select(g, special, tt_b_binary(g, TT_BIN_MUL, gr, excl), plain);
  }
  res = tt_b_select(g, in, res, zero);
  tt_l_output(L, tt_b_reshape(g, res, P.rank, P.dims));
  return NULL;
}

const tt_op_def_t tt_ops_segment_reduce[] = {
    {"segment_reduce", lower_segment_reduce, 0, .size = lower_segment_size},
    {"_segment_reduce_backward", lower_segment_backward, 0},
    {NULL, NULL, 0},
};
