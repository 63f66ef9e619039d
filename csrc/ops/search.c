/* Lowerings of sorted-sequence search and membership: searchsorted,
 * bucketize, isin. Each compares every value with every boundary and counts,
 * which needs no sort order on device and matches CPU's binary search for a
 * sorted sequence (a sorter only permutes what is counted, so it is unused). */
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"

/* Positions of values v (arg vi, tensor or number) among boundaries b (arg bi):
 * the number of boundaries below v ("left") or at most v ("right"). A 1-D b
 * serves every value; an N-D b has one row per row of v (same leading dims). */
static tt_status_t search(tt_lower_t *L, int bi, int vi, int out_int32, int right) {
  tt_graph_t *g = L->g;
  int br = tt_l_arg_rank(L, bi);
  const int64_t *bs = tt_l_arg_sizes(L, bi);
  int vr = tt_l_arg_rank(L, vi) < 0 ? 0 : tt_l_arg_rank(L, vi);
  int64_t vs[TT_MAX_RANK + 1];
  if (tt_l_arg_rank(L, vi) > 0) memcpy(vs, tt_l_arg_sizes(L, vi), sizeof(int64_t) * (size_t)vr);
  if (br < 1)
    return tt_status_make(TT_INVALID_ARGUMENT, "torch.searchsorted(): boundaries tensor should have positive "
                                               "dimension, but got 0 dimension");
  if (br > 1) {
    if (tt_l_arg_rank(L, vi) < 0 || vr == 0)
      return tt_status_make(TT_INVALID_ARGUMENT, "torch.searchsorted(): input value can be a scalar only when "
                                                 "boundaries tensor dimension is 1, but we got boundaries tensor "
                                                 "dim(%d) and input value's dim(0) numel(1)", br);
    if (vr != br || memcmp(vs, bs, sizeof(int64_t) * (size_t)(br - 1))) {
      char a[160], c[160];
      tt_op_sizes_text(a, sizeof a, br, bs);
      tt_op_sizes_text(c, sizeof c, vr, vs);
      return tt_status_make(TT_INVALID_ARGUMENT, "torch.searchsorted(): boundaries tensor should be 1 dimension or "
                                                 "the first N-1 dimensions of boundaries tensor and input value "
                                                 "tensor must match, but we got boundaries tensor %s and input value tensor %s", a, c);
    }
  }
  if (vr >= TT_MAX_RANK) return tt_status_make(TT_INVALID_ARGUMENT, "searchsorted: input rank %d too large", vr);
  int args[2] = {bi, vi};
  tt_dtype_t dt = tt_op_result_type(L, args, 2);
  if (tt_graph_failed(g)) return NULL;
  int64_t n = bs[br - 1];
  int64_t cd[TT_MAX_RANK];
  memcpy(cd, vs, sizeof(int64_t) * (size_t)vr);
  cd[vr] = n;
  tt_val_t v = tt_op_operand(L, vi, dt, vr, vs);
  int64_t vb[TT_MAX_RANK], bb[TT_MAX_RANK];
  for (int d = 0; d < vr; d++) vb[d] = d;
  tt_val_t vx = tt_b_broadcast(g, v, vr + 1, cd, vb);
  tt_val_t b = tt_b_convert(g, tt_l_tensor(L, bi), dt);
  if (br == 1) {
    bb[0] = vr;
  } else {
    for (int d = 0; d < br - 1; d++) bb[d] = d;
    bb[br - 1] = vr;
  }
  tt_val_t bx = tt_b_broadcast(g, b, vr + 1, cd, bb);
  /* CPU's binary search moves right while !(b >= v) (left) or !(b > v)
   * (right); for a NaN value that is every boundary. */
  tt_val_t stay = tt_b_compare(g, right ? TT_CMP_GT : TT_CMP_GE, bx, vx);
  tt_dtype_t ot = out_int32 ? TT_I32 : TT_I64;
  int64_t last = vr;
  tt_l_output(L, tt_b_reduce(g, TT_RED_SUM, tt_b_convert(g, tt_b_unary(g, TT_UN_NOT, stay), ot), 1, &last));
  return NULL;
}

