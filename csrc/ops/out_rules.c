/* out= dtype rules of ATen out overloads, checked against CPU PyTorch 2.13
 * (each row's message is CPU's). Rows match the overload name exactly
 * ("sum.out"), a packet ("argmax": all its out overloads) or a prefix
 * ("upsample_*"); the first matching row wins, so specific rows come first.
 * An overload no row names follows TensorIterator's canCast rule. */
#include "ops/out_rules.h"

#include <stdio.h>
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"

int tt_op_can_cast(tt_dtype_t from, tt_dtype_t to) {
  if (tt_dtype_is_complex(from) && !tt_dtype_is_complex(to)) return 0;
  if (tt_dtype_is_float(from) && !tt_dtype_is_float(to) && !tt_dtype_is_complex(to)) return 0;
  if (from != TT_BOOL && to == TT_BOOL) return 0;
  return 1;
}

typedef enum {
  R_CAST,        /* canCast(result, out); message fmt or TensorIterator's */
  R_CAST_FROM_OUT, /* computes in out's dtype (dtype= None), then R_CAST */
  R_EXACT,       /* out == result */
  R_BOOL,        /* out is bool */
  R_BOOL_OR_U8,  /* all/any */
  R_FLOAT,       /* out is floating or complex (logsumexp_out's only check) */
  R_NO_BOOL,     /* computes in out's dtype, whose Bool has no CPU kernel: refused by the op's lowering
                  * (fmt: the kernel's name) where the kernel runs, then R_CAST */
  R_SEARCHSORTED, /* out == result (int32 or int64 by out_int32) */
  R_NANSUM       /* a float input's nansum has no kernel in an integral, bool or complex out's type (fmt: the kernel's name) */
} rule_kind_t;

/* How a message names the two types, and in which order. */
typedef enum { N_PT, N_CPP, N_LEGACY } names_t;
typedef enum { A_RO, A_OR, A_O, A_NONE, A_ORR } args_t;

typedef struct {
  const char *pat;
  int k; /* output number, -1 for every output */
  rule_kind_t kind;
  const char *fmt; /* NULL: the kind's usual message; R_NO_BOOL, R_NANSUM: the refusing CPU kernel */
  names_t names;
  args_t args;
  tt_code_t code; /* the error's class (TT_INVALID_ARGUMENT: RuntimeError) */
  /* "lower into out's dtype": a core op computing the overload as its CPU
   * kernel does where part of it runs in out's type (not the functional
   * result cast into out), taking the functional's arguments and out's dtype
   * last; NULL for the other rows (tt_op_out_into) */
  const char *into;
  /* R_CAST_FROM_OUT only where the input and out are both floating or
   * complex (mean: an integral input raises, an integral out is the cast
   * rule's error) */
  int from_out_floating;
  /* CPU's meta function checks out's dtype before the dims (amax/amin
   * against the input's dtype, any/all for bool or uint8): where PyTorch's
   * meta kernel raises (a dim out of range), out's dtype is still checked
   * first (tt_op_out_dtype_before_dims) */
  int before_dims;
  /* an empty real input runs no kernel, so no refusal of out's dtype
   * (nansum: tt_op_out_unchecked_if_empty) */
  int empty_unchecked;
  /* the argument whose result_type with the first input is CPU's result
   * dtype where PyTorch's Python meta kernel says otherwise
   * (tt_op_out_result_with); NULL for the other rows */
  const char *result_with;
  /* where argument number zero_dim_arg (> 0) is a 0-dim tensor, the rule of
   * overload zero_dim_rule applies instead (tt_op_out_rule_if_0dim) */
  int zero_dim_arg;
  const char *zero_dim_rule;
  /* CPU's message where the input's dtype must cast into out's before
   * anything else is checked (tt_op_check_out_input); NULL for the others */
  const char *input_cast;
  /* CPU's refusal (fmt: its dtype) of a dtype= argument neither floating nor
   * complex, made before that argument is compared with out's dtype
   * (tt_op_check_out_dtype_arg); NULL for the others */
  const char *dtype_arg_floating;
  /* CPU's words (fmt: out's dtype, then dtype=) where a floating input's dtype= must be
   * out's dtype, checked before the dims (nansum_out's
   * get_dtype_from_result); an integral or bool input (or dtype=) takes
   * integral_rule's rules instead (nansum_out calls sum_out) */
  const char *dtype_arg_first;
  const char *integral_rule;
  /* CPU checks an empty input's reduced dim (zero_numel_check_dims' IndexError)
   * before out's dtype, which PyTorch's meta kernel does not: for an empty
   * input the rule waits for the call (tt_op_out_empty_first) */
  int empty_first;
} out_rule_t;

