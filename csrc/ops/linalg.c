/* Lowerings of the matmul family (mm, addmm, bmm, baddbmm, addbmm, mv, addmv,
 * dot, addr): one dot_general each, computed in float32 for bf16/f16 as PyTorch's
 * CPU kernels accumulate, with the beta/alpha combination before rounding. */
#include <string.h>

#include "ops/complex.h"
#include "ops/dispatch_refusal.h"
#include "ops/common.h"
#include "ops/families.h"
#include "ops/out_rules.h"


/* The CPU kernel whose name CPU's "not implemented for 'Bool'" error gives. */
static const char *cpu_kernel(const char *op) {
  if (!strncmp(op, "baddbmm", 7)) return "baddbmm";
  if (!strcmp(op, "bmm")) return "bmm";
  if (!strncmp(op, "addmv", 5) || !strcmp(op, "mv")) return "addmv_impl_cpu";
  if (!strcmp(op, "dot") || !strcmp(op, "vdot")) return "dot";
  return "addmm_impl_cpu_";
}

/* Checks the two matrix operands share a supported dtype; returns it.
 * bool_later: Bool is returned for the caller to refuse after its shape
 * checks (mm, bmm, mv: CPU's meta functions check shapes, the kernel's
 * dispatch refuses Bool afterwards). */
static tt_dtype_t check_pair(tt_lower_t *L, int ia, int ib, const char *what, int bool_later) {
  tt_dtype_t a = tt_l_arg_dtype(L, ia), b = tt_l_arg_dtype(L, ib);
  if (a == TT_DTYPE_INVALID || b == TT_DTYPE_INVALID) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: expected Tensor arguments", L->op);
    return TT_DTYPE_INVALID;
  }
  if (a != b) { /* CPU's words where they are known: mm's meta check, bmm's kernel */
    if (!strcmp(L->op, "mm"))
      tt_l_fail(L, TT_INVALID_ARGUMENT, "expected m1 and m2 to have the same dtype, but got: %s != %s",
                tt_op_typemeta_name(a), tt_op_typemeta_name(b));
    else if (!strcmp(L->op, "bmm") || !strncmp(L->op, "baddbmm", 7))
      tt_l_fail(L, TT_INVALID_ARGUMENT, "expected scalar type %s but found %s", tt_op_type_name(a), tt_op_type_name(b));
    else
      tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: expected %s to have the same dtype, but got: %s != %s", L->op,
                what, tt_op_type_name(a), tt_op_type_name(b));
    return TT_DTYPE_INVALID;
  }
  if (a == TT_BOOL && !bool_later) {
    tt_l_refuse_dtype(L, TT_BOOL, "%s", cpu_kernel(L->op));
    return TT_DTYPE_INVALID;
  }
  return a;
}

/* The Bool refusal check_pair left to a caller whose shapes now passed. */
static int refuse_bool(tt_lower_t *L, tt_dtype_t dt) {
  if (dt != TT_BOOL) return 0;
  tt_l_refuse_dtype(L, TT_BOOL, "%s", cpu_kernel(L->op));
  return 1;
}

/* The type a product is computed in: float32 for bf16/f16 (tt_op_math_type);
 * int32 for the narrow integers, whose sums CPU wraps in the tensor's type:
 * the same bits as a wide sum cast down (converts wrap), with no narrow dot
 * for the backend to refuse or widen differently. */
static tt_dtype_t compute_type(tt_dtype_t dt) {
  return dt == TT_U8 || dt == TT_I8 || dt == TT_I16 ? TT_I32 : tt_op_math_type(dt);
}

/* dot_general of arguments ia and ib in the compute type (result stays in it);
 * float32 ones in the current matmul precision. A complex product is four
 * real ones, re = ar.br - ai.bi and im = ar.bi + ai.br: the infinities and
 * NaNs of a sum of c10::complex products term by term (CPU's own bmm kernel:
 * (inf+0j)*(1+0j) + 1*0 is inf+nanj), where XLA's complex dot gives NaN in
 * both parts; each sum holds the same infinite terms with the same signs,
 * so only the finite rounding order differs. */
static tt_val_t scalar_in(tt_lower_t *L, int i, tt_dtype_t dt, int in_dt, int rank, const int64_t *dims);

/* As contract below, with b first multiplied by scalar argument iscale
 * (-1: none). */
