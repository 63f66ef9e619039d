/* Lowerings of Cholesky factorization and triangular solves (linalg_cholesky_ex,
 * cholesky, cholesky_inverse, _cholesky_solve_helper, linalg_solve_triangular,
 * triangular_solve): one stablehlo.cholesky / triangular_solve each, batch
 * dims broadcast as PyTorch does. */
#include <stdio.h>

#include "ops/families.h"
#include "ops/linalg_util.h"

/* 1 where every pivot of the lower factor f is > 0 (NaN fails), per matrix. */
static tt_val_t factor_ok(tt_graph_t *g, tt_val_t f) {
  tt_val_t d = tt_la_diag(g, f);
  if (d < 0 || tt_graph_failed(g)) return -1;
  int64_t last = tt_graph_type(g, d)->rank - 1;
  return tt_b_reduce(g, TT_RED_AND, tt_b_compare(g, TT_CMP_GT, d, tt_b_like_f(g, d, 0.0)), 1, &last);
}

/* LAPACK's info for a failed factorization: the order of the first leading
 * minor that is not positive definite, 0 when none. XLA's factorization
 * poisons the whole factor with NaN on failure, so the order is found by
 * bisection: factor the leading k x k block padded with the identity (positive
 * definite exactly when that minor is), ceil(log2 n) times. */
static tt_val_t chol_info(tt_graph_t *g, tt_val_t a, tt_val_t full_ok) {
  tt_type_t t = *tt_graph_type(g, a);
  int br = t.rank - 2;
  int64_t n = t.dims[t.rank - 1];
  tt_val_t lo = tt_b_full_i(g, TT_I32, br, t.dims, 0), hi = tt_b_full_i(g, TT_I32, br, t.dims, n);
  tt_val_t row = tt_b_iota(g, TT_I32, t.rank, t.dims, t.rank - 2), col = tt_b_iota(g, TT_I32, t.rank, t.dims, t.rank - 1);
  tt_val_t eye = tt_la_eye_like(g, a), two = tt_b_full_i(g, TT_I32, br, t.dims, 2);
  int64_t bdims[TT_MAX_RANK];
  for (int i = 0; i < br; i++) bdims[i] = i;
  for (int64_t span = 1; span < n; span *= 2) {
    tt_val_t mid = tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_ADD, lo, hi), two);
    tt_val_t m = tt_b_broadcast(g, mid, t.rank, t.dims, bdims);
    tt_val_t in = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_LT, row, m), tt_b_compare(g, TT_CMP_LT, col, m));
    tt_val_t ok = factor_ok(g, tt_b_cholesky(g, tt_b_select(g, in, a, eye), 1));
    lo = tt_b_select(g, ok, mid, lo);
    hi = tt_b_select(g, ok, hi, mid);
  }
  return tt_b_select(g, full_ok, tt_b_full_i(g, TT_I32, br, t.dims, 0), hi);
}

/* The lower factor of a with the upper triangle zeroed, and LAPACK's info
 * when out_info is given. */
static tt_val_t factor(tt_lower_t *L, tt_val_t a, tt_val_t *out_info) {
  tt_graph_t *g = L->g;
  tt_val_t f = tt_b_cholesky(g, a, 1);
  if (out_info) *out_info = chol_info(g, a, factor_ok(g, f));
  return tt_la_tri(g, f, 1, 0);
}

/* linalg_cholesky_ex(self, *, upper=False, check_errors=False) -> (L, info) */
static tt_status_t lower_cholesky_ex(tt_lower_t *L) {
  if (!tt_la_check_matrix(L, 0, "linalg.cholesky", "A", 1)) return NULL;
  int upper = tt_l_bool(L, 1, 0);
  if (tt_l_bool(L, 2, 0))
    return tt_status_make(TT_NOT_IMPLEMENTED,
                          "linalg.cholesky_ex(check_errors=True) is not supported on tpu (it needs the host to "
                          "inspect info); use torch.linalg.cholesky, which raises, or check the returned info");
  tt_val_t info = -1;
  tt_val_t f = factor(L, tt_l_tensor(L, 0), &info);
  tt_l_output(L, upper ? tt_la_mT(L->g, f) : f);
  tt_l_output(L, info);
  return NULL;
}

/* cholesky(self, upper=False): the deprecated form. */
static tt_status_t lower_cholesky(tt_lower_t *L) {
  if (!tt_la_check_matrix(L, 0, "cholesky", "A", 1)) return NULL;
  tt_val_t f = factor(L, tt_l_tensor(L, 0), NULL);
  tt_l_output(L, tt_l_bool(L, 1, 0) ? tt_la_mT(L->g, f) : f);
  return NULL;
}

/* Solves (F F^H) x = b for the lower factor F, or (F^H F) x = b for an upper one. */
static tt_val_t chol_solve(tt_graph_t *g, tt_val_t f, tt_val_t b, int upper) {
  /* lower: F y = b, F^T x = y; upper: F^T y = b, F x = y. */
  tt_val_t y = tt_b_triangular_solve(g, f, b, 1, !upper, 0, upper);
  return tt_b_triangular_solve(g, f, y, 1, !upper, 0, !upper);
}

