/* Lowerings of _ctc_loss (int[] lengths) and _ctc_loss_backward: the
 * log-space alpha / beta recursions of PyTorch CPU's LossCTC.cpp as while loops. */
#include <math.h>
#include <string.h>

#include "ops/families.h"
#include "ops/dispatch_refusal.h"
#include "ops/nn_util.h"

#define CTC_MAX_BATCH 4096

typedef struct {
  int64_t t, n, c, smax, sp; /* time, batch, classes, max target length, 2 * smax + 1 */
  int64_t blank;
  tt_dtype_t dt;
  tt_val_t il, tl;   /* (N, 1) i64 input / target lengths */
  tt_val_t tp;       /* (N, Sp) i64 extended targets (blank, l1, blank, l2, ...) */
  tt_val_t lpg;      /* (T, N, Sp) log_probs at the extended targets */
  tt_val_t s_iota;   /* (N, Sp) i64 position s */
  tt_val_t svalid;   /* (N, Sp) s < 2 * tl + 1 */
} ctc_t;

static tt_val_t ninf(tt_graph_t *g, tt_val_t like) { return tt_b_like_f(g, like, -INFINITY); }
static tt_val_t bin(tt_graph_t *g, tt_binary_t op, tt_val_t a, tt_val_t b) { return tt_b_binary(g, op, a, b); }

/* A rank-1 i64 constant of n values. */
static tt_val_t int_vector(tt_graph_t *g, const int64_t *v, int64_t n) {
  tt_val_t parts[CTC_MAX_BATCH];
  int64_t one = 1;
  for (int64_t i = 0; i < n; i++) parts[i] = tt_b_full_i(g, TT_I64, 1, &one, v[i]);
  return n == 1 ? parts[0] : tt_b_concat(g, (int)n, parts, 0);
}

/* x shifted along the last dim by k (> 0: x[s - k], < 0: x[s + |k|]), -inf filled. */
static tt_val_t shift(tt_graph_t *g, tt_val_t x, int64_t n, int64_t sp, int64_t k) {
  if (k >= sp || -k >= sp) return ninf(g, x);
  int64_t lo[2] = {0, k > 0 ? k : 0}, hi[2] = {0, k < 0 ? -k : 0};
  tt_val_t part = tt_b_slice_dim(g, x, 1, k > 0 ? 0 : -k, k > 0 ? sp - k : sp, 1);
  (void)n;
  return tt_b_pad(g, part, tt_b_const_f(g, tt_graph_type(g, x)->dtype, -INFINITY), lo, hi, NULL);
}

/* log(exp(a - m) + exp(b - m) + exp(c - m)) + m, m the max (0 when -inf), as CPU does. */
static tt_val_t lse3(tt_graph_t *g, tt_val_t a, tt_val_t b, tt_val_t c) {
  tt_val_t m = bin(g, TT_BIN_MAX, bin(g, TT_BIN_MAX, a, b), c);
  m = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, m, ninf(g, m)), tt_b_like_f(g, m, 0), m);
  tt_val_t s = bin(g, TT_BIN_ADD, tt_b_unary(g, TT_UN_EXP, bin(g, TT_BIN_SUB, a, m)), tt_b_unary(g, TT_UN_EXP, bin(g, TT_BIN_SUB, b, m)));
  s = bin(g, TT_BIN_ADD, s, tt_b_unary(g, TT_UN_EXP, bin(g, TT_BIN_SUB, c, m)));
  return bin(g, TT_BIN_ADD, tt_b_unary(g, TT_UN_LOG, s), m);
}