static tt_val_t contract_scaled(tt_lower_t *L, int ia, int ib, int iscale, tt_dtype_t dt, int nb, const int64_t *lb,
                                const int64_t *rb, int nc, const int64_t *lc, const int64_t *rc) {
  tt_dtype_t ct = compute_type(dt);
  tt_graph_t *g = L->g;
  int prec = tt_op_matmul_precision_for(L, dt);
  tt_val_t a = tt_b_convert(g, tt_l_tensor(L, ia), ct);
  tt_val_t b = tt_b_convert(g, tt_l_tensor(L, ib), ct);
  if (iscale >= 0 && !tt_graph_failed(g)) {
    const tt_type_t *bt = tt_graph_type(g, b);
    b = tt_b_binary(g, TT_BIN_MUL, b, scalar_in(L, iscale, dt, 0, bt->rank, bt->dims));
  }
  if (!tt_dtype_is_complex(ct)) return tt_b_dot_prec(g, prec, a, b, nb, lb, rb, nc, lc, rc);
  tt_val_t ar = tt_b_unary(g, TT_UN_REAL, a), ai = tt_b_unary(g, TT_UN_IMAG, a);
  tt_val_t br = tt_b_unary(g, TT_UN_REAL, b), bi = tt_b_unary(g, TT_UN_IMAG, b);
  tt_val_t rr = tt_b_dot_prec(g, prec, ar, br, nb, lb, rb, nc, lc, rc);
  tt_val_t ii = tt_b_dot_prec(g, prec, ai, bi, nb, lb, rb, nc, lc, rc);
  tt_val_t ri = tt_b_dot_prec(g, prec, ar, bi, nb, lb, rb, nc, lc, rc);
  tt_val_t ir = tt_b_dot_prec(g, prec, ai, br, nb, lb, rb, nc, lc, rc);
  return tt_b_binary(g, TT_BIN_COMPLEX, tt_b_binary(g, TT_BIN_SUB, rr, ii), tt_b_binary(g, TT_BIN_ADD, ri, ir));
}

static tt_val_t contract(tt_lower_t *L, int ia, int ib, tt_dtype_t dt, int nb, const int64_t *lb,
                         const int64_t *rb, int nc, const int64_t *lc, const int64_t *rc) {
  return contract_scaled(L, ia, ib, -1, dt, nb, lb, rb, nc, lc, rc);
}

/* The scalar as the CPU kernel sees it: integral dtypes truncate a float
 * beta/alpha toward zero (a C++ cast), so 0.2 acts as 0; a complex one is
 * its real part where its imaginary part is 0, else NaN (neither 0 nor 1). */
static double scalar_val(tt_lower_t *L, int i, tt_dtype_t dt) {
  if (i < 0 || i >= L->nargs || L->args[i].kind == TT_ARG_NONE) return 1.0;
  const tt_arg_t *a = &L->args[i];
  if (a->kind == TT_ARG_FLOAT) return tt_dtype_is_float(dt) || tt_dtype_is_complex(dt) ? a->f : (double)(int64_t)a->f;
  if (a->kind == TT_ARG_INT || a->kind == TT_ARG_BOOL) return (double)a->i;
  if (a->kind == TT_ARG_COMPLEX) return a->f_im == 0.0 ? a->f : 0.0 / 0.0;
  return 1.0;
}

static int scalar_is(tt_lower_t *L, int i, double v, tt_dtype_t dt) { return scalar_val(L, i, dt) == v; }

/* Where CPU rounds a bf16/f16 intermediate to the tensor's dtype: x (in the
 * compute type) rounded to dt and widened back. A no-op for other dtypes. */
static tt_val_t round_to(tt_lower_t *L, tt_val_t x, tt_dtype_t dt) {
  tt_dtype_t ct = compute_type(dt);
  return ct == dt ? x : tt_b_convert(L->g, tt_b_convert(L->g, x, dt), ct);
}

/* Scalar argument i in the compute type, first rounded to dt when `in_dt`
 * (CPU's gemv and addr kernels take beta/alpha as scalar_t). */
static tt_val_t scalar_in(tt_lower_t *L, int i, tt_dtype_t dt, int in_dt, int rank, const int64_t *dims) {
  tt_dtype_t ct = compute_type(dt);
  tt_val_t v = i < L->nargs && L->args[i].kind != TT_ARG_NONE ? tt_l_scalar_arg(L, i, in_dt ? dt : ct)
                                                               : tt_l_scalar(L, ct, 1.0, 1, 1);
  return tt_op_fit(L, v, ct, rank, dims);
}

/* How the CPU kernel combines beta * self + alpha * prod for bf16/f16. */
typedef enum add_style_e {
  ADD_ONCE, /* addmm, baddbmm (oneDNN / gemm): all in f32, rounded once */
  ADD_GEMV, /* addmv (gemv): beta, alpha as dt; beta * self rounded to dt first */
} add_style_t;

/* Checks self against the product's shape and dtype; 0 after an error. */
static int check_self(tt_lower_t *L, int iself, int rank, const int64_t *dims, tt_dtype_t dt) {
  const tt_tensor_ref_t *self = tt_l_ref(L, iself);
  if (!self) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: self must be a Tensor", L->op);
    return 0;
  }
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
    tt_l_fail(L, TT_INVALID_ARGUMENT, "The expanded size of the tensor %s must match the output shape %s", a, b);
    return 0;
  }
  if (self->dtype != dt) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "self and mat2 must have the same dtype, but got %s and %s",
              tt_op_type_name(self->dtype), tt_op_type_name(dt));
    return 0;
  }
  return 1;
}

/* beta * self + alpha * prod, self broadcast to prod's shape; prod is in the
 * compute type. beta == 0 ignores self (NaN/inf in self do not propagate), as
 * PyTorch does. An empty contraction (k == 0) is CPU's result.mul_(beta):
 * self times beta rounded to dt. */
