/* LDL^T factorization with Bunch-Kaufman pivoting and its solve
 * (linalg_ldl_factor_ex, linalg_ldl_solve), making LAPACK ?sytf2 / ?sytrs's
 * exact pivot choices and storage (lower triangle, 1-based ipiv, 2x2 blocks
 * as negative pairs) in stablehlo.while loops, batched, in the input dtype. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/linalg_util.h"

/* The batch flattened to N matrices of order n; values are (N), (N, n) or
 * (N, n, m). Each matrix has its own loop position, so per-matrix picks are
 * masked reductions rather than dynamic slices. */
typedef struct ldl_s {
  tt_graph_t *g;
  int64_t N, n;
  tt_dtype_t dt;
  tt_val_t live; /* (N) bool inside a loop body: the matrix still has steps to take */
} ldl_t;

static tt_val_t iota3(const ldl_t *c, int64_t m, int dim) {
  int64_t d[3] = {c->N, c->n, m};
  return tt_b_iota(c->g, TT_I64, 3, d, dim);
}

static tt_val_t iota2(const ldl_t *c) {
  int64_t d[2] = {c->N, c->n};
  return tt_b_iota(c->g, TT_I64, 2, d, 1);
}

/* A per-matrix value v (N) or (N, k) spread over a shape whose dim 0 is N,
 * v's dim 1 (if any) landing on `dim`. */
static tt_val_t spread(const ldl_t *c, tt_val_t v, int rank, const int64_t *dims, int dim) {
  if (v < 0 || tt_graph_failed(c->g)) return -1;
  int64_t bd[2] = {0, dim};
  return tt_b_broadcast(c->g, v, rank, dims, bd);
}

static tt_val_t spread3(const ldl_t *c, tt_val_t v, int64_t m, int dim) {
  int64_t d[3] = {c->N, c->n, m};
  return spread(c, v, 3, d, dim);
}

static tt_val_t spread2(const ldl_t *c, tt_val_t v) {
  int64_t d[2] = {c->N, c->n};
  return spread(c, v, 2, d, 0);
}

/* (N) -> (N, m). */
static tt_val_t spreadm(const ldl_t *c, tt_val_t v, int64_t m) {
  int64_t d[2] = {c->N, m};
  return spread(c, v, 2, d, 0);
}

/* x[b, idx[b]] along `dim` of x: the one element where the mask holds, by a
 * max over -inf elsewhere (exact, keeps -0 and NaN). */
static tt_val_t pick(const ldl_t *c, tt_val_t x, tt_val_t mask, int dim) {
  if (x < 0 || tt_graph_failed(c->g)) return -1;
  int64_t d = dim;
  tt_val_t fill = tt_graph_type(c->g, x)->dtype == TT_I64
                      ? tt_b_broadcast_to(c->g, tt_b_const_i(c->g, TT_I64, INT64_MIN), tt_graph_type(c->g, x)->rank,
                                          tt_graph_type(c->g, x)->dims)
                      : tt_b_like_f(c->g, x, -INFINITY);
  return tt_b_reduce(c->g, TT_RED_MAX, tt_b_select(c->g, mask, x, fill), 1, &d);
}

static tt_val_t eq(const ldl_t *c, tt_val_t a, tt_val_t b) { return tt_b_compare(c->g, TT_CMP_EQ, a, b); }
static tt_val_t and_(const ldl_t *c, tt_val_t a, tt_val_t b) { return tt_b_binary(c->g, TT_BIN_AND, a, b); }
static tt_val_t or_(const ldl_t *c, tt_val_t a, tt_val_t b) { return tt_b_binary(c->g, TT_BIN_OR, a, b); }
static tt_val_t not_(const ldl_t *c, tt_val_t a) { return tt_b_unary(c->g, TT_UN_NOT, a); }
static tt_val_t add(const ldl_t *c, tt_val_t a, tt_val_t b) { return tt_b_binary(c->g, TT_BIN_ADD, a, b); }
static tt_val_t sub(const ldl_t *c, tt_val_t a, tt_val_t b) { return tt_b_binary(c->g, TT_BIN_SUB, a, b); }
static tt_val_t mul(const ldl_t *c, tt_val_t a, tt_val_t b) { return tt_b_binary(c->g, TT_BIN_MUL, a, b); }
static tt_val_t dvd(const ldl_t *c, tt_val_t a, tt_val_t b) { return tt_b_binary(c->g, TT_BIN_DIV, a, b); }
static tt_val_t sel(const ldl_t *c, tt_val_t p, tt_val_t a, tt_val_t b) { return tt_b_select(c->g, p, a, b); }
static tt_val_t cmp(const ldl_t *c, tt_cmp_t op, tt_val_t a, tt_val_t b) { return tt_b_compare(c->g, op, a, b); }
/* v, kept from fusing with the operation that consumes it: XLA's CPU
 * backend lets LLVM contract a*b+c into an FMA (LAPACK's BLAS rounds the
 * product on its own here) and XLA rewrites (a / b) / c as a / (b * c). The
 * bits pass through an xor with a runtime zero (1 only for finished
 * matrices, whose values are discarded), which no pass can see through; a
 * select on a runtime predicate is not enough, LLVM unswitches it. */
