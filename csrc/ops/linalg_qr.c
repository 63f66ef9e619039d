/* Lowerings of Householder QR (geqrf, linalg_qr, linalg_householder_product,
 * ormqr): LAPACK's reflectors (beta = -sign(alpha) * norm, so R's diagonal
 * signs and the packed form match CPU), one reflector per step of a
 * stablehlo.while over the columns, on full-size masked matrices. */
#include <string.h>

#include "ops/families.h"
#include "ops/linalg_qr.h"

/* x [B, m, n] as a value; batch dims flattened to one (rank 3). */
tt_val_t tt_la_flat3(tt_graph_t *g, tt_val_t x) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *t = tt_graph_type(g, x);
  int64_t d[3] = {1, t->dims[t->rank - 2], t->dims[t->rank - 1]};
  for (int i = 0; i < t->rank - 2; i++) d[0] *= t->dims[i];
  return tt_b_reshape(g, x, 3, d);
}

/* x [B, m, n] back to batch dims `batch` (nb of them). */
tt_val_t tt_la_unflat(tt_graph_t *g, tt_val_t x, int nb, const int64_t *batch) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *t = tt_graph_type(g, x);
  int64_t d[TT_MAX_RANK];
  memcpy(d, batch, sizeof(int64_t) * (size_t)nb);
  for (int i = 1; i < t->rank; i++) d[nb + i - 1] = t->dims[i];
  return tt_b_reshape(g, x, nb + t->rank - 1, d);
}

/* Column j (rank-0 i64 value) of x [B, m, n] as [B, m]. */
static tt_val_t column(tt_graph_t *g, tt_val_t x, tt_val_t j) {
  const tt_type_t *t = tt_graph_type(g, x);
  int64_t sz[3] = {t->dims[0], t->dims[1], 1}, d2[2] = {t->dims[0], t->dims[1]};
  tt_val_t zero = tt_b_const_i(g, TT_I64, 0), st[3] = {zero, zero, j};
  return tt_b_reshape(g, tt_b_dslice(g, x, st, sz), 2, d2);
}

/* Entry j of x [B, k] as [B]. */
static tt_val_t entry(tt_graph_t *g, tt_val_t x, tt_val_t j) {
  const tt_type_t *t = tt_graph_type(g, x);
  int64_t sz[2] = {t->dims[0], 1};
  tt_val_t st[2] = {tt_b_const_i(g, TT_I64, 0), j};
  return tt_b_reshape(g, tt_b_dslice(g, x, st, sz), 1, sz);
}

/* [B] -> [B, rest...] along dim 0. */
static tt_val_t bcast0(tt_graph_t *g, tt_val_t x, int rank, const int64_t *dims) {
  int64_t z = 0;
  return tt_b_broadcast(g, x, rank, dims, &z);
}

/* Rows of a [B, m] vector compared with rank-0 k: iota(m) cmp k, shaped [B, m]. */
static tt_val_t row_cmp(tt_graph_t *g, const int64_t *d2, tt_val_t k, tt_cmp_t c) {
  return tt_b_compare(g, c, tt_b_iota(g, TT_I64, 2, d2, 1), tt_b_broadcast(g, k, 2, d2, NULL));
}

/* The reflector stored in column k of `refl` [B, m, *]: zeros above row k,
 * 1 at row k, the stored entries below. */
static tt_val_t stored_v(tt_graph_t *g, tt_val_t refl, tt_val_t k) {
  tt_val_t col = column(g, refl, k);
  int64_t d2[2] = {tt_graph_type(g, refl)->dims[0], tt_graph_type(g, refl)->dims[1]};
  tt_val_t v = tt_b_select(g, row_cmp(g, d2, k, TT_CMP_GT), col, tt_b_like_f(g, col, 0.0));
  return tt_b_select(g, row_cmp(g, d2, k, TT_CMP_EQ), tt_b_like_f(g, col, 1.0), v);
}

/* c - tau v (v^T c) (left) or c - tau (c v) v^T (right); c [B, r, s], v [B, m]. */
static tt_val_t reflect(tt_graph_t *g, tt_val_t c, tt_val_t v, tt_val_t tau, int left) {
  const tt_type_t *t = tt_graph_type(g, c);
  int64_t d[3] = {t->dims[0], t->dims[1], t->dims[2]}, b = 0;
  int64_t vc = 1, cc = left ? 1 : 2;
  tt_val_t w = tt_b_dot(g, v, c, 1, &b, &b, 1, &vc, &cc); /* [B, s] (left) or [B, r] (right) */
  int64_t vb[2] = {0, left ? 1 : 2}, wb[2] = {0, left ? 2 : 1};
  tt_val_t outer = tt_b_binary(g, TT_BIN_MUL, tt_b_broadcast(g, v, 3, d, vb), tt_b_broadcast(g, w, 3, d, wb));
  return tt_b_binary(g, TT_BIN_SUB, c, tt_b_binary(g, TT_BIN_MUL, bcast0(g, tau, 3, d), outer));
}

