/* Lowerings of pairwise p-norm distances: _cdist_forward/_cdist_backward and
 * _pdist_forward/_pdist_backward. Differences are formed for every pair at
 * once (batch..., P, R, M), which is what the CPU kernel loops over. */
#include <math.h>
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"

/* x1 [b1..., P, M] and x2 [b2..., R, M] broadcast to [B..., P, R, M]: their
 * difference, plus the rank nb and sizes of the common batch. */
typedef struct {
  int nb;
  int64_t dims[TT_MAX_RANK]; /* B..., P, R, M */
} pair_t;

static int pair_shape(tt_lower_t *L, int a, int b, pair_t *p) {
  int ra = tt_l_arg_rank(L, a), rb = tt_l_arg_rank(L, b);
  if (ra < 2 || rb < 2) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "cdist only supports at least 2D tensors, X1 got: %dD", ra < 2 ? ra : rb);
    return 0;
  }
  const int64_t *sa = tt_l_arg_sizes(L, a), *sb = tt_l_arg_sizes(L, b);
  if (sa[ra - 1] != sb[rb - 1]) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "X1 and X2 must have the same number of columns. X1: %lld X2: %lld",
              (long long)sa[ra - 1], (long long)sb[rb - 1]);
    return 0;
  }
  p->nb = (ra > rb ? ra : rb) - 2;
  if (p->nb + 3 > TT_MAX_RANK) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "cdist: batch rank %d too large", p->nb);
    return 0;
  }
  for (int k = 0; k < p->nb; k++) {
    int ia = k - (p->nb - (ra - 2)), ib = k - (p->nb - (rb - 2));
    int64_t da = ia >= 0 ? sa[ia] : 1, db = ib >= 0 ? sb[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                "non-singleton dimension %d", (long long)da, (long long)db, k);
      return 0;
    }
    p->dims[k] = da == 1 ? db : da;
  }
  p->dims[p->nb] = sa[ra - 2];
  p->dims[p->nb + 1] = sb[rb - 2];
  p->dims[p->nb + 2] = sa[ra - 1];
  return 1;
}

/* x (rank r, trailing [rows, M]) broadcast into the pair shape, its rows on
 * pair dim `rowdim` (nb for x1, nb+1 for x2). */
static tt_val_t spread(tt_graph_t *g, tt_val_t x, const pair_t *p, int rowdim) {
  const tt_type_t *t = tt_graph_type(g, x);
  if (!t) return -1;
  int64_t bd[TT_MAX_RANK];
  int lead = t->rank - 2;
  for (int k = 0; k < lead; k++) bd[k] = p->nb - lead + k;
  bd[lead] = rowdim;
  bd[lead + 1] = p->nb + 2;
  int64_t full[TT_MAX_RANK];
  memcpy(full, p->dims, sizeof full);
  /* broadcast_in_dim stretches only size-1 operand dims; batch dims of size 1 are fine. */
  return tt_b_broadcast(g, x, p->nb + 3, full, bd);
}

static tt_val_t full_like(tt_graph_t *g, tt_val_t x, double v) { return tt_b_like_f(g, x, v); }

/* Distances over the last dim of |diff| a: the p-norm, p=0 counts nonzeros, p=inf is the max. */
static tt_val_t pnorm(tt_graph_t *g, tt_val_t a, double p, int64_t last) {
  if (p == 0)
    return tt_b_reduce(g, TT_RED_SUM, tt_b_convert(g, tt_b_compare(g, TT_CMP_NE, a, full_like(g, a, 0)),
                                                   tt_graph_type(g, a)->dtype), 1, &last);
  if (p == 1) return tt_b_reduce(g, TT_RED_SUM, a, 1, &last);
  if (p == 2) return tt_b_unary(g, TT_UN_SQRT, tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, a, a), 1, &last));
  if (isinf(p)) return tt_b_reduce(g, TT_RED_MAX, a, 1, &last);
  tt_val_t s = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_POW, a, full_like(g, a, p)), 1, &last);
  return tt_b_binary(g, TT_BIN_POW, s, full_like(g, s, 1.0 / p));
}

/* d(dist)/d(x1) times the incoming gradient, per pair and column, as CPU's
 * kernel: zero where the distance is zero (and, for p < 1, where diff is). */