/* Reads (log_probs, targets, input_lengths, target_lengths) at ilp.. and blank at ib. */
static int setup(tt_lower_t *L, int ilp, int ib, ctc_t *q) {
  tt_graph_t *g = L->g;
  memset(q, 0, sizeof *q);
  if (tt_l_arg_rank(L, ilp) != 3) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: expected log_probs of shape (T, N, C), got rank %d", L->op, tt_l_arg_rank(L, ilp));
    return 0;
  }
  q->dt = tt_l_arg_dtype(L, ilp);
  if (q->dt != TT_F32 && q->dt != TT_F64) {
    tt_l_refuse_dtype(L, q->dt, "ctc_loss_cpu");
    return 0;
  }
  const int64_t *ls = tt_l_arg_sizes(L, ilp);
  q->t = ls[0], q->n = ls[1], q->c = ls[2];
  q->blank = tt_l_int(L, ib, 0);
  if (q->blank < 0 || q->blank >= q->c) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "blank must be in label range");
    return 0;
  }
  if (q->n > CTC_MAX_BATCH) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: batch size %lld above the supported %d", L->op, (long long)q->n, CTC_MAX_BATCH);
    return 0;
  }
  static int64_t il[CTC_MAX_BATCH], tl[CTC_MAX_BATCH], off[CTC_MAX_BATCH];
  if (tt_l_ints(L, ilp + 2, il, CTC_MAX_BATCH) != q->n || tt_l_ints(L, ilp + 3, tl, CTC_MAX_BATCH) != q->n) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "input_lengths and target_lengths must have batch_size %lld entries", (long long)q->n);
    return 0;
  }
  int tr = tt_l_arg_rank(L, ilp + 1);
  const int64_t *ts = tt_l_arg_sizes(L, ilp + 1);
  int64_t total = 0;
  for (int64_t b = 0; b < q->n; b++) {
    if (il[b] < 0 || il[b] > q->t) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "Expected input_lengths to have value at most %lld, but got value %lld", (long long)q->t, (long long)il[b]);
      return 0;
    }
    if (tl[b] < 0 || (tr == 2 && tl[b] > ts[1])) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "Expected tensor to have size at least %lld at dimension 1, but got size %lld", (long long)tl[b],
                (long long)(tr == 2 ? ts[1] : 0));
      return 0;
    }
    off[b] = tr == 2 ? b * ts[1] : total;
    total += tl[b];
    if (tl[b] > q->smax) q->smax = tl[b];
  }
  if (tr == 1 && total > ts[0]) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: target_lengths sum to %lld but targets has %lld entries", L->op, (long long)total, (long long)ts[0]);
    return 0;
  }
  q->sp = 2 * q->smax + 1;
  int64_t n1[2] = {q->n, 1}, nsp[2] = {q->n, q->sp};
  q->il = tt_b_reshape(g, int_vector(g, il, q->n), 2, n1);
  q->tl = tt_b_reshape(g, int_vector(g, tl, q->n), 2, n1);
  q->s_iota = tt_b_iota(g, TT_I64, 2, nsp, 1);
  tt_val_t tlb = tt_b_broadcast_to(g, q->tl, 2, nsp);
  q->svalid = tt_b_compare(g, TT_CMP_LT, q->s_iota, tt_nn_addc(g, tt_nn_mulc(g, tlb, 2), 1));
  /* Extended targets: odd s reads targets[off_b + (s - 1) / 2]. */
  tt_val_t blank = tt_b_full_i(g, TT_I64, 2, nsp, q->blank);
  q->tp = blank;
  if (q->smax > 0 && total > 0) {
    tt_val_t k = bin(g, TT_BIN_DIV, q->s_iota, tt_b_like_f(g, q->s_iota, 2));
    tt_val_t odd = tt_b_compare(g, TT_CMP_EQ, bin(g, TT_BIN_REM, q->s_iota, tt_b_like_f(g, q->s_iota, 2)), tt_b_like_f(g, q->s_iota, 1));
    tt_val_t has = tt_b_binary(g, TT_BIN_AND, odd, tt_b_compare(g, TT_CMP_LT, k, tlb));
    tt_val_t offb = tt_b_broadcast_to(g, tt_b_reshape(g, int_vector(g, off, q->n), 2, n1), 2, nsp);
    int64_t tn = 1;
    for (int i = 0; i < tr; i++) tn *= ts[i];
    tt_val_t idx = tt_b_select(g, has, bin(g, TT_BIN_ADD, offb, k), tt_b_like_f(g, k, 0));
    int64_t m = q->n * q->sp;
    tt_val_t flat_t = tt_b_convert(g, tt_b_reshape(g, tt_l_tensor(L, ilp + 1), 1, &tn), TT_I64);
    tt_val_t tv = tt_b_reshape(g, tt_nn_gather_dim(g, flat_t, 0, tt_b_reshape(g, idx, 1, &m), m), 2, nsp);
    q->tp = tt_b_select(g, has, tv, blank);
  }
  /* lpg[t, b, s] = log_probs[t, b, tp[b, s]] by one flat gather. */
  int64_t d3[3] = {q->t, q->n, q->sp}, bd[2] = {1, 2}, all = q->t * q->n * q->sp, lpn = q->t * q->n * q->c;
  tt_val_t cls = tt_b_clamp(g, tt_b_const_i(g, TT_I64, 0), q->tp, tt_b_const_i(g, TT_I64, q->c - 1));
  tt_val_t fidx = bin(g, TT_BIN_ADD, tt_nn_mulc(g, tt_b_iota(g, TT_I64, 3, d3, 0), (double)(q->n * q->c)),
                      tt_nn_mulc(g, tt_b_iota(g, TT_I64, 3, d3, 1), (double)q->c));
  fidx = bin(g, TT_BIN_ADD, fidx, tt_b_broadcast(g, cls, 3, d3, bd));
  tt_val_t lpf = tt_b_reshape(g, tt_l_tensor(L, ilp), 1, &lpn);
  q->lpg = tt_b_reshape(g, tt_nn_gather_dim(g, lpf, 0, tt_b_reshape(g, fidx, 1, &all), all), 3, d3);
  return !tt_graph_failed(g);
}

