/* Lowering of the singular value decomposition (_linalg_svd, behind
 * linalg.svd, svd, svdvals, pinv, matrix_rank, cond, matrix norms 2/nuc):
 * one-sided (Hestenes) Jacobi sweeps on the columns of the taller side in
 * stablehlo.while loops, accurate for small singular values; singular values
 * descending as LAPACK returns them. Singular vector pairs are defined up to
 * a common sign: the right one is scaled so its largest-magnitude entry is
 * positive. full_matrices completes the tall factor by Householder QR. */
#include <string.h>

#include "ops/families.h"
#include "ops/linalg_jacobi.h"
#include "ops/linalg_qr.h"

/* Sum over rows of x*y for columns of [B, m, n]: [B, n]. */
static tt_val_t col_dot(tt_graph_t *g, tt_val_t x, tt_val_t y) {
  int64_t one = 1;
  return tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, x, y), 1, &one);
}

/* Column j of x [B, m, n] as [B, m, 1]. */
static tt_val_t col(tt_graph_t *g, tt_val_t x, tt_val_t j) {
  const tt_type_t *t = tt_graph_type(g, x);
  int64_t sz[3] = {t->dims[0], t->dims[1], 1};
  tt_val_t z = tt_b_const_i(g, TT_I64, 0), st[3] = {z, z, j};
  return tt_b_dslice(g, x, st, sz);
}

static tt_val_t sum_rows(tt_graph_t *g, tt_val_t x) {
  int64_t d[2] = {1, 2};
  return tt_b_reduce(g, TT_RED_SUM, x, 2, d);
}

/* 1 while some pair of columns of w [B, m, n] is not orthogonal to rounding
 * level: off-diagonal mass of w^T w above tol^2 times its whole mass. */
static tt_val_t not_orthogonal(tt_graph_t *g, tt_val_t w, double tol) {
  int64_t b = 0, c = 1;
  tt_val_t gram = tt_b_dot(g, w, w, 1, &b, &b, 1, &c, &c);
  tt_type_t t = *tt_graph_type(g, gram);
  tt_val_t sq = tt_b_binary(g, TT_BIN_MUL, gram, gram);
  tt_val_t offd = tt_b_select(g, tt_b_compare(g, TT_CMP_NE, tt_b_iota(g, TT_I64, 3, t.dims, 1), tt_b_iota(g, TT_I64, 3, t.dims, 2)),
                              sq, tt_b_like_f(g, sq, 0.0));
  tt_val_t off = sum_rows(g, offd), all = sum_rows(g, sq);
  tt_val_t bad = tt_b_compare(g, TT_CMP_GT, off, tt_b_binary(g, TT_BIN_MUL, all, tt_b_like_f(g, all, tol * tol)));
  int64_t z = 0;
  return tt_b_reduce(g, TT_RED_OR, bad, 1, &z);
}

/* a [B, m, n], m >= n: u [B, m, n], s [B, n] descending, v [B, n, n] (a = u s v^T). */
static tt_val_t complete_basis(tt_graph_t *g, tt_val_t x);

static void jacobi_svd(tt_graph_t *g, tt_val_t a, tt_val_t *out_u, tt_val_t *out_s, tt_val_t *out_v) {
  tt_type_t t = *tt_graph_type(g, a);
  int64_t n = t.dims[2], vd[3] = {t.dims[0], n, n};
  tt_val_t eye = tt_la_eye(g, t.dtype, 3, vd);
  if (n == 0 || t.dims[0] == 0 || t.dims[1] == 0) { /* nothing to rotate; a = 0 columns or rows */
    int64_t sd[2] = {t.dims[0], n};
    *out_u = tt_b_like_f(g, a, 0.0);
    *out_s = tt_b_full_f(g, t.dtype, 2, sd, 0.0);
    *out_v = eye;
    return;
  }
  tt_loop_t sweep, lp, lq;
  tt_val_t c[3], init[3] = {tt_b_const_i(g, TT_I64, 0), a, eye}, res[3];
  tt_b_while_begin(g, &sweep, 3, init, c);
  tt_val_t more = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_LT, c[0], tt_b_const_i(g, TT_I64, TT_JACOBI_MAX_SWEEPS)),
                              not_orthogonal(g, c[1], tt_jac_tol(t.dtype, n)));
  tt_b_while_body(g, &sweep, more, c);
  tt_val_t p, q, cp[2], cq[2], rp[2], rq[2];
  tt_val_t wv[2] = {c[1], c[2]};
  tt_b_for_begin(g, &lp, 0, n, 2, wv, &p, cp);
  tt_b_for_begin(g, &lq, 0, n, 2, cp, &q, cq);
  tt_val_t Wk = cq[0], Vk = cq[1], cs, sn;
  tt_val_t wp = col(g, Wk, p), wq = col(g, Wk, q);
  tt_val_t alpha = sum_rows(g, tt_b_binary(g, TT_BIN_MUL, wp, wp)), beta = sum_rows(g, tt_b_binary(g, TT_BIN_MUL, wq, wq));
  tt_val_t gamma = sum_rows(g, tt_b_binary(g, TT_BIN_MUL, wp, wq));
  tt_val_t active = tt_b_broadcast(g, tt_b_compare(g, TT_CMP_GT, q, p), 1, t.dims, NULL);
  tt_jac_schur2(g, alpha, beta, gamma, active, &cs, &sn);
  tt_val_t nq[2] = {tt_jac_rotate(g, Wk, p, q, cs, sn, 2), tt_jac_rotate(g, Vk, p, q, cs, sn, 2)};
  tt_b_for_end(g, &lq, nq, rq);
  tt_b_for_end(g, &lp, rq, rp);
  tt_val_t next[3] = {tt_b_binary(g, TT_BIN_ADD, c[0], tt_b_const_i(g, TT_I64, 1)), rp[0], rp[1]};
  tt_b_while_end(g, &sweep, next, res);
  tt_val_t W = res[1], V = res[2];
  tt_val_t s = tt_b_unary(g, TT_UN_SQRT, col_dot(g, W, W));
  /* u_j = w_j / s_j; a zero column stays zero. */
  int64_t keep[2] = {0, 2};
  tt_val_t sb = tt_b_broadcast(g, s, 3, t.dims, keep), zero = tt_b_like_f(g, W, 0.0);
  tt_val_t pos = tt_b_compare(g, TT_CMP_GT, sb, zero);
  tt_val_t U = tt_b_select(g, pos, tt_b_binary(g, TT_BIN_DIV, W, tt_b_select(g, pos, sb, tt_b_like_f(g, W, 1.0))), zero);
  tt_val_t vs[2] = {U, V};
  tt_jac_sort(g, &s, 1, 2, vs);
  tt_val_t sign = tt_jac_sign(g, vs[1]);
  /* Columns of zero (or rounding-level) singular values come out of w / s as
   * zeros or noise; LAPACK's U is orthonormal all the same. Re-orthonormalize
   * by Householder QR with R's signs: a well-determined column is returned
   * as it was (to rounding), the others become an orthonormal completion. */
  tt_val_t basis = complete_basis(g, vs[0]);
  vs[0] = tt_b_slice_dim(g, basis, 2, 0, n, 1);
  *out_u = tt_jac_scale_cols(g, vs[0], sign);
  *out_v = tt_jac_scale_cols(g, vs[1], sign);
  *out_s = s;
}