static tt_val_t pnorm_grad(tt_graph_t *g, tt_val_t d, tt_val_t dist, tt_val_t gr, double p) {
  tt_val_t zero = full_like(g, d, 0);
  tt_val_t a = tt_b_unary(g, TT_UN_ABS, d), sg = tt_b_unary(g, TT_UN_SIGN, d);
  if (p == 0) return zero;
  if (p == 1) return tt_b_binary(g, TT_BIN_MUL, sg, gr);
  if (isinf(p))
    return tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, a, dist), tt_b_binary(g, TT_BIN_MUL, sg, gr), zero);
  tt_val_t r;
  if (p == 2) {
    r = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, d, gr), dist);
  } else {
    tt_val_t num = tt_b_binary(g, TT_BIN_MUL, sg, tt_b_binary(g, TT_BIN_POW, a, full_like(g, a, p - 1)));
    r = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, num, gr),
                    tt_b_binary(g, TT_BIN_POW, dist, full_like(g, dist, p - 1)));
  }
  tt_val_t bad = tt_b_compare(g, TT_CMP_EQ, dist, zero);
  if (p < 1) bad = tt_b_binary(g, TT_BIN_OR, bad, tt_b_compare(g, TT_CMP_EQ, d, zero));
  return tt_b_select(g, bad, zero, r);
}

static tt_status_t check_p(tt_lower_t *L, double p, int i) {
  tt_dtype_t dt = tt_l_arg_dtype(L, i);
  if (!tt_dtype_is_float(dt))
    return tt_status_make(TT_INVALID_ARGUMENT, "cdist only supports floating-point dtypes, X1 got: %s", tt_op_type_name(dt));
  if (!(p >= 0)) return tt_status_make(TT_INVALID_ARGUMENT, "cdist only supports non-negative p values");
  return NULL;
}

/* Distances [B..., P, R] between rows of x1 (arg a) and x2 (arg b). */
static tt_val_t cdist_values(tt_lower_t *L, int a, int b, double p, const pair_t *pr, tt_val_t *out_diff) {
  tt_graph_t *g = L->g;
  tt_dtype_t mt = tt_op_math_type(tt_l_arg_dtype(L, a));
  tt_val_t x1 = spread(g, tt_b_convert(g, tt_l_tensor(L, a), mt), pr, pr->nb);
  tt_val_t x2 = spread(g, tt_b_convert(g, tt_l_tensor(L, b), mt), pr, pr->nb + 1);
  tt_val_t d = tt_b_binary(g, TT_BIN_SUB, x1, x2);
  if (out_diff) *out_diff = d;
  return pnorm(g, tt_b_unary(g, TT_UN_ABS, d), p, pr->nb + 2);
}

/* _cdist_forward(x1, x2, p, compute_mode) */
static tt_status_t lower_cdist_forward(tt_lower_t *L) {
  double p = tt_l_float(L, 2, 2);
  tt_status_t st = check_p(L, p, 0);
  if (st) return st;
  pair_t pr;
  if (!pair_shape(L, 0, 1, &pr)) return NULL;
  tt_val_t dist = cdist_values(L, 0, 1, p, &pr, NULL);
  tt_l_output(L, tt_b_convert(L->g, dist, tt_l_arg_dtype(L, 0)));
  return NULL;
}

/* Sum over R of pnorm_grad: the gradient for x1's rows, [B..., P, M]. */
static tt_val_t cdist_grad(tt_graph_t *g, tt_val_t diff, tt_val_t dist, tt_val_t grad, double p, const pair_t *pr) {
  int64_t bd[TT_MAX_RANK];
  for (int k = 0; k < pr->nb + 2; k++) bd[k] = k;
  tt_val_t dist3 = tt_b_broadcast(g, dist, pr->nb + 3, pr->dims, bd);
  tt_val_t grad3 = tt_b_broadcast(g, grad, pr->nb + 3, pr->dims, bd);
  int64_t rdim = pr->nb + 1;
  return tt_b_reduce(g, TT_RED_SUM, pnorm_grad(g, diff, dist3, grad3, p), 1, &rdim);
}

/* _cdist_backward(grad, x1, x2, p, cdist) -> grad of x1 (batch dims broadcast;
 * autograd sums them back to x1's shape). */
