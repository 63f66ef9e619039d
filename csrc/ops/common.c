/* Type promotion, broadcasting and operand helpers for lowerings. */
#include "ops/common.h"

#include <string.h>

const char *tt_op_type_name(tt_dtype_t dt) {
  switch (dt) {
    case TT_BOOL: return "Bool";
    case TT_U8: return "Byte";
    case TT_I8: return "Char";
    case TT_I16: return "Short";
    case TT_I32: return "Int";
    case TT_I64: return "Long";
    case TT_F16: return "Half";
    case TT_BF16: return "BFloat16";
    case TT_F32: return "Float";
    case TT_F64: return "Double";
    case TT_C64: return "ComplexFloat";
    case TT_C128: return "ComplexDouble";
    default: return tt_dtype_name(dt);
  }
}

tt_dtype_t tt_op_math_type(tt_dtype_t dt) { return (dt == TT_BF16 || dt == TT_F16) ? TT_F32 : dt; }

tt_dtype_t tt_op_float_type(tt_dtype_t dt) { return tt_dtype_is_float(dt) ? dt : TT_F32; }

tt_dtype_t tt_op_arg_dtype(tt_lower_t *L, int i) {
  if (i < 0 || i >= L->nargs) return TT_DTYPE_INVALID;
  const tt_arg_t *a = &L->args[i];
  switch (a->kind) {
    case TT_ARG_TENSOR: return a->t->dtype;
    case TT_ARG_INT: return TT_I64;
    case TT_ARG_FLOAT: return TT_F32;
    case TT_ARG_BOOL: return TT_BOOL;
    case TT_ARG_COMPLEX: return TT_C64;
    default: return TT_DTYPE_INVALID;
  }
}

static tt_dtype_t promote_skip(tt_dtype_t a, tt_dtype_t b) {
  if (a == TT_DTYPE_INVALID) return b;
  if (b == TT_DTYPE_INVALID) return a;
  return tt_dtype_promote(a, b);
}

/* bool < integral < floating < complex */
static int category(tt_dtype_t dt) {
  return dt == TT_BOOL ? 0 : tt_dtype_is_complex(dt) ? 3 : tt_dtype_is_float(dt) ? 2 : 1;
}

/* A lower-priority participant (0-dim tensor, number) changes the result
 * only when its category is higher. */
static tt_dtype_t combine(tt_dtype_t higher, tt_dtype_t lower) {
  if (higher == TT_DTYPE_INVALID) return lower;
  if (lower == TT_DTYPE_INVALID) return higher;
  return category(lower) > category(higher) ? tt_dtype_promote(higher, lower) : higher;
}

tt_dtype_t tt_op_result_type(tt_lower_t *L, const int *argi, int n) {
  tt_dtype_t dim = TT_DTYPE_INVALID, zero = TT_DTYPE_INVALID, wrapped = TT_DTYPE_INVALID;
  for (int k = 0; k < n; k++) {
    int i = argi[k];
    if (i < 0 || i >= L->nargs) continue;
    const tt_arg_t *a = &L->args[i];
    tt_dtype_t dt = tt_op_arg_dtype(L, i);
    if (dt == TT_DTYPE_INVALID) continue;
    if (a->kind == TT_ARG_TENSOR) {
      if (a->t->view.rank > 0) dim = promote_skip(dim, dt);
      else zero = promote_skip(zero, dt);
    } else {
      wrapped = promote_skip(wrapped, dt);
    }
  }
  tt_dtype_t r = combine(dim, combine(zero, wrapped));
  return r == TT_DTYPE_INVALID ? TT_F32 : r;
}

int tt_op_broadcast_shape(tt_lower_t *L, const int *argi, int n, int64_t *out_dims) {
  int rank = 0;
  for (int k = 0; k < n; k++) {
    int r = tt_l_arg_rank(L, argi[k]);
    if (r > rank) rank = r;
  }
  for (int d = 0; d < rank; d++) out_dims[d] = 1;
  /* Track which argument set each dim, for PyTorch's message. */
  int owner[TT_MAX_RANK] = {0};
  for (int k = 0; k < n; k++) {
    int r = tt_l_arg_rank(L, argi[k]);
    if (r <= 0) continue;
    const int64_t *s = tt_l_arg_sizes(L, argi[k]);
    for (int j = 0; j < r; j++) {
      int d = rank - r + j;
      if (s[j] == out_dims[d] || s[j] == 1) continue;
      if (out_dims[d] == 1) {
        out_dims[d] = s[j];
        owner[d] = k;
        continue;
      }
      tt_l_fail(L, TT_INVALID_ARGUMENT,
                "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                (long long)out_dims[d], (long long)s[j], d);
      (void)owner;
      return rank;
    }
  }
  return rank;
}

tt_val_t tt_op_fit(tt_lower_t *L, tt_val_t v, tt_dtype_t dtype, int rank, const int64_t *dims) {
  v = tt_b_convert(L->g, v, dtype);
  if (v < 0) return -1;
  const tt_type_t *t = tt_graph_type(L->g, v);
  if (t->rank == rank && memcmp(t->dims, dims, sizeof(int64_t) * (size_t)rank) == 0) return v;
  return tt_b_broadcast_to(L->g, v, rank, dims);
}

tt_val_t tt_op_fit_like(tt_lower_t *L, tt_val_t v, tt_val_t like) {
  const tt_type_t *t = tt_graph_type(L->g, like);
  return tt_op_fit(L, v, t->dtype, t->rank, t->dims);
}

tt_val_t tt_op_one_element(tt_lower_t *L, int i, const char *name) {
  const tt_tensor_ref_t *r = tt_l_ref(L, i);
  if (!r) return tt_l_fail(L, TT_TYPE_ERROR, "%s: %s must be a Tensor", L->op, name);
  if (!r->is_host_scalar && tt_view_numel(&r->view) != 1)
    return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s must be a 1-element tensor.", name);
  return tt_b_reshape(L->g, tt_l_tensor(L, i), 0, NULL);
}

tt_val_t tt_op_operand(tt_lower_t *L, int i, tt_dtype_t dtype, int rank, const int64_t *dims) {
  if (i < 0 || i >= L->nargs) return tt_l_fail(L, TT_INTERNAL, "%s: missing argument %d", L->op, i);
  tt_val_t v;
  if (L->args[i].kind == TT_ARG_TENSOR)
    v = tt_l_tensor(L, i);
  else
    v = tt_l_scalar_arg(L, i, dtype);
  return tt_op_fit(L, v, dtype, rank, dims);
}

int tt_op_wrap_dim(tt_lower_t *L, int64_t dim, int rank) {
  int r = rank > 0 ? rank : 1;
  if (dim < -r || dim >= r) {
    tt_l_fail(L, TT_INDEX_ERROR, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
              -r, r - 1, (long long)dim);
    return 0;
  }
  return (int)(dim < 0 ? dim + r : dim);
}