/* _cholesky_solve_helper(self, A, upper): batch dims already broadcast by cholesky_solve. */
static tt_status_t lower_cholesky_solve_helper(tt_lower_t *L) {
  if (!tt_la_check_matrix(L, 0, "cholesky_solve", "b", 0) || !tt_la_check_matrix(L, 1, "cholesky_solve", "A", 1))
    return NULL;
  tt_val_t b = tt_l_tensor(L, 0), a = tt_l_tensor(L, 1);
  if (!tt_la_broadcast_batch(L, &a, &b)) return NULL;
  tt_l_output(L, chol_solve(L->g, a, b, tt_l_bool(L, 2, 0)));
  return NULL;
}

/* cholesky_inverse(self, upper=False): (F F^H)^-1 by solving against I. */
static tt_status_t lower_cholesky_inverse(tt_lower_t *L) {
  if (!tt_la_check_matrix(L, 0, "cholesky_inverse", "input", 1)) return NULL;
  tt_val_t f = tt_l_tensor(L, 0);
  tt_l_output(L, chol_solve(L->g, f, tt_la_eye_like(L->g, f), tt_l_bool(L, 1, 0)));
  return NULL;
}

/* Same dtype for A and B, as the CPU kernels require. */
static int same_dtype(tt_lower_t *L, int ia, int ib, const char *api) {
  tt_dtype_t a = tt_l_arg_dtype(L, ia), b = tt_l_arg_dtype(L, ib);
  if (a != b) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Expected A and B to have the same dtype, but found A of type %s and B of type %s instead",
              api, tt_op_type_name(a), tt_op_type_name(b));
    return 0;
  }
  return 1;
}

/* linalg_solve_triangular(self=A, B, *, upper, left=True, unitriangular=False) */
static tt_status_t lower_solve_triangular(tt_lower_t *L) {
  const char *api = "linalg.solve_triangular";
  if (!tt_la_check_matrix(L, 0, api, "A", 1) || !tt_la_check_matrix(L, 1, api, "B", 0) || !same_dtype(L, 0, 1, api))
    return NULL;
  int upper = tt_l_bool(L, 2, 0), left = tt_l_bool(L, 3, 1), unit = tt_l_bool(L, 4, 0);
  int ra = tt_l_arg_rank(L, 0), rb = tt_l_arg_rank(L, 1);
  const int64_t *sa = tt_l_arg_sizes(L, 0), *sb = tt_l_arg_sizes(L, 1);
  int64_t n = sa[ra - 1], need = left ? sb[rb - 2] : sb[rb - 1];
  if (n != need)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld and %lldx%lld)", api,
                          left ? "AX = B" : "XA = B", (long long)sa[ra - 2], (long long)n, (long long)sb[rb - 2],
                          (long long)sb[rb - 1]);
  tt_val_t a = tt_l_tensor(L, 0), b = tt_l_tensor(L, 1);
  if (!tt_la_broadcast_batch(L, &a, &b)) return NULL;
  tt_l_output(L, tt_b_triangular_solve(L->g, a, b, left, !upper, unit, 0));
  return NULL;
}

/* triangular_solve(self=b, A, upper=True, transpose=False, unitriangular=False)
 * -> (solution, cloned_coefficient): A broadcast to the batch shape comes back too. */
static tt_status_t lower_triangular_solve(tt_lower_t *L) {
  const char *api = "torch.triangular_solve";
  if (!tt_la_check_matrix(L, 0, api, "b", 0) || !tt_la_check_matrix(L, 1, api, "A", 1) || !same_dtype(L, 1, 0, api))
    return NULL;
  int ra = tt_l_arg_rank(L, 1), rb = tt_l_arg_rank(L, 0);
  const int64_t *sa = tt_l_arg_sizes(L, 1), *sb = tt_l_arg_sizes(L, 0);
  if (sa[ra - 1] != sb[rb - 2])
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: Incompatible matrix sizes for A and b: each A matrix is %lld by %lld but each b matrix is %lld by %lld",
                          api, (long long)sa[ra - 2], (long long)sa[ra - 1], (long long)sb[rb - 2], (long long)sb[rb - 1]);
  tt_val_t a = tt_l_tensor(L, 1), b = tt_l_tensor(L, 0);
  if (!tt_la_broadcast_batch(L, &a, &b)) return NULL;
  int upper = tt_l_bool(L, 2, 1), trans = tt_l_bool(L, 3, 0), unit = tt_l_bool(L, 4, 0);
  tt_l_output(L, tt_b_triangular_solve(L->g, a, b, 1, !upper, unit, trans));
  tt_l_output(L, a);
  return NULL;
}

const tt_op_def_t tt_ops_linalg_chol[] = {
    {"linalg_cholesky_ex", lower_cholesky_ex, 0},
    {"cholesky", lower_cholesky, 0},
    {"_cholesky_solve_helper", lower_cholesky_solve_helper, 0},
    {"cholesky_inverse", lower_cholesky_inverse, 0},
    {"linalg_solve_triangular", lower_solve_triangular, 0},
    {"triangular_solve", lower_triangular_solve, 0},
    {NULL, NULL, 0},
};
