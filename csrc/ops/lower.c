/* Lowering context helpers: argument readers, parameters, results, writes. */
#include "ops/lower.h"

#include <stdio.h>

#include "api/context.h"
#include "exec/scalars.h"

tt_val_t tt_l_fail(tt_lower_t *L, tt_code_t code, const char *fmt, ...) {
  if (tt_graph_failed(L->g)) return -1;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tt_graph_fail(L->g, code, "%s", msg);
}

static const tt_arg_t *arg(tt_lower_t *L, int i) {
  static const tt_arg_t none = {0};
  return i >= 0 && i < L->nargs ? &L->args[i] : &none;
}

static tt_val_t add_param(tt_lower_t *L, const tt_type_t *t, tt_binding_t b) {
  if (L->nparams >= TT_LOWER_MAX_PARAMS)
    return tt_l_fail(L, TT_NOT_IMPLEMENTED, "%s: more than %d inputs in one op", L->op, TT_LOWER_MAX_PARAMS);
  tt_val_t v = tt_b_param(L->g, t);
  if (v < 0) return -1;
  L->binds[L->nparams] = b;
  L->param_storage[L->nparams] = b.kind == TT_BIND_STORAGE ? b.storage : NULL;
  L->param_val[L->nparams] = v;
  L->nparams++;
  return v;
}

/* The parameter holding a storage's flat base, added once per storage. */
tt_val_t tt_l_storage_base(tt_lower_t *L, tt_storage_t *s) {
  for (int p = 0; p < L->nparams; p++)
    if (L->param_storage[p] == s) return L->param_val[p];
  tt_type_t t = tt_type_make(s->dtype, 1, &s->numel);
  tt_binding_t b = {.kind = TT_BIND_STORAGE, .storage = s};
  return add_param(L, &t, b);
}

tt_val_t tt_l_scalar(tt_lower_t *L, tt_dtype_t dtype, double f, int64_t iv, int is_float) {
  tt_type_t t = tt_type_make(dtype, 0, NULL);
  tt_binding_t b = {.kind = TT_BIND_SCALAR, .dtype = dtype,
                    .bits = tt_scalar_bits(dtype, f, iv, is_float)};
  return add_param(L, &t, b);
}

tt_val_t tt_l_rng_state(tt_lower_t *L) {
  tt_ctx_t *c = tt_ctx();
  int64_t two = 2;
  tt_type_t t = tt_type_make(TT_U64, 1, &two);
  tt_binding_t b = {.kind = TT_BIND_HOST};
  b.host[0] = c->rng_seed;
  b.host[1] = c->rng_offset++;
  return add_param(L, &t, b);
}

static tt_val_t read_ref(tt_lower_t *L, const tt_tensor_ref_t *r) {
  if (r->is_host_scalar)
    return tt_l_scalar(L, r->dtype, r->host_f, r->host_i, tt_dtype_is_float(r->dtype));
  if (!r->storage) return tt_l_fail(L, TT_INTERNAL, "%s: tensor without storage", L->op);
  tt_val_t base = tt_l_storage_base(L, r->storage);
  if (r->dtype != r->storage->dtype) /* Tensor.view(dtype): the bytes as r->dtype */
    base = tt_view_bitcast_flat(L->g, base, r->dtype,
                                tt_view_bitcast_numel(r->storage->dtype, r->storage->numel, r->dtype));
  return tt_view_read(L->g, base, &r->view);
}

tt_val_t tt_l_tensor(tt_lower_t *L, int i) {
  const tt_arg_t *a = arg(L, i);
  if (a->kind != TT_ARG_TENSOR)
    return tt_l_fail(L, TT_TYPE_ERROR, "%s: argument %d must be a Tensor", L->op, i);
  return read_ref(L, a->t);
}

tt_val_t tt_l_tensor_elem(tt_lower_t *L, int i, int j) {
  const tt_arg_t *a = arg(L, i);
  if (a->kind != TT_ARG_TENSORS || j < 0 || j >= a->n)
    return tt_l_fail(L, TT_TYPE_ERROR, "%s: argument %d must be a list of Tensors", L->op, i);
  if (!a->t[j].storage && !a->t[j].is_host_scalar)
    return tt_l_fail(L, TT_INTERNAL, "%s: argument %d[%d] is None", L->op, i, j);
  return read_ref(L, &a->t[j]);
}

const tt_tensor_ref_t *tt_l_ref(tt_lower_t *L, int i) {
  const tt_arg_t *a = arg(L, i);
  return a->kind == TT_ARG_TENSOR ? a->t : NULL;
}

