/* Lowering of least squares (linalg_lstsq): driver 'gels' by Householder QR
 * (full-rank A: R^-1 Q^T b when tall, the minimum-norm Q R^-T b when wide);
 * 'gelsy', 'gelsd', 'gelss' by the SVD pseudo-inverse with LAPACK's rcond
 * cut (minimum-norm, rank-revealing), with rank and, for gelsd/gelss, the
 * singular values, shaped as the CPU kernel returns them. */
#include <string.h>

#include "ops/families.h"
#include "ops/linalg_jacobi.h"
#include "ops/linalg_qr.h"

/* Solution of the full-rank problem a x = b by QR; a [B, m, n], b [B, m, k]. */
static tt_val_t qr_solve(tt_graph_t *g, tt_val_t a, tt_val_t b) {
  const tt_type_t *t = tt_graph_type(g, a);
  int64_t m = t->dims[1], n = t->dims[2];
  tt_val_t packed, tau;
  if (m >= n) {
    tt_la_geqrf(g, a, &packed, &tau);
    tt_val_t c = tt_la_apply_reflectors(g, packed, tau, b, 1, 1);
    tt_val_t r = tt_b_slice_dim(g, packed, 1, 0, n, 1);
    return tt_b_triangular_solve(g, r, tt_b_slice_dim(g, c, 1, 0, n, 1), 1, 0, 0, 0);
  }
  /* a^T = Q R: a = R^T Q1^T, x = Q1 R^-T b. */
  tt_la_geqrf(g, tt_la_mT(g, a), &packed, &tau);
  tt_val_t r = tt_b_slice_dim(g, packed, 1, 0, m, 1);
  tt_val_t y = tt_b_triangular_solve(g, r, b, 1, 0, 0, 1);
  int64_t lo[3] = {0, 0, 0}, hi[3] = {0, n - m, 0};
  tt_val_t ypad = tt_b_pad(g, y, tt_b_const_f(g, t->dtype, 0.0), lo, hi, NULL);
  return tt_la_apply_reflectors(g, packed, tau, ypad, 1, 0);
}

