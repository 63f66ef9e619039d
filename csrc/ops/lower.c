/* Lowering context helpers: argument readers, parameters, results, writes. */
#include "ops/lower.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/scalar_bits.h"
#include "views/view.h"

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
  L->nparams++;
  return L->env->param(L->env->self, t, b);
}

tt_val_t tt_l_storage_base(tt_lower_t *L, tt_storage_t *s) { return L->env->storage_base(L->env->self, s); }

tt_dtype_t tt_l_storage_dtype(tt_lower_t *L, const tt_storage_t *s) {
  tt_dtype_t dt;
  int64_t n;
  L->env->storage_meta(L->env->self, s, &dt, &n);
  return dt;
}

int64_t tt_l_storage_numel(tt_lower_t *L, const tt_storage_t *s) {
  tt_dtype_t dt;
  int64_t n;
  L->env->storage_meta(L->env->self, s, &dt, &n);
  return n;
}

static int fixed(tt_lower_t *L, const tt_storage_t *s) { return L->env->fixed && L->env->fixed(L->env->self, s); }

static tt_val_t runtime_scalar(tt_lower_t *L, tt_dtype_t dtype, uint64_t bits) {
  tt_type_t t = tt_type_make(dtype, 0, NULL);
  tt_binding_t b = {.kind = TT_BIND_SCALAR, .dtype = dtype, .bits = bits};
  return add_param(L, &t, b);
}

tt_val_t tt_l_scalar(tt_lower_t *L, tt_dtype_t dtype, double f, int64_t iv, int is_float) {
  if (tt_dtype_is_complex(dtype)) return tt_l_scalar_c(L, dtype, is_float ? f : (double)iv, 0.0);
  return runtime_scalar(L, dtype, tt_scalar_bits(dtype, f, iv, is_float));
}

tt_val_t tt_l_scalar_c(tt_lower_t *L, tt_dtype_t dtype, double re, double im) {
  tt_dtype_t pt = tt_dtype_real_part(dtype);
  tt_val_t r = tt_l_scalar(L, pt, re, 0, 1);
  if (!tt_dtype_is_complex(dtype)) return r;
  /* a zero imaginary part is baked in: real scalars stay one parameter */
  tt_val_t i = im == 0.0 && !signbit(im) ? tt_b_const_f(L->g, pt, 0.0) : tt_l_scalar(L, pt, im, 0, 1);
  return tt_b_binary(L->g, TT_BIN_COMPLEX, r, i);
}

tt_val_t tt_l_rng_state(tt_lower_t *L) {
  uint64_t seed, offset;
  L->env->rng_draw(L->env->self, &seed, &offset);
  int64_t two = 2;
  tt_type_t t = tt_type_make(TT_U64, 1, &two);
  tt_binding_t b = {.kind = TT_BIND_RNG};
  b.host[0] = seed;
  b.host[1] = offset;
  return add_param(L, &t, b);
}

tt_val_t tt_l_apply_math_bits(tt_graph_t *g, const tt_tensor_ref_t *r, tt_val_t v) {
  if (r->conj && tt_dtype_is_complex(r->dtype))
    v = tt_b_binary(g, TT_BIN_COMPLEX, tt_b_unary(g, TT_UN_REAL, v), tt_b_unary(g, TT_UN_NEG, tt_b_unary(g, TT_UN_IMAG, v)));
  if (r->neg) v = tt_b_unary(g, TT_UN_NEG, v);
  return v;
}

/* v (a padded read of ref k) with what lies past its logical length masked. */
static tt_val_t mask_padding(tt_lower_t *L, int k, tt_val_t v) {
  if (v < 0 || !L->pad_mask) return v;
  tt_graph_t *g = L->g;
  const tt_type_t *t = tt_graph_type(g, v);
  int rank = t->rank;
  int64_t dims[TT_MAX_RANK];
  memcpy(dims, t->dims, sizeof(int64_t) * (size_t)rank);
  tt_val_t len = tt_b_broadcast_to(g, tt_l_scalar(L, TT_I32, 0.0, L->pad_len[k], 0), rank, dims);
  tt_val_t keep = tt_b_compare(g, TT_CMP_LT, tt_b_iota(g, TT_I32, rank, dims, L->pad_dim[k]), len);
  tt_val_t fill = L->pad_mask == 2 ? tt_b_lowest(g, t->dtype) : tt_b_const_f(g, t->dtype, 0.0);
  return tt_b_select(g, keep, v, tt_b_broadcast_to(g, fill, rank, dims));
}

static tt_val_t read_plain(tt_lower_t *L, const tt_tensor_ref_t *r);

static tt_val_t read_ref(tt_lower_t *L, const tt_tensor_ref_t *r) {
  for (int k = 0; k < L->npads; k++)
    if (L->pad_ref[k] == r) return mask_padding(L, k, read_plain(L, r));
  return read_plain(L, r);
}

