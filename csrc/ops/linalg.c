/* Lowerings of the matmul family (mm, addmm, bmm, baddbmm, addbmm, mv, addmv,
 * dot): one dot_general each, computed in float32 for bf16/f16 as PyTorch's
 * CPU kernels accumulate, with the beta/alpha combination before rounding. */
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"


/* Checks the two matrix operands share a supported dtype; returns it. */
static tt_dtype_t check_pair(tt_lower_t *L, int ia, int ib, const char *what) {
  tt_dtype_t a = tt_l_arg_dtype(L, ia), b = tt_l_arg_dtype(L, ib);
  if (a == TT_DTYPE_INVALID || b == TT_DTYPE_INVALID) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: expected Tensor arguments", L->op);
    return TT_DTYPE_INVALID;
  }
  if (a != b) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: expected %s to have the same dtype, but got: %s != %s", L->op,
              what, tt_op_type_name(a), tt_op_type_name(b));
    return TT_DTYPE_INVALID;
  }
  if (a == TT_BOOL || a == TT_U8 || a == TT_I8 || a == TT_I16) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "\"addmm_impl_cpu_\" not implemented for '%s'", tt_op_type_name(a));
    return TT_DTYPE_INVALID;
  }
  return a;
}

/* dot_general of arguments ia and ib in the compute type (result stays in it). */
static tt_val_t contract(tt_lower_t *L, int ia, int ib, tt_dtype_t dt, int nb, const int64_t *lb,
                         const int64_t *rb, int nc, const int64_t *lc, const int64_t *rc) {
  tt_dtype_t ct = tt_op_math_type(dt);
  tt_val_t a = tt_b_convert(L->g, tt_l_tensor(L, ia), ct);
  tt_val_t b = tt_b_convert(L->g, tt_l_tensor(L, ib), ct);
  return tt_b_dot(L->g, a, b, nb, lb, rb, nc, lc, rc);
}

static int scalar_is(tt_lower_t *L, int i, double v) {
  if (i >= L->nargs || L->args[i].kind == TT_ARG_NONE) return v == 1.0;
  const tt_arg_t *a = &L->args[i];
  if (a->kind == TT_ARG_FLOAT) return a->f == v;
  if (a->kind == TT_ARG_INT || a->kind == TT_ARG_BOOL) return (double)a->i == v;
  return 0;
}

/* beta * self + alpha * prod, self broadcast to prod's shape; prod is in the
 * compute type, the result is rounded to dt once. beta == 0 ignores self
 * (NaN/inf in self do not propagate), as PyTorch does. */
static tt_status_t finish_add(tt_lower_t *L, int iself, int ibeta, int ialpha, tt_val_t prod, tt_dtype_t dt) {
  tt_graph_t *g = L->g;
  if (tt_graph_failed(g)) return NULL;
  tt_dtype_t ct = tt_op_math_type(dt);
  for (int i = ibeta; i <= ialpha; i++)
    if (i < L->nargs && L->args[i].kind == TT_ARG_FLOAT && !tt_dtype_is_float(dt))
      return tt_status_make(TT_INVALID_ARGUMENT, "For integral input tensors, argument %s must not be a floating point number.",
                            i == ibeta ? "beta" : "alpha");
  const tt_type_t *pt = tt_graph_type(g, prod);
  int rank = pt->rank;
  int64_t dims[TT_MAX_RANK];
  memcpy(dims, pt->dims, sizeof(int64_t) * (size_t)rank);
  const tt_tensor_ref_t *self = tt_l_ref(L, iself);
  if (!self) return tt_status_make(TT_TYPE_ERROR, "%s: self must be a Tensor", L->op);
  int sr = self->view.rank, ok = sr <= rank;
  for (int i = 0; ok && i < sr; i++) {
    int64_t s = self->view.sizes[i], d = dims[rank - sr + i];
    ok = s == d || s == 1;
  }
  if (!ok) {
    char a[128] = "", b[128] = "";
    tt_type_t ta = tt_type_make(self->dtype, sr, self->view.sizes), tb = tt_type_make(dt, rank, dims);
    tt_type_describe(&ta, a, sizeof a);
    tt_type_describe(&tb, b, sizeof b);
    return tt_status_make(TT_INVALID_ARGUMENT, "The expanded size of the tensor %s must match the output shape %s", a, b);
  }
  if (self->dtype != dt)
    return tt_status_make(TT_INVALID_ARGUMENT, "self and mat2 must have the same dtype, but got %s and %s",
                          tt_op_type_name(self->dtype), tt_op_type_name(dt));
  tt_val_t out = prod;
  if (!scalar_is(L, ialpha, 1.0))
    out = tt_b_binary(g, TT_BIN_MUL, out, tt_op_fit(L, tt_l_scalar_arg(L, ialpha, ct), ct, rank, dims));
  if (!scalar_is(L, ibeta, 0.0)) {
    tt_val_t s = tt_op_fit(L, tt_l_tensor(L, iself), ct, rank, dims);
    if (!scalar_is(L, ibeta, 1.0))
      s = tt_b_binary(g, TT_BIN_MUL, s, tt_op_fit(L, tt_l_scalar_arg(L, ibeta, ct), ct, rank, dims));
    out = tt_b_binary(g, TT_BIN_ADD, s, out);
  }
  tt_l_output(L, tt_b_convert(g, out, dt));
  return NULL;
}

