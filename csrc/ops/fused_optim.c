/* Fused optimizer steps, what `torch.optim.Adam/AdamW/SGD/Adagrad(..., fused=True)`
 * call: _fused_adam_, _fused_adamw_, _fused_sgd_, _fused_adagrad_ (and their
 * .tensor_lr forms), one op over every parameter of a (device, dtype) group. Each
 * element follows CPU's kernel (ATen's cpu/Fused{Adam,SGD,Adagrad}Kernel, its
 * vectorized body): the arithmetic in the opmath type (float32 for
 * bfloat16/float16), the step's bias corrections in double then rounded.
 * The hyperparameters are runtime scalars, so an lr schedule does not
 * recompile; found_inf == 1 leaves every tensor as it was (CPU returns
 * early); grad_scale divides the gradients, which are written back. */
#include <math.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"

/* Argument i as a rank-0 float64 runtime value: a Python float, or (the
 * .tensor_lr overloads) a one-element tensor, read on device. */
static tt_val_t hyper(tt_lower_t *L, int i) {
  if (L->args[i].kind == TT_ARG_TENSOR && !L->args[i].t->is_host_scalar)
    return tt_b_convert(L->g, tt_op_one_element(L, i, "lr"), TT_F64);
  return tt_l_scalar_arg(L, i, TT_F64);
}

typedef struct {
  tt_lower_t *L;
  tt_val_t skip; /* rank-0 pred: found_inf == 1, or -1 */
  tt_val_t scale; /* rank-0 grad_scale in float32, or -1 */
} fused_common_t;

/* grad_scale (float32) and found_inf at args is and ii; 0 on error. */
static int common_setup(tt_lower_t *L, int is, int ii, fused_common_t *c) {
  c->L = L;
  c->scale = c->skip = -1;
  if (!tt_l_is_none(L, is)) c->scale = tt_b_convert(L->g, tt_op_one_element(L, is, "grad_scale"), TT_F32);
  if (!tt_l_is_none(L, ii))
    c->skip = tt_b_compare(L->g, TT_CMP_EQ, tt_b_convert(L->g, tt_op_one_element(L, ii, "found_inf"), TT_F32),
                           tt_b_const_f(L->g, TT_F32, 1.0));
  return !tt_graph_failed(L->g);
}

/* Writes v (opmath) into element j of list argument i, unless skipped. */
static void put(tt_lower_t *L, const fused_common_t *c, int i, int j, tt_val_t v) {
  tt_dtype_t dt = L->args[i].t[j].dtype;
  v = tt_b_convert(L->g, v, dt);
  if (c->skip >= 0) {
    const tt_type_t *t = tt_graph_type(L->g, v);
    v = tt_b_select(L->g, tt_b_broadcast_to(L->g, c->skip, t->rank, t->dims), tt_l_tensor_elem(L, i, j), v);
  }
  tt_l_write(L, i, j, v);
}

/* Checks that the lists have n tensors each. */
static int check_lists(tt_lower_t *L, const int *lists, int nl, int n) {
  for (int k = 0; k < nl; k++) {
    int len = tt_l_list_len(L, lists[k]);
    if (len < 0) return 0;
    if (len != n) {
      tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: the tensor lists must have the same length (%d and %d)", L->op, n, len);
      return 0;
    }
  }
  return 1;
}

static int float_dtype(tt_lower_t *L, tt_dtype_t dt, const char *kernel) {
  if (tt_dtype_is_float(dt)) return 1;
  tt_l_refuse_dtype(L, dt, "%s", kernel);
  return 0;
}

static tt_val_t bin(tt_graph_t *g, tt_binary_t op, tt_val_t a, tt_val_t b) { return tt_b_binary(g, op, a, b); }

/* A rank-0 hyperparameter in x's (opmath) type, broadcast against x. */
static tt_val_t at(const fused_common_t *c, tt_val_t s, tt_val_t x) { return tt_op_fit_like(c->L, s, x); }

/* The gradient as the step uses it: unscaled (and written back), negated
 * when maximizing. */