tt_val_t tt_la_apply_reflectors(tt_graph_t *g, tt_val_t refl, tt_val_t tau, tt_val_t c, int left, int transpose) {
  if (refl < 0 || tau < 0 || c < 0 || tt_graph_failed(g)) return -1;
  int64_t k = tt_graph_type(g, tau)->dims[1];
  if (k == 0) return c;
  /* Q = H_0 H_1 ... H_{k-1}: Q c applies H_{k-1} first, Q^T c H_0 first;
   * c Q applies H_0 first, c Q^T H_{k-1} first. */
  int backward = left != transpose;
  tt_loop_t lp;
  tt_val_t i, cur, res;
  tt_b_for_begin(g, &lp, 0, k, 1, &c, &i, &cur);
  tt_val_t idx = backward ? tt_b_binary(g, TT_BIN_SUB, tt_b_const_i(g, TT_I64, k - 1), i) : i;
  tt_val_t next = reflect(g, cur, stored_v(g, refl, idx), entry(g, tau, idx), left);
  tt_b_for_end(g, &lp, &next, &res);
  return res;
}

void tt_la_geqrf(tt_graph_t *g, tt_val_t a, tt_val_t *out_packed, tt_val_t *out_tau) {
  *out_packed = *out_tau = -1;
  if (a < 0 || tt_graph_failed(g)) return;
  const tt_type_t *t = tt_graph_type(g, a);
  tt_dtype_t dt = t->dtype;
  int64_t B = t->dims[0], m = t->dims[1], n = t->dims[2], k = m < n ? m : n;
  int64_t dk[2] = {B, k};
  tt_val_t tau0 = tt_b_full_f(g, dt, 2, dk, 0.0);
  if (k == 0) {
    *out_packed = a;
    *out_tau = tau0;
    return;
  }
  int64_t d3[3] = {B, m, n}, d2[2] = {B, m};
  tt_loop_t lp;
  tt_val_t j, cur[2], init[2] = {a, tau0}, res[2];
  tt_b_for_begin(g, &lp, 0, k, 2, init, &j, cur);
  tt_val_t A = cur[0];
  /* LAPACK's slarfg on the column's rows k.. : alpha, x below it. */
  tt_val_t col = column(g, A, j);
  tt_val_t below = row_cmp(g, d2, j, TT_CMP_GT), at = row_cmp(g, d2, j, TT_CMP_EQ);
  tt_val_t zero2 = tt_b_like_f(g, col, 0.0);
  tt_val_t x = tt_b_select(g, below, col, zero2);
  int64_t one = 1;
  tt_val_t alpha = tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, at, col, zero2), 1, &one);
  tt_val_t xnorm2 = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, x, x), 1, &one);
  tt_val_t zero1 = tt_b_like_f(g, alpha, 0.0), one1 = tt_b_like_f(g, alpha, 1.0);
  tt_val_t norm = tt_b_unary(g, TT_UN_SQRT, tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, alpha, alpha), xnorm2));
  tt_val_t sgn = tt_b_select(g, tt_b_compare(g, TT_CMP_GE, alpha, zero1), one1, tt_b_unary(g, TT_UN_NEG, one1));
  tt_val_t trivial = tt_b_compare(g, TT_CMP_EQ, xnorm2, zero1); /* H = I: tau = 0, beta = alpha */
  tt_val_t beta = tt_b_select(g, trivial, alpha, tt_b_unary(g, TT_UN_NEG, tt_b_binary(g, TT_BIN_MUL, sgn, norm)));
  tt_val_t safe_beta = tt_b_select(g, trivial, one1, beta);
  tt_val_t tau = tt_b_select(g, trivial, zero1, tt_b_binary(g, TT_BIN_DIV, tt_b_binary(g, TT_BIN_SUB, beta, alpha), safe_beta));
  tt_val_t scale = tt_b_select(g, trivial, one1, tt_b_binary(g, TT_BIN_DIV, one1, tt_b_binary(g, TT_BIN_SUB, alpha, beta)));
  tt_val_t vstore = tt_b_binary(g, TT_BIN_MUL, x, bcast0(g, scale, 2, d2));
  tt_val_t v = tt_b_select(g, at, tt_b_like_f(g, col, 1.0), vstore);
  /* Trailing columns get H applied; column j becomes (R above, beta, v below). */
  tt_val_t applied = reflect(g, A, v, tau, 1);
  tt_val_t newcol = tt_b_select(g, below, vstore, tt_b_select(g, at, bcast0(g, beta, 2, d2), col));
  tt_val_t cols = tt_b_iota(g, TT_I64, 3, d3, 2), jb = tt_b_broadcast(g, j, 3, d3, NULL);
  int64_t nb[2] = {0, 1};
  tt_val_t A2 = tt_b_select(g, tt_b_compare(g, TT_CMP_GT, cols, jb), applied,
                            tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, cols, jb), tt_b_broadcast(g, newcol, 3, d3, nb), A));
  tt_val_t tcol = tt_b_compare(g, TT_CMP_EQ, tt_b_iota(g, TT_I64, 2, dk, 1), tt_b_broadcast(g, j, 2, dk, NULL));
  tt_val_t taus = tt_b_select(g, tcol, bcast0(g, tau, 2, dk), cur[1]);
  tt_val_t next[2] = {A2, taus};
  tt_b_for_end(g, &lp, next, res);
  *out_packed = res[0];
  *out_tau = res[1];
}