/* linalg_lstsq(self, b, rcond=None, *, driver=None) -> (solution, residuals, rank, singular_values) */
static tt_status_t lower_lstsq(tt_lower_t *L) {
  const char *api = "torch.linalg.lstsq";
  if (!tt_la_check_matrix(L, 0, api, "A", 0)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (tt_l_arg_dtype(L, 1) != dt)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: Expected input and other to have the same dtype, but got input's dtype %s and other's dtype %s",
                          api, tt_op_type_name(dt), tt_op_type_name(tt_l_arg_dtype(L, 1)));
  const char *driver = tt_l_str(L, 3, "gelsy");
  int gels = strcmp(driver, "gels") == 0, gelsy = strcmp(driver, "gelsy") == 0;
  if (!gels && !gelsy && strcmp(driver, "gelsd") != 0 && strcmp(driver, "gelss") != 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)", api);
  int ra = tt_l_arg_rank(L, 0), rb = tt_l_arg_rank(L, 1);
  const int64_t *sa = tt_l_arg_sizes(L, 0), *sb = tt_l_arg_sizes(L, 1);
  int64_t m = sa[ra - 2], n = sa[ra - 1];
  /* PyTorch's rule: b is a vector (or a batch of them) when 1-D or shaped A.shape[:-1]. */
  int vector = rb == 1;
  if (rb == ra - 1) {
    vector = 1;
    for (int i = 0; i < rb; i++) vector &= sb[i] == sa[i];
  }
  if (rb < 1 || (!vector && rb < 2))
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1", api);
  if ((vector ? sb[rb - 1] : sb[rb - 2]) != m)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: input.size(-2) should match other.size(-%d)", api, vector ? 1 : 2);
  tt_graph_t *g = L->g;
  tt_val_t a = tt_l_tensor(L, 0), b = tt_l_tensor(L, 1);
  if (vector) {
    int64_t d[TT_MAX_RANK];
    memcpy(d, sb, sizeof(int64_t) * (size_t)rb);
    d[rb] = 1;
    b = tt_b_reshape(g, b, rb + 1, d);
  }
  if (!tt_la_broadcast_batch(L, &a, &b)) return NULL;
  tt_type_t tb = *tt_graph_type(g, b);
  int nb = tb.rank - 2;
  int64_t batch[TT_MAX_RANK];
  memcpy(batch, tb.dims, sizeof(int64_t) * (size_t)nb);
  int64_t k = tb.dims[tb.rank - 1];
  tt_val_t A = tt_la_flat3(g, a), Bm = tt_la_flat3(g, b), x, s = -1, rank = -1;
  if (gels) {
    x = qr_solve(g, A, Bm);
  } else {
    tt_val_t u, v;
    tt_la_svd(g, A, &u, &s, &v);
    if (tt_graph_failed(g)) return NULL;
    /* LAPACK: singular values <= rcond * s_max count as zero; the default
     * rcond is eps * max(m, n) as PyTorch passes it. */
    double eps = dt == TT_F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    double rcond = tt_l_is_none(L, 2) ? eps * (double)(m > n ? m : n) : tt_l_float(L, 2, 0.0);
    if (rcond < 0) rcond = eps;
    const tt_type_t *st = tt_graph_type(g, s);
    int64_t kk = st->dims[1], one = 1;
    tt_val_t smax = tt_b_reduce(g, TT_RED_MAX, s, 1, &one);
    int64_t z = 0;
    tt_val_t cut = tt_b_binary(g, TT_BIN_MUL, tt_b_broadcast(g, smax, 2, st->dims, &z), tt_b_like_f(g, s, rcond));
    tt_val_t keep = tt_b_compare(g, TT_CMP_GT, s, cut);
    tt_val_t sinv = tt_b_select(g, keep, tt_b_binary(g, TT_BIN_DIV, tt_b_like_f(g, s, 1.0), tt_b_select(g, keep, s, tt_b_like_f(g, s, 1.0))),
                                tt_b_like_f(g, s, 0.0));
    rank = tt_b_reduce(g, TT_RED_SUM, tt_b_convert(g, keep, TT_I64), 1, &one);
    /* x = V diag(1/s) U^T b */
    int64_t bd = 0, c1 = 1;
    tt_val_t utb = tt_b_dot(g, u, Bm, 1, &bd, &bd, 1, &c1, &c1); /* [B, kk, k] */
    int64_t ud[3] = {tt_graph_type(g, utb)->dims[0], kk, k}, keep2[2] = {0, 1};
    utb = tt_b_binary(g, TT_BIN_MUL, utb, tt_b_broadcast(g, sinv, 3, ud, keep2));
    x = tt_la_matmul(g, v, utb);
  }
  tt_val_t X = tt_la_unflat(g, x, nb, batch);
  if (vector) X = tt_b_reshape(g, X, nb + 1, tt_graph_type(g, X)->dims);
  tt_l_output(L, X);
  int64_t zero = 0;
  /* Residuals: squared norms of the columns of a x - b, when m > n (not gelsy). */
  if (m > n && !gelsy) {
    tt_val_t res = tt_b_binary(g, TT_BIN_SUB, tt_la_matmul(g, A, x), Bm);
    int64_t one = 1;
    tt_val_t r2 = tt_b_reduce(g, TT_RED_SUM, tt_b_binary(g, TT_BIN_MUL, res, res), 1, &one); /* [B, k] */
    int64_t rd[TT_MAX_RANK];
    memcpy(rd, batch, sizeof(int64_t) * (size_t)nb);
    rd[nb] = k;
    tt_l_output(L, tt_b_reshape(g, r2, nb + 1, rd)); /* a vector b keeps k = 1, as on CPU */
  } else {
    tt_l_output(L, tt_b_full_f(g, dt, 1, &zero, 0.0));
  }
  tt_l_output(L, gels ? tt_b_full_i(g, TT_I64, 1, &zero, 0) : tt_b_reshape(g, rank, nb, batch));
  if (gels || gelsy) {
    tt_l_output(L, tt_b_full_f(g, dt, 1, &zero, 0.0));
  } else {
    int64_t sd[TT_MAX_RANK];
    memcpy(sd, batch, sizeof(int64_t) * (size_t)nb);
    sd[nb] = m < n ? m : n;
    tt_l_output(L, tt_b_reshape(g, s, nb + 1, sd));
  }
  return NULL;
}

const tt_op_def_t tt_ops_linalg_lstsq[] = {
    {"linalg_lstsq", lower_lstsq, 0},
    {NULL, NULL, 0},
};