/* Shape checks shared by the matrix forms; returns 0 after recording an error. */
static int want_rank(tt_lower_t *L, int i, int rank, const char *msg) {
  if (tt_l_arg_rank(L, i) != rank) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s", msg);
    return 0;
  }
  return 1;
}

static tt_val_t mm_prod(tt_lower_t *L, int ia, int ib, tt_dtype_t *dt) {
  if (!want_rank(L, ia, 2, "self must be a matrix") || !want_rank(L, ib, 2, "mat2 must be a matrix")) return -1;
  *dt = check_pair(L, ia, ib, "mat1 and mat2");
  if (*dt == TT_DTYPE_INVALID) return -1;
  const int64_t *a = tt_l_arg_sizes(L, ia), *b = tt_l_arg_sizes(L, ib);
  if (a[1] != b[0])
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     (long long)a[0], (long long)a[1], (long long)b[0], (long long)b[1]);
  int64_t lc = 1, rc = 0;
  return contract(L, ia, ib, *dt, 0, NULL, NULL, 1, &lc, &rc);
}

static tt_status_t lower_mm(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t p = mm_prod(L, 0, 1, &dt);
  if (p >= 0) tt_l_output(L, tt_b_convert(L->g, p, dt));
  return NULL;
}

/* addmm(self, mat1, mat2, *, beta, alpha) */
static tt_status_t lower_addmm(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t p = mm_prod(L, 1, 2, &dt);
  if (p < 0) return NULL;
  return finish_add(L, 0, 3, 4, p, dt);
}

static tt_val_t bmm_prod(tt_lower_t *L, int ia, int ib, tt_dtype_t *dt, int sum_batch) {
  if (!want_rank(L, ia, 3, "batch1 must be a 3D tensor") || !want_rank(L, ib, 3, "batch2 must be a 3D tensor"))
    return -1;
  *dt = check_pair(L, ia, ib, "batch1 and batch2");
  if (*dt == TT_DTYPE_INVALID) return -1;
  const int64_t *a = tt_l_arg_sizes(L, ia), *b = tt_l_arg_sizes(L, ib);
  if (a[0] != b[0])
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "batch1 and batch2 must have same number of batches, got %lld and %lld",
                     (long long)a[0], (long long)b[0]);
  if (a[2] != b[1])
    return tt_l_fail(L, TT_INVALID_ARGUMENT,
                     "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                     (long long)a[0], (long long)a[2], (long long)b[0], (long long)b[1]);
  if (sum_batch) {
    /* addbmm: the batch dim is contracted along with k. */
    int64_t lc[2] = {0, 2}, rc[2] = {0, 1};
    return contract(L, ia, ib, *dt, 0, NULL, NULL, 2, lc, rc);
  }
  int64_t bd = 0, lc = 2, rc = 1;
  return contract(L, ia, ib, *dt, 1, &bd, &bd, 1, &lc, &rc);
}

