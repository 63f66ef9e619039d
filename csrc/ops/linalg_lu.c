/* LU-based linear algebra (lu_factor, lu_unpack, lu, lu_solve, inv, solve,
 * det, slogdet), built from stablehlo.while loops and
 * triangular_solve on the device: batched, no host round trips, computed in
 * float32 for bf16/f16. */
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"
#include "ops/linalg_util.h"

/* A matrix argument's shape split into batch dims and the last two. */
typedef struct mat_s {
  int rank, nb; /* nb = rank - 2 */
  int64_t dims[TT_MAX_RANK];
  int64_t m, n;
  tt_dtype_t dt, ct; /* the argument's dtype and the compute dtype */
} mat_t;

static tt_dtype_t compute_type(tt_dtype_t dt) { return dt == TT_F64 ? TT_F64 : TT_F32; }

/* The dtype checks a CPU linalg op makes, in its order (measured on 2.13):
 * `expect_float`: an integral or bool input is "<what>: Expected a floating
 * point or complex tensor as input. Got Long"; `low_precision`: half and
 * bfloat16 are "<what>: Low precision dtypes not supported. Got Half";
 * `kernel` (NULL: none): its dispatch refuses every type but float32 and
 * float64. */
typedef struct {
  const char *what;
  int expect_float, low_precision;
  const char *kernel;
} dtype_rule_t;

static int check_dtype(tt_lower_t *L, tt_dtype_t dt, const dtype_rule_t *r) {
  if (r->expect_float && !tt_dtype_is_float(dt))
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Expected a floating point or complex tensor as input. Got %s", r->what,
                     tt_op_type_name(dt)), 0;
  if (r->low_precision && (dt == TT_F16 || dt == TT_BF16))
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Low precision dtypes not supported. Got %s", r->what, tt_op_type_name(dt)), 0;
  if (r->kernel && dt != TT_F32 && dt != TT_F64) return tt_l_refuse_dtype(L, dt, "%s", r->kernel), 0;
  return 1;
}

static const dtype_rule_t kLuRule = {"linalg.lu", 0, 0, "lu_cpu"};
static const dtype_rule_t kLuSolveRule = {"torch.linalg.lu_solve", 1, 0, "linalg.lu_solve_cpu"};
static const dtype_rule_t kInvRule = {"linalg.inv", 1, 1, NULL};
static const dtype_rule_t kSolveRule = {"linalg.solve", 1, 0, "lu_cpu"};
static const dtype_rule_t kDetRule = {"linalg.det", 1, 0, "lu_cpu"};
static const dtype_rule_t kSlogdetRule = {"linalg.slogdet", 1, 1, NULL};
static const dtype_rule_t kMatrixExpRule = {"linalg.matrix_exp", 1, 0, NULL};

/* Reads argument i as a (batch of) matrices; `what` names the op in errors,
 * `rule` the op's dtype checks (NULL: any dtype, as lu_unpack). */
static int read_mat(tt_lower_t *L, int i, const char *what, int square, const dtype_rule_t *rule, mat_t *M) {
  memset(M, 0, sizeof *M);
  M->dt = tt_l_arg_dtype(L, i);
  M->rank = tt_l_arg_rank(L, i);
  if (M->dt == TT_DTYPE_INVALID) return tt_l_fail(L, TT_TYPE_ERROR, "%s: expected a Tensor", what), 0;
  if (rule && !check_dtype(L, M->dt, rule)) return 0;
  const int64_t *s = tt_l_arg_sizes(L, i);
  if (M->rank < 2)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: The input tensor A must have at least 2 dimensions.", what), 0;
  memcpy(M->dims, s, sizeof(int64_t) * (size_t)M->rank);
  M->nb = M->rank - 2;
  M->m = s[M->rank - 2];
  M->n = s[M->rank - 1];
  M->ct = compute_type(M->dt);
  if (square && M->m != M->n)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: A must be batches of square matrices, but they are %lld by %lld matrices",
                     what, (long long)M->m, (long long)M->n), 0;
  return 1;
}

static tt_val_t iota_i64(tt_graph_t *g, int rank, const int64_t *dims, int dim) {
  return tt_b_iota(g, TT_I64, rank, dims, dim);
}

/* x's elements where mask, else 0, summed over dim: picks one row/element
 * per batch without multiplying (inf and NaN elsewhere stay out). */
static tt_val_t pick(tt_graph_t *g, tt_val_t mask, tt_val_t x, int dim) {
  int64_t d = dim;
  tt_val_t z = tt_b_like_f(g, x, 0.0);
  return tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, mask, x, z), 1, &d);
}

