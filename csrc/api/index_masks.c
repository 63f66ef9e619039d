/* Masks in index lists (api/index_masks.h). */
#include "api/index_masks.h"

#include <stdio.h>
#include <string.h>

#include "api/transfer.h"
#include "base/alloc.h"
#include "exec/storage.h"

static const char U8_MASK_WARNING[] =
    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.";
static const char EXPANDED_WARNING[] =
    "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before performing this "
    "operation. This also applies to advanced indexing e.g. tensor[indices] = tensor";

static int is_mask(const tt_tensor_ref_t *t) { return t->storage && (t->dtype == TT_BOOL || t->dtype == TT_U8); }

int tt_index_has_masks(const tt_arg_t *args, int nargs) {
  if (nargs < 2 || args[1].kind != TT_ARG_TENSORS) return 0;
  for (int i = 0; i < args[1].n; i++)
    if (is_mask(&args[1].t[i])) return 1;
  return 0;
}

static void shape_text(char *buf, size_t cap, const int64_t *d, int n) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < n && at + 1 < cap; i++) {
    int w = snprintf(buf + at, cap - at, "%s%lld", i ? ", " : "", (long long)d[i]);
    if (w < 0) break;
    at += (size_t)w;
  }
}

/* CPU's IndexError when mask m does not match self's dimensions from d on. */
static tt_status_t check_mask_shape(const tt_tensor_ref_t *self, const tt_tensor_ref_t *m, int d) {
  for (int j = 0; j < m->view.rank; j++) {
    if (d + j < self->view.rank && m->view.sizes[j] == self->view.sizes[d + j]) continue;
    char ms[256], ss[256];
    shape_text(ms, sizeof ms, m->view.sizes, m->view.rank);
    shape_text(ss, sizeof ss, self->view.sizes, self->view.rank);
    return tt_status_make(TT_INDEX_ERROR,
                          "The shape of the mask [%s] at index %d does not match the shape of the indexed tensor "
                          "[%s] at index %d",
                          ms, j, ss, d + j);
  }
  return TT_OK_STATUS;
}

/* has_internal_overlap: some element reached through two index tuples (a stride 0 over a size > 1). */
static int expanded(const tt_tensor_ref_t *t) {
  if (tt_view_numel(&t->view) <= 1) return 0;
  for (int d = 0; d < t->view.rank; d++)
    if (t->view.strides[d] == 0 && t->view.sizes[d] > 1) return 1;
  return 0;
}

static int is_index_put(const tt_op_def_t *def) {
  return !strcmp(def->name, "index_put") || !strcmp(def->name, "_index_put_impl_");
}

/* One call of the op named `name` (a row of the registry). */
static tt_status_t call_named(tt_engine_t *e, const char *name, tt_arg_t *args, int nargs, tt_call_result_t *out) {
  int id = tt_ops_find(name);
  if (id < 0) return tt_status_make(TT_INTERNAL, "index masks: no row for %s", name);
  return tt_call(e, id, args, nargs, out);
}

/* index_put's masked_fill shortcut; *taken 0 when the call does not qualify. */
static tt_status_t masked_fill_route(tt_engine_t *e, const tt_op_def_t *def, tt_arg_t *args, int nargs,
                                     tt_call_result_t *out, int *taken) {
  *taken = 0;
  if (nargs < 4 || args[0].kind != TT_ARG_TENSOR || args[2].kind != TT_ARG_TENSOR || args[3].kind != TT_ARG_BOOL)
    return TT_OK_STATUS;
  const tt_tensor_ref_t *self = args[0].t, *values = args[2].t;
  if (args[3].i || values->view.rank != 0) return TT_OK_STATUS;
  int lead = -1;
  for (int i = 0; i < args[1].n; i++) {
    const tt_tensor_ref_t *t = &args[1].t[i];
    if (!t->storage && t->dtype == TT_DTYPE_INVALID) continue; /* None */
    if (lead >= 0 || !is_mask(t)) return TT_OK_STATUS;       /* not one mask alone */
    lead = i;
  }
  if (lead < 0) return TT_OK_STATUS;
  const tt_tensor_ref_t *m = &args[1].t[lead];
  tt_status_t s = check_mask_shape(self, m, lead);
  if (s) return s;
  /* The mask laid over self's dimensions: size 1 before and after its own. */
  tt_tensor_ref_t mask = *m;
  mask.view.rank = self->view.rank;
  for (int d = 0; d < self->view.rank; d++) {
    int own = d >= lead && d < lead + m->view.rank;
    mask.view.sizes[d] = own ? m->view.sizes[d - lead] : 1;
    mask.view.strides[d] = own ? m->view.strides[d - lead] : 0;
  }
  tt_arg_t fill[3] = {args[0], {.kind = TT_ARG_TENSOR, .t = &mask}, args[2]};
  *taken = 1;
  int inplace = !strcmp(def->name, "_index_put_impl_");
  return call_named(e, inplace ? "masked_fill_.Tensor" : "masked_fill.Tensor", fill, 3, out);
}