/* Identity-like [B, m, n] (ones on the main diagonal). */
static tt_val_t eye3(tt_graph_t *g, tt_dtype_t dt, int64_t B, int64_t m, int64_t n) {
  int64_t d[3] = {B, m, n};
  return tt_la_eye(g, dt, 3, d);
}

/* geqrf(self) -> (a, tau) */
static tt_status_t lower_geqrf(tt_lower_t *L) {
  if (!tt_la_check_matrix(L, 0, "geqrf", "input", 0)) return NULL;
  tt_graph_t *g = L->g;
  int r = tt_l_arg_rank(L, 0);
  const int64_t *s = tt_l_arg_sizes(L, 0);
  tt_val_t packed, tau;
  tt_la_geqrf(g, tt_la_flat3(g, tt_l_tensor(L, 0)), &packed, &tau);
  tt_l_output(L, tt_la_unflat(g, packed, r - 2, s));
  tt_l_output(L, tt_la_unflat(g, tau, r - 2, s));
  return NULL;
}

/* linalg_qr(A, mode='reduced') -> (Q, R) */
static tt_status_t lower_linalg_qr(tt_lower_t *L) {
  if (!tt_la_check_matrix(L, 0, "linalg.qr", "A", 0)) return NULL;
  const char *mode = tt_l_str(L, 1, "reduced");
  int complete = strcmp(mode, "complete") == 0, ronly = strcmp(mode, "r") == 0;
  if (!complete && !ronly && strcmp(mode, "reduced") != 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "qr received unrecognized mode '%s' but expected one of 'reduced' (default), 'r', or 'complete'", mode);
  tt_graph_t *g = L->g;
  int r = tt_l_arg_rank(L, 0);
  const int64_t *s = tt_l_arg_sizes(L, 0);
  int64_t m = s[r - 2], n = s[r - 1], k = m < n ? m : n;
  tt_val_t a = tt_la_flat3(g, tt_l_tensor(L, 0));
  if (a < 0 || tt_graph_failed(g)) return NULL;
  int64_t B = tt_graph_type(g, a)->dims[0];
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  tt_val_t packed, tau;
  tt_la_geqrf(g, a, &packed, &tau);
  int64_t qc = complete ? m : k, rr = complete ? m : k;
  if (ronly) {
    int64_t zero = 0;
    tt_l_output(L, tt_b_full_f(g, dt, 1, &zero, 0.0));
  } else {
    tt_val_t q = tt_la_apply_reflectors(g, tt_b_slice_dim(g, packed, 2, 0, k, 1), tau, eye3(g, dt, B, m, qc), 1, 0);
    tt_l_output(L, tt_la_unflat(g, q, r - 2, s));
  }
  tt_val_t R = tt_la_tri(g, tt_b_slice_dim(g, packed, 1, 0, rr, 1), 0, 0);
  tt_l_output(L, tt_la_unflat(g, R, r - 2, s));
  return NULL;
}