/* The value v (rank-0 or batch-shaped) broadcast to dims over its leading dims. */
static tt_val_t bcast_lead(tt_graph_t *g, tt_val_t v, int rank, const int64_t *dims) {
  if (v < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *t = tt_graph_type(g, v);
  int64_t bd[TT_MAX_RANK];
  for (int i = 0; i < t->rank; i++) bd[i] = i;
  return tt_b_broadcast(g, v, rank, dims, bd);
}

/* dynamic_slice of x at a (value) index k along dim, size 1 there. */
static tt_val_t at_k(tt_graph_t *g, tt_val_t x, int dim, tt_val_t k) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *t = tt_graph_type(g, x);
  tt_val_t st[TT_MAX_RANK];
  int64_t sz[TT_MAX_RANK];
  tt_val_t zero = tt_b_const_i(g, TT_I64, 0);
  for (int i = 0; i < t->rank; i++) {
    st[i] = i == dim ? k : zero;
    sz[i] = i == dim ? 1 : t->dims[i];
  }
  return tt_b_dslice(g, x, st, sz);
}

/* Swaps, in every batch, element k and element p[b] of x along dim (x has
 * the batch dims first, dim after them); returns the new x. */
static tt_val_t swap_at(tt_graph_t *g, tt_val_t x, int dim, tt_val_t k, tt_val_t p) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  tt_type_t t = *tt_graph_type(g, x);
  tt_val_t idx = iota_i64(g, t.rank, t.dims, dim);
  tt_val_t pb = bcast_lead(g, p, t.rank, t.dims);
  tt_val_t is_p = tt_b_compare(g, TT_CMP_EQ, idx, pb);
  tt_val_t is_k = tt_b_compare(g, TT_CMP_EQ, idx, tt_b_broadcast(g, k, t.rank, t.dims, NULL));
  tt_val_t xk = at_k(g, x, dim, k); /* size 1 along dim */
  tt_type_t one = t;
  one.dims[dim] = 1;
  tt_val_t xp = tt_b_reshape(g, pick(g, is_p, x, dim), one.rank, one.dims);
  tt_val_t xkb = tt_b_broadcast_to(g, xk, t.rank, t.dims), xpb = tt_b_broadcast_to(g, xp, t.rank, t.dims);
  return tt_b_select(g, is_k, xpb, tt_b_select(g, is_p, xkb, x));
}

typedef struct lu_s {
  tt_val_t lu;    /* (batch.., m, n) in the compute type */
  tt_val_t piv;   /* (batch.., K) int32, 1-based as LAPACK */
  tt_val_t info;  /* (batch..) int32: first zero pivot (1-based) or 0 */
  tt_val_t perm;  /* (batch.., m) int32: row i of LU came from row perm[i] of A */
} lu_t;

/* Right-looking LU with partial pivoting (LAPACK getf2's choices: the first
 * largest |a| in the column; a zero pivot records info and skips scaling). */
