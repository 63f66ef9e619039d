/* Jacobi rotation helpers (see linalg_jacobi.h). Rotations update whole
 * [B, n, n] values through masks, so they work with loop counters as p, q. */
#include "ops/linalg_jacobi.h"

static tt_val_t bcast0(tt_graph_t *g, tt_val_t x, int rank, const int64_t *dims) {
  int64_t z = 0;
  return tt_b_broadcast(g, x, rank, dims, &z);
}

/* Slice 1 wide at index i (rank-0 i64) along axis of x [B, r, c]. */
static tt_val_t line(tt_graph_t *g, tt_val_t x, tt_val_t i, int axis) {
  const tt_type_t *t = tt_graph_type(g, x);
  int64_t sz[3] = {t->dims[0], t->dims[1], t->dims[2]};
  sz[axis] = 1;
  tt_val_t z = tt_b_const_i(g, TT_I64, 0), st[3] = {z, z, z};
  st[axis] = i;
  return tt_b_dslice(g, x, st, sz);
}

tt_val_t tt_jac_rotate(tt_graph_t *g, tt_val_t x, tt_val_t p, tt_val_t q, tt_val_t c, tt_val_t s, int axis) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  tt_type_t t = *tt_graph_type(g, x);
  tt_val_t xp = line(g, x, p, axis), xq = line(g, x, q, axis);
  if (xp < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *lt = tt_graph_type(g, xp);
  tt_val_t c3 = bcast0(g, c, 3, lt->dims), s3 = bcast0(g, s, 3, lt->dims);
  tt_val_t np = tt_b_binary(g, TT_BIN_SUB, tt_b_binary(g, TT_BIN_MUL, c3, xp), tt_b_binary(g, TT_BIN_MUL, s3, xq));
  tt_val_t nq = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, s3, xp), tt_b_binary(g, TT_BIN_MUL, c3, xq));
  tt_val_t idx = tt_b_iota(g, TT_I64, 3, t.dims, axis);
  tt_val_t atp = tt_b_compare(g, TT_CMP_EQ, idx, tt_b_broadcast(g, p, 3, t.dims, NULL));
  tt_val_t atq = tt_b_compare(g, TT_CMP_EQ, idx, tt_b_broadcast(g, q, 3, t.dims, NULL));
  return tt_b_select(g, atp, tt_b_broadcast_to(g, np, 3, t.dims),
                     tt_b_select(g, atq, tt_b_broadcast_to(g, nq, 3, t.dims), x));
}

tt_val_t tt_jac_at(tt_graph_t *g, tt_val_t x, tt_val_t i, tt_val_t j) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *t = tt_graph_type(g, x);
  int64_t sz[3] = {t->dims[0], 1, 1}, b = t->dims[0];
  tt_val_t st[3] = {tt_b_const_i(g, TT_I64, 0), i, j};
  return tt_b_reshape(g, tt_b_dslice(g, x, st, sz), 1, &b);
}

void tt_jac_schur2(tt_graph_t *g, tt_val_t app, tt_val_t aqq, tt_val_t apq, tt_val_t active, tt_val_t *out_c,
                   tt_val_t *out_s) {
  tt_val_t zero = tt_b_like_f(g, apq, 0.0), one = tt_b_like_f(g, apq, 1.0);
  tt_val_t on = tt_b_binary(g, TT_BIN_AND, active, tt_b_compare(g, TT_CMP_NE, apq, zero));
  tt_val_t den = tt_b_binary(g, TT_BIN_MUL, tt_b_like_f(g, apq, 2.0), tt_b_select(g, on, apq, one));
  tt_val_t theta = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_SUB, aqq, app), den);
  tt_val_t sgn = tt_b_select(g, tt_b_compare(g, TT_CMP_GE, theta, zero), one, tt_b_unary(g, TT_UN_NEG, one));
  /* t = sign(theta) / (|theta| + sqrt(1 + theta^2)): the smaller root, so
   * the rotation angle stays within pi/4 (convergence). */
  tt_val_t root = tt_b_unary(g, TT_UN_SQRT, tt_b_binary(g, TT_BIN_ADD, one, tt_b_binary(g, TT_BIN_MUL, theta, theta)));
  tt_val_t tt = tt_b_binary(g, TT_BIN_DIV, sgn, tt_b_binary(g, TT_BIN_ADD, tt_b_unary(g, TT_UN_ABS, theta), root));
  tt_val_t c = tt_b_unary(g, TT_UN_RSQRT, tt_b_binary(g, TT_BIN_ADD, one, tt_b_binary(g, TT_BIN_MUL, tt, tt)));
  *out_c = tt_b_select(g, on, c, one);
  *out_s = tt_b_select(g, on, tt_b_binary(g, TT_BIN_MUL, tt, c), zero);
}