static tt_val_t rounded(const ldl_t *c, tt_val_t v) {
  if (v < 0 || tt_graph_failed(c->g)) return -1;
  const tt_type_t *t = tt_graph_type(c->g, v);
  tt_dtype_t it = t->dtype == TT_F64 ? TT_I64 : TT_I32;
  int64_t d0 = 0;
  tt_val_t z = tt_b_broadcast(c->g, tt_b_convert(c->g, tt_b_unary(c->g, TT_UN_NOT, c->live), it), t->rank, t->dims, &d0);
  return tt_b_bitcast(c->g, tt_b_binary(c->g, TT_BIN_XOR, tt_b_bitcast(c->g, v, it), z), t->dtype);
}
/* a * b rounded on its own. */
static tt_val_t rmul(const ldl_t *c, tt_val_t a, tt_val_t b) { return rounded(c, tt_b_binary(c->g, TT_BIN_MUL, a, b)); }
static tt_val_t nvec(const ldl_t *c, int64_t v) {
  int64_t d = c->N;
  return tt_b_full_i(c->g, TT_I64, 1, &d, v);
}

/* Row i[b] (dim 1) or column i[b] (dim 2) of x (N, n, m): (N, m) or (N, n). */
static tt_val_t row_of(const ldl_t *c, tt_val_t x, int64_t m, tt_val_t i) {
  return pick(c, x, eq(c, iota3(c, m, 1), spread3(c, i, m, 0)), 1);
}
static tt_val_t col_of(const ldl_t *c, tt_val_t x, tt_val_t j) {
  return pick(c, x, eq(c, iota3(c, c->n, 2), spread3(c, j, c->n, 0)), 2);
}
/* v[b, i[b]] of v (N, n). */
static tt_val_t elem(const ldl_t *c, tt_val_t v, tt_val_t i) { return pick(c, v, eq(c, iota2(c), spread2(c, i)), 1); }

/* x (N, n, m) with rows a[b] and p[b] exchanged. */
static tt_val_t swap_rows(const ldl_t *c, tt_val_t x, int64_t m, tt_val_t a, tt_val_t p) {
  tt_val_t R = iota3(c, m, 1);
  tt_val_t ra = spread3(c, row_of(c, x, m, a), m, 2), rp = spread3(c, row_of(c, x, m, p), m, 2);
  return sel(c, eq(c, R, spread3(c, a, m, 0)), rp, sel(c, eq(c, R, spread3(c, p, m, 0)), ra, x));
}

/* x (N, n, n) with columns a[b] and p[b] exchanged. */
static tt_val_t swap_cols(const ldl_t *c, tt_val_t x, tt_val_t a, tt_val_t p) {
  tt_val_t C = iota3(c, c->n, 2);
  tt_val_t ca = spread3(c, col_of(c, x, a), c->n, 1), cp = spread3(c, col_of(c, x, p), c->n, 1);
  return sel(c, eq(c, C, spread3(c, a, c->n, 0)), cp, sel(c, eq(c, C, spread3(c, p, c->n, 0)), ca, x));
}

/* The outer product u_i * w_j of two (N, n) vectors as (N, n, n), rounded on its own. */
static tt_val_t outer(const ldl_t *c, tt_val_t u, tt_val_t w) {
  return rmul(c, spread3(c, u, c->n, 1), spread3(c, w, c->n, 2));
}

static tt_val_t scalar_f(const ldl_t *c, double v) {
  int64_t d = c->N;
  return tt_b_full_f(c->g, c->dt, 1, &d, v);
}

typedef struct ldl_fact_s {
  tt_val_t w, piv, info; /* (N, n, n) lower triangle = LD; (N, n) i32; (N) i32 */
} ldl_fact_t;