static lu_t lu_factor(tt_graph_t *g, tt_val_t a, const mat_t *M) {
  lu_t r;
  int rank = M->rank, nb = M->nb;
  int64_t m = M->m, n = M->n, K = m < n ? m : n;
  int64_t pdims[TT_MAX_RANK], vdims[TT_MAX_RANK];
  memcpy(pdims, M->dims, sizeof pdims);
  pdims[nb] = K;
  memcpy(vdims, M->dims, sizeof vdims);
  vdims[nb] = m;
  r.lu = a;
  r.piv = tt_b_full_i(g, TT_I32, nb + 1, pdims, 0);
  r.info = tt_b_full_i(g, TT_I32, nb, M->dims, 0);
  r.perm = tt_b_convert(g, iota_i64(g, nb + 1, vdims, nb), TT_I32);
  if (K == 0) return r;
  tt_val_t rows = iota_i64(g, rank, M->dims, nb), cols = iota_i64(g, rank, M->dims, nb + 1);
  tt_val_t pidx = iota_i64(g, nb + 1, pdims, nb);
  int64_t cdims[TT_MAX_RANK];
  memcpy(cdims, M->dims, sizeof cdims);
  cdims[nb + 1] = 1;
  tt_val_t crow = iota_i64(g, rank, cdims, nb);
  tt_loop_t lp;
  tt_val_t k, c[4], init[4] = {r.lu, r.perm, r.piv, r.info}, res[4];
  tt_b_for_begin(g, &lp, 0, K, 4, init, &k, c);
  tt_val_t A = c[0];
  /* Pivot row: the first largest |a[i, k]| for i >= k. */
  tt_val_t col = at_k(g, A, nb + 1, k);
  tt_val_t below = tt_b_compare(g, TT_CMP_GE, crow, tt_b_broadcast(g, k, rank, cdims, NULL));
  tt_val_t cand = tt_b_select(g, below, tt_b_unary(g, TT_UN_ABS, col), tt_b_like_f(g, col, -1.0));
  tt_val_t p;
  tt_b_argreduce(g, TT_RED_ARGMAX, tt_b_reshape(g, cand, nb + 1, vdims), nb, &p);
  A = swap_at(g, A, nb, k, p);
  tt_val_t perm = swap_at(g, c[1], nb, k, p);
  tt_val_t p1 = tt_b_convert(g, tt_b_binary(g, TT_BIN_ADD, p, tt_b_full_i(g, TT_I64, nb, M->dims, 1)), TT_I32);
  tt_val_t piv = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, pidx, tt_b_broadcast(g, k, nb + 1, pdims, NULL)),
                             bcast_lead(g, p1, nb + 1, pdims), c[2]);
  /* Pivot value and info. */
  tt_val_t urow = at_k(g, A, nb, k); /* (.., 1, n) */
  tt_val_t d = at_k(g, urow, nb + 1, k); /* (.., 1, 1) */
  tt_val_t dz = tt_b_compare(g, TT_CMP_EQ, d, tt_b_like_f(g, d, 0.0));
  tt_val_t dzb = tt_b_reshape(g, dz, nb, M->dims);
  tt_val_t first = tt_b_binary(g, TT_BIN_AND, dzb, tt_b_compare(g, TT_CMP_EQ, c[3], tt_b_full_i(g, TT_I32, nb, M->dims, 0)));
  tt_val_t k1 = tt_b_convert(g, tt_b_binary(g, TT_BIN_ADD, k, tt_b_const_i(g, TT_I64, 1)), TT_I32);
  tt_val_t info = tt_b_select(g, first, tt_b_broadcast(g, k1, nb, M->dims, NULL), c[3]);
  /* Multipliers l = a[i, k] / d below the pivot, then the rank-1 update. */
  tt_val_t col1 = at_k(g, A, nb + 1, k);
  tt_val_t db = tt_b_broadcast_to(g, d, rank, cdims);
  tt_val_t l = tt_b_select(g, tt_b_broadcast_to(g, dz, rank, cdims), col1, tt_b_binary(g, TT_BIN_DIV, col1, db));
  tt_val_t lb = tt_b_broadcast_to(g, l, rank, M->dims), ub = tt_b_broadcast_to(g, urow, rank, M->dims);
  tt_val_t upd = tt_b_binary(g, TT_BIN_SUB, A, tt_b_binary(g, TT_BIN_MUL, lb, ub));
  tt_val_t kb = tt_b_broadcast(g, k, rank, M->dims, NULL);
  tt_val_t rgt = tt_b_compare(g, TT_CMP_GT, rows, kb);
  tt_val_t cgt = tt_b_compare(g, TT_CMP_GT, cols, kb), ceq = tt_b_compare(g, TT_CMP_EQ, cols, kb);
  A = tt_b_select(g, tt_b_binary(g, TT_BIN_AND, rgt, cgt), upd,
                  tt_b_select(g, tt_b_binary(g, TT_BIN_AND, rgt, ceq), lb, A));
  tt_val_t next[4] = {A, perm, piv, info};
  tt_b_for_end(g, &lp, next, res);
  r.lu = res[0];
  r.perm = res[1];
  r.piv = res[2];
  r.info = res[3];
  return r;
}

/* The row permutation (batch.., m) int32 that LAPACK pivots (batch.., K) describe. */
static tt_val_t perm_from_pivots(tt_graph_t *g, tt_val_t piv, int nb, const int64_t *bdims, int64_t m) {
  if (piv < 0 || tt_graph_failed(g)) return -1;
  int64_t vdims[TT_MAX_RANK];
  memcpy(vdims, bdims, sizeof(int64_t) * (size_t)nb);
  vdims[nb] = m;
  tt_val_t perm = tt_b_convert(g, iota_i64(g, nb + 1, vdims, nb), TT_I32);
  int64_t K = tt_graph_type(g, piv)->dims[nb];
  if (K == 0) return perm;
  piv = tt_b_convert(g, piv, TT_I64);
  tt_loop_t lp;
  tt_val_t k, c, res;
  tt_b_for_begin(g, &lp, 0, K, 1, &perm, &k, &c);
  tt_val_t pk = tt_b_reshape(g, at_k(g, piv, nb, k), nb, bdims);
  pk = tt_b_binary(g, TT_BIN_SUB, pk, tt_b_full_i(g, TT_I64, nb, bdims, 1));
  tt_val_t next = swap_at(g, c, nb, k, pk);
  tt_b_for_end(g, &lp, &next, &res);
  return res;
}

/* P (batch.., m, m) in dtype with A = P L U: P[r, c] = (perm[c] == r);
 * transposed: P^T[r, c] = (perm[r] == c). */
static tt_val_t perm_matrix(tt_graph_t *g, tt_val_t perm, int nb, const int64_t *bdims, int64_t m,
                            tt_dtype_t dt, int transposed) {
  int64_t dims[TT_MAX_RANK], bd[TT_MAX_RANK];
  memcpy(dims, bdims, sizeof(int64_t) * (size_t)nb);
  dims[nb] = dims[nb + 1] = m;
  for (int i = 0; i < nb; i++) bd[i] = i;
  bd[nb] = transposed ? nb : nb + 1;
  tt_val_t pb = tt_b_broadcast(g, tt_b_convert(g, perm, TT_I64), nb + 2, dims, bd);
  tt_val_t other = iota_i64(g, nb + 2, dims, transposed ? nb + 1 : nb);
  tt_val_t eq = tt_b_compare(g, TT_CMP_EQ, pb, other);
  return tt_b_select(g, eq, tt_b_full_f(g, dt, nb + 2, dims, 1.0), tt_b_full_f(g, dt, nb + 2, dims, 0.0));
}