static tt_status_t finish_add(tt_lower_t *L, int iself, int ibeta, int ialpha, tt_val_t prod, tt_dtype_t dt,
                              add_style_t style, int64_t k) {
  tt_graph_t *g = L->g;
  if (tt_graph_failed(g)) return NULL;
  tt_dtype_t ct = compute_type(dt);
  const tt_type_t *pt = tt_graph_type(g, prod);
  int rank = pt->rank;
  int64_t dims[TT_MAX_RANK];
  memcpy(dims, pt->dims, sizeof(int64_t) * (size_t)rank);
  if (!check_self(L, iself, rank, dims, dt)) return NULL;
  int64_t numel = 1;
  for (int i = 0; i < rank; i++) numel *= dims[i];
  /* beta.to<scalar_t>(), alpha.to<scalar_t>(): checked (a complex one too),
   * where CPU's kernel gets to them: an empty result returns first, and an
   * empty contraction multiplies self by beta as mul_ does (a uint8 self by
   * 300 wraps) and never reads alpha (fuzz 338:917, 357:92: uint8 addmm and
   * baddbmm with k = 0, beta 0, alpha -0.5: CPU's zeros, tpu raised 'value
   * cannot be converted to type uint8_t without overflow'); addmv converts
   * beta first, whatever the shapes */
  if (!tt_dtype_is_complex(dt))
    for (int i = ibeta; i <= ialpha; i++)
      if (i < L->nargs && L->args[i].kind != TT_ARG_NONE && ((numel > 0 && k != 0) || (i == ibeta && style == ADD_GEMV)) &&
          (!tt_dtype_is_float(dt) || L->args[i].kind == TT_ARG_COMPLEX) && !tt_op_check_scalar_fits(L, i, dt))
        return NULL;
  if (style != ADD_GEMV && k == 0 && numel > 0 && !tt_dtype_is_float(dt) && !tt_dtype_is_complex(dt) && ibeta < L->nargs &&
      L->args[ibeta].kind == TT_ARG_FLOAT && L->args[ibeta].f != 0.0) { /* CPU's result.mul_(beta) (gemv truncates beta) */
    tt_l_fail(L, TT_INVALID_ARGUMENT, "result type Float can't be cast to the desired output type %s", tt_op_type_name(dt));
    return NULL;
  }
  int gemv = style == ADD_GEMV;
  tt_val_t out;
  if (scalar_is(L, ibeta, 0.0, dt)) {
    out = k == 0 ? tt_b_full_f(g, ct, rank, dims, 0.0) : prod;
    if (k != 0 && !scalar_is(L, ialpha, 1.0, dt))
      out = tt_b_binary(g, TT_BIN_MUL, out, scalar_in(L, ialpha, dt, gemv, rank, dims));
  } else if (k == 0) {
    tt_val_t s = tt_op_fit(L, tt_l_tensor(L, iself), ct, rank, dims);
    out = scalar_is(L, ibeta, 1.0, dt) ? s : tt_b_binary(g, TT_BIN_MUL, s, scalar_in(L, ibeta, dt, 1, rank, dims));
  } else {
    out = prod;
    if (!scalar_is(L, ialpha, 1.0, dt))
      out = tt_b_binary(g, TT_BIN_MUL, out, scalar_in(L, ialpha, dt, gemv, rank, dims));
    tt_val_t s = tt_op_fit(L, tt_l_tensor(L, iself), ct, rank, dims);
    if (!scalar_is(L, ibeta, 1.0, dt)) {
      s = tt_b_binary(g, TT_BIN_MUL, s, scalar_in(L, ibeta, dt, gemv, rank, dims));
      if (gemv) s = round_to(L, s, dt);
    }
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

/* mat1 @ mat2; with ialpha >= 0, alpha * mat1 @ mat2 where CPU's gemm
 * scales first, else returns with *scaled 0 (alpha left to finish_add).
 * CPU's complex gemm multiplies each mat2 element by alpha before its
 * products (addmm(beta=.5, alpha=-.5) of (1.74+1.88j) * 3.4e38j is the
 * finite 3.2e38-2.96e38j, where the product first overflows to -inf+infj
 * and alpha's complex multiply then gives nan+nanj: fuzz 139:525); with one
 * column (n == 1) it scales the sum as the real form does. Real products
 * scale after the sum (the FMA and BLAS orders of docs/fuzz_known.md). */
static tt_val_t mm_prod_scaled(tt_lower_t *L, int ia, int ib, int ialpha, int *scaled, tt_dtype_t *dt) {
  *scaled = 0;
  if (!want_rank(L, ia, 2, "self must be a matrix") || !want_rank(L, ib, 2, "mat2 must be a matrix")) return -1;
  *dt = check_pair(L, ia, ib, "mat1 and mat2", 1);
  if (*dt == TT_DTYPE_INVALID) return -1;
  const int64_t *a = tt_l_arg_sizes(L, ia), *b = tt_l_arg_sizes(L, ib);
  if (a[1] != b[0])
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     (long long)a[0], (long long)a[1], (long long)b[0], (long long)b[1]);
  if (refuse_bool(L, *dt)) return -1;
  *scaled = ialpha >= 0 && tt_dtype_is_complex(*dt) && b[1] > 1 && a[1] > 0 && !scalar_is(L, ialpha, 1.0, *dt);
  int64_t lc = 1, rc = 0;
  return contract_scaled(L, ia, ib, *scaled ? ialpha : -1, *dt, 0, NULL, NULL, 1, &lc, &rc);
}

static tt_val_t mm_prod(tt_lower_t *L, int ia, int ib, tt_dtype_t *dt) {
  int scaled;
  return mm_prod_scaled(L, ia, ib, -1, &scaled, dt);
}

/* CPU's mm/bmm/mv return zeros without running their kernel when the
 * product is empty or its contraction is (k == 0): no Bool refusal then,
 * and bmm, whose dtype check is in its kernel, takes batch2's type
 * (bmm(int32 (2, 0, 1), int16 (2, 1, 7)) is an empty int16). Outputs the
 * zeros and returns 1 in those cases; 0 leaves the op to its usual path.
 * ra/rb: the operands' ranks (2/2 mm, 3/3 bmm, 2/1 mv). */
static int trivial_product(tt_lower_t *L, int ia, int ib, int ra, int rb) {
  if (tt_l_arg_rank(L, ia) != ra || tt_l_arg_rank(L, ib) != rb) return 0;
  tt_dtype_t a = tt_l_arg_dtype(L, ia), b = tt_l_arg_dtype(L, ib);
  if (a == b ? a != TT_BOOL : ra != 3) return 0;
  const int64_t *sa = tt_l_arg_sizes(L, ia), *sb = tt_l_arg_sizes(L, ib);
  int64_t dims[3], k;
  int nd;
  if (ra == 3) {
    if (sa[0] != sb[0] || sa[2] != sb[1]) return 0;
    dims[0] = sa[0], dims[1] = sa[1], dims[2] = sb[2], k = sa[2], nd = 3;
  } else {
    if (sa[1] != sb[0]) return 0;
    dims[0] = sa[0], dims[1] = rb == 2 ? sb[1] : 1, k = sa[1], nd = rb;
  }
  int64_t numel = 1;
  for (int i = 0; i < nd; i++) numel *= dims[i];
  if (numel != 0 && k != 0) return 0;
  tt_l_output(L, tt_b_full_i(L->g, b, nd, dims, 0));
  return 1;
}

static tt_status_t lower_mm(tt_lower_t *L) {
  if (trivial_product(L, 0, 1, 2, 2)) return NULL;
  tt_dtype_t dt;
  tt_val_t p = mm_prod(L, 0, 1, &dt);
  if (p >= 0) tt_l_output(L, tt_b_convert(L->g, p, dt));
  return NULL;
}

/* addmm/baddbmm of Bool matrices: CPU's kernel refuses Bool, but it is not
 * reached where the result is empty (returned as is) or the contraction is
 * (k == 0: result = self * beta; zeros for a zero beta; a number beta other
 * than a bool makes mul_'s result Long/Float/ComplexFloat, which CPU's cast
 * into Bool refuses). 1 when the call is handled here (result or error);
 * 0 leaves it to the usual path and its checks. */
static int bool_trivial_add(tt_lower_t *L, int batched) {
  int r = batched ? 3 : 2;
  if (tt_l_arg_rank(L, 1) != r || tt_l_arg_rank(L, 2) != r) return 0;
  if (tt_l_arg_dtype(L, 1) != TT_BOOL || tt_l_arg_dtype(L, 2) != TT_BOOL) return 0;
  const int64_t *a = tt_l_arg_sizes(L, 1), *b = tt_l_arg_sizes(L, 2);
  int64_t dims[3], k;
  if (batched) {
    if (a[0] != b[0] || a[2] != b[1]) return 0;
    dims[0] = a[0], dims[1] = a[1], dims[2] = b[2], k = a[2];
  } else {
    if (a[1] != b[0]) return 0;
    dims[0] = a[0], dims[1] = b[1], k = a[1];
  }
  int64_t numel = 1;
  for (int i = 0; i < r; i++) numel *= dims[i];
  if (numel != 0 && k != 0) return 0;
  if (!check_self(L, 0, r, dims, TT_BOOL)) return 1;
  const tt_arg_t *beta = 3 < L->nargs ? &L->args[3] : NULL;
  int kind = beta ? beta->kind : TT_ARG_NONE;
  int zero = kind == TT_ARG_INT || kind == TT_ARG_BOOL ? beta->i == 0
             : kind == TT_ARG_FLOAT ? beta->f == 0.0
             : kind == TT_ARG_COMPLEX ? beta->f == 0.0 && beta->f_im == 0.0 : 0;
  if (numel == 0 || zero) {
    tt_l_output(L, tt_b_full_i(L->g, TT_BOOL, r, dims, 0));
    return 1;
  }
  if (kind == TT_ARG_BOOL) { /* self * True */
    tt_l_output(L, tt_op_operand(L, 0, TT_BOOL, r, dims));
    return 1;
  }
  tt_l_fail(L, TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type Bool",
            kind == TT_ARG_FLOAT ? "Float" : kind == TT_ARG_COMPLEX ? "ComplexFloat" : "Long");
  return 1;
}

/* addmm(self, mat1, mat2, *, beta, alpha) */
static tt_status_t lower_addmm(tt_lower_t *L) {
  if (bool_trivial_add(L, 0)) return NULL;
  tt_dtype_t dt;
  int scaled;
  tt_val_t p = mm_prod_scaled(L, 1, 2, 4, &scaled, &dt);
  if (p < 0) return NULL;
  return finish_add(L, 0, 3, scaled ? -1 : 4, p, dt, ADD_ONCE, tt_l_arg_sizes(L, 1)[1]);
}

/* CPU's batch_items_contiguous_or_transposed of a 3-D view: each matrix
 * row-major or column-major (a size-1 dim's stride does not count). */
static int contiguous_or_transposed(const tt_view_t *v) {
  const int64_t *s = v->sizes, *st = v->strides;
  return (st[2] == 1 && (s[1] == 1 || st[1] >= s[2])) || (st[1] == 1 && (s[2] == 1 || st[2] >= s[1]));
}

/* bmm/baddbmm past CPU's small-product loop (rows * cols * contraction of one
 * matrix >= 400, bmm_out_or_baddbmm_): the result (batch2's dtype) decides.
 * A float32/float64/complex one whose batches are each contiguous or
 * transposed goes to MKL's gemm, which reads batch1 as the result's type
 * ('expected scalar type ComplexDouble but found Bool', fuzz 571:1365);
 * otherwise each batch is an addmm (bmm: addmm_impl_cpu_'s 'expected m1 and
 * m2 to have the same dtype, but got: int != bool'; baddbmm: addmm_'s meta
 * 'mat1 and mat2 must have the same dtype, but got Int and Bool'), whose
 * kernel refuses Bool by its own name. 1 after the error. */
static int large_bmm_checks(tt_lower_t *L, int ia, int ib, tt_dtype_t da, tt_dtype_t db) {
  if (da == db) {
    if (da != TT_BOOL) return 0;
    tt_l_refuse_dtype(L, TT_BOOL, "addmm_impl_cpu_");
    return 1;
  }
  /* (a fresh result is contiguous; in place, self's dtype is batch1's and
   * another batch2 was baddbmm_'s 'Bad in-place call' before) */
  const tt_tensor_ref_t *ra = tt_l_ref(L, ia), *rb = tt_l_ref(L, ib);
  int gemm = (db == TT_F32 || db == TT_F64 || db == TT_C64 || db == TT_C128) && ra && rb &&
             contiguous_or_transposed(&ra->view) && contiguous_or_transposed(&rb->view);
  if (gemm)
    tt_l_fail(L, TT_INVALID_ARGUMENT, "expected scalar type %s but found %s", tt_op_type_name(db), tt_op_type_name(da));
  else if (!strcmp(L->op, "bmm"))
    tt_l_fail(L, TT_INVALID_ARGUMENT, "expected m1 and m2 to have the same dtype, but got: %s != %s",
              tt_op_typemeta_name(da), tt_op_typemeta_name(db));
  else
    tt_l_fail(L, TT_INVALID_ARGUMENT, "mat1 and mat2 must have the same dtype, but got %s and %s", tt_op_type_name(da),
              tt_op_type_name(db));
  return 1;
}

static tt_val_t bmm_prod(tt_lower_t *L, int ia, int ib, tt_dtype_t *dt) {
  if (!want_rank(L, ia, 3, "batch1 must be a 3D tensor") || !want_rank(L, ib, 3, "batch2 must be a 3D tensor"))
    return -1;
  /* CPU's words: addbmm's own checks; bmm/baddbmm's common meta check of both dims */
  int addbmm = !strncmp(L->op, "addbmm", 6);
  /* bmm/baddbmm: CPU's meta checks the sizes, then its kernel dispatches on
   * batch1's type (Bool refused) before it finds batch2's another */
  tt_dtype_t da = tt_l_arg_dtype(L, ia), db = tt_l_arg_dtype(L, ib);
  int late = !addbmm && da != db && da != TT_DTYPE_INVALID && db != TT_DTYPE_INVALID;
  *dt = late ? da : check_pair(L, ia, ib, "batch1 and batch2", 1);
  if (*dt == TT_DTYPE_INVALID) return -1;
  const int64_t *a = tt_l_arg_sizes(L, ia), *b = tt_l_arg_sizes(L, ib);
  if (addbmm && a[0] != b[0])
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "batch1 and batch2 must have same number of batches, got %lld and %lld",
                     (long long)a[0], (long long)b[0]);
  if (addbmm && a[2] != b[1])
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "Incompatible matrix sizes for bmm (%lldx%lld and %lldx%lld)",
                     (long long)a[1], (long long)a[2], (long long)b[1], (long long)b[2]);
  if (a[0] != b[0] || a[2] != b[1])
    return tt_l_fail(L, TT_INVALID_ARGUMENT,
                     "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                     (long long)a[0], (long long)a[2], (long long)b[0], (long long)b[1]);
  if (!addbmm && a[1] * a[2] * b[2] >= 400) {
    if (large_bmm_checks(L, ia, ib, da, db)) return -1;
  } else {
    if (refuse_bool(L, *dt)) return -1;
    if (late)
      return tt_l_fail(L, TT_INVALID_ARGUMENT, "expected scalar type %s but found %s", tt_op_type_name(da),
                       tt_op_type_name(db));
  }
  int64_t bd = 0, lc = 2, rc = 1;
  return contract(L, ia, ib, *dt, 1, &bd, &bd, 1, &lc, &rc);
}

