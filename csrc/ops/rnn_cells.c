/* The fused LSTM and GRU cells that nn.LSTM/nn.GRU/LSTMCell/GRUCell call on
 * accelerators (PyTorch takes this path for CUDA, XPU and PrivateUse1
 * devices): _thnn_fused_lstm_cell (+ _backward_impl) and
 * _thnn_fused_gru_cell (+ _backward). Gates are (N, 4H) (i, f, g, o) and
 * (N, 3H) (r, z, n) as PyTorch lays them out; the workspaces the forward
 * returns for the backward are CUDA's: the four LSTM gate activations
 * (N, 4H), and for the GRU (N, 5H) = r, z, n, the hidden n-gate input with
 * its bias, and hx. Arithmetic in the opmath type (float32 for bf16/f16). */
#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"

typedef struct {
  tt_graph_t *g;
  tt_dtype_t dt, om;
  int64_t n, h; /* batch, hidden size */
} cell_t;

static tt_val_t add(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_ADD, a, b); }
static tt_val_t sub(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_SUB, a, b); }
static tt_val_t mul(tt_graph_t *g, tt_val_t a, tt_val_t b) { return tt_b_binary(g, TT_BIN_MUL, a, b); }

/* 1 - x */
static tt_val_t one_minus(tt_graph_t *g, tt_val_t x) { return sub(g, tt_b_like_f(g, x, 1.0), x); }

/* Chunk k (of width h) of a (N, m*h) value. */
static tt_val_t chunk(const cell_t *c, tt_val_t x, int k) { return tt_b_slice_dim(c->g, x, 1, k * c->h, (k + 1) * c->h, 1); }

/* Argument i in the opmath type; a (gates) bias is broadcast over the batch. */
static tt_val_t operand(tt_lower_t *L, const cell_t *c, int i, int64_t width) {
  tt_val_t v = tt_b_convert(c->g, tt_l_tensor(L, i), c->om);
  if (tt_l_arg_rank(L, i) == 1) {
    int64_t d[2] = {c->n, width}, one = 1;
    v = tt_b_broadcast(c->g, v, 2, d, &one);
  }
  return v;
}

/* Batch n, hidden size h and the cell's dtype (floating types only). */
static int set_cell(tt_lower_t *L, cell_t *c, int64_t n, int64_t h, tt_dtype_t dt) {
  c->g = L->g;
  c->n = n;
  c->h = h;
  c->dt = dt;
  c->om = tt_op_math_type(dt);
  if (tt_dtype_is_float(dt)) return 1;
  tt_l_refuse_dtype(L, dt, "%s", L->op);
  return 0;
}

/* Sets up from the (N, m*H) gates at argument gi; 0 with an error when the
 * shapes do not fit (CPU has no kernel: CUDA's checks' words). */
static int setup(tt_lower_t *L, int gi, int hi, int m, cell_t *c) {
  if (tt_l_arg_rank(L, gi) != 2 || tt_l_arg_rank(L, hi) != 2 || tt_l_arg_sizes(L, gi)[1] % m) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: expected 2-D gates of width %d*hidden_size and a 2-D hidden state", L->op, m);
    return 0;
  }
  if (!set_cell(L, c, tt_l_arg_sizes(L, gi)[0], tt_l_arg_sizes(L, gi)[1] / m, tt_l_arg_dtype(L, gi))) return 0;
  const int64_t *hs = tt_l_arg_sizes(L, hi);
  if (hs[0] != c->n || hs[1] != c->h) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: the hidden state is %lldx%lld, the gates want %lldx%lld", L->op,
              (long long)hs[0], (long long)hs[1], (long long)c->n, (long long)c->h);
    return 0;
  }
  return 1;
}

/* A forward cell's arguments: gates (0, 1), state (2), optional biases (3, 4). */
typedef struct {
  tt_val_t ig, hg, state, b1, b2; /* b1, b2 -1 without biases */
} cell_in_t;

static int read_cell(tt_lower_t *L, int m, cell_t *c, cell_in_t *in) {
  if (!setup(L, 0, 2, m, c)) return 0;
  int64_t w = m * c->h;
  int biased = !tt_l_is_none(L, 3);
  in->ig = operand(L, c, 0, w);
  in->hg = operand(L, c, 1, w);
  in->state = operand(L, c, 2, c->h);
  in->b1 = biased ? operand(L, c, 3, w) : -1;
  in->b2 = biased ? operand(L, c, 4, w) : -1;
  return 1;
}