/* Batched matmul over nb leading dims. */
static tt_val_t bmm(tt_graph_t *g, tt_val_t a, tt_val_t b, int nb) {
  int64_t bd[TT_MAX_RANK], lc = nb + 1, rc = nb;
  for (int i = 0; i < nb; i++) bd[i] = i;
  return tt_b_dot(g, a, b, nb, bd, bd, 1, &lc, &rc);
}

static tt_val_t transpose_last(tt_graph_t *g, tt_val_t x) {
  if (x < 0 || tt_graph_failed(g)) return -1;
  const tt_type_t *t = tt_graph_type(g, x);
  int64_t perm[TT_MAX_RANK];
  for (int i = 0; i < t->rank; i++) perm[i] = i;
  perm[t->rank - 2] = t->rank - 1;
  perm[t->rank - 1] = t->rank - 2;
  return tt_b_transpose(g, x, perm);
}

/* PyTorch's CPU kernels for det and slogdet factor A^T when A is
 * row-major contiguous (LAPACK wants column-major), and their backward
 * formulas read the LU and pivots outputs that way: do the same. */
static int factor_transposed(tt_lower_t *L, int i) {
  const tt_tensor_ref_t *r = tt_l_ref(L, i);
  if (!r) return 0;
  int64_t expect = 1;
  for (int d = r->view.rank - 1; d >= 0; d--) {
    if (r->view.sizes[d] != 1 && r->view.strides[d] != expect) return 0;
    expect *= r->view.sizes[d];
  }
  return 1;
}

static tt_val_t factor_input(tt_lower_t *L, const mat_t *A, int use_t) {
  tt_val_t a = tt_b_convert(L->g, tt_l_tensor(L, 0), A->ct);
  return use_t ? transpose_last(L->g, a) : a;
}

/* Solves A X = B (or A^T X = B when adjoint) from A's LU and row permutation;
 * lu (batch.., n, n), perm (batch.., n), b (batch.., n, k), same batch dims. */
static tt_val_t lu_solve_left(tt_graph_t *g, tt_val_t lu, tt_val_t perm, tt_val_t b, int nb,
                              const int64_t *bdims, int64_t n, int adjoint) {
  if (b < 0 || tt_graph_failed(g)) return -1;
  tt_dtype_t ct = tt_graph_type(g, b)->dtype;
  if (!adjoint) {
    tt_val_t y = bmm(g, perm_matrix(g, perm, nb, bdims, n, ct, 1), b, nb);
    y = tt_b_triangular_solve(g, lu, y, 1, 1, 1, 0);
    return tt_b_triangular_solve(g, lu, y, 1, 0, 0, 0);
  }
  tt_val_t z = tt_b_triangular_solve(g, lu, b, 1, 0, 0, 1);
  z = tt_b_triangular_solve(g, lu, z, 1, 1, 1, 1);
  return bmm(g, perm_matrix(g, perm, nb, bdims, n, ct, 0), z, nb);
}

/* ---- lowerings ---- */

static tt_status_t lower_lu_factor_ex(tt_lower_t *L) {
  mat_t M;
  if (!read_mat(L, 0, "torch.linalg.lu_factor_ex", 0, &kLuRule, &M)) return NULL;
  if (!tt_l_bool(L, 1, 1))
    return tt_status_make(TT_INVALID_ARGUMENT, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  tt_graph_t *g = L->g;
  lu_t f = lu_factor(g, tt_b_convert(g, tt_l_tensor(L, 0), M.ct), &M);
  tt_l_output(L, tt_b_convert(g, f.lu, M.dt));
  tt_l_output(L, f.piv);
  tt_l_output(L, f.info);
  return NULL;
}

/* L (m x K, unit diagonal) and U (K x n) from a packed LU. */
static void unpack_lu(tt_graph_t *g, tt_val_t lu, const mat_t *M, tt_val_t *out_l, tt_val_t *out_u) {
  int nb = M->nb, rank = M->rank;
  int64_t K = M->m < M->n ? M->m : M->n;
  tt_val_t rows = iota_i64(g, rank, M->dims, nb), cols = iota_i64(g, rank, M->dims, nb + 1);
  tt_val_t zero = tt_b_like_f(g, lu, 0.0), one = tt_b_like_f(g, lu, 1.0);
  tt_val_t low = tt_b_select(g, tt_b_compare(g, TT_CMP_GT, rows, cols), lu,
                             tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, rows, cols), one, zero));
  tt_val_t up = tt_b_select(g, tt_b_compare(g, TT_CMP_LE, rows, cols), lu, zero);
  *out_l = tt_b_slice_dim(g, low, nb + 1, 0, K, 1);
  *out_u = tt_b_slice_dim(g, up, nb, 0, K, 1);
}

static tt_val_t empty0(tt_graph_t *g, tt_dtype_t dt) {
  int64_t z = 0;
  return tt_b_full_f(g, dt, 1, &z, 0.0);
}

