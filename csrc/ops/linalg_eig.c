/* Lowering of the symmetric eigendecomposition (_linalg_eigh, behind
 * linalg.eigh / eigvalsh): cyclic two-sided Jacobi sweeps in stablehlo.while
 * loops until the off-diagonal mass is at rounding level; eigenvalues
 * ascending as LAPACK returns them. Eigenvectors are defined up to sign:
 * each is scaled so its largest-magnitude entry is positive (LAPACK's
 * signs follow no rule that could be reproduced). */
#include <string.h>

#include "ops/families.h"
#include "ops/linalg_jacobi.h"
#include "ops/linalg_qr.h"

/* 1 while some matrix of a [B, n, n] has off-diagonal mass above
 * tol^2 * its Frobenius mass (rank-0 bool). */
static tt_val_t not_converged(tt_graph_t *g, tt_val_t a, double tol) {
  tt_type_t t = *tt_graph_type(g, a);
  tt_val_t sq = tt_b_binary(g, TT_BIN_MUL, a, a);
  tt_val_t offd = tt_b_select(g, tt_b_compare(g, TT_CMP_NE, tt_b_iota(g, TT_I64, 3, t.dims, 1), tt_b_iota(g, TT_I64, 3, t.dims, 2)),
                              sq, tt_b_like_f(g, sq, 0.0));
  int64_t md[2] = {1, 2};
  tt_val_t off = tt_b_reduce(g, TT_RED_SUM, offd, 2, md), all = tt_b_reduce(g, TT_RED_SUM, sq, 2, md);
  tt_val_t bad = tt_b_compare(g, TT_CMP_GT, off, tt_b_binary(g, TT_BIN_MUL, all, tt_b_like_f(g, all, tol * tol)));
  int64_t z = 0;
  return tt_b_reduce(g, TT_RED_OR, bad, 1, &z);
}

/* Diagonalizes the symmetric a [B, n, n]: eigenvalues w [B, n] ascending and,
 * when out_v, eigenvectors (columns) sign-fixed. */
void tt_la_eigh(tt_graph_t *g, tt_val_t a, tt_val_t *out_w, tt_val_t *out_v) {
  *out_w = -1;
  if (out_v) *out_v = -1;
  if (a < 0 || tt_graph_failed(g)) return;
  tt_type_t t = *tt_graph_type(g, a);
  int64_t n = t.dims[1];
  tt_val_t eye = tt_la_eye_like(g, a);
  if (n == 0 || t.dims[0] == 0) { /* nothing to rotate (a loop body over empty dims would not compile) */
    *out_w = tt_la_diag(g, a);
    if (out_v) *out_v = eye;
    return;
  }
  tt_loop_t sweep, lp, lq;
  tt_val_t c[3], init[3] = {tt_b_const_i(g, TT_I64, 0), a, eye}, res[3];
  tt_b_while_begin(g, &sweep, 3, init, c);
  tt_val_t more = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_LT, c[0], tt_b_const_i(g, TT_I64, TT_JACOBI_MAX_SWEEPS)),
                              not_converged(g, c[1], tt_jac_tol(t.dtype, n)));
  tt_b_while_body(g, &sweep, more, c);
  tt_val_t p, q, cp[2], cq[2], rp[2], rq[2];
  tt_val_t av[2] = {c[1], c[2]};
  tt_b_for_begin(g, &lp, 0, n, 2, av, &p, cp);
  tt_b_for_begin(g, &lq, 0, n, 2, cp, &q, cq);
  tt_val_t A = cq[0], V = cq[1], cs, sn;
  tt_val_t active = tt_b_broadcast(g, tt_b_compare(g, TT_CMP_GT, q, p), 1, t.dims, NULL);
  tt_jac_schur2(g, tt_jac_at(g, A, p, p), tt_jac_at(g, A, q, q), tt_jac_at(g, A, p, q), active, &cs, &sn);
  /* A <- J^T A J, V <- V J. */
  A = tt_jac_rotate(g, tt_jac_rotate(g, A, p, q, cs, sn, 1), p, q, cs, sn, 2);
  V = tt_jac_rotate(g, V, p, q, cs, sn, 2);
  tt_val_t nq[2] = {A, V};
  tt_b_for_end(g, &lq, nq, rq);
  tt_b_for_end(g, &lp, rq, rp);
  tt_val_t next[3] = {tt_b_binary(g, TT_BIN_ADD, c[0], tt_b_const_i(g, TT_I64, 1)), rp[0], rp[1]};
  tt_b_while_end(g, &sweep, next, res);
  tt_val_t w = tt_la_diag(g, res[1]), v = res[2];
  tt_jac_sort(g, &w, 0, 1, &v);
  *out_w = w;
  if (out_v) *out_v = tt_jac_scale_cols(g, v, tt_jac_sign(g, v));
}

/* _linalg_eigh(A, UPLO="L", compute_v=True) -> (eigenvalues, eigenvectors) */
static tt_status_t lower_linalg_eigh(tt_lower_t *L) {
  if (!tt_la_check_matrix(L, 0, "linalg.eigh", "A", 1)) return NULL;
  const char *uplo = tt_l_str(L, 1, "L");
  if (strcmp(uplo, "L") != 0 && strcmp(uplo, "U") != 0 && strcmp(uplo, "l") != 0 && strcmp(uplo, "u") != 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "Expected UPLO argument to be 'L' or 'U', but got %s", uplo);
  int lower = uplo[0] == 'L' || uplo[0] == 'l', compute_v = tt_l_bool(L, 2, 1);
  tt_graph_t *g = L->g;
  int r = tt_l_arg_rank(L, 0);
  const int64_t *s = tt_l_arg_sizes(L, 0);
  /* Only the named triangle is read, as LAPACK does. */
  tt_val_t x = tt_l_tensor(L, 0), tri = tt_la_tri(g, x, lower, 0);
  tt_val_t sym = tt_b_binary(g, TT_BIN_ADD, tri, tt_la_mT(g, tt_la_tri(g, x, lower, lower ? -1 : 1)));
  tt_val_t w, v;
  tt_la_eigh(g, tt_la_flat3(g, sym), &w, compute_v ? &v : NULL);
  if (tt_graph_failed(g)) return NULL;
  /* w [B, n] back to [..., n]. */
  int64_t wd[TT_MAX_RANK];
  memcpy(wd, s, sizeof(int64_t) * (size_t)(r - 1));
  tt_l_output(L, tt_b_reshape(g, w, r - 1, wd));
  int64_t zero = 0;
  tt_l_output(L, compute_v ? tt_la_unflat(g, v, r - 2, s) : tt_b_full_f(g, tt_l_arg_dtype(L, 0), 1, &zero, 0.0));
  return NULL;
}

const tt_op_def_t tt_ops_linalg_eig[] = {
    {"_linalg_eigh", lower_linalg_eigh, 0},
    {NULL, NULL, 0},
};