/* The structured-kernel check of non-TensorIterator ops (set_output). */
#define EXACT_TM "Expected out tensor to have dtype %s, but got %s instead"
/* TensorIterator with check_all_same_dtype (unary ops that keep the type). */
#define FOUND "Found dtype %s but expected %s"
/* mean's meta function on a dtype= it cannot compute in */
#define MEAN_DTYPE "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: %s"
#define EX(p) {p, -1, R_EXACT, EXACT_TM, N_CPP, A_RO, TT_INVALID_ARGUMENT}
#define FD(p) {p, -1, R_EXACT, FOUND, N_PT, A_OR, TT_INVALID_ARGUMENT}
/* The same where PyTorch's meta kernel refuses a dtype CPU's kernel refuses
 * only after the iterator's check (fuzz 532:388: frac(bool, out=complex128)
 * is 'Found dtype ComplexDouble but expected Bool', not '"frac_cpu" not
 * implemented for 'Bool''): checked against the input's type all the same */
#define FDB(p) {p, -1, R_EXACT, FOUND, N_PT, A_OR, TT_INVALID_ARGUMENT, .before_dims = 1}

static const out_rule_t rules[] = {
    /* reductions: computing in out's dtype (dim given), or exact (no dim) */
    {"sum.IntList_out", -1, R_CAST_FROM_OUT, NULL, N_PT, A_RO, TT_INVALID_ARGUMENT},
    {"prod.int_out", -1, R_CAST_FROM_OUT, NULL, N_PT, A_RO, TT_INVALID_ARGUMENT},
    /* mean into out takes out's dtype as its dtype (CPU: mean(x, out=o) is
     * mean(x, dtype=o.dtype): a float64 x into float16 sums x converted to
     * float32, where finfo.max is inf: [max, -max, 1, 2] is NaN, not the
     * float64 mean rounded, fuzz 324:1453) */
    {"mean.out", -1, R_CAST_FROM_OUT, NULL, N_PT, A_RO, TT_INVALID_ARGUMENT, .from_out_floating = 1,
     .dtype_arg_floating = MEAN_DTYPE},
    /* mean over every dim (mean_dtype_out) checks canCast(self, out) first:
     * mean(complex128, out=float32) is refused (fuzz 420:1403; mean.out
     * over a dim takes the real parts) */
    {"mean.dtype_out", -1, R_CAST_FROM_OUT, NULL, N_PT, A_RO, TT_INVALID_ARGUMENT, .from_out_floating = 1,
     .input_cast = "mean.dtype_out(): input types can't be cast to the desired output type %s",
     .dtype_arg_floating = MEAN_DTYPE},
    {"cumsum", -1, R_NO_BOOL, "cumsum_out_cpu", N_PT, A_NONE, TT_NOT_IMPLEMENTED},
    {"cumprod", -1, R_NO_BOOL, "cumprod_out_cpu", N_PT, A_NONE, TT_NOT_IMPLEMENTED},
    EX("sum.out"), EX("prod.out"),
    /* all(x, dim=3, out=int32) is CPU's out error, not the IndexError */
    {"all", -1, R_BOOL_OR_U8, "all only supports bool tensor for result, got: %s", N_PT, A_O, TT_INVALID_ARGUMENT,
     .before_dims = 1},
    {"any", -1, R_BOOL_OR_U8, "any only supports bool tensor for result, got: %s", N_PT, A_O, TT_INVALID_ARGUMENT,
     .before_dims = 1},
    /* logsumexp_out sums the exp terms and takes their log in out's type
     * (a complex self's terms by their real parts, into a real out); it checks out's dtype first, before the dims (fuzz 413:14:
     * logsumexp(int32, 2, out=int32) is that error, not the IndexError) */
    {"logsumexp", -1, R_FLOAT, "logsumexp(): Expected floating point type for result tensor, but got: %s", N_PT, A_O,
     TT_INVALID_ARGUMENT, "_tt_logsumexp_into", .before_dims = 1},
    /* fuzz 333:162: amin(int16, dim=2, out=float64) is CPU's dtype error, not
     * the IndexError; 338:302: not the empty-dim one */
    {"amax", -1, R_EXACT, "Expected the dtype for input and out to match, but got %s for input's dtype and %s for out's dtype.", N_PT, A_RO, TT_INVALID_ARGUMENT,
     .before_dims = 1},
    {"amin", -1, R_EXACT, "Expected the dtype for input and out to match, but got %s for input's dtype and %s for out's dtype.", N_PT, A_RO, TT_INVALID_ARGUMENT,
     .before_dims = 1},
    {"cholesky_inverse", -1, R_CAST, "cholesky_inverse: Expected result to be safely castable from %s dtype, but got result with dtype %s", N_PT, A_RO, TT_INVALID_ARGUMENT},
    /* concatenation: canCast with its own message */
    {"cat", -1, R_CAST, "torch.cat(): input types can't be cast to the desired output type %s", N_PT, A_O, TT_TYPE_ERROR},
    {"concat", -1, R_CAST, "torch.cat(): input types can't be cast to the desired output type %s", N_PT, A_O, TT_TYPE_ERROR},
    {"concatenate", -1, R_CAST, "torch.cat(): input types can't be cast to the desired output type %s", N_PT, A_O, TT_TYPE_ERROR},
    {"stack", -1, R_CAST, "torch.cat(): input types can't be cast to the desired output type %s", N_PT, A_O, TT_TYPE_ERROR},
    /* ops with their own exact-dtype messages */
    {"where", -1, R_EXACT, "Expected out type to be %s but got %s", N_PT, A_RO, TT_INVALID_ARGUMENT},
    {"dot", -1, R_EXACT, "result dtype %s does not match input dtype %s", N_PT, A_OR, TT_INVALID_ARGUMENT},
    {"vdot", -1, R_EXACT, "result dtype %s does not match input dtype %s", N_PT, A_OR, TT_INVALID_ARGUMENT},
    {"nonzero", -1, R_EXACT, "nonzero: Expected out tensor to have scalar type Long but got scalar type%s", N_PT, A_O, TT_INVALID_ARGUMENT},
    {"masked_select", -1, R_EXACT, "masked_select(): self and result must have the same scalar type", N_PT, A_NONE, TT_INVALID_ARGUMENT},
    {"index_select", -1, R_EXACT, "index_select(): self and result must have the same scalar type", N_PT, A_NONE, TT_INVALID_ARGUMENT},
    {"index.Tensor_out", -1, R_EXACT, "index_out: self (%s) and result (%s) must have the same scalar type", N_PT, A_RO, TT_INVALID_ARGUMENT},
    /* take_out checks out's dtype before an empty self (fuzz 667:1158) */
    {"take", -1, R_EXACT, "take(): self and out expected to have the same dtype, but got self.dtype = %s and out.dtype = %s", N_PT, A_RO, TT_INVALID_ARGUMENT,
     .before_dims = 1},
    /* cummax_out checks values' and indices' dtypes before it wraps the dim
     * (fuzz 502:95: cummax(complex64 (3, 1), 3, out=(float16, int32)) is
     * 'expected scalar_type ComplexFloat but found Half', not the IndexError) */
    {"cummax", -1, R_EXACT, "expected scalar_type %s but found %s", N_PT, A_RO, TT_INVALID_ARGUMENT, .before_dims = 1},
    {"cummin", -1, R_EXACT, "expected scalar_type %s but found %s", N_PT, A_RO, TT_INVALID_ARGUMENT, .before_dims = 1},
    {"kthvalue", 0, R_EXACT, "output values must be of same type as input", N_PT, A_NONE, TT_INVALID_ARGUMENT},
    {"kthvalue", 1, R_EXACT, "output indices must be of scalar type Long", N_PT, A_NONE, TT_INVALID_ARGUMENT},
    {"mode", 0, R_EXACT, "expected scalar type '%s' but got '%s' for values output", N_PT, A_RO, TT_INVALID_ARGUMENT},
    {"mode", 1, R_EXACT, "expected scalar type '%s' but got '%s' for indices output", N_PT, A_RO, TT_INVALID_ARGUMENT},
    {"median.dim_values", 0, R_EXACT, "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type %s does not equal %s (while checking arguments for median)", N_LEGACY, A_OR, TT_INVALID_ARGUMENT},
    {"median.dim_values", 1, R_EXACT, "Expected tensor for argument #1 'indices' to have scalar type Long; but got %s instead (while checking arguments for median)", N_LEGACY, A_O, TT_INVALID_ARGUMENT},
    {"nanmedian.dim_values", 0, R_EXACT, "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type %s does not equal %s (while checking arguments for median)", N_LEGACY, A_OR, TT_INVALID_ARGUMENT},
    {"nanmedian.dim_values", 1, R_EXACT, "Expected tensor for argument #1 'indices' to have scalar type Long; but got %s instead (while checking arguments for median)", N_LEGACY, A_O, TT_INVALID_ARGUMENT},
    {"histc", -1, R_EXACT, "torch.histogram: input tensor and hist tensor should have the same dtype, but got input %s and hist %s", N_CPP, A_RO, TT_INVALID_ARGUMENT},
    {"frexp", 0, R_EXACT, "torch.frexp() expects mantissa to have dtype %s but got %s", N_CPP, A_RO, TT_INVALID_ARGUMENT},
    {"frexp", 1, R_EXACT, "torch.frexp() expects exponent to have int dtype but got %s", N_CPP, A_O, TT_INVALID_ARGUMENT},
    {"polar", -1, R_EXACT, "Expected object of scalar type %s but got scalar type %s for argument 'out'", N_PT, A_RO, TT_INVALID_ARGUMENT},
    {"complex", -1, R_EXACT, "Expected object of scalar type %s but got scalar type %s for argument 'out'", N_PT, A_RO, TT_INVALID_ARGUMENT},
    {"nan_to_num", -1, R_EXACT, "nan_to_num: dtype of out: %s should be same as input: %s", N_PT, A_OR, TT_INVALID_ARGUMENT},
    {"multinomial", -1, R_EXACT, "multinomial expects Long tensor out, got: %s", N_PT, A_O, TT_INVALID_ARGUMENT},
    {"mv", -1, R_EXACT, "addmv input tensors must have the same dtype, but got %s, %s, and %s", N_PT, A_ORR, TT_INVALID_ARGUMENT},
    {"addbmm", -1, R_EXACT, "self and mat2 must have the same dtype, but got %s and %s", N_PT, A_OR, TT_INVALID_ARGUMENT},
    /* an empty real input is zeroed without the kernel (fuzz 356:897:
     * nansum(float32 [0], out=bool) is False on CPU) */
    {"nansum", -1, R_NANSUM, "nansum_cpu", N_PT, A_O, TT_NOT_IMPLEMENTED, .empty_unchecked = 1,
     .dtype_arg_first = "nansum: provided dtype must match dtype of result. Got %s and %s.",
     .integral_rule = "sum.IntList_out"},
    /* CPU's meta function takes result_type(self, exponent); PyTorch's Python
     * meta (torch._refs.pow, BOOL_TO_LONG) makes a bool base int64, so
     * pow(bool, True, out=bool) is bool (fuzz 345:33: tpu raised 'result
     * type Long can't be cast ... Bool') */
    {"pow.Tensor_Scalar_out", -1, R_CAST, NULL, N_PT, A_RO, TT_INVALID_ARGUMENT, .result_with = "exponent"},
    /* the same for a bool base with a bool tensor exponent, or a bool base
     * scalar: bool, whose pow kernel CPU lacks (fuzz 450:27: pow(bool, bool,
     * out=bool) is '"pow" not implemented for 'Bool'', tpu raised 'result type
     * Long can't be cast') */
    {"pow.Tensor_Tensor_out", -1, R_CAST, NULL, N_PT, A_RO, TT_INVALID_ARGUMENT, .result_with = "exponent"},
    {"pow.Scalar_out", -1, R_CAST, NULL, N_PT, A_RO, TT_INVALID_ARGUMENT, .result_with = "self"},
    {"searchsorted", -1, R_SEARCHSORTED, NULL, N_PT, A_O, TT_INVALID_ARGUMENT},
    {"bucketize", -1, R_SEARCHSORTED, NULL, N_PT, A_O, TT_INVALID_ARGUMENT},
    {"signbit", -1, R_BOOL, "signbit does not support non-boolean outputs.", N_PT, A_NONE, TT_INVALID_ARGUMENT},
    {"isposinf", -1, R_BOOL, "isposinf does not support non-boolean outputs.", N_PT, A_NONE, TT_INVALID_ARGUMENT},
    {"isneginf", -1, R_BOOL, "isneginf does not support non-boolean outputs.", N_PT, A_NONE, TT_INVALID_ARGUMENT},
    /* TensorIterator ops that keep their input's type (check_all_same_dtype) */
    FD("abs"), FD("conj_physical"), FD("neg"), FD("sign"), FD("sgn"), FD("ceil"), FD("floor"), FD("round"), FD("trunc"), FDB("frac"),
    FD("bitwise_not"), FD("clamp.out"), FD("clamp_min.out"), FD("clamp_max.out"), FDB("elu"), FD("gelu"),
    /* PyTorch's meta kernel makes a bool input's result int64; CPU's iterator keeps bool */
    {"hardshrink", -1, R_EXACT, FOUND, N_PT, A_OR, TT_INVALID_ARGUMENT, .result_with = "self"},
    FD("hardsigmoid"), FD("hardswish"), FD("hardtanh"), FDB("leaky_relu"), FD("mish"), FD("silu"), FD("softplus"),
    FD("softshrink"), FD("rrelu_with_noise"), FD("binary_cross_entropy"),
    /* a 0-dim weight lets out take the result by canCast, as lerp.Scalar_out
     * does (a float16 out of float32 inputs); any other weight makes the
     * iterator require one dtype ('Found dtype Half but expected Float') */
    {"lerp.Tensor_out", -1, R_EXACT, FOUND, N_PT, A_OR, TT_INVALID_ARGUMENT, .zero_dim_arg = 2,
     .zero_dim_rule = "lerp.Scalar_out"},
    /* fuzz 501:1162: min(complex64 (0,), -1, out=(float32, int64)) is CPU's
     * 'min(): Expected reduction dim 0 to have non-zero size.', not out's dtype error */
    {"max.dim_max", -1, R_EXACT, EXACT_TM, N_CPP, A_RO, TT_INVALID_ARGUMENT, .empty_first = 1},
    {"min.dim_min", -1, R_EXACT, EXACT_TM, N_CPP, A_RO, TT_INVALID_ARGUMENT, .empty_first = 1},
    /* structured and composite kernels without TensorIterator: exact dtype */
    EX("argmax"), EX("argmin"), EX("mm"), EX("bmm"), EX("addmm"), EX("baddbmm"), EX("addmv"),
    EX("sort"), EX("msort"), EX("topk"), EX("take_along_dim"), EX("gather"), EX("index_add"), EX("index_copy"),
    EX("index_fill"), EX("index_put"), EX("index_reduce"), EX("put"), EX("masked_fill"), EX("scatter"), EX("scatter_add"),
    EX("scatter_reduce"), EX("select_scatter"), EX("slice_scatter"), EX("diagonal_scatter"), EX("as_strided_scatter"),
    EX("aminmax"), EX("median.out"), EX("nanmedian.out"), EX("tril"), EX("triu"),
    EX("linalg_cross"), EX("renorm"), EX("_softmax"), EX("_log_softmax"), EX("linalg_vector_norm"), EX("norm"),
    EX("isin"), EX("isnan"), EX("isinf"), EX("clone"), EX("relu"), EX("count_nonzero"), EX("trace"), EX("__lshift__"),
    EX("__rshift__"), EX("rsub"), EX("_conj_physical"), EX("_pdist_forward"), EX("hardswish_backward"), EX("roll"),
    EX("flip"), EX("repeat"), EX("constant_pad_nd"), EX("bincount"), EX("unique_dim"), EX("std_mean"), EX("var_mean"),
    EX("linalg_inv_ex"), EX("linalg_solve_ex"), EX("_linalg_solve_ex"), EX("_linalg_det"), EX("linalg_qr"),
    EX("nll_loss_forward"), EX("nll_loss2d_forward"), EX("embedding_dense_backward"), EX("native_layer_norm"),
    EX("convolution"), EX("avg_pool2d"), EX("avg_pool3d"), EX("upsample_*"), EX("_upsample_*"),
};