static tt_status_t lower_lu_unpack(tt_lower_t *L) {
  mat_t M;
  if (!read_mat(L, 0, "torch.lu_unpack", 0, NULL, &M)) return NULL;
  int unpack_data = tt_l_bool(L, 2, 1), unpack_piv = tt_l_bool(L, 3, 1);
  tt_dtype_t pdt = tt_l_arg_dtype(L, 1);
  if (pdt != TT_I32)
    return tt_status_make(TT_INVALID_ARGUMENT, "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. Note: this function does not check if the pivots are out of bounds.");
  tt_graph_t *g = L->g;
  tt_val_t lu = tt_l_tensor(L, 0);
  tt_val_t P = empty0(g, M.dt), l = empty0(g, M.dt), u = empty0(g, M.dt);
  if (unpack_piv) {
    int prank = tt_l_arg_rank(L, 1);
    const int64_t *ps = tt_l_arg_sizes(L, 1);
    int64_t K = M.m < M.n ? M.m : M.n;
    if (prank != M.nb + 1 || ps[M.nb] != K)
      return tt_status_make(TT_INVALID_ARGUMENT, "torch.lu_unpack: LU_pivots must have shape [*, %lld] to match LU_data", (long long)K);
    tt_val_t perm = perm_from_pivots(g, tt_l_tensor(L, 1), M.nb, M.dims, M.m);
    P = perm_matrix(g, perm, M.nb, M.dims, M.m, M.dt, 0);
  }
  if (unpack_data) unpack_lu(g, lu, &M, &l, &u);
  tt_l_output(L, P);
  tt_l_output(L, l);
  tt_l_output(L, u);
  return NULL;
}

static tt_status_t lower_linalg_lu(tt_lower_t *L) {
  mat_t M;
  if (!read_mat(L, 0, "torch.linalg.lu", 0, &kLuRule, &M)) return NULL;
  if (!tt_l_bool(L, 1, 1))
    return tt_status_make(TT_INVALID_ARGUMENT, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  tt_graph_t *g = L->g;
  lu_t f = lu_factor(g, tt_b_convert(g, tt_l_tensor(L, 0), M.ct), &M);
  tt_val_t l, u;
  unpack_lu(g, f.lu, &M, &l, &u);
  tt_l_output(L, perm_matrix(g, f.perm, M.nb, M.dims, M.m, M.dt, 0));
  tt_l_output(L, tt_b_convert(g, l, M.dt));
  tt_l_output(L, tt_b_convert(g, u, M.dt));
  return NULL;
}

/* Broadcasts the batch dims of two matrix stacks; returns the batch rank. */
static int broadcast_batch(tt_lower_t *L, const mat_t *A, const mat_t *B, int64_t *out) {
  int nb = A->nb > B->nb ? A->nb : B->nb;
  for (int i = 0; i < nb; i++) {
    int ia = i - (nb - A->nb), ib = i - (nb - B->nb);
    int64_t a = ia >= 0 ? A->dims[ia] : 1, b = ib >= 0 ? B->dims[ib] : 1;
    if (a != b && a != 1 && b != 1) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: the batch dimensions of A and B cannot be broadcast (%lld vs %lld at batch dim %d)",
                L->op, (long long)a, (long long)b, i);
      return -1;
    }
    out[i] = a == 1 ? b : a;
  }
  return nb;
}

static tt_val_t to_batch(tt_graph_t *g, tt_val_t x, int nb, const int64_t *bdims, int64_t r, int64_t c) {
  int64_t d[TT_MAX_RANK];
  memcpy(d, bdims, sizeof(int64_t) * (size_t)nb);
  d[nb] = r;
  d[nb + 1] = c;
  return tt_b_broadcast_to(g, x, nb + 2, d);
}

/* Solves with LU and perm for B; B_ is (.., n, k) when left else (.., k, n). */
static tt_val_t solve_any(tt_graph_t *g, tt_val_t lu, tt_val_t perm, const mat_t *A, tt_val_t b,
                          const mat_t *B, int left, int adjoint, int nb, const int64_t *bd) {
  int64_t n = A->n;
  tt_val_t luB = to_batch(g, lu, nb, bd, n, n);
  int64_t pd[TT_MAX_RANK];
  memcpy(pd, bd, sizeof(int64_t) * (size_t)nb);
  pd[nb] = n;
  tt_val_t permB = tt_b_broadcast_to(g, perm, nb + 1, pd);
  tt_val_t bb = to_batch(g, b, nb, bd, B->m, B->n);
  if (left) return lu_solve_left(g, luB, permB, bb, nb, bd, n, adjoint);
  /* X A = B  <=>  A^T X^T = B^T */
  tt_val_t x = lu_solve_left(g, luB, permB, transpose_last(g, bb), nb, bd, n, !adjoint);
  return transpose_last(g, x);
}