/* ?sytf2 with uplo = 'L', one step per iteration for every matrix at its own
 * column k (1x1 steps advance k by 1, 2x2 steps by 2, finished matrices stay
 * put). The working matrix is kept symmetric: LAPACK reads and updates only
 * the lower triangle, so after each step the lower triangle is mirrored. */
static ldl_fact_t sytf2_lower(const ldl_t *c0, tt_val_t a) {
  ldl_t cc = *c0, *c = &cc;
  tt_graph_t *g = c->g;
  int64_t n = c->n;
  /* LAPACK's alpha = (1 + sqrt(17)) / 8, evaluated in the working precision. */
  double alpha = c->dt == TT_F32 ? (double)((1.0f + sqrtf(17.0f)) / 8.0f) : (1.0 + sqrt(17.0)) / 8.0;
  int64_t d2[2] = {c->N, n};
  ldl_fact_t r;
  tt_val_t R = iota3(c, n, 1), C = iota3(c, n, 2), I = iota2(c);
  tt_val_t lower = cmp(c, TT_CMP_GE, R, C);
  a = sel(c, lower, a, tt_la_mT(g, a)); /* only the lower triangle is read */
  tt_val_t init[4] = {a, nvec(c, 0), tt_b_full_i(g, TT_I32, 2, d2, 0), tt_b_full_i(g, TT_I32, 1, &c->N, 0)};
  tt_loop_t lp;
  tt_val_t it, s[4], res[4];
  tt_b_for_begin(g, &lp, 0, n, 4, init, &it, s);
  tt_val_t W = s[0], k = s[1], piv = s[2], info = s[3];
  tt_val_t one = nvec(c, 1), zero_f = scalar_f(c, 0.0), al = scalar_f(c, alpha);
  tt_val_t active = cmp(c, TT_CMP_LT, k, nvec(c, n));
  cc.live = active;
  /* Pivot search on column k and, if needed, row imax. */
  tt_val_t x0 = col_of(c, W, k);
  tt_val_t absakk = tt_b_unary(g, TT_UN_ABS, elem(c, x0, k));
  tt_val_t ax = tt_b_unary(g, TT_UN_ABS, x0);
  tt_val_t below = cmp(c, TT_CMP_GT, I, spread2(c, k));
  /* idamax: the first largest |a|; NaNs are never larger. */
  tt_val_t cand = sel(c, and_(c, below, eq(c, ax, ax)), ax, tt_b_like_f(g, ax, -1.0));
  tt_val_t imax;
  tt_val_t cmaxv = tt_b_argreduce(g, TT_RED_ARGMAX, cand, 1, &imax);
  tt_val_t colmax = tt_b_binary(g, TT_BIN_MAX, cmaxv, zero_f);
  tt_val_t zero_col = or_(c, eq(c, tt_b_binary(g, TT_BIN_MAX, absakk, colmax), zero_f), not_(c, eq(c, absakk, absakk)));
  tt_val_t c1 = cmp(c, TT_CMP_GE, absakk, mul(c, al, colmax));
  tt_val_t rimax = tt_b_unary(g, TT_UN_ABS, row_of(c, W, n, imax));
  tt_val_t in_row = and_(c, cmp(c, TT_CMP_GE, I, spread2(c, k)), cmp(c, TT_CMP_NE, I, spread2(c, imax)));
  int64_t last = 1;
  tt_val_t rowmax = tt_b_reduce(g, TT_RED_MAX, sel(c, in_row, rimax, tt_b_like_f(g, rimax, 0.0)), 1, &last);
  tt_val_t c2 = cmp(c, TT_CMP_GE, absakk, mul(c, mul(c, al, colmax), dvd(c, colmax, rowmax)));
  tt_val_t c3 = cmp(c, TT_CMP_GE, elem(c, rimax, imax), mul(c, al, rowmax));
  tt_val_t keep = or_(c, or_(c, zero_col, c1), c2);
  tt_val_t two = and_(c, not_(c, keep), not_(c, c3));
  tt_val_t kp = sel(c, keep, k, imax);
  tt_val_t kk = add(c, k, tt_b_convert(g, two, TT_I64));
  /* Symmetric interchange of kk and kp inside the trailing block. */
  tt_val_t kb = spread3(c, k, n, 0);
  tt_val_t trail = and_(c, cmp(c, TT_CMP_GE, R, kb), cmp(c, TT_CMP_GE, C, kb));
  tt_val_t W2 = sel(c, trail, swap_cols(c, swap_rows(c, W, n, kk, kp), kk, kp), W);
  /* 1x1 pivot: rank-1 update with -1/d (dsyr, skipping zero x_j), then L = x / d. */
  tt_val_t x = col_of(c, W2, k);
  tt_val_t d11 = rounded(c, dvd(c, scalar_f(c, 1.0), elem(c, x, k)));
  tt_val_t t = mul(c, spread2(c, tt_b_unary(g, TT_UN_NEG, d11)), x);
  tt_val_t xj = spread3(c, x, n, 2);
  tt_val_t up1 = sel(c, cmp(c, TT_CMP_NE, xj, tt_b_like_f(g, xj, 0.0)), add(c, W2, outer(c, x, t)), W2);
  tt_val_t l1 = mul(c, x, spread2(c, d11));
  tt_val_t gt_r = cmp(c, TT_CMP_GT, R, kb), gt_c = cmp(c, TT_CMP_GT, C, kb), is_c = eq(c, C, kb);
  tt_val_t W1 = sel(c, and_(c, gt_r, gt_c), up1, sel(c, and_(c, gt_r, is_c), spread3(c, l1, n, 1), W2));
  /* 2x2 pivot: rank-2 update through the inverse of the block, as dsytf2 writes it. */
  tt_val_t k1 = add(c, k, one);
  tt_val_t y = col_of(c, W2, k1);
  tt_val_t d21 = elem(c, x, k1);
  tt_val_t e11 = dvd(c, elem(c, y, k1), d21), e22 = dvd(c, elem(c, x, k), d21);
  tt_val_t tt = dvd(c, scalar_f(c, 1.0), sub(c, rmul(c, e11, e22), scalar_f(c, 1.0)));
  /* rounded() keeps XLA from rewriting (1 / z) / d21 as 1 / (z * d21). */
  tt_val_t f21 = spread2(c, dvd(c, rounded(c, tt), d21));
  tt_val_t wk = mul(c, f21, sub(c, rmul(c, spread2(c, e11), x), y));
  tt_val_t wkp1 = mul(c, f21, sub(c, rmul(c, spread2(c, e22), y), x));
  tt_val_t up2a = sub(c, W2, outer(c, x, wk));
  tt_val_t up2 = sub(c, up2a, outer(c, y, wkp1));
  tt_val_t k1b = spread3(c, k1, n, 0);
  tt_val_t gt2_r = cmp(c, TT_CMP_GT, R, k1b), gt2_c = cmp(c, TT_CMP_GT, C, k1b);
  tt_val_t Wt = sel(c, and_(c, gt2_r, gt2_c), up2,
                    sel(c, and_(c, gt2_r, is_c), spread3(c, wk, n, 1),
                        sel(c, and_(c, gt2_r, eq(c, C, k1b)), spread3(c, wkp1, n, 1), W2)));
  tt_val_t upd = and_(c, active, not_(c, zero_col));
  tt_val_t Wn = sel(c, spread3(c, upd, n, 0), sel(c, spread3(c, two, n, 0), Wt, W1), W);
  Wn = sel(c, lower, Wn, tt_la_mT(g, Wn));
  /* ipiv: kp + 1 for a 1x1 step, -(kp + 1) twice for a 2x2 one. */
  tt_val_t kp1 = tt_b_convert(g, add(c, kp, one), TT_I32);
  tt_val_t pv = sel(c, two, tt_b_unary(g, TT_UN_NEG, kp1), kp1);
  tt_val_t at_k = or_(c, eq(c, I, spread2(c, k)), and_(c, spread2(c, two), eq(c, I, spread2(c, k1))));
  tt_val_t pn = sel(c, and_(c, spread2(c, active), at_k), spread2(c, pv), piv);
  tt_val_t first = and_(c, and_(c, active, zero_col), eq(c, info, tt_b_full_i(g, TT_I32, 1, &c->N, 0)));
  tt_val_t in = sel(c, first, tt_b_convert(g, add(c, k, one), TT_I32), info);
  tt_val_t kn = sel(c, active, add(c, kk, one), k);
  tt_val_t next[4] = {Wn, kn, pn, in};
  tt_b_for_end(g, &lp, next, res);
  r.w = tt_la_tri(g, res[0], 1, 0);
  r.piv = res[2];
  r.info = res[3];
  return r;
}