static int row_matches(const char *pat, const char *name) {
  size_t n = strlen(pat);
  if (n && pat[n - 1] == '*') return !strncmp(pat, name, n - 1);
  if (strchr(pat, '.')) return !strcmp(pat, name);
  const char *dot = strchr(name, '.');
  size_t pn = dot ? (size_t)(dot - name) : strlen(name);
  return pn == n && !strncmp(pat, name, n);
}

static const out_rule_t *find_rule(const char *name, int k) {
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if ((rules[i].k < 0 || rules[i].k == k) && row_matches(rules[i].pat, name)) return &rules[i];
  return NULL;
}

/* caffe2::TypeMeta's names, as structured kernels print them. */
const char *tt_op_typemeta_name(tt_dtype_t dt) {
  switch (dt) {
    case TT_BOOL: return "bool";
    case TT_U8: return "unsigned char";
    case TT_I8: return "signed char";
    case TT_I16: return "short int";
    case TT_I32: return "int";
    case TT_I64: return "long int";
    case TT_F16: return "c10::Half";
    case TT_BF16: return "c10::BFloat16";
    case TT_F32: return "float";
    case TT_F64: return "double";
    case TT_C64: return "c10::complex<float>";
    case TT_C128: return "c10::complex<double>";
    default: return tt_dtype_name(dt);
  }
}