static int check_rhs(tt_lower_t *L, const mat_t *A, const mat_t *B, int left, const char *what) {
  int64_t need = A->n, got = left ? B->m : B->n;
  if (need != got)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld and %lldx%lld)",
                     what, left ? "AX = B" : "XA = B", (long long)A->m, (long long)A->n, (long long)B->m,
                     (long long)B->n), 0;
  if (A->dt != B->dt)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Expected A and B to have the same dtype, but found A of type %s and B of type %s instead",
                     what, tt_op_type_name(A->dt), tt_op_type_name(B->dt)), 0;
  return 1;
}

static tt_status_t lower_lu_solve(tt_lower_t *L) {
  mat_t A, B;
  if (!read_mat(L, 0, "linalg.lu_solve", 1, &kLuSolveRule, &A) || !read_mat(L, 2, "linalg.lu_solve", 0, &kLuSolveRule, &B)) return NULL;
  int left = tt_l_bool(L, 3, 1), adjoint = tt_l_bool(L, 4, 0);
  if (!check_rhs(L, &A, &B, left, "linalg.lu_solve")) return NULL;
  if (tt_l_arg_dtype(L, 1) != TT_I32)
    return tt_status_make(TT_INVALID_ARGUMENT, "linalg.lu_solve: Expected pivots to be integers. Got %s", tt_op_type_name(tt_l_arg_dtype(L, 1)));
  int64_t bd[TT_MAX_RANK];
  int nb = broadcast_batch(L, &A, &B, bd);
  if (nb < 0) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t perm = perm_from_pivots(g, tt_l_tensor(L, 1), A.nb, A.dims, A.n);
  tt_val_t x = solve_any(g, tt_b_convert(g, tt_l_tensor(L, 0), A.ct), perm, &A,
                         tt_b_convert(g, tt_l_tensor(L, 2), A.ct), &B, left, adjoint, nb, bd);
  tt_l_output(L, tt_b_convert(g, x, A.dt));
  return NULL;
}

static tt_status_t lower_inv_ex(tt_lower_t *L) {
  mat_t A;
  if (!read_mat(L, 0, "linalg.inv", 1, &kInvRule, &A)) return NULL;
  tt_graph_t *g = L->g;
  lu_t f = lu_factor(g, tt_b_convert(g, tt_l_tensor(L, 0), A.ct), &A);
  tt_val_t eye = tt_la_eye(g, A.ct, A.rank, A.dims);
  tt_val_t x = lu_solve_left(g, f.lu, f.perm, eye, A.nb, A.dims, A.n, 0);
  tt_l_output(L, tt_b_convert(g, x, A.dt));
  tt_l_output(L, f.info);
  return NULL;
}

/* _linalg_solve_ex(A, B, left, check_errors) -> (result, LU, pivots, info);
 * B may be a (batch of) vector(s) as PyTorch's linalg_solve_is_vector_rhs says. */
static tt_status_t lower_solve_ex(tt_lower_t *L) {
  mat_t A, B;
  if (!read_mat(L, 0, "linalg.solve", 1, &kSolveRule, &A)) return NULL;
  int left = tt_l_bool(L, 2, 1);
  tt_dtype_t bdt = tt_l_arg_dtype(L, 1);
  int brank = tt_l_arg_rank(L, 1);
  const int64_t *bs = tt_l_arg_sizes(L, 1);
  if (bdt == TT_DTYPE_INVALID) return tt_status_make(TT_TYPE_ERROR, "linalg.solve: B must be a Tensor");
  int vec = brank == 1;
  if (!vec && brank == A.rank - 1) {
    vec = 1;
    for (int i = 0; i < brank; i++) vec &= bs[i] == A.dims[i];
  }
  if (vec && !left)
    return tt_status_make(TT_INVALID_ARGUMENT, "linalg.solve: Vector broadcasting of the left hand side is not supported for left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)");
  tt_graph_t *g = L->g;
  tt_val_t b = tt_l_tensor(L, 1);
  memset(&B, 0, sizeof B);
  B.dt = bdt;
  if (vec) {
    B.rank = brank + 1;
    memcpy(B.dims, bs, sizeof(int64_t) * (size_t)brank);
    B.dims[brank] = 1;
    b = tt_b_reshape(g, b, B.rank, B.dims);
  } else {
    if (brank < 2) return tt_status_make(TT_INVALID_ARGUMENT, "linalg.solve: The input tensor B must have at least 2 dimensions.");
    B.rank = brank;
    memcpy(B.dims, bs, sizeof(int64_t) * (size_t)brank);
  }
  B.nb = B.rank - 2;
  B.m = B.dims[B.rank - 2];
  B.n = B.dims[B.rank - 1];
  if (!check_rhs(L, &A, &B, left, "linalg.solve")) return NULL;
  int64_t bd[TT_MAX_RANK];
  int nb = broadcast_batch(L, &A, &B, bd);
  if (nb < 0) return NULL;
  lu_t f = lu_factor(g, factor_input(L, &A, 0), &A);
  tt_val_t x = solve_any(g, f.lu, f.perm, &A, tt_b_convert(g, b, A.ct), &B, left, 0, nb, bd);
  if (vec) {
    if (x >= 0 && !tt_graph_failed(g)) x = tt_b_reshape(g, x, tt_graph_type(g, x)->rank - 1, tt_graph_type(g, x)->dims);
  }
  tt_l_output(L, tt_b_convert(g, x, A.dt));
  tt_l_output(L, tt_b_convert(g, f.lu, A.dt));
  tt_l_output(L, f.piv);
  tt_l_output(L, f.info);
  return NULL;
}