static tt_status_t lower_bmm(tt_lower_t *L) {
  if (trivial_product(L, 0, 1, 3, 3)) return NULL;
  tt_dtype_t dt;
  tt_val_t p = bmm_prod(L, 0, 1, &dt);
  if (p >= 0) tt_l_output(L, tt_b_convert(L->g, p, dt));
  return NULL;
}

/* baddbmm with an empty result: CPU's kernel returns before its dtype check
 * of batch1 against batch2, the result in batch2's dtype (its meta's
 * options): fuzz 132:292, 137:1196, 138:778 (int32 batch1, float32 batch2). */
static int empty_baddbmm(tt_lower_t *L) {
  if (tt_l_arg_rank(L, 1) != 3 || tt_l_arg_rank(L, 2) != 3 || tt_l_arg_dtype(L, 1) == tt_l_arg_dtype(L, 2)) return 0;
  const int64_t *sa = tt_l_arg_sizes(L, 1), *sb = tt_l_arg_sizes(L, 2);
  int64_t dims[3] = {sa[0], sa[1], sb[2]};
  tt_dtype_t dt = tt_l_arg_dtype(L, 2);
  if (sa[0] != sb[0] || sa[2] != sb[1]) return 0;
  if (dims[0] * dims[1] * dims[2] == 0) {
    tt_l_output(L, tt_b_full_i(L->g, dt, 3, dims, 0));
    return 1;
  }
  /* an empty contraction: zeros (beta 0), or self copied into the result
   * and multiplied by beta (CPU's result.mul_(beta)) */
  if (sa[2] != 0 || tt_l_arg_dtype(L, 0) != tt_l_arg_dtype(L, 1)) return 0;
  /* beta as CPU reads it: compared with 0 as a complex double (0.5 is no zero
   * beta for an integral result), else result.mul_(beta), whose Long, Float
   * or ComplexFloat result a Bool, integral or real result refuses */
  const tt_arg_t *b = tt_l_is_none(L, 3) ? NULL : &L->args[3];
  int kind = b ? b->kind : TT_ARG_INT;
  double re = !b ? 1.0 : kind == TT_ARG_FLOAT || kind == TT_ARG_COMPLEX ? b->f : (double)b->i;
  double im = b && kind == TT_ARG_COMPLEX ? b->f_im : 0.0;
  if (kind != TT_ARG_INT && kind != TT_ARG_BOOL && kind != TT_ARG_FLOAT && kind != TT_ARG_COMPLEX) return 0;
  int beta0 = re == 0.0 && im == 0.0, beta1 = re == 1.0 && im == 0.0;
  const char *promoted = kind == TT_ARG_COMPLEX && !tt_dtype_is_complex(dt)
                             ? (dt == TT_F16 ? "ComplexHalf" : dt == TT_F64 ? "ComplexDouble" : "ComplexFloat")
                         : kind == TT_ARG_FLOAT && !tt_dtype_is_float(dt) && !tt_dtype_is_complex(dt) ? "Float"
                         : kind == TT_ARG_INT && dt == TT_BOOL ? "Long" : NULL;
  if (!beta0 && promoted) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type %s", promoted,
              tt_op_type_name(dt));
    return 1;
  }
  /* a floating self copied into an integral result is C's undefined
   * conversion for out-of-range values (x86 wraps -5 to 251, XLA saturates:
   * fuzz 140:428): left to the dtype error rather than a different answer;
   * a zero beta reads no self (fuzz 351:1063: bfloat16 self, int64 batch2) */
  tt_dtype_t st = tt_l_arg_dtype(L, 0);
  if (!beta0 && (tt_dtype_is_float(st) || tt_dtype_is_complex(st)) && !tt_dtype_is_float(dt) && !tt_dtype_is_complex(dt))
    return 0;
  if (beta0) {
    tt_l_output(L, tt_b_full_i(L->g, dt, 3, dims, 0));
    return 1;
  }
  /* self copied into the result's type, then times beta as finish_add's k = 0 */
  tt_val_t out = tt_op_fit(L, tt_l_tensor(L, 0), dt, 3, dims);
  if (!beta1) {
    tt_dtype_t ct = compute_type(dt);
    out = tt_b_binary(L->g, TT_BIN_MUL, tt_b_convert(L->g, out, ct), scalar_in(L, 3, dt, 1, 3, dims));
    out = tt_b_convert(L->g, out, dt);
  }
  tt_l_output(L, out);
  return 1;
}

