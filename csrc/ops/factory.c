/* Factories computed on device: full, arange, and friends. Uninitialized
 * tensors (empty) need no program: the binding makes a lazy storage. */
#include <math.h>

#include "ops/common.h"
#include "ops/families.h"

/* full(size, fill_value, *, dtype, layout, device, pin_memory) */
static tt_status_t lower_full(tt_lower_t *L) {
  int64_t dims[TT_MAX_RANK];
  int rank = tt_l_ints(L, 0, dims, TT_MAX_RANK);
  tt_dtype_t dt = tt_l_dtype(L, 2);
  if (dt == TT_DTYPE_INVALID) dt = tt_op_arg_dtype(L, 1);
  for (int i = 0; i < rank; i++)
    if (dims[i] < 0)
      return tt_status_make(TT_INVALID_ARGUMENT, "Trying to create tensor with negative dimension %lld: [%lld]",
                            (long long)dims[i], (long long)dims[i]);
  tt_l_output(L, tt_b_broadcast(L->g, tt_l_scalar_arg(L, 1, dt), rank, dims, NULL));
  return NULL;
}

static int is_float_arg(tt_lower_t *L, int i) { return !tt_l_is_none(L, i) && L->args[i].kind == TT_ARG_FLOAT; }

/* arange(start, end, step): length ceil((end - start) / step) as PyTorch computes it. */
static tt_status_t arange_common(tt_lower_t *L, int istart, int iend, int istep, int idtype) {
  double start = istart >= 0 ? tt_l_float(L, istart, 0) : 0;
  double end = tt_l_float(L, iend, 0);
  double step = istep >= 0 ? tt_l_float(L, istep, 1) : 1;
  int any_float = (istart >= 0 && is_float_arg(L, istart)) || is_float_arg(L, iend) || (istep >= 0 && is_float_arg(L, istep));
  tt_dtype_t dt = tt_l_dtype(L, idtype);
  if (dt == TT_DTYPE_INVALID) dt = any_float ? TT_F32 : TT_I64;
  if (step == 0) return tt_status_make(TT_INVALID_ARGUMENT, "step must be nonzero");
  if (!isfinite(start) || !isfinite(end))
    return tt_status_make(TT_INVALID_ARGUMENT, "unsupported range: %g -> %g", start, end);
  if ((step > 0 && end < start) || (step < 0 && end > start))
    return tt_status_make(TT_INVALID_ARGUMENT, "upper bound and larger bound inconsistent with step sign");
  int64_t n = (int64_t)ceil((end - start) / step);
  if (!any_float && !tt_dtype_is_float(dt)) {
    int64_t s = istart >= 0 ? tt_l_int(L, istart, 0) : 0, e = tt_l_int(L, iend, 0), st = istep >= 0 ? tt_l_int(L, istep, 1) : 1;
    n = st > 0 ? (e - s + st - 1) / st : (s - e + (-st) - 1) / (-st);
    if (n < 0) n = 0;
  }
  /* Compute in f64/i64 as PyTorch does, then cast. */
  tt_dtype_t ct = tt_dtype_is_float(dt) || any_float ? TT_F64 : TT_I64;
  tt_val_t i = tt_b_iota(L->g, ct, 1, &n, 0);
  tt_val_t st = tt_b_broadcast(L->g, tt_l_scalar(L, ct, step, (int64_t)step, 1), 1, &n, NULL);
  tt_val_t s0 = tt_b_broadcast(L->g, tt_l_scalar(L, ct, start, (int64_t)start, 1), 1, &n, NULL);
  tt_val_t v = tt_b_binary(L->g, TT_BIN_ADD, tt_b_binary(L->g, TT_BIN_MUL, i, st), s0);
  tt_l_output(L, tt_b_convert(L->g, v, dt));
  return NULL;
}

static tt_status_t lower_arange(tt_lower_t *L) { return arange_common(L, -1, 0, -1, 1); }
static tt_status_t lower_arange_start(tt_lower_t *L) { return arange_common(L, 0, 1, -1, 2); }
static tt_status_t lower_arange_start_step(tt_lower_t *L) { return arange_common(L, 0, 1, 2, 3); }

const tt_op_def_t tt_ops_factory[] = {
    {"full", lower_full, 0},
    {"arange", lower_arange, 0},
    {"arange.start", lower_arange_start, 0},
    {"arange.start_step", lower_arange_start_step, 0},
    {NULL, NULL, 0},
};
