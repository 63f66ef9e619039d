/* Lowerings of multi_margin_loss and multilabel_margin_loss (forward and
 * backward) over (N, C) or (C,) inputs, with CPU's sums: every class term is
 * divided by C, the mean also by N. Targets pick columns by one-hot masks
 * (select, not multiply, so inf inputs stay out of unrelated terms). */
#include "ops/families.h"
#include "ops/dispatch_refusal.h"
#include "ops/nn_util.h"

typedef struct {
  int r;            /* input rank: 0, 1 or 2 */
  int64_t n, c;     /* samples, classes */
  tt_dtype_t dt, ct;
  int64_t reduction; /* 0 none, 1 mean, 2 sum */
} mm_t;

/* `name` starts the messages; `kernel` is the CPU kernel that refuses a
 * non-floating input. */
static int mm_setup(tt_lower_t *L, const char *name, const char *kernel, int ix, int it, int ired, mm_t *m) {
  m->r = tt_l_arg_rank(L, ix);
  const int64_t *xs = tt_l_arg_sizes(L, ix);
  m->dt = tt_l_arg_dtype(L, ix);
  m->reduction = tt_l_int(L, ired, 1);
  if (!tt_dtype_is_float(m->dt)) {
    tt_l_refuse_dtype(L, m->dt, "%s", kernel);
    return 0;
  }
  /* A 0-dim input is one sample of one class, as on CPU. */
  if (m->r > 2 || (m->r > 0 && xs[m->r - 1] == 0)) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: Expected non-empty vector or matrix with optional 0-dim batch size, but got a %dD input", name, m->r);
    return 0;
  }
  if (tt_l_arg_dtype(L, it) != TT_I64) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: expected target of dtype Long, got %s", name, tt_op_type_name(tt_l_arg_dtype(L, it)));
    return 0;
  }
  m->ct = tt_op_math_type(m->dt);
  m->n = m->r == 2 ? xs[0] : 1;
  m->c = m->r ? xs[m->r - 1] : 1;
  return 1;
}

/* Per-sample values (n) as the op's output: kept, summed or averaged. */
static tt_val_t reduce_out(tt_graph_t *g, const mm_t *m, tt_val_t per) {
  int64_t zero = 0;
  if (m->reduction == 0) return m->r == 2 ? per : tt_b_reshape(g, per, 0, NULL);
  tt_val_t s = tt_b_reduce(g, TT_RED_SUM, per, 1, &zero);
  return m->reduction == 1 ? tt_nn_mulc(g, s, 1.0 / (double)m->n) : s;
}

/* Per-sample scale of the gradient (n, c): grad_output per sample or shared. */
static tt_val_t grad_scale(tt_lower_t *L, const mm_t *m, int ig) {
  tt_graph_t *g = L->g;
  int64_t d[2] = {m->n, m->c};
  tt_val_t go = tt_b_convert(g, tt_l_tensor(L, ig), m->ct);
  if (m->reduction == 0 && m->r == 2) {
    int64_t zero = 0;
    return tt_b_broadcast(g, go, 2, d, &zero);
  }
  go = tt_b_reshape(g, go, 0, NULL);
  if (m->reduction == 1) go = tt_nn_mulc(g, go, 1.0 / (double)m->n);
  return tt_b_broadcast(g, go, 2, d, NULL);
}

/* Row-wise sum (n, c) -> (n) and its broadcast back (n, c). */
static tt_val_t rowsum(tt_graph_t *g, tt_val_t x) {
  int64_t one = 1;
  return tt_b_reduce(g, TT_RED_SUM, x, 1, &one);
}
static tt_val_t rows(tt_graph_t *g, tt_val_t v, const mm_t *m) {
  int64_t d[2] = {m->n, m->c}, zero = 0;
  return tt_b_broadcast(g, v, 2, d, &zero);
}

/* The multi-margin terms: z = margin - x[y] + x[j] (n, c), whether each
 * counts, and the per-sample weight w[y] (or 1). */
static void mm_terms(tt_lower_t *L, const mm_t *m, int ix, int it, int imargin, int iw, tt_val_t *z, tt_val_t *active, tt_val_t *wy) {
  tt_graph_t *g = L->g;
  int64_t d[2] = {m->n, m->c}, d1[1] = {m->n};
  tt_val_t x = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, ix), m->ct), 2, d);
  tt_val_t y = tt_b_reshape(g, tt_l_tensor(L, it), 1, d1);
  tt_l_check_index(L, y, 0, m->c, 0, TT_CHECK_TARGET);
  int64_t zero = 0;
  tt_val_t hot = tt_b_compare(g, TT_CMP_EQ, tt_b_iota(g, TT_I64, 2, d, 1), tt_b_broadcast(g, y, 2, d, &zero));
  tt_val_t zeros = tt_b_full_f(g, m->ct, 2, d, 0);
  tt_val_t xy = rowsum(g, tt_b_select(g, hot, x, zeros));
  tt_val_t margin = tt_b_broadcast(g, tt_l_scalar_arg(L, imargin, m->ct), 2, d, NULL);
  *z = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_SUB, margin, rows(g, xy, m)), x);
  *active = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_GT, *z, zeros), tt_b_unary(g, TT_UN_NOT, hot));
  if (tt_l_is_none(L, iw)) {
    *wy = tt_b_full_f(g, m->ct, 1, d1, 1);
  } else {
    int64_t one = 1;
    tt_val_t w = tt_b_broadcast(g, tt_b_convert(g, tt_l_tensor(L, iw), m->ct), 2, d, &one);
    *wy = rowsum(g, tt_b_select(g, hot, w, zeros));
  }
}