/* Row t of a (T, N, Sp) value for a rank-0 i64 t. */
static tt_val_t row(tt_graph_t *g, const ctc_t *q, tt_val_t x, tt_val_t t) {
  tt_val_t z = tt_b_const_i(g, TT_I64, 0), st[3] = {t, z, z};
  int64_t sz[3] = {1, q->n, q->sp}, d2[2] = {q->n, q->sp};
  return tt_b_reshape(g, tt_b_dslice(g, x, st, sz), 2, d2);
}

/* x with row t replaced by r where mask (N, Sp) holds. */
static tt_val_t put_row(tt_graph_t *g, const ctc_t *q, tt_val_t x, tt_val_t t, tt_val_t r, tt_val_t mask) {
  int64_t d3[3] = {q->t, q->n, q->sp}, bd[2] = {1, 2};
  tt_val_t at = tt_b_compare(g, TT_CMP_EQ, tt_b_iota(g, TT_I64, 3, d3, 0), tt_b_broadcast(g, t, 3, d3, NULL));
  at = tt_b_binary(g, TT_BIN_AND, at, tt_b_broadcast(g, mask, 3, d3, bd));
  return tt_b_select(g, at, tt_b_broadcast(g, r, 3, d3, bd), x);
}

/* tp shifted by k along s equals tp (for the skip transitions); false off the end. */
static tt_val_t skip_ok(tt_graph_t *g, const ctc_t *q, int64_t k) {
  int64_t nsp[2] = {q->n, q->sp};
  if (q->sp <= 2) return tt_b_compare(g, TT_CMP_NE, tt_b_full_i(g, TT_I64, 2, nsp, 0), tt_b_full_i(g, TT_I64, 2, nsp, 0));
  int64_t lo[2] = {0, k > 0 ? k : 0}, hi[2] = {0, k < 0 ? -k : 0};
  tt_val_t part = tt_b_slice_dim(g, q->tp, 1, k > 0 ? 0 : -k, k > 0 ? q->sp - k : q->sp, 1);
  tt_val_t sh = tt_b_pad(g, part, tt_b_const_i(g, TT_I64, -1), lo, hi, NULL);
  return tt_b_compare(g, TT_CMP_NE, sh, q->tp);
}

/* _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)
 * -> (neg_log_likelihood (N), log_alpha (N, T, Sp)). */