static tt_val_t read_plain(tt_lower_t *L, const tt_tensor_ref_t *r) {
  if (r->is_host_scalar && tt_dtype_is_complex(r->dtype)) return tt_l_scalar_c(L, r->dtype, r->host_f, r->host_im);
  if (r->is_host_scalar)
    return tt_l_scalar(L, r->dtype, r->host_f, r->host_i, tt_dtype_is_float(r->dtype));
  if (!r->storage) return tt_l_fail(L, TT_INTERNAL, "%s: tensor without storage", L->op);
  tt_val_t base = tt_l_storage_base(L, r->storage);
  tt_dtype_t sdt = tt_l_storage_dtype(L, r->storage);
  if (r->dtype != sdt) /* Tensor.view(dtype): the bytes as r->dtype */
    base = tt_view_bitcast_flat(L->g, base, r->dtype,
                                tt_view_bitcast_numel(sdt, tt_l_storage_numel(L, r->storage), r->dtype));
  if (base < 0) return -1;
  int64_t n = tt_graph_type(L->g, base)->dims[0];
  tt_val_t v = tt_view_read_at(L->g, base, &r->view, tt_l_view_offset(L, r->storage, &r->view, n));
  return v < 0 ? v : tt_l_apply_math_bits(L->g, r, v);
}