/* CPU's baddbmm compares self's dtype with batch1's once self expands to the
 * result's shape, before the batches' sizes, an empty result and the kernel's
 * own checks (baddbmm(float32, int32, int32): 'Input dtypes must be the same,
 * got: input float, batch1: int, batch2: int'). 1 after that error. */
static int baddbmm_input_dtypes(tt_lower_t *L) {
  const tt_tensor_ref_t *self = tt_l_ref(L, 0);
  if (!self || tt_l_arg_rank(L, 1) != 3 || tt_l_arg_rank(L, 2) != 3) return 0;
  tt_dtype_t s = self->dtype, a = tt_l_arg_dtype(L, 1), b = tt_l_arg_dtype(L, 2);
  if (b == TT_DTYPE_INVALID) return 0;
  const int64_t *sa = tt_l_arg_sizes(L, 1), *sb = tt_l_arg_sizes(L, 2);
  if (s == a) { /* in place, the result (batch2's options in CPU's meta) must be self's type */
    if (!L->inplace || s == b || sa[0] != sb[0] || sa[2] != sb[1]) return 0;
    tt_l_fail(L, TT_INVALID_ARGUMENT, "Bad in-place call: input tensor dtype %s and output tensor dtype %s should match",
              tt_op_typemeta_name(s), tt_op_typemeta_name(b));
    return 1;
  }
  int64_t dims[3] = {sa[0], sa[1], sb[2]};
  int sr = self->view.rank;
  if (sr > 3) return 0;
  for (int i = 0; i < sr; i++)
    if (self->view.sizes[i] != dims[3 - sr + i] && self->view.sizes[i] != 1) return 0; /* expand's error */
  tt_l_fail(L, TT_INVALID_ARGUMENT, "Input dtypes must be the same, got: input %s, batch1: %s, batch2: %s",
            tt_op_typemeta_name(s), tt_op_typemeta_name(a), tt_op_typemeta_name(b));
  return 1;
}