static tt_status_t lower_ctc(tt_lower_t *L) {
  ctc_t q;
  if (!setup(L, 0, 4, &q)) return NULL;
  tt_graph_t *g = L->g;
  int64_t nsp[2] = {q.n, q.sp}, d3[3] = {q.t, q.n, q.sp};
  tt_val_t tlb = tt_b_broadcast_to(g, q.tl, 2, nsp), ilb = tt_b_broadcast_to(g, q.il, 2, nsp);
  tt_val_t neg = tt_b_full_f(g, q.dt, 2, nsp, -INFINITY);
  /* t = 0: blank, and the first label when there is one. */
  tt_val_t first = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_EQ, q.s_iota, tt_b_like_f(g, q.s_iota, 0)),
                               tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_EQ, q.s_iota, tt_b_like_f(g, q.s_iota, 1)),
                                           tt_b_compare(g, TT_CMP_GT, tlb, tt_b_like_f(g, tlb, 0))));
  tt_val_t z = tt_b_const_i(g, TT_I64, 0);
  tt_val_t alpha = tt_b_select(g, first, row(g, &q, q.lpg, z), neg);
  tt_val_t la = put_row(g, &q, tt_b_full_f(g, q.dt, 3, d3, -INFINITY), z, alpha, first);
  tt_val_t skip = skip_ok(g, &q, 2);
  tt_loop_t lp;
  tt_val_t i, c[2], res[2], init[2] = {alpha, la};
  tt_b_for_begin(g, &lp, 1, q.t, 2, init, &i, c);
  {
    tt_val_t a = c[0];
    tt_val_t a3 = tt_b_select(g, skip, shift(g, a, q.n, q.sp, 2), neg);
    tt_val_t nw = bin(g, TT_BIN_ADD, lse3(g, a, shift(g, a, q.n, q.sp, 1), a3), row(g, &q, q.lpg, i));
    nw = tt_b_select(g, q.svalid, nw, neg);
    tt_val_t live = tt_b_compare(g, TT_CMP_LT, tt_b_broadcast(g, i, 2, nsp, NULL), ilb);
    tt_val_t next[2] = {tt_b_select(g, live, nw, a), put_row(g, &q, c[1], i, nw, live)};
    tt_b_for_end(g, &lp, next, res);
  }
  /* nll = -logaddexp(alpha[2 tl], alpha[2 tl - 1]) at t = il - 1. */
  int64_t one = 1;
  tt_val_t l1 = tt_b_reduce(g, TT_RED_MAX, tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, q.s_iota, tt_nn_mulc(g, tlb, 2)), res[0], neg), 1, &one);
  tt_val_t l2 = tt_b_reduce(g, TT_RED_MAX, tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, q.s_iota, tt_nn_addc(g, tt_nn_mulc(g, tlb, 2), -1)), res[0], neg),
                            1, &one);
  tt_val_t m = bin(g, TT_BIN_MAX, l1, l2);
  m = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, m, ninf(g, m)), tt_b_like_f(g, m, 0), m);
  tt_val_t ll = bin(g, TT_BIN_ADD, tt_b_unary(g, TT_UN_LOG, bin(g, TT_BIN_ADD, tt_b_unary(g, TT_UN_EXP, bin(g, TT_BIN_SUB, l1, m)),
                                                                     tt_b_unary(g, TT_UN_EXP, bin(g, TT_BIN_SUB, l2, m)))), m);
  /* Empty inputs: likelihood 1 for an empty target, else 0. */
  tt_val_t il1 = tt_b_reshape(g, q.il, 1, &q.n), tl1 = tt_b_reshape(g, q.tl, 1, &q.n);
  tt_val_t empty_ll = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, tl1, tt_b_like_f(g, tl1, 0)), tt_b_like_f(g, ll, 0), ninf(g, ll));
  ll = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, il1, tt_b_like_f(g, il1, 0)), empty_ll, ll);
  tt_l_output(L, tt_b_unary(g, TT_UN_NEG, ll));
  int64_t perm[3] = {1, 0, 2};
  tt_l_output(L, tt_b_transpose(g, res[1], perm));
  return NULL;
}

/* _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths,
 * neg_log_likelihood, log_alpha, blank, zero_infinity): beta recursion from
 * t = il - 1 down, then CPU's eq. (16) per class. */