/* Reads side/right: side wins when given; they must agree when both are. */
static int search_right(tt_lower_t *L, int right_i, int side_i, tt_status_t *st) {
  int right = tt_l_bool(L, right_i, 0);
  const char *side = tt_l_str(L, side_i, NULL);
  *st = NULL;
  if (!side) return right;
  if (strcmp(side, "left") && strcmp(side, "right")) {
    *st = tt_status_make(TT_INVALID_ARGUMENT, "torch.searchsorted(): side can only be 'left' or 'right' but got %s", side);
    return 0;
  }
  int want = strcmp(side, "right") == 0;
  if (right && !want) {
    *st = tt_status_make(TT_INVALID_ARGUMENT, "torch.searchsorted(): side and right can't be set to opposites, got "
                                              "side of left while right was True");
    return 0;
  }
  return want;
}

/* searchsorted.Tensor/.Scalar(sorted_sequence, self, *, out_int32, right, side, sorter) */
static tt_status_t lower_searchsorted(tt_lower_t *L) {
  tt_status_t st;
  int right = search_right(L, 3, 4, &st);
  if (st) return st;
  if (!tt_l_is_none(L, 5)) {
    int sr = tt_l_arg_rank(L, 5), br = tt_l_arg_rank(L, 0);
    if (sr != br || memcmp(tt_l_arg_sizes(L, 5), tt_l_arg_sizes(L, 0), sizeof(int64_t) * (size_t)br))
      return tt_status_make(TT_INVALID_ARGUMENT, "torch.searchsorted(): boundary and sorter must have the same size");
  }
  return search(L, 0, 1, tt_l_bool(L, 2, 0), right);
}

/* bucketize.Tensor/.Scalar(self, boundaries, *, out_int32, right) */
static tt_status_t lower_bucketize(tt_lower_t *L) {
  if (tt_l_arg_rank(L, 1) != 1)
    return tt_status_make(TT_INVALID_ARGUMENT, "boundaries tensor must be 1 dimension, but got dim(%d)", tt_l_arg_rank(L, 1));
  return search(L, 1, 0, tt_l_bool(L, 2, 0), tt_l_bool(L, 3, 0));
}

/* isin(elements, test_elements, *, assume_unique, invert): each element
 * compared (after type promotion) with every test element; NaN matches nothing. */
static tt_status_t lower_isin(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int er = tt_l_arg_rank(L, 0) < 0 ? 0 : tt_l_arg_rank(L, 0);
  int tr = tt_l_arg_rank(L, 1) < 0 ? 0 : tt_l_arg_rank(L, 1);
  int args[2] = {0, 1};
  tt_dtype_t dt = tt_op_result_type(L, args, 2);
  if (tt_graph_failed(g)) return NULL;
  if (er >= TT_MAX_RANK) return tt_status_make(TT_INVALID_ARGUMENT, "isin: elements rank %d too large", er);
  int64_t es[TT_MAX_RANK], ts[TT_MAX_RANK], m = 1;
  if (er) memcpy(es, tt_l_arg_sizes(L, 0), sizeof(int64_t) * (size_t)er);
  if (tr) memcpy(ts, tt_l_arg_sizes(L, 1), sizeof(int64_t) * (size_t)tr);
  for (int d = 0; d < tr; d++) m *= ts[d];
  tt_val_t e = tt_op_operand(L, 0, dt, er, es);
  tt_val_t t = tt_b_reshape(g, tt_op_operand(L, 1, dt, tr, ts), 1, &m);
  int64_t cd[TT_MAX_RANK], eb[TT_MAX_RANK], tb = er;
  memcpy(cd, es, sizeof(int64_t) * (size_t)er);
  cd[er] = m;
  for (int d = 0; d < er; d++) eb[d] = d;
  tt_val_t eq = tt_b_compare(g, TT_CMP_EQ, tt_b_broadcast(g, e, er + 1, cd, eb), tt_b_broadcast(g, t, er + 1, cd, &tb));
  int64_t last = er;
  tt_val_t any = tt_b_reduce(g, TT_RED_OR, eq, 1, &last);
  tt_l_output(L, tt_l_bool(L, 3, 0) ? tt_b_unary(g, TT_UN_NOT, any) : any);
  return NULL;
}

const tt_op_def_t tt_ops_search[] = {
    {"searchsorted.Tensor", lower_searchsorted, 0},
    {"searchsorted.Scalar", lower_searchsorted, 0},
    {"bucketize.Tensor", lower_bucketize, 0},
    {"bucketize.Scalar", lower_bucketize, 0},
    {"isin.Tensor_Tensor", lower_isin, 0},
    {"isin.Tensor_Scalar", lower_isin, 0},
    {"isin.Scalar_Tensor", lower_isin, 0},
    {NULL, NULL, 0},
};