static tt_status_t lower_bmm(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t p = bmm_prod(L, 0, 1, &dt, 0);
  if (p >= 0) tt_l_output(L, tt_b_convert(L->g, p, dt));
  return NULL;
}

static tt_status_t lower_baddbmm(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t p = bmm_prod(L, 1, 2, &dt, 0);
  if (p < 0) return NULL;
  return finish_add(L, 0, 3, 4, p, dt);
}

static tt_status_t lower_addbmm(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t p = bmm_prod(L, 1, 2, &dt, 1);
  if (p < 0) return NULL;
  return finish_add(L, 0, 3, 4, p, dt);
}

static tt_val_t mv_prod(tt_lower_t *L, int ia, int ib, tt_dtype_t *dt) {
  int ra = tt_l_arg_rank(L, ia), rb = tt_l_arg_rank(L, ib);
  if (ra != 2 || rb != 1)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "vector + matrix @ vector expected, got 1, %d, %d", ra, rb);
  *dt = check_pair(L, ia, ib, "mat and vec");
  if (*dt == TT_DTYPE_INVALID) return -1;
  const int64_t *a = tt_l_arg_sizes(L, ia), *b = tt_l_arg_sizes(L, ib);
  if (a[1] != b[0])
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                     (long long)a[0], (long long)a[0], (long long)a[1], (long long)b[0]);
  int64_t lc = 1, rc = 0;
  return contract(L, ia, ib, *dt, 0, NULL, NULL, 1, &lc, &rc);
}

static tt_status_t lower_mv(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t p = mv_prod(L, 0, 1, &dt);
  if (p >= 0) tt_l_output(L, tt_b_convert(L->g, p, dt));
  return NULL;
}

static tt_status_t lower_addmv(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t p = mv_prod(L, 1, 2, &dt);
  if (p < 0) return NULL;
  return finish_add(L, 0, 3, 4, p, dt);
}

/* dot / vdot (same thing for real dtypes). */
static tt_status_t lower_dot(tt_lower_t *L) {
  int ra = tt_l_arg_rank(L, 0), rb = tt_l_arg_rank(L, 1);
  if (ra != 1 || rb != 1)
    return tt_status_make(TT_INVALID_ARGUMENT, "1D tensors expected, but got %dD and %dD tensors", ra, rb);
  tt_dtype_t a = tt_l_arg_dtype(L, 0), b = tt_l_arg_dtype(L, 1);
  if (a != b)
    return tt_status_make(TT_INVALID_ARGUMENT, "dot : expected both vectors to have same dtype, but found %s and %s",
                          tt_op_type_name(a), tt_op_type_name(b));
  int64_t na = tt_l_arg_sizes(L, 0)[0], nb = tt_l_arg_sizes(L, 1)[0];
  if (na != nb)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the same number of "
                          "elements, but got %lld and %lld elements respectively",
                          (long long)na, (long long)nb, (long long)na, (long long)nb);
  tt_dtype_t dt = check_pair(L, 0, 1, "both vectors");
  if (dt == TT_DTYPE_INVALID) return NULL;
  int64_t c = 0;
  tt_val_t p = contract(L, 0, 1, dt, 0, NULL, NULL, 1, &c, &c);
  tt_l_output(L, tt_b_convert(L->g, p, dt));
  return NULL;
}

const tt_op_def_t tt_ops_linalg[] = {
    {"mm", lower_mm, 0},
    {"addmm", lower_addmm, 0},
    {"addmm_", lower_addmm, TT_OPF_INPLACE},
    {"bmm", lower_bmm, 0},
    {"baddbmm", lower_baddbmm, 0},
    {"baddbmm_", lower_baddbmm, TT_OPF_INPLACE},
    {"addbmm", lower_addbmm, 0},
    {"addbmm_", lower_addbmm, TT_OPF_INPLACE},
    {"mv", lower_mv, 0},
    {"addmv", lower_addmv, 0},
    {"addmv_", lower_addmv, TT_OPF_INPLACE},
    {"dot", lower_dot, 0},
    {"vdot", lower_dot, 0},
    {NULL, NULL, 0},
};
