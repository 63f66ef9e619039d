/* Lowering of multinomial: draws category indices from rows of (unnormalized)
 * probabilities, with or without replacement.
 *
 * The validity of the probabilities (negative, inf, NaN, rows summing to 0)
 * depends on the data, and PyTorch raises for it synchronously on every
 * device; so multinomial's size companion computes a small code on device, the
 * trampoline downloads it and passes it to "multinomial", which raises CPU's
 * message or samples:
 * - without replacement (or one sample): p / Exp(1) keys, the top n of each
 *   row (the exponential race: ranks the categories as sequential draws
 *   without replacement would);
 * - with replacement: inverse CDF, the first category whose running sum
 *   exceeds u * total and whose probability is positive. */
#include <math.h>
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"
#include "ops/random.h"
#include "ops/scan.h"

enum { BAD_NEG = 1 /* < 0 or NaN */, BAD_INF = 2, BAD_ZERO_ROW = 4 };

static tt_status_t check_args(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  if (rank < 1 || rank > 2) return tt_status_make(TT_INVALID_ARGUMENT, "prob_dist must be 1 or 2 dim");
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (!tt_dtype_is_float(dt))
    return tt_status_make(TT_INVALID_ARGUMENT, "multinomial only supports floating-point dtypes for input, got: %s",
                          tt_op_type_name(dt));
  int64_t n = tt_l_int(L, 1, 0), cats = tt_l_arg_sizes(L, 0)[rank - 1];
  if (n <= 0) return tt_status_make(TT_INVALID_ARGUMENT, "cannot sample n_sample <= 0 samples");
  if (!tt_l_bool(L, 2, 0) && n > cats)
    return tt_status_make(TT_INVALID_ARGUMENT, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  if (cats > (1 << 24)) return tt_status_make(TT_INVALID_ARGUMENT, "number of categories cannot exceed 2^24");
  /* No rows: an empty result. Rows of no categories fail CPU's min/max scan
   * (one draw) or have no mass (several draws with replacement). */
  if (cats == 0 && (rank == 1 || tt_l_arg_sizes(L, 0)[0] > 0))
    return tt_status_make(TT_INVALID_ARGUMENT, "%s",
                          n == 1 ? "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
                                 : "invalid multinomial distribution (sum of probabilities <= 0)");
  return NULL;
}

/* The probabilities as [rows, cats] in the compute type. */
static tt_val_t probs_2d(tt_lower_t *L, int64_t *rows, int64_t *cats) {
  int rank = tt_l_arg_rank(L, 0);
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  *rows = rank == 2 ? sz[0] : 1;
  *cats = sz[rank - 1];
  int64_t d[2] = {*rows, *cats};
  tt_dtype_t ct = tt_rand_compute_type(tt_l_arg_dtype(L, 0));
  return tt_b_reshape(L->g, tt_b_convert(L->g, tt_l_tensor(L, 0), ct), 2, d);
}

static tt_val_t any_of(tt_graph_t *g, tt_val_t pred, int64_t code) {
  const tt_type_t *t = tt_graph_type(g, pred);
  if (!t) return -1;
  int64_t dims[2] = {0, 1};
  tt_val_t any = tt_b_reduce(g, TT_RED_OR, pred, t->rank, dims);
  return tt_b_select(g, any, tt_b_const_i(g, TT_I64, code), tt_b_const_i(g, TT_I64, 0));
}

/* size companion of multinomial(self, n, replacement, generator) -> int64[1]: the BAD_* bits found. */
static tt_status_t lower_multinomial_size(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int64_t rows, cats, one = 1;
  /* Bad arguments: no code; multinomial itself raises, under its own name. */
  tt_status_t st = check_args(L);
  if (st) {
    tt_status_free(st);
    tt_l_output(L, tt_b_full_i(g, TT_I64, 1, &one, 0));
    return NULL;
  }
  tt_val_t p = probs_2d(L, &rows, &cats);
  if (rows * cats == 0) {
    tt_l_output(L, tt_b_full_i(g, TT_I64, 1, &one, 0));
    return NULL;
  }
  int64_t d[2] = {rows, cats}, dim1 = 1;
  tt_dtype_t ct = tt_graph_type(g, p) ? tt_graph_type(g, p)->dtype : TT_F32;
  tt_val_t neg = tt_b_unary(g, TT_UN_NOT, tt_b_compare(g, TT_CMP_GE, p, tt_b_full_f(g, ct, 2, d, 0)));
  tt_val_t inf = tt_b_compare(g, TT_CMP_EQ, p, tt_b_full_f(g, ct, 2, d, INFINITY));
  tt_val_t sum = tt_b_reduce(g, TT_RED_SUM, p, 1, &dim1);
  tt_val_t zero = tt_b_compare(g, TT_CMP_EQ, sum, tt_b_full_f(g, ct, 1, &rows, 0));
  tt_val_t code = tt_b_binary(g, TT_BIN_OR, tt_b_binary(g, TT_BIN_OR, any_of(g, neg, BAD_NEG), any_of(g, inf, BAD_INF)),
                              any_of(g, zero, BAD_ZERO_ROW));
  tt_l_output(L, tt_b_reshape(g, code, 1, &one));
  return NULL;
}

/* Without replacement: indices of the n largest p / Exp(1) keys per row. */
static tt_val_t sample_race(tt_lower_t *L, tt_val_t p, int64_t rows, int64_t cats, int64_t n) {
  tt_graph_t *g = L->g;
  tt_dtype_t ct = tt_graph_type(g, p)->dtype;
  int64_t d[2] = {rows, cats};
  /* -log(u) with u in (0, 1): positive and finite, so p = 0 gives key 0 and
   * is drawn only after every positive category. */
  tt_val_t e = tt_b_unary(g, TT_UN_NEG, tt_b_unary(g, TT_UN_LOG, tt_rand_uniform_open(L, ct, 2, d)));
  tt_val_t q = tt_b_binary(g, TT_BIN_DIV, p, e);
  if (n == 1) {
    tt_val_t idx;
    tt_b_argreduce(g, TT_RED_ARGMAX, q, 1, &idx);
    int64_t od[2] = {rows, 1};
    return tt_b_reshape(g, idx, 2, od);
  }
  tt_val_t ops[2] = {q, tt_b_iota(g, TT_I64, 2, d, 1)};
  tt_val_t srt = tt_b_sort(g, 2, ops, 1, 1, 1);
  return tt_b_slice_dim(g, tt_b_get(g, srt, 1), 1, 0, n, 1);
}

/* With replacement: per draw the first category with running sum > u * total
 * among those with p > 0 (a zero category is never drawn even where rounding
 * of the scan makes the sums not increase), else the last positive one. */
static tt_val_t sample_cdf(tt_lower_t *L, tt_val_t p, int64_t rows, int64_t cats, int64_t n) {
  tt_graph_t *g = L->g;
  tt_dtype_t ct = tt_graph_type(g, p)->dtype;
  int64_t d[2] = {rows, cats}, dn[2] = {rows, n}, d3[3] = {rows, n, cats};
  tt_val_t c = tt_op_scan(g, TT_RED_SUM, p, 1);
  tt_val_t total = tt_b_reshape(g, tt_b_slice_dim(g, c, 1, cats - 1, cats, 1), 1, &rows);
  tt_val_t t = tt_b_binary(g, TT_BIN_MUL, tt_rand_uniform01(L, ct, 2, dn),
                           tt_b_broadcast(g, total, 2, dn, (int64_t[]){0}));
  tt_val_t pos = tt_b_compare(g, TT_CMP_GT, p, tt_b_full_f(g, ct, 2, d, 0));
  int64_t b02[2] = {0, 2}, b01[2] = {0, 1}, dim2 = 2, dim1 = 1;
  tt_val_t hit = tt_b_binary(g, TT_BIN_AND,
                             tt_b_compare(g, TT_CMP_GT, tt_b_broadcast(g, c, 3, d3, b02), tt_b_broadcast(g, t, 3, d3, b01)),
                             tt_b_broadcast(g, pos, 3, d3, b02));
  tt_val_t first = tt_b_reduce(g, TT_RED_MIN,
                               tt_b_select(g, hit, tt_b_iota(g, TT_I64, 3, d3, 2), tt_b_full_i(g, TT_I64, 3, d3, cats)), 1,
                               &dim2);
  tt_val_t last = tt_b_reduce(g, TT_RED_MAX, tt_b_select(g, pos, tt_b_iota(g, TT_I64, 2, d, 1), tt_b_full_i(g, TT_I64, 2, d, -1)),
                              1, &dim1);
  return tt_b_binary(g, TT_BIN_MIN, first, tt_b_broadcast(g, last, 2, dn, (int64_t[]){0}));
}

/* multinomial(self, n, replacement, generator, [code]) -> int64 [rows?, n] */
static tt_status_t lower_multinomial(tt_lower_t *L) {
  tt_status_t st = check_args(L);
  if (st) return st;
  int64_t code = 0;
  if (tt_l_ints(L, 4, &code, 1) != 1) return tt_l_fail(L, TT_INTERNAL, "%s: missing downloaded check", L->op), NULL;
  int64_t n = tt_l_int(L, 1, 0);
  int replacement = tt_l_bool(L, 2, 0);
  int race = !replacement || n == 1;
  if (race && (code & (BAD_NEG | BAD_INF)))
    return tt_status_make(TT_INVALID_ARGUMENT, "probability tensor contains either `inf`, `nan` or element < 0");
  if (!race && (code & BAD_NEG))
    return tt_status_make(TT_INVALID_ARGUMENT, "invalid multinomial distribution (encountering probability entry < 0)");
  if (!race && (code & BAD_INF))
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
  if (code & BAD_ZERO_ROW)
    return tt_status_make(TT_INVALID_ARGUMENT, "invalid multinomial distribution (sum of probabilities <= 0)");
  tt_graph_t *g = L->g;
  int64_t rows, cats;
  tt_val_t p = probs_2d(L, &rows, &cats);
  int64_t od[2] = {rows, n};
  tt_val_t idx = rows * cats == 0 ? tt_b_full_i(g, TT_I64, 2, od, 0)
                 : race          ? sample_race(L, p, rows, cats, n)
                                 : sample_cdf(L, p, rows, cats, n);
  if (tt_l_arg_rank(L, 0) == 1) idx = tt_b_reshape(g, idx, 1, &n);
  tt_l_output(L, idx);
  return NULL;
}

const tt_op_def_t tt_ops_multinomial[] = {
    {"multinomial", lower_multinomial, 0, .size = lower_multinomial_size},
    {NULL, NULL, 0},
};