tt_dtype_t tt_l_arg_dtype(tt_lower_t *L, int i) {
  const tt_tensor_ref_t *r = tt_l_ref(L, i);
  return r ? r->dtype : TT_DTYPE_INVALID;
}

int tt_l_arg_rank(tt_lower_t *L, int i) {
  const tt_tensor_ref_t *r = tt_l_ref(L, i);
  return r ? r->view.rank : -1;
}

const int64_t *tt_l_arg_sizes(tt_lower_t *L, int i) {
  const tt_tensor_ref_t *r = tt_l_ref(L, i);
  return r ? r->view.sizes : NULL;
}

int tt_l_is_none(tt_lower_t *L, int i) { return arg(L, i)->kind == TT_ARG_NONE; }

int64_t tt_l_int(tt_lower_t *L, int i, int64_t dflt) {
  const tt_arg_t *a = arg(L, i);
  switch (a->kind) {
    case TT_ARG_NONE: return dflt;
    case TT_ARG_INT:
    case TT_ARG_BOOL: return a->i;
    case TT_ARG_INTS:
      if (a->n == 1) return a->ints[0];
      break;
    default: break;
  }
  tt_l_fail(L, TT_TYPE_ERROR, "%s: argument %d must be an int", L->op, i);
  return dflt;
}

double tt_l_float(tt_lower_t *L, int i, double dflt) {
  const tt_arg_t *a = arg(L, i);
  switch (a->kind) {
    case TT_ARG_NONE: return dflt;
    case TT_ARG_INT:
    case TT_ARG_BOOL: return (double)a->i;
    case TT_ARG_FLOAT: return a->f;
    default: break;
  }
  tt_l_fail(L, TT_TYPE_ERROR, "%s: argument %d must be a number", L->op, i);
  return dflt;
}

int tt_l_bool(tt_lower_t *L, int i, int dflt) { return (int)tt_l_int(L, i, dflt); }

int tt_l_ints(tt_lower_t *L, int i, int64_t *out, int max) {
  const tt_arg_t *a = arg(L, i);
  if (a->kind == TT_ARG_INT) {
    out[0] = a->i;
    return 1;
  }
  if (a->kind == TT_ARG_NONE) return 0;
  if (a->kind != TT_ARG_INTS) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: argument %d must be a list of ints", L->op, i);
    return 0;
  }
  if (a->n > max) {
    tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: argument %d has %d entries (max %d)", L->op, i, a->n, max);
    return 0;
  }
  for (int k = 0; k < a->n; k++) out[k] = a->ints[k];
  return a->n;
}

const char *tt_l_str(tt_lower_t *L, int i, const char *dflt) {
  const tt_arg_t *a = arg(L, i);
  if (a->kind == TT_ARG_NONE) return dflt;
  if (a->kind != TT_ARG_STR) {
    tt_l_fail(L, TT_TYPE_ERROR, "%s: argument %d must be a string", L->op, i);
    return dflt;
  }
  return a->s;
}

tt_dtype_t tt_l_dtype(tt_lower_t *L, int i) {
  const tt_arg_t *a = arg(L, i);
  if (a->kind == TT_ARG_DTYPE) return (tt_dtype_t)a->i;
  return TT_DTYPE_INVALID;
}

tt_val_t tt_l_scalar_arg(tt_lower_t *L, int i, tt_dtype_t dtype) {
  const tt_arg_t *a = arg(L, i);
  if (a->kind == TT_ARG_FLOAT) return tt_l_scalar(L, dtype, a->f, 0, 1);
  if (a->kind == TT_ARG_INT || a->kind == TT_ARG_BOOL) return tt_l_scalar(L, dtype, 0, a->i, 0);
  if (a->kind == TT_ARG_TENSOR && a->t->is_host_scalar)
    return tt_l_scalar(L, dtype, a->t->host_f, a->t->host_i, tt_dtype_is_float(a->t->dtype));
  return tt_l_fail(L, TT_TYPE_ERROR, "%s: argument %d must be a number", L->op, i);
}

void tt_l_output(tt_lower_t *L, tt_val_t v) {
  if (L->nouts >= TT_LOWER_MAX_OUTS) {
    tt_l_fail(L, TT_NOT_IMPLEMENTED, "%s: too many outputs", L->op);
    return;
  }
  L->outs[L->nouts++] = v;
}

void tt_l_write(tt_lower_t *L, int i, int j, tt_val_t v) {
  if (L->nwrites >= TT_LOWER_MAX_WRITES) {
    tt_l_fail(L, TT_NOT_IMPLEMENTED, "%s: too many in-place writes", L->op);
    return;
  }
  L->write_arg[L->nwrites] = i;
  L->write_elem[L->nwrites] = j;
  L->write_val[L->nwrites] = v;
  L->nwrites++;
}