static void type_text(names_t names, tt_dtype_t dt, char *buf, size_t n) {
  if (names == N_LEGACY) tt_op_legacy_type_name(dt, buf, n);
  else snprintf(buf, n, "%s", names == N_CPP ? tt_op_typemeta_name(dt) : tt_op_type_name(dt));
}

static tt_status_t fail(tt_code_t code, const out_rule_t *r, tt_dtype_t result, tt_dtype_t out) {
  char rs[48], os[48], msg[400];
  type_text(r->names, result, rs, sizeof rs);
  type_text(r->names, out, os, sizeof os);
  switch (r->args) {
    case A_RO: snprintf(msg, sizeof msg, r->fmt, rs, os); break;
    case A_OR: snprintf(msg, sizeof msg, r->fmt, os, rs); break;
    case A_O: snprintf(msg, sizeof msg, r->fmt, os); break;
    case A_ORR: snprintf(msg, sizeof msg, r->fmt, os, rs, rs); break;
    default: snprintf(msg, sizeof msg, "%s", r->fmt); break;
  }
  return tt_status_make(code, "%s", msg);
}

static tt_status_t cast_rule(const out_rule_t *r, tt_dtype_t result, tt_dtype_t out) {
  if (tt_op_can_cast(result, out)) return TT_OK_STATUS;
  if (r && r->kind == R_CAST && r->fmt) return fail(r->code, r, result, out);
  return tt_status_make(TT_INVALID_ARGUMENT, "result type %s can't be cast to the desired output type %s",
                        tt_op_type_name(result), tt_op_type_name(out));
}