static tt_status_t lower_baddbmm(tt_lower_t *L) {
  if (baddbmm_input_dtypes(L) || bool_trivial_add(L, 1) || empty_baddbmm(L)) return NULL;
  tt_dtype_t dt;
  tt_val_t p = bmm_prod(L, 1, 2, &dt);
  if (p < 0) return NULL;
  return finish_add(L, 0, 3, 4, p, dt, ADD_ONCE, tt_l_arg_sizes(L, 1)[2]);
}

/* Most batches addbmm accumulates one at a time for bf16/f16; past this the
 * graph would grow too large and the sum is rounded once instead. */
#define ADDBMM_MAX_STEPS 512

/* addbmm: CPU runs result.addmm_(batch1[b], batch2[b], beta_b, alpha) per
 * batch (beta_b = beta, then 1), so bf16/f16 results are rounded after every
 * batch; other dtypes contract the batch dim along with k in one dot. */
static tt_status_t lower_addbmm(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t p = bmm_prod(L, 1, 2, &dt);
  if (p < 0) return NULL;
  const int64_t *a = tt_l_arg_sizes(L, 1);
  int64_t nb = a[0], k = a[2];
  tt_dtype_t ct = compute_type(dt);
  if (ct == dt || !tt_dtype_is_float(dt) || nb <= 1 || k == 0 || nb > ADDBMM_MAX_STEPS) {
    int64_t ax = 0;
    p = nb == 0 ? tt_b_full_f(L->g, ct, 2, (int64_t[]){a[1], tt_l_arg_sizes(L, 2)[2]}, 0.0)
                : tt_b_reduce(L->g, TT_RED_SUM, p, 1, &ax);
    return finish_add(L, 0, 3, 4, p, dt, ADD_ONCE, nb == 0 ? 0 : k);
  }
  tt_graph_t *g = L->g;
  const tt_type_t *pt = tt_graph_type(g, p);
  int64_t dims[2] = {pt->dims[1], pt->dims[2]};
  if (!check_self(L, 0, 2, dims, dt)) return NULL;
  tt_val_t alpha = scalar_is(L, 4, 1.0, dt) ? -1 : scalar_in(L, 4, dt, 0, 2, dims);
  tt_val_t r = -1;
  if (!scalar_is(L, 3, 0.0, dt)) {
    r = tt_op_fit(L, tt_l_tensor(L, 0), ct, 2, dims);
    if (!scalar_is(L, 3, 1.0, dt)) r = tt_b_binary(g, TT_BIN_MUL, r, scalar_in(L, 3, dt, 0, 2, dims));
  }
  for (int64_t b = 0; b < nb; b++) {
    tt_val_t pb = tt_b_reshape(g, tt_b_slice_dim(g, p, 0, b, b + 1, 1), 2, dims);
    if (alpha >= 0) pb = tt_b_binary(g, TT_BIN_MUL, pb, alpha);
    r = round_to(L, r < 0 ? pb : tt_b_binary(g, TT_BIN_ADD, r, pb), dt);
  }
  tt_l_output(L, tt_b_convert(g, r, dt));
  return NULL;
}