static tt_status_t lower_cdist_backward(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  double p = tt_l_float(L, 3, 2);
  tt_status_t st = check_p(L, p, 1);
  if (st) return st;
  pair_t pr;
  if (!pair_shape(L, 1, 2, &pr)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 1), mt = tt_op_math_type(dt);
  tt_val_t diff;
  cdist_values(L, 1, 2, p, &pr, &diff);
  tt_val_t dist = tt_op_fit(L, tt_l_tensor(L, 4), mt, pr.nb + 2, pr.dims);
  tt_val_t grad = tt_op_fit(L, tt_l_tensor(L, 0), mt, pr.nb + 2, pr.dims);
  tt_l_output(L, tt_b_convert(g, cdist_grad(g, diff, dist, grad, p, &pr), dt));
  return NULL;
}

/* Row/column of each pdist entry k (i < j, row-major) as i64 [K]: i is the
 * number of rows r >= 1 whose first entry r*N - r(r+1)/2 is <= k. */
static void pair_index(tt_graph_t *g, int64_t n, int64_t K, tt_val_t *out_i, tt_val_t *out_j) {
  int64_t kd[2] = {K, n > 1 ? n - 1 : 1};
  tt_val_t k = tt_b_iota(g, TT_I64, 2, kd, 0);
  tt_val_t r = tt_b_binary(g, TT_BIN_ADD, tt_b_iota(g, TT_I64, 2, kd, 1), tt_b_full_i(g, TT_I64, 2, kd, 1));
  tt_val_t start = tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_MUL, r, tt_b_full_i(g, TT_I64, 2, kd, n)),
                               tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, r, tt_b_binary(g, TT_BIN_ADD, r, tt_b_full_i(g, TT_I64, 2, kd, 1))),
                                           tt_b_full_i(g, TT_I64, 2, kd, 2)));
  int64_t one = 1;
  tt_val_t i = tt_b_reduce(g, TT_RED_SUM, tt_b_convert(g, tt_b_compare(g, TT_CMP_LE, start, k), TT_I64), 1, &one);
  /* j = k - (i*N - i(i+1)/2) + i + 1 */
  tt_val_t c = tt_b_iota(g, TT_I64, 1, &K, 0);
  tt_val_t si = tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_MUL, i, tt_b_full_i(g, TT_I64, 1, &K, n)),
                            tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, i, tt_b_binary(g, TT_BIN_ADD, i, tt_b_full_i(g, TT_I64, 1, &K, 1))),
                                        tt_b_full_i(g, TT_I64, 1, &K, 2)));
  *out_i = i;
  *out_j = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_SUB, c, si), tt_b_binary(g, TT_BIN_ADD, i, tt_b_full_i(g, TT_I64, 1, &K, 1)));
}

/* v (rank 1) at integer positions idx (any shape). */
static tt_val_t take(tt_graph_t *g, tt_val_t v, tt_val_t idx) {
  const tt_type_t *t = tt_graph_type(g, idx);
  if (!t) return -1;
  int64_t d[TT_MAX_RANK + 1];
  memcpy(d, t->dims, sizeof(int64_t) * (size_t)t->rank);
  d[t->rank] = 1;
  tt_gather_dims_t gd;
  memset(&gd, 0, sizeof gd);
  gd.n_collapsed = 1;
  gd.n_start_map = 1;
  gd.slice_sizes[0] = 1;
  return tt_b_gather(g, v, tt_b_reshape(g, idx, t->rank + 1, d), &gd);
}

static tt_status_t pdist_check(tt_lower_t *L, double p) {
  if (tt_l_arg_rank(L, L->nargs == 2 ? 0 : 1) != 2)
    return tt_status_make(TT_INVALID_ARGUMENT, "pdist only supports 2D tensors, got: %dD",
                          tt_l_arg_rank(L, L->nargs == 2 ? 0 : 1));
  if (!(p >= 0)) return tt_status_make(TT_INVALID_ARGUMENT, "pdist only supports non-negative p values");
  return NULL;
}