/* The diagonal of U (batch.., n) and the permutation's sign (batch..) as
 * +-1 in the compute type (odd number of row swaps: -1). */
static void diag_and_sign(tt_graph_t *g, const lu_t *f, const mat_t *A, tt_val_t *out_diag, tt_val_t *out_sign) {
  int nb = A->nb;
  tt_val_t rows = iota_i64(g, A->rank, A->dims, nb), cols = iota_i64(g, A->rank, A->dims, nb + 1);
  *out_diag = pick(g, tt_b_compare(g, TT_CMP_EQ, rows, cols), f->lu, nb + 1);
  int64_t pd[TT_MAX_RANK], last = nb;
  memcpy(pd, A->dims, sizeof pd);
  pd[nb] = A->n;
  tt_val_t k1 = tt_b_convert(g, tt_b_binary(g, TT_BIN_ADD, iota_i64(g, nb + 1, pd, nb), tt_b_full_i(g, TT_I64, nb + 1, pd, 1)), TT_I32);
  tt_val_t swapped = tt_b_convert(g, tt_b_compare(g, TT_CMP_NE, f->piv, k1), TT_I32);
  tt_val_t nsw = tt_b_reduce(g, TT_RED_SUM, swapped, 1, &last);
  tt_val_t odd = tt_b_compare(g, TT_CMP_EQ, tt_b_binary(g, TT_BIN_AND, nsw, tt_b_full_i(g, TT_I32, nb, A->dims, 1)),
                              tt_b_full_i(g, TT_I32, nb, A->dims, 1));
  *out_sign = tt_b_select(g, odd, tt_b_full_f(g, A->ct, nb, A->dims, -1.0), tt_b_full_f(g, A->ct, nb, A->dims, 1.0));
}

static tt_status_t lower_det(tt_lower_t *L) {
  mat_t A;
  if (!read_mat(L, 0, "linalg.det", 1, &kDetRule, &A)) return NULL;
  tt_graph_t *g = L->g;
  lu_t f = lu_factor(g, factor_input(L, &A, factor_transposed(L, 0)), &A);
  tt_val_t diag, sign;
  diag_and_sign(g, &f, &A, &diag, &sign);
  int64_t last = A.nb;
  tt_val_t det = tt_b_binary(g, TT_BIN_MUL, sign, tt_b_reduce(g, TT_RED_PROD, diag, 1, &last));
  tt_l_output(L, tt_b_convert(g, det, A.dt));
  tt_l_output(L, tt_b_convert(g, f.lu, A.dt));
  tt_l_output(L, f.piv);
  return NULL;
}

static tt_status_t lower_slogdet(tt_lower_t *L) {
  mat_t A;
  if (!read_mat(L, 0, "linalg.slogdet", 1, &kSlogdetRule, &A)) return NULL;
  tt_graph_t *g = L->g;
  lu_t f = lu_factor(g, factor_input(L, &A, factor_transposed(L, 0)), &A);
  tt_val_t diag, sign;
  diag_and_sign(g, &f, &A, &diag, &sign);
  int64_t last = A.nb;
  sign = tt_b_binary(g, TT_BIN_MUL, sign, tt_b_reduce(g, TT_RED_PROD, tt_b_unary(g, TT_UN_SIGN, diag), 1, &last));
  tt_val_t logabs = tt_b_reduce(g, TT_RED_SUM, tt_b_unary(g, TT_UN_LOG, tt_b_unary(g, TT_UN_ABS, diag)), 1, &last);
  tt_l_output(L, tt_b_convert(g, sign, A.dt));
  tt_l_output(L, tt_b_convert(g, logabs, A.dt));
  tt_l_output(L, tt_b_convert(g, f.lu, A.dt));
  tt_l_output(L, f.piv);
  return NULL;
}

/* matrix_exp by scaling and squaring with the [13/13] Pade approximant
 * (Higham 2005): A / 2^s has 1-norm <= theta13 per matrix, the approximant
 * is (V - U)^-1 (V + U) solved with our LU, then s squarings in a loop that
 * runs max(s) times and leaves each matrix alone past its own s. */