static int64_t batch_count(int rank, const int64_t *s) {
  int64_t N = 1;
  for (int i = 0; i < rank - 2; i++) N *= s[i];
  return N;
}

/* The dtype checks PyTorch's CPU kernels make for LD/A; `kernel` names the
 * CPU kernel in the NotImplementedError for float16/bfloat16. */
static int check_dtype(tt_lower_t *L, int i, const char *api, const char *kernel) {
  tt_dtype_t dt = tt_l_arg_dtype(L, i);
  if (dt == TT_F32 || dt == TT_F64) return 1;
  if (dt == TT_F16 || dt == TT_BF16)
    return tt_l_refuse_dtype(L, dt, "%s", kernel), 0;
  if (tt_dtype_is_complex(dt))
    return tt_l_fail(L, TT_NOT_IMPLEMENTED, "%s: complex inputs are not supported on tpu yet; use float32 or float64", api), 0;
  return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Expected a floating point or complex tensor as input. Got %s", api,
                   tt_op_type_name(dt)), 0;
}

static int check_square(tt_lower_t *L, int i, const char *api) {
  int rank = tt_l_arg_rank(L, i);
  if (tt_l_arg_dtype(L, i) == TT_DTYPE_INVALID) return tt_l_fail(L, TT_TYPE_ERROR, "%s: expected a Tensor", api), 0;
  if (rank < 2) return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: The input tensor A must have at least 2 dimensions.", api), 0;
  const int64_t *s = tt_l_arg_sizes(L, i);
  if (s[rank - 1] != s[rank - 2])
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: A must be batches of square matrices, but they are %lld by %lld matrices",
                     api, (long long)s[rank - 2], (long long)s[rank - 1]), 0;
  return 1;
}