/* Extends x [B, r, k] (orthonormal columns, r > k) to an orthogonal
 * [B, r, r] whose first k columns are x: the Householder Q of x, its first
 * columns sign-corrected by R's diagonal. */
static tt_val_t complete_basis(tt_graph_t *g, tt_val_t x) {
  tt_type_t t = *tt_graph_type(g, x);
  int64_t r = t.dims[1], k = t.dims[2], qd[3] = {t.dims[0], r, r};
  tt_val_t packed, tau;
  tt_la_geqrf(g, x, &packed, &tau);
  tt_val_t eye = tt_la_eye(g, t.dtype, 3, qd);
  tt_val_t q = tt_la_apply_reflectors(g, packed, tau, eye, 1, 0);
  tt_val_t d = tt_la_diag(g, packed); /* [B, k] */
  tt_val_t one = tt_b_like_f(g, d, 1.0);
  tt_val_t sgn = tt_b_select(g, tt_b_compare(g, TT_CMP_LT, d, tt_b_like_f(g, d, 0.0)), tt_b_like_f(g, d, -1.0), one);
  int64_t lo[2] = {0, 0}, hi[2] = {0, r - k};
  tt_val_t full = tt_b_pad(g, sgn, tt_b_const_f(g, t.dtype, 1.0), lo, hi, NULL);
  return tt_jac_scale_cols(g, q, full);
}

void tt_la_svd(tt_graph_t *g, tt_val_t a, tt_val_t *out_u, tt_val_t *out_s, tt_val_t *out_v) {
  *out_u = *out_s = *out_v = -1;
  if (a < 0 || tt_graph_failed(g)) return;
  const tt_type_t *t = tt_graph_type(g, a);
  int wide = t->dims[1] < t->dims[2];
  tt_val_t u, v;
  jacobi_svd(g, wide ? tt_la_mT(g, a) : a, &u, out_s, &v);
  *out_u = wide ? v : u;
  *out_v = wide ? u : v;
}

/* _linalg_svd(A, full_matrices=False, compute_uv=True, *, driver=None) -> (U, S, Vh) */
static tt_status_t lower_linalg_svd(tt_lower_t *L) {
  if (!tt_la_check_matrix(L, 0, "linalg.svd", "A", 0)) return NULL;
  int full = tt_l_bool(L, 1, 0), compute_uv = tt_l_bool(L, 2, 1);
  tt_graph_t *g = L->g;
  int r = tt_l_arg_rank(L, 0);
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  int64_t m = sz[r - 2], n = sz[r - 1], k = m < n ? m : n;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  tt_val_t a = tt_la_flat3(g, tt_l_tensor(L, 0));
  int wide = m < n;
  if (wide) a = tt_la_mT(g, a); /* a^T = u s v^T gives a = v s u^T */
  tt_val_t u, s, v;
  jacobi_svd(g, a, &u, &s, &v);
  if (tt_graph_failed(g)) return NULL;
  int64_t bd[TT_MAX_RANK];
  memcpy(bd, sz, sizeof(int64_t) * (size_t)(r - 2));
  /* U is the tall factor's partner: [B, m, k]; V [B, n, k]. */
  tt_val_t U = wide ? v : u, V = wide ? u : v;
  if (full && m != n) {
    if (wide) V = complete_basis(g, V);
    else U = complete_basis(g, U);
  }
  int64_t zero = 0, sd[TT_MAX_RANK];
  memcpy(sd, sz, sizeof(int64_t) * (size_t)(r - 2));
  sd[r - 2] = k;
  tt_val_t empty = tt_b_full_f(g, dt, 1, &zero, 0.0);
  tt_l_output(L, compute_uv ? tt_la_unflat(g, U, r - 2, bd) : empty);
  tt_l_output(L, tt_b_reshape(g, s, r - 1, sd));
  tt_l_output(L, compute_uv ? tt_la_unflat(g, tt_la_mT(g, V), r - 2, bd) : empty);
  return NULL;
}

const tt_op_def_t tt_ops_linalg_svd[] = {
    {"_linalg_svd", lower_linalg_svd, 0},
    {NULL, NULL, 0},
};