static tt_status_t lower_matrix_exp(tt_lower_t *L) {
  static const double b[14] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
                               1187353796428800.0, 129060195264000.0, 10559470521600.0,
                               670442572800.0, 33522128640.0, 1323241920.0, 40840800.0,
                               960960.0, 16380.0, 182.0, 1.0};
  const double theta13 = 5.371920351148152;
  mat_t A;
  if (!read_mat(L, 0, "linalg.matrix_exp", 1, &kMatrixExpRule, &A)) return NULL;
  tt_graph_t *g = L->g;
  int nb = A.nb, rank = A.rank;
  tt_val_t a = tt_b_convert(g, tt_l_tensor(L, 0), A.ct);
  if (A.n == 0) {
    tt_l_output(L, tt_b_convert(g, a, A.dt));
    return NULL;
  }
  int64_t rowdim = nb, coldim = nb; /* the column dim once rows are summed */
  tt_val_t colsum = tt_b_reduce(g, TT_RED_SUM, tt_b_unary(g, TT_UN_ABS, a), 1, &rowdim);
  tt_val_t norm = tt_b_reduce(g, TT_RED_MAX, colsum, 1, &coldim); /* (batch..) */
  tt_val_t sf = tt_b_unary(g, TT_UN_CEIL, tt_b_binary(g, TT_BIN_DIV, tt_b_unary(g, TT_UN_LOG, tt_b_binary(g, TT_BIN_DIV, norm, tt_b_like_f(g, norm, theta13))),
                                                     tt_b_like_f(g, norm, 0.6931471805599453)));
  /* s in [0, 64]; NaN norms give 0 (the result is NaN anyway). */
  tt_val_t fin = tt_b_compare(g, TT_CMP_EQ, sf, sf);
  sf = tt_b_select(g, fin, tt_b_clamp(g, tt_b_like_f(g, sf, 0.0), sf, tt_b_like_f(g, sf, 64.0)), tt_b_like_f(g, sf, 0.0));
  tt_val_t scale = tt_b_binary(g, TT_BIN_POW, tt_b_like_f(g, sf, 2.0), tt_b_unary(g, TT_UN_NEG, sf));
  tt_val_t as = tt_b_binary(g, TT_BIN_MUL, a, bcast_lead(g, scale, rank, A.dims));
  tt_val_t eye = tt_la_eye(g, A.ct, rank, A.dims);
#define LIN(x, c) tt_b_binary(g, TT_BIN_MUL, (x), tt_b_like_f(g, (x), (c)))
#define ADD(x, y) tt_b_binary(g, TT_BIN_ADD, (x), (y))
  tt_val_t a2 = bmm(g, as, as, nb), a4 = bmm(g, a2, a2, nb), a6 = bmm(g, a4, a2, nb);
  tt_val_t u1 = bmm(g, a6, ADD(ADD(LIN(a6, b[13]), LIN(a4, b[11])), LIN(a2, b[9])), nb);
  tt_val_t u = bmm(g, as, ADD(ADD(ADD(ADD(u1, LIN(a6, b[7])), LIN(a4, b[5])), LIN(a2, b[3])), LIN(eye, b[1])), nb);
  tt_val_t v1 = bmm(g, a6, ADD(ADD(LIN(a6, b[12]), LIN(a4, b[10])), LIN(a2, b[8])), nb);
  tt_val_t v = ADD(ADD(ADD(ADD(v1, LIN(a6, b[6])), LIN(a4, b[4])), LIN(a2, b[2])), LIN(eye, b[0]));
#undef LIN
#undef ADD
  lu_t f = lu_factor(g, tt_b_binary(g, TT_BIN_SUB, v, u), &A);
  tt_val_t r = lu_solve_left(g, f.lu, f.perm, tt_b_binary(g, TT_BIN_ADD, v, u), nb, A.dims, A.n, 0);
  /* Squarings: counter i (f32, compared with each s) up to max(s). */
  int64_t all[TT_MAX_RANK];
  for (int i = 0; i < nb; i++) all[i] = i;
  tt_val_t smax = tt_b_reduce(g, TT_RED_MAX, sf, nb, all);
  tt_loop_t lp;
  tt_val_t c[2], init[2] = {tt_b_const_f(g, A.ct, 0.0), r}, res[2];
  tt_b_while_begin(g, &lp, 2, init, c);
  tt_b_while_body(g, &lp, tt_b_compare(g, TT_CMP_LT, c[0], smax), c);
  tt_val_t more = bcast_lead(g, tt_b_compare(g, TT_CMP_LT, tt_b_broadcast(g, c[0], nb, A.dims, NULL), sf), rank, A.dims);
  tt_val_t next[2] = {tt_b_binary(g, TT_BIN_ADD, c[0], tt_b_const_f(g, A.ct, 1.0)),
                      tt_b_select(g, more, bmm(g, c[1], c[1], nb), c[1])};
  tt_b_while_end(g, &lp, next, res);
  tt_l_output(L, tt_b_convert(g, res[1], A.dt));
  return NULL;
}

const tt_op_def_t tt_ops_linalg_lu[] = {
    {"linalg_lu_factor_ex", lower_lu_factor_ex, 0},
    {"lu_unpack", lower_lu_unpack, 0},
    {"linalg_lu", lower_linalg_lu, 0},
    {"linalg_lu_solve", lower_lu_solve, 0},
    {"linalg_inv_ex", lower_inv_ex, 0},
    {"_linalg_solve_ex", lower_solve_ex, 0},
    {"_linalg_det", lower_det, 0},
    {"_linalg_slogdet", lower_slogdet, 0},
    {"linalg_matrix_exp", lower_matrix_exp, 0},
    {NULL, NULL, 0},
};