/* Shared checks of the reflector arguments (input [..., m, n], tau [..., k]). */
static int check_reflectors(tt_lower_t *L, const char *api, int need_k_le_n) {
  if (!tt_la_check_matrix(L, 0, api, "input", 0)) return 0;
  int r = tt_l_arg_rank(L, 0), rt = tt_l_arg_rank(L, 1);
  const int64_t *s = tt_l_arg_sizes(L, 0), *st = tt_l_arg_sizes(L, 1);
  if (tt_l_arg_dtype(L, 1) != tt_l_arg_dtype(L, 0)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Expected input and tau to have the same dtype, but input has dtype %s and tau has dtype %s", api,
              tt_op_type_name(tt_l_arg_dtype(L, 0)), tt_op_type_name(tt_l_arg_dtype(L, 1)));
    return 0;
  }
  if (rt != r - 1) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: input.dim() must be greater than or equal to tau.dim() + 1 (got %d and %d)", api, r, rt);
    return 0;
  }
  for (int i = 0; i < r - 2; i++)
    if (s[i] != st[i]) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Expected batch dimensions of tau to be equal to input.shape[:-2], but got %lld at dim %d (want %lld)",
                api, (long long)st[i], i, (long long)s[i]);
      return 0;
    }
  int64_t k = st[rt - 1];
  if (need_k_le_n && k > s[r - 1]) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: input.shape[-1] must be greater than or equal to tau.shape[-1]", api);
    return 0;
  }
  if (k > s[r - 2]) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: input.shape[-2] must be greater than or equal to tau.shape[-1]", api);
    return 0;
  }
  return 1;
}

/* linalg_householder_product(input [..., m, n], tau [..., k]) -> the first n columns of H_0 ... H_{k-1} */
static tt_status_t lower_householder_product(tt_lower_t *L) {
  const char *api = "torch.linalg.householder_product";
  if (!check_reflectors(L, api, 1)) return NULL;
  int r = tt_l_arg_rank(L, 0);
  const int64_t *s = tt_l_arg_sizes(L, 0);
  if (s[r - 2] < s[r - 1])
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: input.shape[-2] must be greater than or equal to input.shape[-1]", api);
  tt_graph_t *g = L->g;
  tt_val_t a = tt_la_flat3(g, tt_l_tensor(L, 0));
  if (a < 0 || tt_graph_failed(g)) return NULL;
  const tt_type_t *ta = tt_graph_type(g, a);
  int64_t B = ta->dims[0], k = tt_l_arg_sizes(L, 1)[r - 2], dk[2] = {B, k};
  tt_val_t t2 = tt_b_reshape(g, tt_l_tensor(L, 1), 2, dk);
  tt_val_t q = tt_la_apply_reflectors(g, a, t2, eye3(g, ta->dtype, B, s[r - 2], s[r - 1]), 1, 0);
  tt_l_output(L, tt_la_unflat(g, q, r - 2, s));
  return NULL;
}

/* ormqr(input [..., m, k'], tau [..., k], other [..., m, p] or [..., p, m], left=True, transpose=False) */
static tt_status_t lower_ormqr(tt_lower_t *L) {
  const char *api = "torch.ormqr";
  if (!check_reflectors(L, api, 0) || !tt_la_check_matrix(L, 2, api, "other", 0)) return NULL;
  int left = tt_l_bool(L, 3, 1), trans = tt_l_bool(L, 4, 0);
  int r = tt_l_arg_rank(L, 0), ro = tt_l_arg_rank(L, 2);
  const int64_t *s = tt_l_arg_sizes(L, 0), *so = tt_l_arg_sizes(L, 2);
  if (ro != r) return tt_status_make(TT_INVALID_ARGUMENT, "%s: input.dim() must be equal to other.dim()", api);
  int64_t m = s[r - 2], om = left ? so[r - 2] : so[r - 1];
  if (om != m)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: Expected other.shape[%d] to be equal to input.shape[-2] (%lld), but got %lld",
                          api, left ? -2 : -1, (long long)m, (long long)om);
  tt_graph_t *g = L->g;
  tt_val_t a = tt_la_flat3(g, tt_l_tensor(L, 0)), c = tt_la_flat3(g, tt_l_tensor(L, 2));
  if (a < 0 || c < 0 || tt_graph_failed(g)) return NULL;
  int64_t B = tt_graph_type(g, a)->dims[0], dk[2] = {B, tt_l_arg_sizes(L, 1)[r - 2]};
  tt_val_t q = tt_la_apply_reflectors(g, a, tt_b_reshape(g, tt_l_tensor(L, 1), 2, dk), c, left, trans);
  tt_l_output(L, tt_la_unflat(g, q, r - 2, so));
  return NULL;
}

const tt_op_def_t tt_ops_linalg_qr[] = {
    {"geqrf", lower_geqrf, 0},
    {"linalg_qr", lower_linalg_qr, 0},
    {"linalg_householder_product", lower_householder_product, 0},
    {"ormqr", lower_ormqr, 0},
    {NULL, NULL, 0},
};