static tt_val_t step_grad(tt_lower_t *L, const fused_common_t *c, int j, tt_dtype_t om, int maximize) {
  tt_graph_t *g = L->g;
  tt_val_t gr = tt_b_convert(g, tt_l_tensor_elem(L, 1, j), om);
  if (c->scale >= 0) {
    gr = bin(g, TT_BIN_DIV, gr, at(c, c->scale, gr));
    put(L, c, 1, j, gr);
  }
  return maximize ? tt_b_unary(g, TT_UN_NEG, gr) : gr;
}

/* _fused_adam(w)_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
 * state_steps, *, lr, beta1, beta2, weight_decay, eps, amsgrad, maximize,
 * grad_scale, found_inf) */
static tt_status_t lower_adam(tt_lower_t *L, int adamw) {
  tt_graph_t *g = L->g;
  const char *kernel = "fused_adam_kernel";
  int n = tt_l_list_len(L, 0), amsgrad = tt_l_bool(L, 11, 0), maximize = tt_l_bool(L, 12, 0);
  if (n < 0) return NULL;
  int lists[4] = {1, 2, 3, 5};
  if (!check_lists(L, lists, 4, n)) return NULL;
  int nmax = tt_l_list_len(L, 4);
  if (nmax < 0) return NULL;
  if (nmax != (amsgrad ? n : 0))
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: max_exp_avg_sqs must have %d tensors with amsgrad=%s, got %d", L->op,
                          amsgrad ? n : 0, amsgrad ? "True" : "False", nmax);
  fused_common_t c;
  if (!common_setup(L, 13, 14, &c)) return NULL;
  double beta1_h = tt_l_float(L, 7, 0.9), wd_h = tt_l_float(L, 9, 0);
  tt_val_t lr = hyper(L, 6), beta1 = hyper(L, 7), beta2 = hyper(L, 8), wd = hyper(L, 9), eps = hyper(L, 10);
  tt_val_t one = tt_b_const_f(g, TT_F64, 1.0);
  tt_val_t c1 = bin(g, TT_BIN_SUB, one, beta1), c2 = bin(g, TT_BIN_SUB, one, beta2);
  tt_val_t cw = bin(g, TT_BIN_SUB, one, bin(g, TT_BIN_MUL, lr, wd));
  /* exp_avg.lerp_(grad, 1 - beta1): CPU's two forms, by the weight's size */
  int small_weight = fabs(1.0 - beta1_h) < 0.5;
  for (int j = 0; j < n; j++) {
    tt_dtype_t dt = L->args[0].t[j].dtype;
    if (!float_dtype(L, dt, kernel)) return NULL;
    tt_dtype_t om = tt_op_math_type(dt);
    tt_val_t step = tt_b_convert(g, tt_b_reshape(g, tt_l_tensor_elem(L, 5, j), 0, NULL), TT_F64);
    tt_val_t bc1 = bin(g, TT_BIN_SUB, one, bin(g, TT_BIN_POW, beta1, step));
    tt_val_t nss = tt_b_unary(g, TT_UN_NEG, bin(g, TT_BIN_DIV, lr, bc1));
    tt_val_t bc2s = tt_b_unary(g, TT_UN_SQRT, bin(g, TT_BIN_SUB, one, bin(g, TT_BIN_POW, beta2, step)));
    tt_val_t p = tt_b_convert(g, tt_l_tensor_elem(L, 0, j), om), gr = step_grad(L, &c, j, om, maximize);
    if (wd_h != 0) {
      if (adamw) p = bin(g, TT_BIN_MUL, p, at(&c, cw, p));
      else gr = bin(g, TT_BIN_ADD, gr, bin(g, TT_BIN_MUL, p, at(&c, wd, p)));
    }
    tt_val_t m = tt_b_convert(g, tt_l_tensor_elem(L, 2, j), om), diff = bin(g, TT_BIN_SUB, gr, m);
    if (small_weight) m = bin(g, TT_BIN_ADD, m, bin(g, TT_BIN_MUL, at(&c, c1, m), diff));
    else {
      tt_val_t w = tt_b_convert(g, c1, om); /* CPU: (1 - beta1) rounded to the opmath type, then 1 taken off */
      m = bin(g, TT_BIN_ADD, gr, bin(g, TT_BIN_MUL, at(&c, bin(g, TT_BIN_SUB, w, tt_b_const_f(g, om, 1.0)), m), diff));
    }
    tt_val_t v = bin(g, TT_BIN_MUL, tt_b_convert(g, tt_l_tensor_elem(L, 3, j), om), at(&c, beta2, gr));
    v = bin(g, TT_BIN_ADD, v, bin(g, TT_BIN_MUL, bin(g, TT_BIN_MUL, at(&c, c2, gr), gr), gr));
    put(L, &c, 2, j, m);
    put(L, &c, 3, j, v);
    tt_val_t vd = v;
    if (amsgrad) {
      vd = bin(g, TT_BIN_MAX, tt_b_convert(g, tt_l_tensor_elem(L, 4, j), om), v);
      put(L, &c, 4, j, vd);
    }
    tt_val_t den = bin(g, TT_BIN_ADD, bin(g, TT_BIN_DIV, tt_b_unary(g, TT_UN_SQRT, vd), at(&c, bc2s, vd)), at(&c, eps, vd));
    p = bin(g, TT_BIN_ADD, p, bin(g, TT_BIN_DIV, bin(g, TT_BIN_MUL, at(&c, nss, m), m), den));
    put(L, &c, 0, j, p);
    if (tt_graph_failed(g)) return NULL;
  }
  return NULL;
}