static int mm_p(tt_lower_t *L, int ip) {
  int64_t p = tt_l_int(L, ip, 1);
  if (p != 1 && p != 2) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "only p == 1 and p == 2 supported");
    return 0;
  }
  return (int)p;
}

/* multi_margin_loss(self, target, p, margin, weight, reduction) */
static tt_status_t lower_multi_margin(tt_lower_t *L) {
  mm_t m;
  if (!mm_setup(L, "multi_margin_loss", "multi_margin_loss_cpu_kernel", 0, 1, 5, &m)) return NULL;
  int p = mm_p(L, 2);
  if (!p) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t z, act, wy;
  mm_terms(L, &m, 0, 1, 3, 4, &z, &act, &wy);
  tt_val_t h = p == 1 ? z : tt_b_binary(g, TT_BIN_MUL, z, z);
  h = tt_b_binary(g, TT_BIN_MUL, h, rows(g, wy, &m));
  tt_val_t per = tt_nn_mulc(g, rowsum(g, tt_b_select(g, act, h, tt_b_like_f(g, h, 0))), 1.0 / (double)m.c);
  tt_l_output(L, tt_b_convert(g, reduce_out(g, &m, per), m.dt));
  return NULL;
}

/* multi_margin_loss_backward(grad_output, self, target, p, margin, weight, reduction) */
static tt_status_t lower_multi_margin_backward(tt_lower_t *L) {
  mm_t m;
  if (!mm_setup(L, "multi_margin_loss_backward", "multi_margin_loss_backward_cpu_kernel", 1, 2, 6, &m)) return NULL;
  int p = mm_p(L, 3);
  if (!p) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t z, act, wy;
  mm_terms(L, &m, 1, 2, 4, 5, &z, &act, &wy);
  int64_t d[2] = {m.n, m.c}, d1[1] = {m.n}, zero = 0;
  tt_val_t h = p == 1 ? tt_b_full_f(g, m.ct, 2, d, 1.0 / (double)m.c) : tt_nn_mulc(g, z, 2.0 / (double)m.c);
  h = tt_b_binary(g, TT_BIN_MUL, h, rows(g, wy, &m));
  h = tt_b_select(g, act, h, tt_b_like_f(g, h, 0));
  tt_val_t y = tt_b_reshape(g, tt_l_tensor(L, 2), 1, d1);
  tt_val_t hot = tt_b_compare(g, TT_CMP_EQ, tt_b_iota(g, TT_I64, 2, d, 1), tt_b_broadcast(g, y, 2, d, &zero));
  tt_val_t gx = tt_b_select(g, hot, tt_b_unary(g, TT_UN_NEG, rows(g, rowsum(g, h), &m)), h);
  gx = tt_b_binary(g, TT_BIN_MUL, gx, grad_scale(L, &m, 0));
  tt_l_output(L, tt_b_convert(g, tt_b_reshape(g, gx, m.r, tt_l_arg_sizes(L, 1)), m.dt));
  return NULL;
}

/* multilabel terms over (n, k, j): k walks the target list up to its first
 * -1, j the classes. Returns active (n, k, j) = target k valid, j not a
 * target and z = 1 - x[y_k] + x[j] > 0, with z; is_target (n, c) as 0/1. */