void tt_jac_sort(tt_graph_t *g, tt_val_t *w, int descending, int nv, tt_val_t *vs) {
  if (*w < 0 || tt_graph_failed(g)) return;
  tt_type_t t = *tt_graph_type(g, *w);
  tt_val_t ins[2] = {*w, tt_b_iota(g, TT_I64, 2, t.dims, 1)};
  tt_val_t sorted = tt_b_sort(g, 2, ins, 1, descending, 1);
  *w = tt_b_get(g, sorted, 0);
  tt_val_t perm = tt_b_get(g, sorted, 1);
  int64_t n = t.dims[1], pd[3] = {t.dims[0], n, n}, keep[2] = {0, 2};
  /* P[b, i, j] = (i == perm[b, j]); v P moves column perm[j] to j. */
  tt_val_t hit = tt_b_compare(g, TT_CMP_EQ, tt_b_iota(g, TT_I64, 3, pd, 1), tt_b_broadcast(g, perm, 3, pd, keep));
  for (int i = 0; i < nv; i++) {
    tt_dtype_t dt = tt_graph_type(g, vs[i])->dtype;
    tt_val_t P = tt_b_select(g, hit, tt_b_full_f(g, dt, 3, pd, 1.0), tt_b_full_f(g, dt, 3, pd, 0.0));
    vs[i] = tt_la_matmul(g, vs[i], P);
  }
}

tt_val_t tt_jac_sign(tt_graph_t *g, tt_val_t v) {
  if (v < 0 || tt_graph_failed(g)) return -1;
  tt_type_t t = *tt_graph_type(g, v);
  tt_val_t at;
  tt_b_argreduce(g, TT_RED_ARGMAX, tt_b_unary(g, TT_UN_ABS, v), 1, &at);
  int64_t keep[2] = {0, 2}, one = 1;
  tt_val_t hit = tt_b_compare(g, TT_CMP_EQ, tt_b_iota(g, TT_I64, 3, t.dims, 1), tt_b_broadcast(g, at, 3, t.dims, keep));
  tt_val_t big = tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, hit, v, tt_b_like_f(g, v, 0.0)), 1, &one);
  return tt_b_select(g, tt_b_compare(g, TT_CMP_LT, big, tt_b_like_f(g, big, 0.0)), tt_b_like_f(g, big, -1.0),
                     tt_b_like_f(g, big, 1.0));
}

tt_val_t tt_jac_scale_cols(tt_graph_t *g, tt_val_t v, tt_val_t sign) {
  if (v < 0 || sign < 0 || tt_graph_failed(g)) return -1;
  tt_type_t t = *tt_graph_type(g, v);
  int64_t keep[2] = {0, 2};
  return tt_b_binary(g, TT_BIN_MUL, v, tt_b_broadcast(g, sign, 3, t.dims, keep));
}

/* Relative off-diagonal size at which the sweeps stop. */
double tt_jac_tol(tt_dtype_t dt, int64_t n) {
  double eps = dt == TT_F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
  return eps * (double)(n > 1 ? n : 1);
}