tt_val_t tt_l_view_offset(tt_lower_t *L, const tt_storage_t *s, const tt_view_t *v, int64_t base_numel) {
  if (tt_graph_failed(L->g) || !tt_view_offset_may_vary(v, base_numel) || fixed(L, s)) return -1;
  return runtime_scalar(L, TT_I64, tt_scalar_bits(TT_I64, 0.0, v->offset, 0));
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

int tt_l_list_len(tt_lower_t *L, int i) {
  const tt_arg_t *a = arg(L, i);
  if (a->kind == TT_ARG_TENSORS || (a->kind == TT_ARG_INTS && a->n == 0)) return a->n;
  tt_l_fail(L, TT_TYPE_ERROR, "%s: argument %d must be a list of Tensors", L->op, i);
  return -1;
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
  if (a->kind == TT_ARG_COMPLEX) {
    if (!tt_dtype_is_complex(dtype))
      return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: a complex number where %s is expected", L->op, tt_dtype_name(dtype));
    return tt_l_scalar_c(L, dtype, a->f, a->f_im);
  }
  if (a->kind == TT_ARG_TENSOR && a->t->is_host_scalar && tt_dtype_is_complex(a->t->dtype)) {
    if (!tt_dtype_is_complex(dtype))
      return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s: a complex number where %s is expected", L->op, tt_dtype_name(dtype));
    return tt_l_scalar_c(L, dtype, a->t->host_f, a->t->host_im);
  }
  if (a->kind == TT_ARG_INT || a->kind == TT_ARG_BOOL) return tt_l_scalar(L, dtype, 0, a->i, 0);
  if (a->kind == TT_ARG_TENSOR && a->t->is_host_scalar)
    return tt_l_scalar(L, dtype, a->t->host_f, a->t->host_i, tt_dtype_is_float(a->t->dtype));
  return tt_l_fail(L, TT_TYPE_ERROR, "%s: argument %d must be a number", L->op, i);
}

void tt_l_output(tt_lower_t *L, tt_val_t v) {
  if (L->nouts >= TT_LOWER_MAX_OUTS) {
    tt_l_fail(L, TT_NOT_IMPLEMENTED, "%s: more than %d results in one op on TPU (a foreach op over more tensors: "
              "split the list, or pass foreach=False to the optimizer)", L->op, TT_LOWER_MAX_OUTS);
    return;
  }
  L->outs[L->nouts++] = v;
}

void tt_l_write(tt_lower_t *L, int i, int j, tt_val_t v) {
  if (L->nwrites >= TT_LOWER_MAX_WRITES) {
    tt_l_fail(L, TT_NOT_IMPLEMENTED, "%s: more than %d in-place writes in one op on TPU (a foreach op over more "
              "tensors: split the list, or pass foreach=False to the optimizer)", L->op, TT_LOWER_MAX_WRITES);
    return;
  }
  L->write_arg[L->nwrites] = i;
  L->write_elem[L->nwrites] = j;
  L->write_val[L->nwrites] = v;
  L->nwrites++;
}

/* ---- index checks (debug: at the op; else asynchronous) --------------------- */

/* A check whose bound is `size`: an i64 0-d value of the op's graph. */
static void check_mask_sized(tt_lower_t *L, tt_val_t idx, tt_val_t bad, tt_val_t size, int dim, tt_check_kind_t kind) {
  if (tt_graph_failed(L->g)) return;
  if (L->nchecks >= TT_LOWER_MAX_CHECKS) {
    tt_l_fail(L, TT_INTERNAL, "%s: more than %d index checks in one op", L->op, TT_LOWER_MAX_CHECKS);
    return;
  }
  tt_graph_t *g = L->g;
  const tt_type_t *t = tt_graph_type(g, idx);
  if (!t) return;
  int64_t n = tt_type_numel(t);
  if (n == 0) return;
  int64_t zero = 0, one = 1;
  idx = tt_b_reshape(g, tt_b_convert(g, idx, TT_I64), 1, &n);
  bad = tt_b_reshape(g, bad, 1, &n);
  /* count, and the first bad index in row-major order (as CPU reports it):
   * the smallest bad position, then the index there. */
  tt_val_t count = tt_b_reduce(g, TT_RED_SUM, tt_b_convert(g, bad, TT_I64), 1, &zero);
  tt_val_t pos = tt_b_iota(g, TT_I64, 1, &n, 0);
  tt_val_t first = tt_b_reduce(g, TT_RED_MIN, tt_b_select(g, bad, pos, tt_b_full_i(g, TT_I64, 1, &n, n)), 1, &zero);
  tt_val_t at = tt_b_compare(g, TT_CMP_EQ, pos, tt_b_broadcast(g, first, 1, &n, NULL));
  tt_val_t value = tt_b_reduce(g, TT_RED_SUM, tt_b_select(g, at, idx, tt_b_full_i(g, TT_I64, 1, &n, 0)), 1, &zero);
  tt_val_t parts[TT_CHECK_FLAG_LEN] = {tt_b_reshape(g, count, 1, &one), tt_b_reshape(g, value, 1, &one),
                                       tt_b_reshape(g, tt_b_convert(g, size, TT_I64), 1, &one)};
  tt_index_check_t *k = &L->checks[L->nchecks++];
  k->flag = tt_b_concat(g, TT_CHECK_FLAG_LEN, parts, 0);
  k->kind = kind;
  k->dim = dim;
  k->op = L->op;
  k->type_name = NULL;
  k->msg[0] = '\0';
}

void tt_l_check_index_mask(tt_lower_t *L, tt_val_t idx, tt_val_t bad, int64_t size, int dim, tt_check_kind_t kind) {
  if (tt_graph_failed(L->g)) return;
  check_mask_sized(L, idx, bad, tt_b_full_i(L->g, TT_I64, 0, NULL, size), dim, kind);
}

void tt_l_check_assert(tt_lower_t *L, tt_val_t bad, const char *msg) {
  if (tt_graph_failed(L->g)) return;
  const tt_type_t *t = tt_graph_type(L->g, bad);
  if (!t) return;
  int n = L->nchecks;
  /* the "index" slot of the flag is unused: zeros */
  tt_l_check_index_mask(L, tt_b_full_i(L->g, TT_I64, t->rank, t->dims, 0), bad, 0, 0, TT_CHECK_ASSERT);
  if (L->nchecks > n) snprintf(L->checks[n].msg, sizeof L->checks[n].msg, "%s", msg);
}

/* Flags idx outside [lo, size) (static bounds), or, with a run-time size
 * (a 0-d i64 value, rt >= 0), outside [-size or 0, size). */
static void check_bounds(tt_lower_t *L, tt_val_t idx, int64_t lo, int64_t size, tt_val_t rt, int nonneg, int dim,
                         tt_check_kind_t kind) {
  if (tt_graph_failed(L->g)) return;
  tt_graph_t *g = L->g;
  idx = tt_b_convert(g, idx, TT_I64);
  const tt_type_t *t = tt_graph_type(g, idx);
  if (!t) return;
  tt_val_t high = rt >= 0 ? tt_b_broadcast_to(g, rt, t->rank, t->dims) : tt_b_full_i(g, TT_I64, t->rank, t->dims, size);
  tt_val_t low = rt < 0 || nonneg ? tt_b_full_i(g, TT_I64, t->rank, t->dims, rt < 0 ? lo : 0) : tt_b_unary(g, TT_UN_NEG, high);
  tt_val_t bad = tt_b_binary(g, TT_BIN_OR, tt_b_compare(g, TT_CMP_LT, idx, low), tt_b_compare(g, TT_CMP_GE, idx, high));
  check_mask_sized(L, idx, bad, rt >= 0 ? rt : tt_b_full_i(g, TT_I64, 0, NULL, size), dim, kind);
}

void tt_l_check_index(tt_lower_t *L, tt_val_t idx, int64_t lo, int64_t size, int dim, tt_check_kind_t kind) {
  check_bounds(L, idx, lo, size, -1, 0, dim, kind);
}

void tt_l_check_index_rt(tt_lower_t *L, tt_val_t idx, tt_val_t size, int nonneg, int dim, tt_check_kind_t kind) {
  check_bounds(L, idx, 0, 0, size, nonneg, dim, kind);
}

tt_status_t tt_l_check_result(const tt_lower_t *L, const int64_t *flags) {
  for (int i = 0; i < L->nchecks; i++) {
    tt_status_t s = tt_index_check_status(&L->checks[i], &flags[TT_CHECK_FLAG_LEN * i], 0);
    if (s) return s;
  }
  return TT_OK_STATUS;
}