/* linalg_ldl_factor_ex(self, *, hermitian=False, check_errors=False) -> (LD, pivots, info).
 * hermitian only matters for complex inputs (?hetrf); real ones use ?sytrf either way. */
static tt_status_t lower_ldl_factor_ex(tt_lower_t *L) {
  const char *api = "torch.linalg.ldl_factor_ex";
  if (!check_square(L, 0, api) || !check_dtype(L, 0, api, "ldl_factor_kernel_cpu")) return NULL;
  if (tt_l_bool(L, 2, 0))
    return tt_status_make(TT_NOT_IMPLEMENTED,
                          "linalg.ldl_factor_ex(check_errors=True) is not supported on tpu (it needs the host to "
                          "inspect info); use torch.linalg.ldl_factor, which raises, or check the returned info");
  tt_graph_t *g = L->g;
  int rank = tt_l_arg_rank(L, 0);
  const int64_t *s = tt_l_arg_sizes(L, 0);
  ldl_t c = {g, batch_count(rank, s), s[rank - 1], tt_l_arg_dtype(L, 0), -1};
  tt_val_t a = tt_l_tensor(L, 0);
  if (c.N == 0 || c.n == 0) {
    tt_l_output(L, a);
    tt_l_output(L, tt_b_full_i(g, TT_I32, rank - 1, s, 0));
    tt_l_output(L, tt_b_full_i(g, TT_I32, rank - 2, s, 0));
    return NULL;
  }
  int64_t d3[3] = {c.N, c.n, c.n};
  ldl_fact_t f = sytf2_lower(&c, tt_b_reshape(g, a, 3, d3));
  tt_l_output(L, tt_b_reshape(g, f.w, rank, s));
  tt_l_output(L, tt_b_reshape(g, f.piv, rank - 1, s));
  tt_l_output(L, tt_b_reshape(g, f.info, rank - 2, s));
  return NULL;
}

/* ?sytrs with uplo = 'L': B (N, n, m) overwritten by A^-1 B from LD (N, n, n)
 * and pivots (N, n) i64, forward through P L D then back through L^T P^T. */