/* _pdist_forward(self [N, M], p) -> [N(N-1)/2]: the upper triangle of cdist(self, self). */
static tt_status_t lower_pdist_forward(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  double p = tt_l_float(L, 1, 2);
  tt_status_t st = pdist_check(L, p);
  if (st) return st;
  int64_t n = tt_l_arg_sizes(L, 0)[0], K = n * (n - 1) / 2;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (K == 0) {
    tt_l_output(L, tt_b_full_f(g, dt, 1, &K, 0));
    return NULL;
  }
  pair_t pr;
  if (!pair_shape(L, 0, 0, &pr)) return NULL;
  tt_val_t dist = cdist_values(L, 0, 0, p, &pr, NULL);
  int64_t nn = n * n;
  tt_val_t i, j;
  pair_index(g, n, K, &i, &j);
  tt_val_t flat = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, i, tt_b_full_i(g, TT_I64, 1, &K, n)), j);
  tt_l_output(L, tt_b_convert(g, take(g, tt_b_reshape(g, dist, 1, &nn), flat), dt));
  return NULL;
}

/* _pdist_backward(grad [K], self, p, pdist): the cdist gradient for a
 * symmetric incoming gradient G[i, j] = G[j, i] = grad[k(i, j)]; each pair's
 * term reaches row i with its sign and row j negated, as the pair formula does. */
static tt_status_t lower_pdist_backward(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  double p = tt_l_float(L, 2, 2);
  tt_status_t st = pdist_check(L, p);
  if (st) return st;
  const int64_t *sz = tt_l_arg_sizes(L, 1);
  int64_t n = sz[0], K = n * (n - 1) / 2;
  tt_dtype_t dt = tt_l_arg_dtype(L, 1), mt = tt_op_math_type(dt);
  if (K == 0) {
    tt_l_output(L, tt_b_full_f(g, dt, 2, sz, 0));
    return NULL;
  }
  pair_t pr;
  if (!pair_shape(L, 1, 1, &pr)) return NULL;
  tt_val_t diff;
  cdist_values(L, 1, 1, p, &pr, &diff);
  int64_t nd[2] = {n, n};
  tt_val_t r = tt_b_iota(g, TT_I64, 2, nd, 0), c = tt_b_iota(g, TT_I64, 2, nd, 1);
  tt_val_t lo = tt_b_binary(g, TT_BIN_MIN, r, c), hi = tt_b_binary(g, TT_BIN_MAX, r, c);
  /* k(lo, hi) = lo*N - lo(lo+1)/2 + hi - lo - 1; the diagonal is masked out. */
  tt_val_t k = tt_b_binary(g, TT_BIN_MUL, lo, tt_b_full_i(g, TT_I64, 2, nd, n));
  k = tt_b_binary(g, TT_BIN_SUB, k, tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_MUL, lo, tt_b_binary(g, TT_BIN_ADD, lo, tt_b_full_i(g, TT_I64, 2, nd, 1))),
                                                tt_b_full_i(g, TT_I64, 2, nd, 2)));
  k = tt_b_binary(g, TT_BIN_ADD, k, tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_SUB, hi, lo), tt_b_full_i(g, TT_I64, 2, nd, 1)));
  tt_val_t diag = tt_b_compare(g, TT_CMP_EQ, r, c);
  k = tt_b_select(g, diag, tt_b_full_i(g, TT_I64, 2, nd, 0), k);
  tt_val_t gk = tt_b_convert(g, tt_l_tensor(L, 0), mt), dk = tt_b_convert(g, tt_l_tensor(L, 3), mt);
  tt_val_t G = tt_b_select(g, diag, tt_b_full_f(g, mt, 2, nd, 0), take(g, gk, k));
  /* On the diagonal the difference is zero; any positive distance keeps the term finite (and zero). */
  tt_val_t D = tt_b_select(g, diag, tt_b_full_f(g, mt, 2, nd, 1), take(g, dk, k));
  tt_l_output(L, tt_b_convert(g, cdist_grad(g, diff, D, G, p, &pr), dt));
  return NULL;
}

const tt_op_def_t tt_ops_distance[] = {
    {"_cdist_forward", lower_cdist_forward, 0},
    {"_cdist_backward", lower_cdist_backward, 0},
    {"_pdist_forward", lower_pdist_forward, 0},
    {"_pdist_backward", lower_pdist_backward, 0},
    {NULL, NULL, 0},
};