tt_status_t tt_op_check_out(const char *name, int k, tt_dtype_t result, tt_dtype_t out) {
  const out_rule_t *r = find_rule(name, k);
  if (!r) return cast_rule(NULL, result, out);
  switch (r->kind) {
    case R_EXACT:
      return out == result ? TT_OK_STATUS : fail(TT_INVALID_ARGUMENT, r, result, out);
    case R_BOOL:
      return out == TT_BOOL ? TT_OK_STATUS : fail(TT_INVALID_ARGUMENT, r, result, out);
    case R_BOOL_OR_U8:
      return out == TT_BOOL || out == TT_U8 ? TT_OK_STATUS : fail(TT_INVALID_ARGUMENT, r, result, out);
    case R_FLOAT: /* no cast rule: a complex result goes into a real out as its real parts (the op's into) */
      if (!tt_dtype_is_float(out) && !tt_dtype_is_complex(out)) return fail(TT_INVALID_ARGUMENT, r, result, out);
      return TT_OK_STATUS;
    case R_NO_BOOL: /* the op's lowering refuses a bool out where CPU's kernel runs (not 0-dim or empty) */
      return cast_rule(NULL, result, out);
    case R_NANSUM: /* CPU sums in out's type: any type for an integral input, floating ones for a float input */
      if (tt_dtype_is_int(result) || result == TT_BOOL) return TT_OK_STATUS;
      /* (a complex out too: nansum(float32 (3,), out=complex64) is CPU's refusal, tpu computed 3+0j) */
      if (!tt_dtype_is_float(out)) return tt_op_refuse_dtype(out, "%s", r->fmt);
      return cast_rule(NULL, result, out);
    case R_SEARCHSORTED:
      if (out == result) return TT_OK_STATUS;
      return tt_status_make(TT_INVALID_ARGUMENT,
                            "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
                            "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
                            "dtype %s and out_int32 flag is %s",
                            tt_op_type_name(out), result == TT_I32 ? "True" : "False");
    default:
      return cast_rule(r, result, out);
  }
}