static tt_val_t sytrs_lower(const ldl_t *c0, tt_val_t ld, tt_val_t piv, tt_val_t b, int64_t m) {
  ldl_t cc = *c0, *c = &cc;
  tt_graph_t *g = c->g;
  int64_t n = c->n;
  tt_val_t R = iota3(c, m, 1), one = nvec(c, 1);
  /* Forward: L D y = P^T b, one (1x1 or 2x2) block per iteration. */
  tt_loop_t lp;
  tt_val_t it, s[2], res[2], init[2] = {b, nvec(c, 0)};
  tt_b_for_begin(g, &lp, 0, n, 2, init, &it, s);
  {
    tt_val_t B = s[0], k = s[1];
    tt_val_t active = cmp(c, TT_CMP_LT, k, nvec(c, n));
    cc.live = active;
    tt_val_t p = elem(c, piv, k);
    tt_val_t two = cmp(c, TT_CMP_LT, p, nvec(c, 0));
    tt_val_t k1 = add(c, k, one);
    tt_val_t r0 = sel(c, two, k1, k);
    tt_val_t kp = sub(c, tt_b_unary(g, TT_UN_ABS, p), one);
    tt_val_t Bs = swap_rows(c, B, m, r0, kp);
    tt_val_t lk = col_of(c, ld, k), lk1 = col_of(c, ld, k1);
    tt_val_t bk = row_of(c, Bs, m, k), bk1 = row_of(c, Bs, m, k1);
    /* dger with alpha = -1: b_i += l_i * (-b_k), columns with b_k == 0 skipped. */
    tt_val_t bkj = spread3(c, bk, m, 2), bk1j = spread3(c, bk1, m, 2);
    tt_val_t g1 = sel(c, cmp(c, TT_CMP_NE, bkj, tt_b_like_f(g, bkj, 0.0)),
                      add(c, Bs, rmul(c, spread3(c, lk, m, 1), tt_b_unary(g, TT_UN_NEG, bkj))), Bs);
    tt_val_t g2 = sel(c, cmp(c, TT_CMP_NE, bk1j, tt_b_like_f(g, bk1j, 0.0)),
                      add(c, g1, rmul(c, spread3(c, lk1, m, 1), tt_b_unary(g, TT_UN_NEG, bk1j))), g1);
    tt_val_t bgt = cmp(c, TT_CMP_GT, R, spread3(c, sel(c, two, k1, k), m, 0));
    tt_val_t Bu = sel(c, bgt, sel(c, spread3(c, two, m, 0), g2, g1), Bs);
    /* The diagonal block's inverse. */
    tt_val_t dkk = elem(c, lk, k);
    /* dscal by 1 / d, the reciprocal rounded first. */
    tt_val_t r1 = mul(c, bk, spreadm(c, rounded(c, dvd(c, scalar_f(c, 1.0), dkk)), m));
    tt_val_t akm1k = elem(c, lk, k1);
    tt_val_t akm1 = dvd(c, dkk, akm1k), ak = dvd(c, elem(c, lk1, k1), akm1k);
    tt_val_t denom = spreadm(c, sub(c, rmul(c, akm1, ak), scalar_f(c, 1.0)), m);
    tt_val_t bkm1 = dvd(c, bk, spreadm(c, akm1k, m)), bkk = dvd(c, bk1, spreadm(c, akm1k, m));
    tt_val_t nk = dvd(c, sub(c, rmul(c, spreadm(c, ak, m), bkm1), bkk), denom);
    tt_val_t nk1 = dvd(c, sub(c, rmul(c, spreadm(c, akm1, m), bkk), bkm1), denom);
    tt_val_t isk = eq(c, R, spread3(c, k, m, 0)), isk1 = eq(c, R, spread3(c, k1, m, 0));
    tt_val_t rowk = sel(c, spreadm(c, two, m), nk, r1);
    tt_val_t Bd = sel(c, isk, spread3(c, rowk, m, 2),
                      sel(c, and_(c, spread3(c, two, m, 0), isk1), spread3(c, nk1, m, 2), Bu));
    tt_val_t next[2] = {sel(c, spread3(c, active, m, 0), Bd, B), sel(c, active, add(c, k, add(c, one, tt_b_convert(g, two, TT_I64))), k)};
    tt_b_for_end(g, &lp, next, res);
  }
  /* Backward: x = P L^-T y, from the last block up. */
  tt_loop_t lq;
  tt_val_t init2[2] = {res[0], nvec(c, n - 1)}, res2[2];
  tt_b_for_begin(g, &lq, 0, n, 2, init2, &it, s);
  {
    tt_val_t B = s[0], k = s[1];
    tt_val_t active = cmp(c, TT_CMP_GE, k, nvec(c, 0));
    cc.live = active;
    tt_val_t kc = tt_b_binary(g, TT_BIN_MAX, k, nvec(c, 0));
    tt_val_t p = elem(c, piv, kc);
    tt_val_t two = cmp(c, TT_CMP_LT, p, nvec(c, 0));
    tt_val_t km1 = sub(c, kc, one);
    tt_val_t kb = spread3(c, kc, m, 0);
    /* dgemv with alpha = -1, beta = 1: b_k -= sum_{i>k} b_i l_ik, the sum
     * accumulated in LAPACK's order (a tree reduction rounds differently). */
    int64_t d2m[2] = {c->N, m};
    tt_val_t zm = tt_b_full_f(g, c->dt, 2, d2m, 0.0);
    tt_loop_t li;
    tt_val_t i, t[2], tres[2], tinit[2] = {zm, zm};
    tt_b_for_begin(g, &li, 0, n, 2, tinit, &i, t);
    {
      tt_val_t z = tt_b_const_i(g, TT_I64, 0);
      int64_t rb[3] = {c->N, 1, m}, rl[3] = {c->N, 1, n};
      tt_val_t bi = tt_b_reshape(g, tt_b_dslice(g, B, (tt_val_t[3]){z, i, z}, rb), 2, d2m);
      tt_val_t li_row = tt_b_reshape(g, tt_b_dslice(g, ld, (tt_val_t[3]){z, i, z}, rl), 2, (int64_t[2]){c->N, n});
      tt_val_t on = spreadm(c, cmp(c, TT_CMP_GT, tt_b_broadcast(g, i, 1, &c->N, NULL), kc), m);
      tt_val_t tk = sel(c, on, add(c, t[0], rmul(c, bi, spreadm(c, elem(c, li_row, kc), m))), t[0]);
      tt_val_t tkm1 = sel(c, on, add(c, t[1], rmul(c, bi, spreadm(c, elem(c, li_row, km1), m))), t[1]);
      tt_val_t tnext[2] = {tk, tkm1};
      tt_b_for_end(g, &li, tnext, tres);
    }
    tt_val_t sk = tres[0], skm1 = tres[1];
    tt_val_t bk = sub(c, row_of(c, B, m, kc), sk), bkm1 = sub(c, row_of(c, B, m, km1), skm1);
    tt_val_t Bu = sel(c, eq(c, R, kb), spread3(c, bk, m, 2),
                      sel(c, and_(c, spread3(c, two, m, 0), eq(c, R, spread3(c, km1, m, 0))), spread3(c, bkm1, m, 2), B));
    tt_val_t Bs = swap_rows(c, Bu, m, kc, sub(c, tt_b_unary(g, TT_UN_ABS, p), one));
    tt_val_t kn = sub(c, k, add(c, one, tt_b_convert(g, two, TT_I64)));
    tt_val_t next[2] = {sel(c, spread3(c, active, m, 0), Bs, B), sel(c, active, kn, k)};
    tt_b_for_end(g, &lq, next, res2);
  }
  return res2[0];
}