/* Gate k's input_gates + hidden_gates (+ input_bias + hidden_bias), CUDA's order. */
static tt_val_t gate_sum(const cell_t *c, const cell_in_t *in, int k) {
  tt_val_t s = add(c->g, chunk(c, in->ig, k), chunk(c, in->hg, k));
  if (in->b1 >= 0) s = add(c->g, add(c->g, s, chunk(c, in->b1, k)), chunk(c, in->b2, k));
  return s;
}

static tt_val_t out(const cell_t *c, tt_val_t v) { return tt_b_convert(c->g, v, c->dt); }

/* A bias gradient: the gates' gradient summed over the batch, or (no bias)
 * an empty tensor where PyTorch returns an undefined one. */
static void output_bias_grad(tt_lower_t *L, const cell_t *c, tt_val_t grad_gates, int biased) {
  int64_t zero = 0;
  tt_l_output(L, biased ? out(c, tt_b_reduce(c->g, TT_RED_SUM, grad_gates, 1, &zero)) : tt_b_full_f(c->g, c->dt, 1, &zero, 0.0));
}

/* _thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias?, hidden_bias?) -> (hy, cy, workspace) */
static tt_status_t lower_lstm_cell(tt_lower_t *L) {
  cell_t c;
  cell_in_t in;
  if (!read_cell(L, 4, &c, &in)) return NULL;
  tt_graph_t *g = c.g;
  tt_val_t i = tt_b_unary(g, TT_UN_LOGISTIC, gate_sum(&c, &in, 0));
  tt_val_t f = tt_b_unary(g, TT_UN_LOGISTIC, gate_sum(&c, &in, 1));
  tt_val_t gg = tt_b_unary(g, TT_UN_TANH, gate_sum(&c, &in, 2));
  tt_val_t o = tt_b_unary(g, TT_UN_LOGISTIC, gate_sum(&c, &in, 3));
  tt_val_t cy = add(g, mul(g, f, in.state), mul(g, i, gg));
  tt_val_t hy = mul(g, o, tt_b_unary(g, TT_UN_TANH, cy));
  tt_val_t ws[4] = {i, f, gg, o};
  tt_l_output(L, out(&c, hy));
  tt_l_output(L, out(&c, cy));
  tt_l_output(L, out(&c, tt_b_concat(g, 4, ws, 1)));
  return NULL;
}

/* _thnn_fused_lstm_cell_backward_impl(grad_hy?, grad_cy?, cx, cy, workspace, has_bias)
 * -> (grad_gates, grad_cx, grad_bias) */
static tt_status_t lower_lstm_cell_backward(tt_lower_t *L) {
  cell_t c;
  if (!setup(L, 4, 2, 4, &c)) return NULL;
  tt_graph_t *g = c.g;
  tt_val_t ws = operand(L, &c, 4, 4 * c.h), cx = operand(L, &c, 2, c.h), cy = operand(L, &c, 3, c.h);
  tt_val_t i = chunk(&c, ws, 0), f = chunk(&c, ws, 1), gg = chunk(&c, ws, 2), o = chunk(&c, ws, 3);
  int64_t d[2] = {c.n, c.h};
  tt_val_t zero = tt_b_full_f(g, c.om, 2, d, 0.0);
  tt_val_t ghy = tt_l_is_none(L, 0) ? zero : operand(L, &c, 0, c.h);
  tt_val_t tcy = tt_b_unary(g, TT_UN_TANH, cy);
  tt_val_t go = mul(g, ghy, tcy);
  tt_val_t gcx = mul(g, mul(g, ghy, o), one_minus(g, mul(g, tcy, tcy)));
  if (!tt_l_is_none(L, 1)) gcx = add(g, gcx, operand(L, &c, 1, c.h));
  tt_val_t gi = mul(g, gcx, gg), gf = mul(g, gcx, cx), gc = mul(g, gcx, i);
  gcx = mul(g, gcx, f);
  gi = mul(g, mul(g, gi, one_minus(g, i)), i);
  gf = mul(g, mul(g, gf, one_minus(g, f)), f);
  gc = mul(g, gc, one_minus(g, mul(g, gg, gg)));
  go = mul(g, mul(g, go, one_minus(g, o)), o);
  tt_val_t parts[4] = {gi, gf, gc, go};
  tt_val_t gates = tt_b_concat(g, 4, parts, 1);
  tt_l_output(L, out(&c, gates));
  tt_l_output(L, out(&c, gcx));
  output_bias_grad(L, &c, gates, tt_l_bool(L, 5, 0));
  return NULL;
}