/* Which one-element case CPU's kernel reads unconverted. */
typedef enum { ONE_INPUT, ONE_RESULT } one_t;

static const struct {
  const char *pat;
  one_t one;
} input_rules[] = {
    {"any", ONE_INPUT}, /* allany_impl: a single element is tested as it is */
    {"all", ONE_INPUT},
    {"std", ONE_RESULT}, /* std_var_out: a one-element result is std_var_all's, from the input */
    {"var", ONE_RESULT},
};

static int input_rule(const char *name) {
  for (int i = 0; i < (int)(sizeof input_rules / sizeof input_rules[0]); i++)
    if (row_matches(input_rules[i].pat, name)) return i;
  return -1;
}

int tt_op_out_input_from_out(const char *name) { return input_rule(name) >= 0; }

tt_status_t tt_op_out_input_dtype(const char *name, tt_dtype_t in, int64_t in_numel, int64_t res_numel, tt_dtype_t out,
                                  tt_dtype_t *convert) {
  *convert = TT_DTYPE_INVALID;
  int i = input_rule(name);
  if (i < 0 || in == out || in_numel == 0) return TT_OK_STATUS;
  if (input_rules[i].one == ONE_INPUT) {
    /* their out is bool, whose conversion is their own nonzero test, or uint8 */
    if (in_numel > 1 && out == TT_U8 && in != TT_BOOL) *convert = out;
    return TT_OK_STATUS;
  }
  /* a one-element result in a float32/float64 or complex out is std_var_all's
   * (fuzz 125:1301: float16 into complex128 is refused too) */
  if (tt_dtype_is_float(in) && res_numel == 1 && tt_dtype_is_complex(out) && (in == TT_F16 || in == TT_BF16))
    return tt_status_make(TT_INVALID_ARGUMENT, "std_var_all: Unsupported dtype %s", tt_op_type_name(in));
  if (!tt_dtype_is_float(in) || !tt_dtype_is_float(out)) return TT_OK_STATUS;
  if (res_numel == 1 && (out == TT_F32 || out == TT_F64)) {
    if (in == TT_F16 || in == TT_BF16)
      return tt_status_make(TT_INVALID_ARGUMENT, "std_var_all: Unsupported dtype %s", tt_op_type_name(in));
    return TT_OK_STATUS;
  }
  *convert = out;
  return TT_OK_STATUS;
}