static tt_status_t lower_ctc_backward(tt_lower_t *L) {
  ctc_t q;
  if (!setup(L, 1, 7, &q)) return NULL;
  tt_graph_t *g = L->g;
  int zero_inf = tt_l_bool(L, 8, 0);
  int64_t nsp[2] = {q.n, q.sp}, d3[3] = {q.t, q.n, q.sp};
  tt_val_t tlb = tt_b_broadcast_to(g, q.tl, 2, nsp), ilb = tt_b_broadcast_to(g, q.il, 2, nsp);
  tt_val_t neg = tt_b_full_f(g, q.dt, 2, nsp, -INFINITY);
  tt_val_t two_tl = tt_nn_mulc(g, tlb, 2);
  tt_val_t last = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_EQ, q.s_iota, two_tl),
                              tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_EQ, q.s_iota, tt_nn_addc(g, two_tl, -1)),
                                          tt_b_compare(g, TT_CMP_GT, tlb, tt_b_like_f(g, tlb, 0))));
  tt_val_t skip = skip_ok(g, &q, -2);
  tt_loop_t lp;
  tt_val_t i, c[2], res[2], init[2] = {neg, tt_b_full_f(g, q.dt, 3, d3, -INFINITY)};
  tt_b_for_begin(g, &lp, 0, q.t, 2, init, &i, c);
  {
    tt_val_t t = bin(g, TT_BIN_SUB, tt_b_const_i(g, TT_I64, q.t - 1), i);
    tt_val_t tb = tt_b_broadcast(g, t, 2, nsp, NULL);
    tt_val_t b = c[0], lpt = row(g, &q, q.lpg, t);
    tt_val_t b3 = tt_b_select(g, skip, shift(g, b, q.n, q.sp, -2), neg);
    tt_val_t nw = tt_b_select(g, q.svalid, bin(g, TT_BIN_ADD, lse3(g, b, shift(g, b, q.n, q.sp, -1), b3), lpt), neg);
    tt_val_t ilm1 = tt_nn_addc(g, ilb, -1);
    tt_val_t start = tt_b_compare(g, TT_CMP_EQ, tb, ilm1), before = tt_b_compare(g, TT_CMP_LT, tb, ilm1);
    nw = tt_b_select(g, start, tt_b_select(g, last, lpt, neg), tt_b_select(g, before, nw, neg));
    tt_val_t next[2] = {nw, put_row(g, &q, c[1], t, nw, tt_b_compare(g, TT_CMP_LE, tb, ilm1))};
    tt_b_for_end(g, &lp, next, res);
  }
  /* grad_a[t, b, c] = logsumexp over s with tp[b, s] == c of alpha + beta. */
  int64_t perm[3] = {1, 0, 2}, d4[4] = {q.t, q.n, q.sp, q.c}, bd3[3] = {0, 1, 2};
  tt_val_t ab = bin(g, TT_BIN_ADD, tt_b_transpose(g, tt_l_tensor(L, 6), perm), res[1]);
  int64_t nspc[3] = {q.n, q.sp, q.c}, bd01[2] = {0, 1};
  tt_val_t onehot = tt_b_compare(g, TT_CMP_EQ, tt_b_broadcast(g, q.tp, 3, nspc, bd01), tt_b_iota(g, TT_I64, 3, nspc, 2));
  int64_t bd_oh[3] = {1, 2, 3};
  onehot = tt_b_broadcast(g, onehot, 4, d4, bd_oh);
  tt_val_t ab4 = tt_b_select(g, onehot, tt_b_broadcast(g, ab, 4, d4, bd3), tt_b_full_f(g, q.dt, 4, d4, -INFINITY));
  int64_t sdim = 2;
  tt_val_t mx = tt_b_reduce(g, TT_RED_MAX, ab4, 1, &sdim);
  tt_val_t mxs = tt_b_select(g, tt_b_compare(g, TT_CMP_EQ, mx, ninf(g, mx)), tt_b_like_f(g, mx, 0), mx);
  int64_t bd_m[3] = {0, 1, 3};
  tt_val_t sum = tt_b_reduce(g, TT_RED_SUM, tt_b_unary(g, TT_UN_EXP, bin(g, TT_BIN_SUB, ab4, tt_b_broadcast(g, mxs, 4, d4, bd_m))), 1, &sdim);
  tt_val_t ga = bin(g, TT_BIN_ADD, tt_b_unary(g, TT_UN_LOG, sum), mxs); /* (T, N, C) */
  /* grad = (exp(lp) - exp(ga + nll - lp)) * grad_out[b]; 0 for t >= il. */
  int64_t tnc[3] = {q.t, q.n, q.c}, bn[1] = {1};
  tt_val_t lpv = tt_l_tensor(L, 1);
  tt_val_t nll = tt_b_broadcast(g, tt_l_tensor(L, 5), 3, tnc, bn);
  tt_val_t go = tt_l_tensor(L, 0);
  const tt_type_t *gt = tt_graph_type(g, go);
  if (gt && gt->rank == 0) go = tt_b_broadcast(g, go, 1, &q.n, NULL);
  go = tt_b_broadcast(g, go, 3, tnc, bn);
  tt_val_t gr = bin(g, TT_BIN_SUB, tt_b_unary(g, TT_UN_EXP, lpv),
                    tt_b_unary(g, TT_UN_EXP, bin(g, TT_BIN_SUB, bin(g, TT_BIN_ADD, ga, nll), lpv)));
  gr = bin(g, TT_BIN_MUL, gr, go);
  int64_t bd_il[2] = {1, 2};
  tt_val_t ilt = tt_b_broadcast(g, q.il, 3, tnc, bd_il);
  tt_val_t keep = tt_b_compare(g, TT_CMP_LT, tt_b_iota(g, TT_I64, 3, tnc, 0), ilt);
  if (zero_inf) keep = tt_b_binary(g, TT_BIN_AND, keep, tt_b_compare(g, TT_CMP_NE, nll, tt_b_like_f(g, nll, INFINITY)));
  tt_l_output(L, tt_b_select(g, keep, gr, tt_b_like_f(g, gr, 0)));
  return NULL;
}

const tt_op_def_t tt_ops_ctc_loss[] = {
    {"_ctc_loss", lower_ctc, 0},
    {"_ctc_loss_backward", lower_ctc_backward, 0},
    {NULL, NULL, 0},
};