static tt_val_t mv_prod(tt_lower_t *L, int ia, int ib, tt_dtype_t *dt) {
  int ra = tt_l_arg_rank(L, ia), rb = tt_l_arg_rank(L, ib);
  if (ra != 2 || rb != 1)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "vector + matrix @ vector expected, got 1, %d, %d", ra, rb);
  *dt = check_pair(L, ia, ib, "mat and vec", 1);
  if (*dt == TT_DTYPE_INVALID) return -1;
  const int64_t *a = tt_l_arg_sizes(L, ia), *b = tt_l_arg_sizes(L, ib);
  if (a[1] != b[0])
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                     (long long)a[0], (long long)a[0], (long long)a[1], (long long)b[0]);
  if (refuse_bool(L, *dt)) return -1;
  int64_t lc = 1, rc = 0;
  return contract(L, ia, ib, *dt, 0, NULL, NULL, 1, &lc, &rc);
}

static tt_status_t lower_mv(tt_lower_t *L) {
  if (trivial_product(L, 0, 1, 2, 1)) return NULL;
  tt_dtype_t dt;
  tt_val_t p = mv_prod(L, 0, 1, &dt);
  if (p >= 0) tt_l_output(L, tt_b_convert(L->g, p, dt));
  return NULL;
}

static tt_status_t lower_addmv(tt_lower_t *L) {
  tt_dtype_t dt;
  tt_val_t p = mv_prod(L, 1, 2, &dt);
  if (p < 0) return NULL;
  return finish_add(L, 0, 3, 4, p, dt, ADD_GEMV, tt_l_arg_sizes(L, 1)[1]);
}