static void ml_terms(tt_lower_t *L, const mm_t *m, int ix, int it, tt_val_t *z, tt_val_t *active, tt_val_t *hot, tt_val_t *is_target) {
  tt_graph_t *g = L->g;
  int64_t d[2] = {m->n, m->c}, d3[3] = {m->n, m->c, m->c};
  tt_val_t x = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, ix), m->ct), 2, d);
  tt_val_t y = tt_b_reshape(g, tt_l_tensor(L, it), 2, d);
  /* valid[k]: no -1 at positions <= k (a prefix count by a window sum) */
  tt_val_t neg = tt_b_convert(g, tt_b_compare(g, TT_CMP_LT, y, tt_b_like_f(g, y, 0)), TT_I32);
  int64_t win[2] = {1, m->c}, str[2] = {1, 1}, lo[2] = {0, m->c - 1}, hi[2] = {0, 0};
  tt_val_t seen = tt_b_reduce_window(g, TT_RED_SUM, neg, -1, win, str, lo, hi);
  tt_val_t valid = tt_b_compare(g, TT_CMP_EQ, seen, tt_b_like_f(g, seen, 0));
  int64_t bk[2] = {0, 1}, bj[2] = {0, 2};
  *hot = tt_b_binary(g, TT_BIN_AND, tt_b_compare(g, TT_CMP_EQ, tt_b_broadcast(g, y, 3, d3, bk), tt_b_iota(g, TT_I64, 3, d3, 2)),
                     tt_b_broadcast(g, valid, 3, d3, bk));
  int64_t one = 1;
  tt_val_t tgt = tt_b_reduce(g, TT_RED_OR, *hot, 1, &one); /* (n, j) */
  *is_target = tgt;
  tt_val_t xj = tt_b_broadcast(g, x, 3, d3, bj);
  int64_t two = 2;
  tt_val_t xy = tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, *hot, xj, tt_b_like_f(g, xj, 0)), 1, &two); /* (n, k) */
  *z = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_SUB, tt_b_like_f(g, xj, 1), tt_b_broadcast(g, xy, 3, d3, bk)), xj);
  tt_val_t act = tt_b_binary(g, TT_BIN_AND, tt_b_broadcast(g, valid, 3, d3, bk), tt_b_unary(g, TT_UN_NOT, tt_b_broadcast(g, tgt, 3, d3, bj)));
  *active = tt_b_binary(g, TT_BIN_AND, act, tt_b_compare(g, TT_CMP_GT, *z, tt_b_like_f(g, *z, 0)));
}

static int ml_check_target(tt_lower_t *L, const mm_t *m, int ix, int it) {
  int rt = tt_l_arg_rank(L, it);
  const int64_t *ts = tt_l_arg_sizes(L, it), *xs = tt_l_arg_sizes(L, ix);
  int same = rt == m->r;
  for (int i = 0; same && i < rt; i++) same = ts[i] == xs[i];
  if (!same) tt_l_fail(L, TT_INVALID_ARGUMENT, "inconsistent target size for multilabel_margin_loss: target must have the shape of the input");
  return same;
}

/* multilabel_margin_loss_forward(self, target, reduction) -> (output, is_target) */
static tt_status_t lower_multilabel_margin(tt_lower_t *L) {
  mm_t m;
  if (!mm_setup(L, "multilabel_margin_loss_forward_out_frame", "multilabel_margin_loss_forward_out_frame", 0, 1, 2, &m) || !ml_check_target(L, &m, 0, 1)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t z, act, hot, tgt;
  ml_terms(L, &m, 0, 1, &z, &act, &hot, &tgt);
  int64_t kj[2] = {1, 2};
  tt_val_t per = tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, act, z, tt_b_like_f(g, z, 0)), 2, kj);
  per = tt_nn_mulc(g, per, 1.0 / (double)m.c);
  tt_l_output(L, tt_b_convert(g, reduce_out(g, &m, per), m.dt));
  tt_l_output(L, tt_b_reshape(g, tt_b_convert(g, tgt, m.dt), m.r, tt_l_arg_sizes(L, 0)));
  return NULL;
}

/* multilabel_margin_loss_backward(grad_output, self, target, reduction, is_target):
 * each counted (k, j) adds 1/C to x[j] and takes it from x[y_k]. */
static tt_status_t lower_multilabel_margin_backward(tt_lower_t *L) {
  mm_t m;
  if (!mm_setup(L, "multilabel_margin_loss_backward_out_frame", "multilabel_margin_loss_backward_out_frame", 1, 2, 3, &m) || !ml_check_target(L, &m, 1, 2)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t z, act, hot, tgt;
  ml_terms(L, &m, 1, 2, &z, &act, &hot, &tgt);
  int64_t d[2] = {m.n, m.c}, d3[3] = {m.n, m.c, m.c}, one = 1, two = 2, bk[2] = {0, 1};
  tt_val_t a = tt_b_convert(g, act, m.ct);
  tt_val_t plus = tt_b_reduce(g, TT_RED_SUM, a, 1, &one);                       /* (n, j) */
  tt_val_t per_k = tt_b_broadcast(g, tt_b_reduce(g, TT_RED_SUM, a, 1, &two), 3, d3, bk); /* (n, k) -> (n, k, j') */
  tt_val_t minus = tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, hot, per_k, tt_b_like_f(g, per_k, 0)), 1, &one);
  (void)d;
  tt_val_t gx = tt_nn_mulc(g, tt_b_binary(g, TT_BIN_SUB, plus, minus), 1.0 / (double)m.c);
  gx = tt_b_binary(g, TT_BIN_MUL, gx, grad_scale(L, &m, 0));
  tt_l_output(L, tt_b_convert(g, tt_b_reshape(g, gx, m.r, tt_l_arg_sizes(L, 1)), m.dt));
  return NULL;
}

const tt_op_def_t tt_ops_loss_margin[] = {
    {"multi_margin_loss", lower_multi_margin, 0},
    {"multi_margin_loss_backward", lower_multi_margin_backward, 0},
    {"multilabel_margin_loss_forward", lower_multilabel_margin, 0},
    {"multilabel_margin_loss_backward", lower_multilabel_margin_backward, 0},
    {NULL, NULL, 0},
};