int tt_op_out_empty_first(const char *name, int k, int64_t in_numel) {
  const out_rule_t *r = find_rule(name, k);
  return r && r->empty_first && in_numel == 0;
}

int tt_op_out_dtype_before_dims(const char *name) {
  const out_rule_t *r = find_rule(name, 0);
  return r && r->before_dims;
}

int tt_op_out_unchecked_if_empty(const char *name, tt_dtype_t in, int64_t in_numel) {
  const out_rule_t *r = find_rule(name, 0);
  return r && r->empty_unchecked && in_numel == 0 && !tt_dtype_is_complex(in);
}

tt_status_t tt_op_check_out_complex32(const char *name, int k, tt_dtype_t out) {
  const out_rule_t *r = find_rule(name, k);
  if ((r && (r->kind != R_CAST || r->fmt)) || out == TT_DTYPE_INVALID || tt_dtype_is_complex(out)) return NULL;
  return tt_status_make(TT_INVALID_ARGUMENT, "result type ComplexHalf can't be cast to the desired output type %s",
                        tt_op_type_name(out));
}

const char *tt_op_out_result_with(const char *name) {
  const out_rule_t *r = find_rule(name, 0);
  return r ? r->result_with : NULL;
}

tt_status_t tt_op_check_out_input(const char *name, tt_dtype_t in, tt_dtype_t out) {
  const out_rule_t *r = find_rule(name, 0);
  if (!r || !r->input_cast || in == TT_DTYPE_INVALID || tt_op_can_cast(in, out)) return TT_OK_STATUS;
  return tt_status_make(TT_INVALID_ARGUMENT, r->input_cast, tt_op_type_name(out));
}