/* x with its leading dims (all but the last `keep`) broadcast to bd[0..nb). */
static tt_val_t to_batch(tt_graph_t *g, tt_val_t x, int nb, const int64_t *bd, int keep) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *t = tt_graph_type(g, x);
  int64_t d[TT_MAX_RANK], map[TT_MAX_RANK];
  memcpy(d, bd, sizeof(int64_t) * (size_t)nb);
  for (int i = 0; i < keep; i++) d[nb + i] = t->dims[t->rank - keep + i];
  for (int i = 0; i < t->rank; i++) map[i] = nb + keep - t->rank + i;
  return tt_b_broadcast(g, x, nb + keep, d, map);
}

/* linalg_ldl_solve(LD, pivots, B, *, hermitian=False): the checks of
 * PyTorch's meta function in its order, then ?sytrs over the broadcast batch. */
static tt_status_t lower_ldl_solve(tt_lower_t *L) {
  const char *api = "torch.linalg.ldl_solve";
  if (!check_square(L, 0, api) || !check_dtype(L, 0, api, "ldl_solve_kernel_cpu")) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), bdt = tt_l_arg_dtype(L, 2), pdt = tt_l_arg_dtype(L, 1);
  int ra = tt_l_arg_rank(L, 0), rb = tt_l_arg_rank(L, 2), rp = tt_l_arg_rank(L, 1);
  if (bdt == TT_DTYPE_INVALID || pdt == TT_DTYPE_INVALID)
    return tt_status_make(TT_TYPE_ERROR, "%s: expected Tensors for pivots and B", api);
  const int64_t *sa = tt_l_arg_sizes(L, 0), *sb = tt_l_arg_sizes(L, 2), *sp = tt_l_arg_sizes(L, 1);
  if (bdt != dt)
    return tt_status_make(TT_INVALID_ARGUMENT, "Expected b and A to have the same dtype, but found b of type %s and A of type %s instead.",
                          tt_op_type_name(bdt), tt_op_type_name(dt));
  if (rb < 2)
    return tt_status_make(TT_INDEX_ERROR, "Dimension out of range (expected to be in range of [%d, %d], but got -2)",
                          rb == 0 ? -1 : -rb, rb == 0 ? 0 : rb - 1);
  int64_t n = sa[ra - 1], m = sb[rb - 1];
  if (sb[rb - 2] != n)
    return tt_status_make(TT_INVALID_ARGUMENT, "Incompatible matrix sizes for %s: each A matrix is %lld by %lld but each b matrix is %lld by %lld",
                          api, (long long)n, (long long)n, (long long)sb[rb - 2], (long long)m);
  int same = rp == ra - 1;
  for (int i = 0; same && i < rp; i++) same = sp[i] == sa[i];
  if (!same) {
    char shape[256];
    int at = snprintf(shape, sizeof shape, "[");
    for (int i = 0; i < rp && at < (int)sizeof shape - 24; i++)
      at += snprintf(shape + at, sizeof shape - (size_t)at, "%s%lld", i ? ", " : "", (long long)sp[i]);
    snprintf(shape + at, sizeof shape - (size_t)at, "]");
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape %s instead",
                          api, shape);
  }
  if (!tt_dtype_is_int(pdt))
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: Expected pivots to be integers. Got %s", api, tt_op_type_name(pdt));
  /* The batch broadcast of B and LD. */
  int nba = ra - 2, nbb = rb - 2, nb = nba > nbb ? nba : nbb;
  int64_t bd[TT_MAX_RANK];
  for (int i = 0; i < nb; i++) {
    int ia = i - (nb - nba), ib = i - (nb - nbb);
    int64_t x = ia >= 0 ? sa[ia] : 1, y = ib >= 0 ? sb[ib] : 1;
    if (x != y && x != 1 && y != 1)
      return tt_status_make(TT_INVALID_ARGUMENT, "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                            (long long)y, (long long)x, i);
    bd[i] = x == 1 ? y : x;
  }
  tt_graph_t *g = L->g;
  int64_t od[TT_MAX_RANK];
  memcpy(od, bd, sizeof(int64_t) * (size_t)nb);
  od[nb] = n;
  od[nb + 1] = m;
  int64_t N = batch_count(nb + 2, od);
  if (N == 0 || n == 0 || m == 0) {
    tt_l_output(L, tt_b_full_f(g, dt, nb + 2, od, 0.0));
    return NULL;
  }
  ldl_t c = {g, N, n, dt, -1};
  int64_t d3a[3] = {N, n, n}, d3b[3] = {N, n, m}, d2[2] = {N, n};
  tt_val_t ld = tt_b_reshape(g, to_batch(g, tt_l_tensor(L, 0), nb, bd, 2), 3, d3a);
  tt_val_t piv = tt_b_reshape(g, to_batch(g, tt_b_convert(g, tt_l_tensor(L, 1), TT_I64), nb, bd, 1), 2, d2);
  tt_val_t b = tt_b_reshape(g, to_batch(g, tt_l_tensor(L, 2), nb, bd, 2), 3, d3b);
  tt_val_t x = sytrs_lower(&c, ld, piv, b, m);
  /* CPU rejects pivots outside 1 <= |p| <= n on the host, with the error
   * that this device-side check raises (at the op in Debug mode, at the next
   * synchronization otherwise); the solution of such a matrix is NaN. */
  tt_val_t ap = tt_b_unary(g, TT_UN_ABS, piv);
  tt_val_t okp = and_(&c, cmp(&c, TT_CMP_GE, ap, tt_b_full_i(g, TT_I64, 2, d2, 1)), cmp(&c, TT_CMP_LE, ap, tt_b_full_i(g, TT_I64, 2, d2, n)));
  tt_l_check_index_mask(L, piv, tt_b_unary(g, TT_UN_NOT, okp), n, -1, TT_CHECK_LDL_PIVOT);
  int64_t last = 1;
  tt_val_t ok = tt_b_reduce(g, TT_RED_AND, okp, 1, &last);
  x = sel(&c, spread3(&c, ok, m, 0), x, tt_b_like_f(g, x, NAN));
  tt_l_output(L, tt_b_reshape(g, x, nb + 2, od));
  return NULL;
}

const tt_op_def_t tt_ops_linalg_ldl[] = {
    {"linalg_ldl_factor_ex", lower_ldl_factor_ex, 0},
    {"linalg_ldl_solve", lower_ldl_solve, 0},
    {NULL, NULL, 0},
};