/* _thnn_fused_gru_cell(input_gates, hidden_gates, hx, input_bias?, hidden_bias?) -> (hy, workspace) */
static tt_status_t lower_gru_cell(tt_lower_t *L) {
  cell_t c;
  cell_in_t in;
  if (!read_cell(L, 3, &c, &in)) return NULL;
  tt_graph_t *g = c.g;
  tt_val_t hx = in.state;
  tt_val_t r = tt_b_unary(g, TT_UN_LOGISTIC, gate_sum(&c, &in, 0));
  tt_val_t z = tt_b_unary(g, TT_UN_LOGISTIC, gate_sum(&c, &in, 1));
  tt_val_t xn = chunk(&c, in.ig, 2), hn = chunk(&c, in.hg, 2);
  if (in.b1 >= 0) xn = add(g, xn, chunk(&c, in.b1, 2)), hn = add(g, hn, chunk(&c, in.b2, 2));
  tt_val_t nn = tt_b_unary(g, TT_UN_TANH, add(g, xn, mul(g, r, hn)));
  tt_val_t hy = add(g, nn, mul(g, z, sub(g, hx, nn)));
  tt_val_t ws[5] = {r, z, nn, hn, hx};
  tt_l_output(L, out(&c, hy));
  tt_l_output(L, out(&c, tt_b_concat(g, 5, ws, 1)));
  return NULL;
}

/* _thnn_fused_gru_cell_backward(grad_hy, workspace, has_bias)
 * -> (grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias) */
static tt_status_t lower_gru_cell_backward(tt_lower_t *L) {
  cell_t c;
  if (tt_l_arg_rank(L, 0) != 2 || tt_l_arg_rank(L, 1) != 2 || tt_l_arg_sizes(L, 1)[1] != 5 * tt_l_arg_sizes(L, 0)[1])
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: expected grad_hy (N, H) and a workspace (N, 5H)", L->op);
  if (!set_cell(L, &c, tt_l_arg_sizes(L, 0)[0], tt_l_arg_sizes(L, 0)[1], tt_l_arg_dtype(L, 0))) return NULL;
  tt_graph_t *g = c.g;
  tt_val_t gy = operand(L, &c, 0, c.h), ws = operand(L, &c, 1, 5 * c.h);
  tt_val_t r = chunk(&c, ws, 0), z = chunk(&c, ws, 1), nn = chunk(&c, ws, 2), hn = chunk(&c, ws, 3), hx = chunk(&c, ws, 4);
  tt_val_t gz = mul(g, mul(g, mul(g, gy, sub(g, hx, nn)), one_minus(g, z)), z);
  tt_val_t ghx = mul(g, gy, z);
  tt_val_t gn = mul(g, mul(g, gy, one_minus(g, z)), one_minus(g, mul(g, nn, nn)));
  tt_val_t ghn = mul(g, gn, r);
  tt_val_t gr = mul(g, mul(g, mul(g, gn, hn), one_minus(g, r)), r);
  tt_val_t in_parts[3] = {gr, gz, gn}, h_parts[3] = {gr, gz, ghn};
  tt_val_t gin = tt_b_concat(g, 3, in_parts, 1), ghid = tt_b_concat(g, 3, h_parts, 1);
  tt_l_output(L, out(&c, gin));
  tt_l_output(L, out(&c, ghid));
  tt_l_output(L, out(&c, ghx));
  output_bias_grad(L, &c, gin, tt_l_bool(L, 2, 0));
  output_bias_grad(L, &c, ghid, tt_l_bool(L, 2, 0));
  return NULL;
}

const tt_op_def_t tt_ops_rnn_cells[] = {
    {"_thnn_fused_lstm_cell", lower_lstm_cell, 0},
    {"_thnn_fused_lstm_cell_backward_impl", lower_lstm_cell_backward, 0},
    {"_thnn_fused_gru_cell", lower_gru_cell, 0},
    {"_thnn_fused_gru_cell_backward", lower_gru_cell_backward, 0},
    {NULL, NULL, 0},
};