static tt_status_t lower_fused_adam(tt_lower_t *L) { return lower_adam(L, 0); }
static tt_status_t lower_fused_adamw(tt_lower_t *L) { return lower_adam(L, 1); }

/* _fused_sgd_(self, grads, momentum_buffer_list, *, weight_decay, momentum,
 * lr, dampening, nesterov, maximize, is_first_step, grad_scale, found_inf) */
static tt_status_t lower_fused_sgd(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int n = tt_l_list_len(L, 0), nesterov = tt_l_bool(L, 7, 0), maximize = tt_l_bool(L, 8, 0), first = tt_l_bool(L, 9, 0);
  if (n < 0) return NULL;
  int lists[1] = {1};
  if (!check_lists(L, lists, 1, n)) return NULL;
  double wd_h = tt_l_float(L, 3, 0), mom_h = tt_l_float(L, 4, 0);
  int nbuf = tt_l_list_len(L, 2);
  if (nbuf < 0) return NULL;
  if (nbuf != (mom_h != 0 ? n : 0))
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: momentum_buffer_list must have %d tensors with momentum=%g, got %d",
                          L->op, mom_h != 0 ? n : 0, mom_h, nbuf);
  fused_common_t c;
  if (!common_setup(L, 10, 11, &c)) return NULL;
  tt_val_t wd = hyper(L, 3), mom = hyper(L, 4), lr = hyper(L, 5), damp = hyper(L, 6);
  tt_val_t cd = bin(g, TT_BIN_SUB, tt_b_const_f(g, TT_F64, 1.0), damp), nlr = tt_b_unary(g, TT_UN_NEG, lr);
  for (int j = 0; j < n; j++) {
    tt_dtype_t dt = L->args[0].t[j].dtype;
    if (!float_dtype(L, dt, "fused_sgd_kernel")) return NULL;
    tt_dtype_t om = tt_op_math_type(dt);
    tt_val_t p = tt_b_convert(g, tt_l_tensor_elem(L, 0, j), om), gr = step_grad(L, &c, j, om, maximize);
    if (wd_h != 0) gr = bin(g, TT_BIN_ADD, gr, bin(g, TT_BIN_MUL, p, at(&c, wd, p)));
    if (mom_h != 0) {
      tt_val_t buf = gr;
      if (!first)
        buf = bin(g, TT_BIN_ADD, bin(g, TT_BIN_MUL, tt_b_convert(g, tt_l_tensor_elem(L, 2, j), om), at(&c, mom, gr)),
                  bin(g, TT_BIN_MUL, gr, at(&c, cd, gr)));
      put(L, &c, 2, j, buf);
      gr = nesterov ? bin(g, TT_BIN_ADD, gr, bin(g, TT_BIN_MUL, buf, at(&c, mom, buf))) : buf;
    }
    p = bin(g, TT_BIN_ADD, p, bin(g, TT_BIN_MUL, gr, at(&c, nlr, gr)));
    put(L, &c, 0, j, p);
    if (tt_graph_failed(g)) return NULL;
  }
  return NULL;
}