const char *tt_op_out_rule_if_0dim(const char *name, int *arg) {
  const out_rule_t *r = find_rule(name, 0);
  if (!r || !r->zero_dim_rule) return NULL;
  *arg = r->zero_dim_arg;
  return r->zero_dim_rule;
}

int tt_op_out_dtype_from_out(const char *name) {
  const out_rule_t *r = find_rule(name, 0);
  if (!r || (r->kind != R_CAST_FROM_OUT && r->kind != R_NO_BOOL)) return 0;
  return r->from_out_floating ? 2 : 1;
}

const char *tt_op_out_rule_for_input(const char *name, tt_dtype_t in) {
  const out_rule_t *r = find_rule(name, 0);
  if (r && r->integral_rule && (tt_dtype_is_int(in) || in == TT_BOOL)) return r->integral_rule;
  return name;
}

tt_status_t tt_op_check_out_dtype_arg(const char *name, tt_dtype_t dtype, tt_dtype_t out, tt_dtype_t in, int phase) {
  /* an integral dtype= makes nansum sum's too */
  name = tt_op_out_rule_for_input(name, tt_dtype_is_int(dtype) || dtype == TT_BOOL ? dtype : in);
  const out_rule_t *r = find_rule(name, 0);
  if (phase == 0) { /* the meta functions' first checks, before the dims */
    if (r && r->dtype_arg_floating && !tt_dtype_is_float(dtype) && !tt_dtype_is_complex(dtype))
      return tt_status_make(TT_INVALID_ARGUMENT, r->dtype_arg_floating, tt_op_type_name(dtype));
    if (r && r->dtype_arg_first && dtype != out)
      return tt_status_make(TT_INVALID_ARGUMENT, r->dtype_arg_first, tt_op_type_name(out), tt_op_type_name(dtype));
    return TT_OK_STATUS;
  }
  /* set_output's, after the dims: the ops computing in out's dtype and mean
   * (with a dim or over everything: mean(x, dtype=bfloat16, out=float32)
   * raises, fuzz 229:233) check an explicit dtype= against out's */
  if (!tt_op_out_dtype_from_out(name) || (r && r->dtype_arg_first) || dtype == out) return TT_OK_STATUS;
  return tt_status_make(TT_INVALID_ARGUMENT, EXACT_TM, tt_op_typemeta_name(dtype), tt_op_typemeta_name(out));
}

const char *tt_op_out_into(const char *name, tt_dtype_t in, tt_dtype_t out, tt_dtype_t default_float) {
  const out_rule_t *r = find_rule(name, 0);
  if (!r || !r->into) return NULL;
  if (in == TT_DTYPE_INVALID) return r->into; /* whether the overload has one at all */
  if (!tt_dtype_is_float(out)) return NULL; /* a complex out: the functional result, cast or refused */
  if (tt_dtype_is_complex(in)) return r->into; /* the complex terms' real parts, in out's type */
  return out != (tt_dtype_is_float(in) ? in : default_float) ? r->into : NULL;
}