/* The long indices of one mask: count on device, read on the host, then
 * coordinates [n, rank]; col[j] views column j. *held keeps the storage. */
static tt_status_t mask_indices(tt_engine_t *e, const tt_tensor_ref_t *m, tt_tensor_ref_t *col, tt_storage_t **held) {
  tt_arg_t a[2] = {{.kind = TT_ARG_TENSOR, .t = (tt_tensor_ref_t *)m}};
  tt_call_result_t r;
  TT_RETURN_IF_ERROR(call_named(e, "_tt_count_nonzero", a, 1, &r));
  tt_tensor_ref_t cnt = {.storage = r.outs[0].storage, .dtype = TT_I64, .view = {.rank = 0}};
  int64_t n = 0;
  tt_status_t s = tt_tensor_to_host(e, &cnt, TT_I64, &n, sizeof n);
  tt_call_result_clear(&r);
  if (s) return s;
  a[1] = (tt_arg_t){.kind = TT_ARG_INT, .i = n};
  TT_RETURN_IF_ERROR(call_named(e, "_tt_nonzero", a, 2, &r));
  *held = r.outs[0].storage; /* [n, rank] int64, row-major */
  r.outs[0].storage = NULL;
  tt_call_result_clear(&r);
  int rank = m->view.rank;
  for (int j = 0; j < rank; j++)
    col[j] = (tt_tensor_ref_t){.storage = *held, .dtype = TT_I64,
                               .view = {.rank = 1, .sizes = {n}, .strides = {rank}, .offset = j}};
  return TT_OK_STATUS;
}

static tt_status_t expand_masks(tt_engine_t *e, int op_id, const tt_op_def_t *def, tt_arg_t *args, int nargs,
                                tt_call_result_t *out, const char **warnings, int *nwarnings) {
  const tt_tensor_ref_t *self = args[0].t;
  int n = args[1].n, cap = 0;
  for (int i = 0; i < n; i++) cap += is_mask(&args[1].t[i]) ? args[1].t[i].view.rank : 1;
  tt_tensor_ref_t *list = tt_malloc(sizeof *list * (size_t)(cap ? cap : 1));
  tt_storage_t **held = tt_malloc(sizeof *held * (size_t)(n ? n : 1));
  tt_arg_t *call = tt_malloc(sizeof *call * (size_t)nargs);
  tt_status_t s = list && held && call ? TT_OK_STATUS
                                       : tt_status_make(TT_OUT_OF_MEMORY, "%s: out of host memory", def->name);
  int len = 0, nheld = 0;
  for (int i = 0; i < n && !s; i++) {
    const tt_tensor_ref_t *t = &args[1].t[i];
    if (!is_mask(t)) {
      list[len++] = *t;
      continue;
    }
    if (t->dtype == TT_U8 && *nwarnings < TT_CALL_MAX_WARNINGS) warnings[(*nwarnings)++] = U8_MASK_WARNING;
    s = check_mask_shape(self, t, len);
    if (!s) s = mask_indices(e, t, &list[len], &held[nheld]);
    if (!s) {
      nheld++;
      len += t->view.rank;
    }
  }
  if (!s) {
    memcpy(call, args, sizeof *call * (size_t)nargs);
    call[1].t = list;
    call[1].n = len;
    s = tt_call_op(e, op_id, call, nargs, out); /* no masks left: the op itself */
  }
  for (int i = 0; i < nheld; i++) tt_storage_release(held[i]); /* the region keeps what it reads */
  tt_free(list);
  tt_free(held);
  tt_free(call);
  return s;
}

tt_status_t tt_call_index_masks(tt_engine_t *e, int op_id, const tt_op_def_t *def, tt_arg_t *args, int nargs,
                                tt_call_result_t *out) {
  if (nargs < 2 || args[0].kind != TT_ARG_TENSOR || !args[0].t->storage)
    return tt_status_make(TT_INTERNAL, "%s: expected a tensor and an index list", def->name);
  /* CPU's warnings come before the op's own, in its order. */
  const char *warnings[TT_CALL_MAX_WARNINGS];
  int nwarnings = 0;
  if (!strcmp(def->name, "_index_put_impl_") && expanded(args[0].t)) warnings[nwarnings++] = EXPANDED_WARNING;
  tt_status_t s = TT_OK_STATUS;
  int taken = 0;
  if (!tt_index_has_masks(args, nargs)) {
    s = tt_call_op(e, op_id, args, nargs, out);
    taken = 1;
  } else if (is_index_put(def)) {
    s = masked_fill_route(e, def, args, nargs, out, &taken);
  }
  if (!s && !taken) s = expand_masks(e, op_id, def, args, nargs, out, warnings, &nwarnings);
  if (!s) {
    for (int i = 0; i < out->nwarnings && nwarnings < TT_CALL_MAX_WARNINGS; i++) warnings[nwarnings++] = out->warnings[i];
    memcpy(out->warnings, warnings, sizeof warnings[0] * (size_t)nwarnings);
    out->nwarnings = nwarnings;
  }
  return s;
}