/* _fused_adagrad_(self, grads, state_sums, state_steps, *, lr, lr_decay,
 * weight_decay, eps, maximize, grad_scale, found_inf). CPU's bf16/f16 body
 * rounds weight_decay, eps and the step's lr to the parameter type first. */
static tt_status_t lower_fused_adagrad(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int n = tt_l_list_len(L, 0), maximize = tt_l_bool(L, 8, 0);
  if (n < 0) return NULL;
  int lists[3] = {1, 2, 3};
  if (!check_lists(L, lists, 3, n)) return NULL;
  fused_common_t c;
  if (!common_setup(L, 9, 10, &c)) return NULL;
  double wd_h = tt_l_float(L, 6, 0);
  tt_val_t lr = hyper(L, 4), decay = hyper(L, 5), wd = hyper(L, 6), eps = hyper(L, 7), one = tt_b_const_f(g, TT_F64, 1.0);
  for (int j = 0; j < n; j++) {
    tt_dtype_t dt = L->args[0].t[j].dtype;
    if (!float_dtype(L, dt, "fused_adagrad_kernel")) return NULL;
    tt_dtype_t om = tt_op_math_type(dt);
#define K(v) tt_b_convert(g, (v), dt) /* rounded to the parameter type, then (at) to opmath */
    tt_val_t step = tt_b_convert(g, tt_b_reshape(g, tt_l_tensor_elem(L, 3, j), 0, NULL), TT_F64);
    tt_val_t clr = bin(g, TT_BIN_DIV, lr, bin(g, TT_BIN_ADD, one, bin(g, TT_BIN_MUL, bin(g, TT_BIN_SUB, step, one), decay)));
    tt_val_t p = tt_b_convert(g, tt_l_tensor_elem(L, 0, j), om), gr = step_grad(L, &c, j, om, maximize);
    if (wd_h != 0) gr = bin(g, TT_BIN_ADD, gr, bin(g, TT_BIN_MUL, p, at(&c, K(wd), p)));
    tt_val_t sum = bin(g, TT_BIN_ADD, tt_b_convert(g, tt_l_tensor_elem(L, 2, j), om), bin(g, TT_BIN_MUL, gr, gr));
    put(L, &c, 2, j, sum);
    tt_val_t sd = bin(g, TT_BIN_ADD, tt_b_unary(g, TT_UN_SQRT, sum), at(&c, K(eps), sum));
    p = bin(g, TT_BIN_SUB, p, bin(g, TT_BIN_DIV, bin(g, TT_BIN_MUL, at(&c, K(clr), gr), gr), sd));
    put(L, &c, 0, j, p);
#undef K
    if (tt_graph_failed(g)) return NULL;
  }
  return NULL;
}

const tt_op_def_t tt_ops_fused_optim[] = {
    {"_fused_adam_", lower_fused_adam, 0},
    {"_fused_adam_.tensor_lr", lower_fused_adam, 0},
    {"_fused_adamw_", lower_fused_adamw, 0},
    {"_fused_adamw_.tensor_lr", lower_fused_adamw, 0},
    {"_fused_sgd_", lower_fused_sgd, 0},
    {"_fused_sgd_.tensor_lr", lower_fused_sgd, 0},
    {"_fused_adagrad_", lower_fused_adagrad, 0},
    {"_fused_adagrad_.tensor_lr", lower_fused_adagrad, 0},
    {NULL, NULL, 0},
};