/* addr(self, vec1, vec2, *, beta, alpha): CPU's addr kernel computes
 * beta * self + (alpha * vec1) * vec2 elementwise in the tensor's dtype, so
 * bf16/f16 round after every multiply and the add; bool uses and/or. */
static tt_status_t lower_addr(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  for (int i = 1; i <= 2; i++)
    if (tt_l_arg_rank(L, i) != 1)
      return tt_status_make(TT_INVALID_ARGUMENT, "addr: Expected 1-D argument vec%d, but got %d-D", i,
                            tt_l_arg_rank(L, i));
  int argi[3] = {0, 1, 2};
  tt_dtype_t dt = tt_op_result_type(L, argi, 3);
  for (int i = 3; i <= 4; i++) {
    if (i >= L->nargs) break;
    const char *nm = i == 3 ? "beta" : "alpha";
    if (L->args[i].kind == TT_ARG_BOOL && dt != TT_BOOL)
      return tt_status_make(TT_INVALID_ARGUMENT, "Boolean %s only supported for Boolean results.", nm);
    if (L->args[i].kind == TT_ARG_FLOAT && !tt_dtype_is_float(dt))
      return tt_status_make(TT_INVALID_ARGUMENT,
                            "For integral input tensors, argument %s must not be a floating point number.", nm);
  }
  int64_t dims[2] = {tt_l_arg_sizes(L, 1)[0], tt_l_arg_sizes(L, 2)[0]};
  const tt_tensor_ref_t *self = tt_l_ref(L, 0);
  if (!self) return tt_status_make(TT_TYPE_ERROR, "addr: self must be a Tensor");
  int sr = self->view.rank, ok = sr <= 2;
  for (int i = 0; ok && i < sr; i++) ok = self->view.sizes[i] == dims[2 - sr + i] || self->view.sizes[i] == 1;
  if (!ok)
    return tt_status_make(TT_INVALID_ARGUMENT, "The size of tensor a must match the size of tensor b: self of rank %d "
                          "cannot be broadcast to [%lld, %lld]", sr, (long long)dims[0], (long long)dims[1]);
  tt_dtype_t ct = compute_type(dt);
  int64_t col[2] = {dims[0], 1}, row[2] = {1, dims[1]};
  tt_val_t v1 = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 1), ct), 2, col);
  tt_val_t v2 = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 2), ct), 2, row);
  v1 = tt_b_broadcast_to(g, v1, 2, dims);
  v2 = tt_b_broadcast_to(g, v2, 2, dims);
  int beta0 = scalar_is(L, 3, 0.0, dt);
  tt_val_t out;
  if (dt == TT_BOOL) {
    out = tt_b_binary(g, TT_BIN_AND, v1, v2);
    out = tt_b_binary(g, TT_BIN_AND, out, scalar_in(L, 4, dt, 0, 2, dims));
    if (!beta0) {
      tt_val_t s = tt_op_fit(L, tt_l_tensor(L, 0), ct, 2, dims);
      out = tt_b_binary(g, TT_BIN_OR, tt_b_binary(g, TT_BIN_AND, s, scalar_in(L, 3, dt, 0, 2, dims)), out);
    }
  } else {
    out = round_to(L, tt_b_binary(g, TT_BIN_MUL, scalar_in(L, 4, dt, 1, 2, dims), v1), dt);
    out = round_to(L, tt_b_binary(g, TT_BIN_MUL, out, v2), dt);
    if (!beta0) {
      tt_val_t s = tt_op_fit(L, tt_l_tensor(L, 0), ct, 2, dims);
      s = round_to(L, tt_b_binary(g, TT_BIN_MUL, scalar_in(L, 3, dt, 1, 2, dims), s), dt);
      out = tt_b_binary(g, TT_BIN_ADD, s, out);
    }
  }
  tt_l_output(L, tt_b_convert(g, out, dt));
  return NULL;
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
  tt_dtype_t dt = check_pair(L, 0, 1, "both vectors", 0);
  if (dt == TT_DTYPE_INVALID) return NULL;
  int64_t c = 0;
  tt_val_t p = contract(L, 0, 1, dt, 0, NULL, NULL, 1, &c, &c);
  tt_l_output(L, tt_b_convert(L->g, p, dt));
  return NULL;
}

const tt_op_def_t tt_ops_linalg[] = {
    {"mm", lower_mm, TT_OPF_COMPLEX},
    {"addmm", lower_addmm, TT_OPF_COMPLEX},
    {"addmm_", lower_addmm, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"bmm", lower_bmm, TT_OPF_COMPLEX},
    {"baddbmm", lower_baddbmm, TT_OPF_COMPLEX},
    {"baddbmm_", lower_baddbmm, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"addbmm", lower_addbmm, TT_OPF_COMPLEX},
    {"addbmm_", lower_addbmm, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"mv", lower_mv, TT_OPF_COMPLEX},
    {"addmv", lower_addmv, TT_OPF_COMPLEX},
    {"addmv_", lower_addmv, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"addr", lower_addr, 0},
    {"addr_", lower_addr, TT_OPF_INPLACE},
    {"dot", lower_dot, TT_OPF_COMPLEX},
    {"vdot", lower_dot, 0, .complex = tt_complex_vdot},
    {NULL, NULL, 0},
};
