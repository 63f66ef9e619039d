/* Copies and fills: clone, copy_, fill_, zero_, dtype conversion, and the
 * internal materialize used for downloads. */
#include "ops/common.h"
#include "ops/families.h"
#include "ops/result_layout.h"

/* A memory_format argument the input's rank cannot have: CPU's error (the
 * layout itself is the facade's, by the row's TT_LAYOUT_COPY). */
static tt_status_t check_memory_format(tt_lower_t *L) {
  const tt_tensor_ref_t *self = tt_l_ref(L, 0);
  tt_memory_format_t fmt = tt_layout_memory_format_arg(L->args, L->nargs);
  int64_t strides[TT_MAX_RANK];
  if (self && tt_layout_format_strides(self->view.rank, self->view.sizes, fmt, strides))
    return tt_status_make(TT_INVALID_ARGUMENT, "%s", tt_layout_format_rank_error(fmt));
  return NULL;
}

/* _tt_materialize(Tensor self, ScalarType dtype): the view, dense, in dtype.
 * Also _to_copy on device, a dtype conversion (device moves are the binding's). */
static tt_status_t lower_materialize(tt_lower_t *L) {
  TT_RETURN_IF_ERROR(check_memory_format(L));
  tt_dtype_t dt = tt_l_dtype(L, 1);
  tt_val_t x = tt_l_tensor(L, 0);
  tt_l_output(L, tt_b_convert(L->g, x, dt == TT_DTYPE_INVALID ? tt_l_arg_dtype(L, 0) : dt));
  return NULL;
}

static tt_status_t lower_clone(tt_lower_t *L) {
  TT_RETURN_IF_ERROR(check_memory_format(L));
  tt_l_output(L, tt_l_tensor(L, 0));
  return NULL;
}

/* copy_(self, src, non_blocking): src broadcast to self and converted. */
static tt_status_t lower_copy_(tt_lower_t *L) {
  const tt_tensor_ref_t *self = tt_l_ref(L, 0);
  if (!self) return tt_status_make(TT_TYPE_ERROR, "copy_: self must be a Tensor");
  const tt_tensor_ref_t *src = tt_l_ref(L, 1);
  if (src && !src->is_host_scalar) {
    /* PyTorch checks src broadcasts to self. */
    int sr = src->view.rank, dr = self->view.rank;
    int ok = sr <= dr;
    for (int i = 0; ok && i < sr; i++) {
      int64_t s = src->view.sizes[i], d = self->view.sizes[dr - sr + i];
      ok = s == d || s == 1;
    }
    if (!ok) {
      char a[128] = "", b[128] = "";
      tt_type_t ta = tt_type_make(src->dtype, sr, src->view.sizes), tb = tt_type_make(self->dtype, dr, self->view.sizes);
      tt_type_describe(&ta, a, sizeof a);
      tt_type_describe(&tb, b, sizeof b);
      return tt_status_make(TT_INVALID_ARGUMENT, "output with shape %s doesn't match the broadcast shape of src %s", b, a);
    }
  }
  tt_val_t v = tt_op_operand(L, 1, self->dtype, self->view.rank, self->view.sizes);
  tt_l_write(L, 0, 0, v);
  L->returns_arg = 0;
  return NULL;
}

static tt_status_t lower_fill_(tt_lower_t *L) {
  const tt_tensor_ref_t *self = tt_l_ref(L, 0);
  if (!self) return tt_status_make(TT_TYPE_ERROR, "fill_: self must be a Tensor");
  const tt_tensor_ref_t *v = tt_l_ref(L, 1);
  if (v && v->view.rank != 0)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "fill_ only supports 0-dimension value tensor but got tensor with %d dimensions.", v->view.rank);
  /* fill_.Scalar converts with CPU's overflow check; fill_.Tensor copies. A
   * float16/bfloat16 tensor of one element takes CPU's scalar_fill path,
   * unchecked (fuzz 117:126: where(mask, bf16, 1e300) builds its 0-dim 1e300
   * so: inf); a float32 one is checked there too (fuzz 157:1363:
   * where(mask, float32, 1e300) raises on CPU) */
  int64_t numel = 1;
  for (int i = 0; i < self->view.rank; i++) numel *= self->view.sizes[i];
  if (L->args[1].kind != TT_ARG_TENSOR && !tt_op_check_fill_fits(L, 1, self->dtype, numel)) return NULL;
  tt_val_t c = tt_op_complex_fill(L, 1, self->dtype);
  if (tt_graph_failed(L->g)) return NULL;
  tt_l_write(L, 0, 0, c >= 0 ? tt_b_broadcast(L->g, c, self->view.rank, self->view.sizes, NULL)
                             : tt_op_operand(L, 1, self->dtype, self->view.rank, self->view.sizes));
  L->returns_arg = 0;
  return NULL;
}

static tt_status_t lower_zero_(tt_lower_t *L) {
  const tt_tensor_ref_t *self = tt_l_ref(L, 0);
  if (!self) return tt_status_make(TT_TYPE_ERROR, "zero_: self must be a Tensor");
  tt_l_write(L, 0, 0, tt_b_full_i(L->g, self->dtype, self->view.rank, self->view.sizes, 0));
  L->returns_arg = 0;
  return NULL;
}

const tt_op_def_t tt_ops_copy[] = {
    {"_tt_materialize", lower_materialize, TT_OPF_COMPLEX},
    {"clone", lower_clone, TT_OPF_COMPLEX, .layout = TT_LAYOUT_COPY},
    {"_to_copy", lower_materialize, TT_OPF_COMPLEX, .layout = TT_LAYOUT_COPY},
    {"copy_", lower_copy_, TT_OPF_COMPLEX},
    {"fill_.Scalar", lower_fill_, TT_OPF_UNIFORM_WRITE | TT_OPF_COMPLEX},
    {"fill_.Tensor", lower_fill_, TT_OPF_UNIFORM_WRITE | TT_OPF_COMPLEX},
    {"zero_", lower_zero_, TT_OPF_UNIFORM_WRITE | TT_OPF_COMPLEX},
    {NULL, NULL, 0},
};
