/* Lowerings of the index op family: advanced indexing (index, index_put),
 * index_select/index_add, gather/scatter, scatter_reduce/index_reduce,
 * index_fill/index_copy, take/put, masked_scatter, embedding backward,
 * sort/topk and the device halves of nonzero. Gathers clamp out-of-range
 * indices and scatters drop them; each op also computes an out-of-range flag
 * (tt_l_check_index) that raises as PyTorch's CPU kernels do: at the op in
 * debug mode, at the next synchronization point otherwise (exec/async_errors.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/common.h"
#include "ops/dispatch_refusal.h"
#include "ops/families.h"

/* ---- advanced indexing core ------------------------------------------ */

/* Index tensors on some dims of a tensor of shape (rank, sizes). */
typedef struct {
  int rank;
  int64_t sizes[TT_MAX_RANK];
  int m;                        /* indexed dims */
  int dims[TT_MAX_RANK];        /* ascending */
  tt_val_t idx[TT_MAX_RANK];    /* i64 index values (any shapes, broadcast together) */
  int brank;
  int64_t bdims[TT_MAX_RANK];   /* broadcast index shape B */
  tt_val_t coords;              /* B + [m], negative indices wrapped */
  int adjacent;                 /* indexed dims consecutive: result keeps B in place */
  tt_check_kind_t check;        /* debug mode: the error an out-of-range index raises */
  int check_nonneg;             /* debug mode: negative indices are out of range too */
  int unchecked;                /* nothing is read or written: CPU checks no index */
  int rt_dim;                   /* a dim of self read at its bucket's capacity (ops/bucket.h), or -1: */
  int64_t rt_len;               /* its logical length, which bounds and wraps indices at run time */
} adv_t;

static int adv_add(tt_lower_t *L, adv_t *a, int dim, tt_val_t idx) {
  if (a->m >= TT_MAX_RANK) return tt_l_fail(L, TT_INTERNAL, "too many index tensors"), 0;
  a->dims[a->m] = dim;
  a->idx[a->m] = tt_b_convert(L->g, idx, TT_I64);
  a->m++;
  return 1;
}

/* Broadcasts the indices, wraps negatives, stacks them into coords. */
static int adv_finish(tt_lower_t *L, adv_t *a) {
  tt_graph_t *g = L->g;
  if (tt_graph_failed(g)) return 0;
  a->brank = 0;
  for (int k = 0; k < a->m; k++) {
    int r = tt_graph_type(g, a->idx[k])->rank;
    if (r > a->brank) a->brank = r;
  }
  for (int d = 0; d < a->brank; d++) a->bdims[d] = 1;
  for (int k = 0; k < a->m; k++) {
    const tt_type_t *t = tt_graph_type(g, a->idx[k]);
    for (int j = 0; j < t->rank; j++) {
      int d = a->brank - t->rank + j;
      if (t->dims[j] == a->bdims[d] || t->dims[j] == 1) continue;
      if (a->bdims[d] == 1) { a->bdims[d] = t->dims[j]; continue; }
      tt_l_fail(L, TT_INDEX_ERROR, "shape mismatch: indexing tensors could not be broadcast together");
      return 0;
    }
  }
  /* CPU's AdvancedIndex check: no index is valid for a dim of size 0, so
   * indices with elements there are out of range before any kernel runs. */
  int64_t bn = 1;
  for (int d = 0; d < a->brank; d++) bn *= a->bdims[d];
  for (int k = 0; k < a->m && bn > 0 && !a->unchecked; k++)
    if (a->sizes[a->dims[k]] == 0) {
      if (a->check == TT_CHECK_SELF) /* index_select/index_add's TORCH_CHECK_INDEX words */
        tt_l_fail(L, TT_INDEX_ERROR, "index out of range in self (dimension %d with size 0)", a->dims[k]);
      else
        tt_l_fail(L, TT_INDEX_ERROR, "index is out of bounds for dimension with size 0");
      return 0;
    }
  int64_t cd[TT_MAX_RANK + 1];
  memcpy(cd, a->bdims, sizeof(int64_t) * (size_t)a->brank);
  cd[a->brank] = 1;
  tt_val_t cols[TT_MAX_RANK];
  for (int k = 0; k < a->m; k++) {
    int64_t dsize = a->sizes[a->dims[k]];
    /* PyTorch's message counts the index tensors, not self's dims (x[:, i]
     * reports dimension 0); index_select/index_add name self's dim. */
    int cdim = a->check == TT_CHECK_INDEX ? k : a->dims[k];
    tt_val_t size;
    if (a->dims[k] == a->rt_dim) { /* padded self: the logical length bounds, not the capacity */
      tt_val_t n = tt_l_scalar(L, TT_I64, 0.0, a->rt_len, 0);
      if (!a->unchecked) tt_l_check_index_rt(L, a->idx[k], n, a->check_nonneg, cdim, a->check);
      size = tt_b_broadcast_to(g, n, a->brank, a->bdims);
    } else {
      if (!a->unchecked) tt_l_check_index(L, a->idx[k], a->check_nonneg ? 0 : -dsize, dsize, cdim, a->check);
      size = tt_b_full_i(g, TT_I64, a->brank, a->bdims, dsize);
    }
    tt_val_t v = tt_b_broadcast_to(g, a->idx[k], a->brank, a->bdims);
    tt_val_t neg = tt_b_compare(g, TT_CMP_LT, v, tt_b_full_i(g, TT_I64, a->brank, a->bdims, 0));
    v = tt_b_select(g, neg, tt_b_binary(g, TT_BIN_ADD, v, size), v);
    cols[k] = tt_b_reshape(g, v, a->brank + 1, cd);
  }
  if (a->m == 0) return !tt_graph_failed(g); /* no index tensors: self itself */
  a->coords = a->m == 1 ? cols[0] : tt_b_concat(g, a->m, cols, a->brank);
  a->adjacent = 1;
  for (int k = 1; k < a->m; k++) a->adjacent &= a->dims[k] == a->dims[k - 1] + 1;
  return !tt_graph_failed(g);
}

static int is_indexed(const adv_t *a, int d) {
  for (int k = 0; k < a->m; k++)
    if (a->dims[k] == d) return 1;
  return 0;
}

/* Permutation from the gather layout (B, rest) to PyTorch's layout: with
 * adjacent indexed dims, B sits where they were. Returns the result rank. */
static int adv_perm(const adv_t *a, int64_t *perm) {
  int nb = a->brank, nr = a->rank - a->m, n = nb + nr;
  int first = a->adjacent ? a->dims[0] : 0;
  for (int i = 0; i < n; i++) {
    if (i < first) perm[i] = nb + i;
    else if (i < first + nb) perm[i] = i - first;
    else perm[i] = i;
  }
  return n;
}

static int is_identity(const int64_t *perm, int n) {
  for (int i = 0; i < n; i++)
    if (perm[i] != i) return 0;
  return 1;
}

/* self[indices] in PyTorch's result layout. */
static int adv_result_shape(const adv_t *a, int64_t *dims);

static tt_val_t adv_gather(tt_lower_t *L, const adv_t *a, tt_val_t x) {
  int64_t rdims[TT_MAX_RANK], rn = 1;
  int rr = adv_result_shape(a, rdims);
  for (int i = 0; i < rr; i++) rn *= rdims[i];
  if (rn == 0) /* nothing to read (a gather of an empty operand does not verify) */
    return tt_b_full_i(L->g, tt_graph_type(L->g, x)->dtype, rr, rdims, 0);
  tt_gather_dims_t gd;
  memset(&gd, 0, sizeof gd);
  for (int d = 0; d < a->rank; d++) {
    if (is_indexed(a, d)) {
      gd.collapsed[gd.n_collapsed++] = d;
      gd.slice_sizes[d] = 1;
    } else {
      gd.offset_dims[gd.n_offset] = a->brank + gd.n_offset;
      gd.n_offset++;
      gd.slice_sizes[d] = a->sizes[d];
    }
  }
  for (int k = 0; k < a->m; k++) gd.start_index_map[gd.n_start_map++] = a->dims[k];
  tt_val_t r = tt_b_gather(L->g, x, a->coords, &gd);
  int64_t perm[TT_MAX_RANK];
  int n = adv_perm(a, perm);
  return is_identity(perm, n) ? r : tt_b_transpose(L->g, r, perm);
}

static void dims_list(char *buf, size_t n, int rank, const int64_t *d) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < rank && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)d[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* The shape of self[indices] in PyTorch's layout. */
static int adv_result_shape(const adv_t *a, int64_t *dims) {
  int64_t gdims[TT_MAX_RANK], perm[TT_MAX_RANK];
  int n = 0;
  for (int i = 0; i < a->brank; i++) gdims[n++] = a->bdims[i];
  for (int d = 0; d < a->rank; d++)
    if (!is_indexed(a, d)) gdims[n++] = a->sizes[d];
  adv_perm(a, perm);
  for (int i = 0; i < n; i++) dims[i] = gdims[perm[i]];
  return n;
}

/* Scatters values (broadcastable to self[indices]) into x with `kind`. */
static tt_val_t adv_scatter(tt_lower_t *L, const adv_t *a, tt_val_t x, tt_val_t values, tt_reduce_t kind) {
  tt_graph_t *g = L->g;
  int64_t rdims[TT_MAX_RANK], perm[TT_MAX_RANK], inv[TT_MAX_RANK];
  int n = adv_result_shape(a, rdims);
  const tt_type_t *vt = tt_graph_type(g, values);
  if (vt && vt->rank > n) {
    /* PyTorch accepts extra leading size-1 dims on values. */
    int extra = vt->rank - n, ok = 1;
    for (int i = 0; i < extra; i++) ok &= vt->dims[i] == 1;
    if (!ok) return tt_l_fail(L, TT_INVALID_ARGUMENT, "shape mismatch: value tensor cannot be broadcast to indexing result");
    values = tt_b_reshape(g, values, n, vt->dims + extra);
  }
  vt = tt_graph_type(g, values);
  if (vt) {
    for (int j = 0; j < vt->rank; j++) {
      int64_t want = rdims[n - vt->rank + j];
      if (vt->dims[j] != want && vt->dims[j] != 1) {
        char sv[128], sr[128]; /* CPU prints the shapes only: [3, 4] */
        dims_list(sv, sizeof sv, vt->rank, vt->dims);
        dims_list(sr, sizeof sr, n, rdims);
        return tt_l_fail(L, TT_INVALID_ARGUMENT, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s", sv, sr);
      }
    }
  }
  values = tt_b_broadcast_to(g, values, n, rdims);
  adv_perm(a, perm);
  for (int i = 0; i < n; i++) inv[perm[i]] = i;
  if (!is_identity(inv, n)) values = tt_b_transpose(g, values, inv);
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  for (int i = 0; i < a->rank - a->m; i++) sd.update_window_dims[sd.n_window++] = a->brank + i;
  for (int k = 0; k < a->m; k++) {
    sd.inserted_window_dims[sd.n_inserted++] = a->dims[k];
    sd.scatter_to_operand[sd.n_to_operand++] = a->dims[k];
  }
  /* inserted_window_dims must be sorted; dims[] are ascending. */
  return tt_b_scatter(g, kind, x, a->coords, values, &sd);
}

static void adv_init(adv_t *a, int rank, const int64_t *sizes) {
  memset(a, 0, sizeof *a);
  a->rt_dim = -1;
  a->check = TT_CHECK_INDEX;
  a->rank = rank;
  if (rank > 0) memcpy(a->sizes, sizes, sizeof(int64_t) * (size_t)rank);
}

/* Reads a Tensor?[] index list (argument i) against self (argument 0). */
static int adv_from_list(tt_lower_t *L, adv_t *a, int i) {
  adv_init(a, tt_l_arg_rank(L, 0), tt_l_arg_sizes(L, 0));
  const tt_tensor_ref_t *self = tt_l_ref(L, 0);
  for (int k = 0; self && k < L->npads; k++) /* index.Tensor at a bucket's shape (ops/bucket.c) */
    if (L->pad_ref[k] == self) {
      a->rt_dim = L->pad_dim[k];
      a->rt_len = L->pad_len[k];
    }
  const tt_arg_t *arg = &L->args[i];
  if (arg->kind == TT_ARG_NONE || (arg->kind == TT_ARG_INTS && arg->n == 0)) /* [] arrives as an empty list */
    return adv_finish(L, a);
  if (arg->kind != TT_ARG_TENSORS) return tt_l_fail(L, TT_TYPE_ERROR, "%s: indices must be a list of Tensors", L->op), 0;
  if (arg->n > a->rank)
    return tt_l_fail(L, TT_INDEX_ERROR, "too many indices for tensor of dimension %d (got %d)", a->rank, arg->n), 0;
  for (int j = 0; j < arg->n; j++) {
    const tt_tensor_ref_t *r = &arg->t[j];
    if (!r->storage && !r->is_host_scalar) continue; /* None: a full slice */
    if (r->dtype == TT_BOOL || r->dtype == TT_U8)
      return tt_l_fail(L, TT_NOT_IMPLEMENTED, "%s: boolean mask indices must be expanded with nonzero first", L->op), 0;
    if (r->dtype != TT_I64 && r->dtype != TT_I32) /* int8/int16 indices too, as CPU */
      return tt_l_fail(L, TT_INDEX_ERROR, "tensors used as indices must be long, int, byte or bool tensors"), 0;
    if (!adv_add(L, a, j, tt_l_tensor_elem(L, i, j))) return 0;
  }
  return adv_finish(L, a);
}

/* index.Tensor(self, indices) and _unsafe_index */
static tt_status_t lower_index(tt_lower_t *L) {
  const tt_arg_t *list = &L->args[1];
  if ((list->kind == TT_ARG_INTS || list->kind == TT_ARG_TENSORS) && list->n == 0)
    return tt_status_make(TT_INDEX_ERROR, "at least one index must be provided");
  adv_t a;
  if (!adv_from_list(L, &a, 1)) return NULL;
  tt_val_t x = tt_l_tensor(L, 0);
  tt_l_output(L, a.m ? adv_gather(L, &a, x) : x);
  return NULL;
}

/* _index_put_impl_ into a self expanded along the nb dims bdims, which CPU
 * warns about and computes, writing through every alias (fuzz 714:695:
 * x[i] = 0-dim value of an int16 (2, 3, 4) expanded from (1, 3, 4)): with
 * accumulate each element gains the values put through all its aliases;
 * without, a one-element value lands where some alias is indexed. -1 where
 * the result depends on CPU's write order (values that differ between the
 * aliases): the write keeps its overlap error then. */
static tt_val_t index_put_through_aliases(tt_lower_t *L, const adv_t *a, tt_val_t x, tt_val_t v, int acc, int nb,
                                          const int64_t *bdims) {
  tt_graph_t *g = L->g;
  if (tt_graph_failed(g)) return -1;
  tt_dtype_t dt = tt_graph_type(g, x)->dtype;
  if (acc) {
    tt_reduce_t kind = dt == TT_BOOL ? TT_RED_OR : TT_RED_SUM;
    tt_val_t d = a->m ? adv_scatter(L, a, tt_b_like_f(g, x, 0.0), v, kind) : tt_b_broadcast_to(g, v, a->rank, a->sizes);
    d = tt_op_alias_reduce(L, kind, d, a->rank, a->sizes, nb, bdims);
    return tt_b_binary(g, dt == TT_BOOL ? TT_BIN_OR : TT_BIN_ADD, x, d);
  }
  const tt_type_t *vt = tt_graph_type(g, v);
  if (tt_type_numel(vt) != 1) return -1;
  tt_val_t m = tt_b_full_i(g, TT_BOOL, a->rank, a->sizes, 1);
  if (a->m)
    m = adv_scatter(L, a, tt_b_full_i(g, TT_BOOL, a->rank, a->sizes, 0), tt_b_full_i(g, TT_BOOL, vt->rank, vt->dims, 1),
                    TT_RED_SET);
  m = tt_op_alias_reduce(L, TT_RED_OR, m, a->rank, a->sizes, nb, bdims);
  return tt_b_select(g, m, tt_b_broadcast(g, tt_b_reshape(g, v, 0, NULL), a->rank, a->sizes, NULL), x);
}

/* index_put(self, indices, values, accumulate) as a value; expanded: the
 * in-place form into an expanded self (through every alias). */
static tt_val_t index_put_value(tt_lower_t *L, int expanded) {
  adv_t a;
  if (!adv_from_list(L, &a, 1)) return -1;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0), vdt = tt_op_arg_dtype(L, 2);
  int acc = tt_l_bool(L, 3, 0);
  tt_val_t x = tt_l_tensor(L, 0);
  tt_val_t v = tt_b_convert(L->g, tt_l_tensor(L, 2), dt), r = -1;
  int64_t bdims[TT_MAX_RANK];
  int nb = expanded ? tt_op_expanded_dims(tt_l_ref(L, 0), bdims) : 0;
  if (nb > 0) r = index_put_through_aliases(L, &a, x, v, acc, nb, bdims);
  if (r >= 0) { /* computed */
  } else if (a.m == 0) { /* self[...] = v */
    tt_val_t vb = tt_b_broadcast_to(L->g, v, a.rank, a.sizes);
    r = acc ? tt_b_binary(L->g, dt == TT_BOOL ? TT_BIN_OR : TT_BIN_ADD, x, vb) : vb;
  } else {
    r = adv_scatter(L, &a, x, v, acc ? (dt == TT_BOOL ? TT_RED_OR : TT_RED_SUM) : TT_RED_SET);
  }
  /* After the shape check, as on CPU (make_index_put_iterator). */
  /* A one-element value with one bool mask took masked_fill's route before
   * the core (the glue's canDispatchToMaskedFill); every other value must
   * have self's dtype, 0-dim ones too, as on CPU. */
  if (!tt_graph_failed(L->g) && vdt != dt && L->args[2].kind == TT_ARG_TENSOR)
    return tt_l_fail(L, TT_INVALID_ARGUMENT,
                     "Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.",
                     tt_op_type_name(dt), tt_op_type_name(vdt));
  return r;
}

static tt_status_t lower_index_put(tt_lower_t *L) {
  tt_l_output(L, index_put_value(L, 0));
  return NULL;
}

/* _index_put_impl_(self, indices, values, accumulate, unsafe) */
static tt_status_t lower_index_put_impl_(tt_lower_t *L) {
  tt_val_t v = index_put_value(L, 1);
  tt_l_write(L, 0, 0, v);
  L->returns_arg = 0;
  return NULL;
}

/* ---- dim-wise indexing ---------------------------------------------------- */

/* index_select(self, dim, index): one 1-D index on one dim. */
static tt_status_t lower_index_select(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  int ir = tt_l_arg_rank(L, 2);
  if (tt_graph_failed(L->g)) return NULL;
  if (ir > 1) return tt_status_make(TT_INDEX_ERROR, "index_select(): Index is supposed to be a vector");
  int64_t n = ir == 0 ? 1 : tt_l_arg_sizes(L, 2)[0];
  if (rank == 0 && n != 1) /* CPU checks this before the index's dtype */
    return tt_status_make(TT_INVALID_ARGUMENT, "index_select(): Index to scalar can have only 1 value, got %lld value(s)", (long long)n);
  tt_dtype_t it = tt_l_arg_dtype(L, 2);
  if (it != TT_I64 && it != TT_I32)
    return tt_status_make(TT_INVALID_ARGUMENT, "index_select(): Expected dtype int32 or int64 for index");
  tt_val_t x = tt_l_tensor(L, 0);
  int64_t one = 1, sizes[TT_MAX_RANK];
  if (rank == 0) {
    x = tt_b_reshape(L->g, x, 1, &one);
    sizes[0] = 1;
  } else {
    memcpy(sizes, tt_l_arg_sizes(L, 0), sizeof(int64_t) * (size_t)rank);
  }
  tt_val_t idx = tt_l_tensor(L, 2);
  idx = tt_b_reshape(L->g, idx, 1, &n);
  /* CPU's index_select_out_cpu_ on a matrix or more: an empty self, or
   * dim 1 (its dim-1 fast path), checks with check_indexarray_range (a
   * RuntimeError); other dims with TORCH_CHECK_INDEX (an IndexError). */
  int64_t numel = 1;
  for (int d = 0; d < rank; d++) numel *= sizes[d];
  if (rank > 1 && n > 0 && sizes[dim] == 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "index_select(): self indexing axis dim should be positive");
  adv_t a;
  adv_init(&a, rank ? rank : 1, sizes);
  a.check = rank > 1 && (dim == 1 || numel == 0) ? TT_CHECK_INDICES : TT_CHECK_SELF;
  a.check_nonneg = 1;
  adv_add(L, &a, dim, idx);
  if (!adv_finish(L, &a)) return NULL;
  tt_val_t r = adv_gather(L, &a, x);
  if (rank == 0) r = tt_b_reshape(L->g, r, 0, NULL);
  tt_l_output(L, r);
  return NULL;
}

/* index_add(self, dim, index, source, alpha) */
static tt_status_t lower_index_add(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  if (tt_l_arg_rank(L, 2) > 1) return tt_status_make(TT_INDEX_ERROR, "index_add_(): Index is supposed to be a vector");
  tt_dtype_t idt = tt_l_arg_dtype(L, 2);
  if (idt != TT_I32 && idt != TT_I64)
    return tt_status_make(TT_INVALID_ARGUMENT, "index_add_(): Expected dtype int32/int64 for index but got: %s", tt_op_type_name(idt));
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (tt_l_arg_dtype(L, 3) != dt)
    return tt_status_make(TT_INVALID_ARGUMENT, "index_add_(): self (%s) and source (%s) must have the same scalar type",
                          tt_op_type_name(dt), tt_op_type_name(tt_l_arg_dtype(L, 3)));
  tt_graph_t *g = L->g;
  tt_val_t x = tt_l_tensor(L, 0), src = tt_l_tensor(L, 3);
  int64_t one = 1, sizes[TT_MAX_RANK];
  if (rank == 0) {
    x = tt_b_reshape(g, x, 1, &one);
    src = tt_b_reshape(g, src, 1, &one);
    sizes[0] = 1;
  } else {
    memcpy(sizes, tt_l_arg_sizes(L, 0), sizeof(int64_t) * (size_t)rank);
  }
  if (!tt_l_is_none(L, 4)) {
    const tt_arg_t *al = &L->args[4];
    int is_one = (al->kind == TT_ARG_INT && al->i == 1) || (al->kind == TT_ARG_FLOAT && al->f == 1.0);
    if (!is_one) src = tt_b_binary(g, TT_BIN_MUL, src, tt_op_fit(L, tt_l_scalar_arg(L, 4, dt), dt, tt_graph_type(g, src)->rank, tt_graph_type(g, src)->dims));
  }
  int64_t n = tt_l_arg_rank(L, 2) == 0 ? 1 : tt_l_arg_sizes(L, 2)[0];
  adv_t a;
  adv_init(&a, rank ? rank : 1, sizes);
  /* CPU adds into a matrix or more along its first or last dim by an int64
   * index through scatter_add (a RuntimeError naming the index); else
   * TORCH_CHECK_INDEX (an IndexError) */
  a.check = rank > 1 && idt == TT_I64 && (dim == 0 || dim == rank - 1) ? TT_CHECK_DIM : TT_CHECK_SELF;
  a.check_nonneg = 1;
  /* ... and a matrix or more checks no index when self or source is empty */
  int64_t xn = 1, sn = 1;
  for (int d = 0; d < rank; d++) xn *= sizes[d];
  for (int d = 0; d < tt_l_arg_rank(L, 3); d++) sn *= tt_l_arg_sizes(L, 3)[d];
  a.unchecked = rank > 1 && (xn == 0 || sn == 0);
  adv_add(L, &a, dim, tt_b_reshape(g, tt_l_tensor(L, 2), 1, &n));
  if (!adv_finish(L, &a)) return NULL;
  tt_val_t r = adv_scatter(L, &a, x, src, dt == TT_BOOL ? TT_RED_OR : TT_RED_SUM);
  if (rank == 0) r = tt_b_reshape(g, r, 0, NULL);
  tt_l_output(L, r);
  return NULL;
}

/* Full coordinates for gather/scatter along dim: shape index.shape + [rank],
 * entry d = iota over d, except entry dim = the index. */
static tt_val_t dim_coords(tt_lower_t *L, tt_val_t index, int dim, int rank, const int64_t *isz, int64_t dim_size) {
  tt_graph_t *g = L->g;
  int64_t cd[TT_MAX_RANK + 1];
  memcpy(cd, isz, sizeof(int64_t) * (size_t)rank);
  cd[rank] = 1;
  tt_val_t cols[TT_MAX_RANK];
  index = tt_b_convert(g, index, TT_I64);
  /* negative indices count from the end, as PyTorch accepts for gather/scatter */
  tt_val_t neg = tt_b_compare(g, TT_CMP_LT, index, tt_b_full_i(g, TT_I64, rank, isz, 0));
  index = tt_b_select(g, neg, tt_b_binary(g, TT_BIN_ADD, index, tt_b_full_i(g, TT_I64, rank, isz, dim_size)), index);
  for (int d = 0; d < rank; d++) {
    tt_val_t c = d == dim ? index : tt_b_iota(g, TT_I64, rank, isz, d);
    cols[d] = tt_b_reshape(g, c, rank + 1, cd);
  }
  return rank == 1 ? cols[0] : tt_b_concat(g, rank, cols, rank);
}

static int64_t index_numel(tt_lower_t *L) {
  int ir = tt_l_arg_rank(L, 2);
  const int64_t *isz = tt_l_arg_sizes(L, 2);
  int64_t n = 1;
  for (int d = 0; d < ir; d++) n *= isz[d];
  return n;
}

/* Size d of argument a as CPU's ensure_nonempty_size: 1 for a 0-d tensor. */
static int64_t ne_size(tt_lower_t *L, int a, int d) { return tt_l_arg_rank(L, a) == 0 ? 1 : tt_l_arg_sizes(L, a)[d]; }

/* CPU's gather_shape_check (scatter 0) or scatter_shape_check: index has
 * self's rank and fits in self except along dim, and for scatter with a
 * tensor src (argument src_arg >= 0) has src's rank and fits in it along
 * every dim (the rank checked after the sizes, as CPU does). */
static tt_status_t check_dim_index(tt_lower_t *L, const char *op, int dim, int rank, int scatter, int src_arg) {
  int ir = tt_l_arg_rank(L, 2);
  tt_dtype_t it = tt_l_arg_dtype(L, 2);
  if (index_numel(L) == 0) return NULL; /* as PyTorch: an empty index passes, any dtype or shape */
  if (it != TT_I64 && it != TT_I32) return tt_status_make(TT_INVALID_ARGUMENT, "%s(): Expected dtype int32/int64 for index", op);
  int nd = rank ? rank : 1;
  if (nd != (ir ? ir : 1))
    return tt_status_make(TT_INVALID_ARGUMENT, "Index tensor must have the same number of dimensions as %s tensor",
                          scatter ? "self" : "input");
  char a[160], b[160], c[160];
  tt_op_sizes_text(a, sizeof a, ir, tt_l_arg_sizes(L, 2));
  tt_op_sizes_text(b, sizeof b, rank, tt_l_arg_sizes(L, 0));
  int wrong = 0;
  for (int d = 0; d < nd && !wrong; d++) {
    if (d == dim || ne_size(L, 2, d) <= ne_size(L, 0, d)) continue;
    if (!scatter)
      return tt_status_make(TT_INVALID_ARGUMENT, "Size does not match at dimension %d expected index %s to be no larger than self %s apart from dimension %d",
                            d, a, b, dim);
    wrong = 1;
  }
  if (!scatter) return NULL;
  if (src_arg < 0) {
    if (wrong)
      return tt_status_make(TT_INVALID_ARGUMENT, "Expected index %s to be no larger than self %s apart from dimension %d", a, b, dim);
    return NULL;
  }
  int sr = tt_l_arg_rank(L, src_arg);
  for (int d = 0; d < nd && !wrong; d++) {
    if (sr && d >= sr) /* CPU's src.size(d) */
      return tt_status_make(TT_INDEX_ERROR, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -sr, sr - 1, d);
    wrong = ne_size(L, 2, d) > ne_size(L, src_arg, d);
  }
  if ((sr ? sr : 1) != nd)
    return tt_status_make(TT_INVALID_ARGUMENT, "Index tensor must have the same number of dimensions as src tensor");
  if (!wrong) return NULL;
  tt_op_sizes_text(c, sizeof c, sr, tt_l_arg_sizes(L, src_arg));
  return tt_status_make(TT_INVALID_ARGUMENT, "Expected index %s to be no larger than self %s apart from dimension %d and to be no larger size than src %s",
                        a, b, dim, c);
}

/* gather(self, dim, index) */
static tt_status_t lower_gather(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  tt_status_t st = check_dim_index(L, "gather", dim, rank, 0, -1);
  if (st) return st;
  tt_graph_t *g = L->g;
  int ir = tt_l_arg_rank(L, 2);
  if (index_numel(L) == 0) { /* an empty result shaped like index */
    tt_l_output(L, tt_b_full_i(g, tt_l_arg_dtype(L, 0), ir, tt_l_arg_sizes(L, 2), 0));
    return NULL;
  }
  int64_t one = 1, isz[TT_MAX_RANK];
  tt_val_t x = tt_l_tensor(L, 0), idx = tt_l_tensor(L, 2);
  int r = rank ? rank : 1;
  if (rank == 0) x = tt_b_reshape(g, x, 1, &one);
  if (ir == 0) { isz[0] = 1; idx = tt_b_reshape(g, idx, 1, &one); }
  else memcpy(isz, tt_l_arg_sizes(L, 2), sizeof(int64_t) * (size_t)ir);
  const tt_type_t *xt = tt_graph_type(g, x);
  if (!xt) return NULL;
  int64_t dsz = xt->dims[dim];
  tt_l_check_index(L, idx, 0, dsz, dim, TT_CHECK_DIM);
  tt_val_t coords = dim_coords(L, idx, dim, r, isz, dsz);
  tt_gather_dims_t gd;
  memset(&gd, 0, sizeof gd);
  for (int d = 0; d < r; d++) {
    gd.collapsed[gd.n_collapsed++] = d;
    gd.start_index_map[gd.n_start_map++] = d;
    gd.slice_sizes[d] = 1;
  }
  tt_val_t out = tt_b_gather(g, x, coords, &gd);
  if (ir == 0) out = tt_b_reshape(g, out, 0, NULL);
  tt_l_output(L, out);
  return NULL;
}

/* scatter family: self with src (or a value) scattered at index along dim;
 * sred >= 0 selects a scatter_reduce.two reduction (kind is then unused). */
static tt_val_t scatter_reduce_apply(tt_graph_t *g, tt_val_t x, tt_val_t coords, tt_val_t upd, const tt_scatter_dims_t *sd,
                                     int red, int include_self, tt_dtype_t dt);
/* The checks CPU's scatter meta makes first: the dim, the index's dtype,
 * src's against self's (before the empty-index shortcut), then the shapes. *dim: the
 * wrapped dim; NULL with *dim < 0 where the lowering already failed. */
static tt_status_t scatter_checks_first(tt_lower_t *L, int value_arg, int *dim) {
  int rank = tt_l_arg_rank(L, 0);
  *dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) {
    *dim = -1;
    return NULL;
  }
  tt_dtype_t it = tt_l_arg_dtype(L, 2);
  if (index_numel(L) != 0 && it != TT_I64 && it != TT_I32)
    return tt_status_make(TT_INVALID_ARGUMENT, "scatter(): Expected dtype int32/int64 for index");
  int src_tensor = L->args[value_arg].kind == TT_ARG_TENSOR && !L->args[value_arg].t->is_host_scalar;
  if (src_tensor && tt_l_arg_dtype(L, value_arg) != tt_l_arg_dtype(L, 0))
    return tt_status_make(TT_INVALID_ARGUMENT, "scatter(): Expected self.dtype to be equal to src.dtype");
  return check_dim_index(L, "scatter", *dim, rank, 1, src_tensor ? value_arg : -1);
}

/* scatter_reduce.two's and index_reduce's reductions (sred below). */
typedef enum { SR_SUM, SR_PROD, SR_MEAN, SR_AMAX, SR_AMIN } sreduce_t;

static tt_status_t scatter_common_ex(tt_lower_t *L, tt_reduce_t kind, int value_arg, int sred, int include_self) {
  int rank = tt_l_arg_rank(L, 0), dim;
  tt_status_t st = scatter_checks_first(L, value_arg, &dim);
  if (st || dim < 0) return st;
  tt_graph_t *g = L->g;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  int src_tensor = L->args[value_arg].kind == TT_ARG_TENSOR && !L->args[value_arg].t->is_host_scalar;
  if (sred == SR_MEAN && dt == TT_BOOL) /* CPU's mean kernel, or with no index its floor division by the counts, has no Bool case */
    return tt_op_refuse_dtype(dt, index_numel(L) == 0 ? "div_floor_cpu" : "scatter_gather_tensor_cpu_reduce_mean");
  if (index_numel(L) == 0) { /* nothing scattered */
    tt_l_output(L, tt_l_tensor(L, 0));
    return NULL;
  }
  int ir = tt_l_arg_rank(L, 2);
  int r = rank ? rank : 1;
  int64_t one = 1, isz[TT_MAX_RANK];
  tt_val_t x = tt_l_tensor(L, 0), idx = tt_l_tensor(L, 2);
  if (rank == 0) x = tt_b_reshape(g, x, 1, &one);
  if (ir == 0) { isz[0] = 1; idx = tt_b_reshape(g, idx, 1, &one); }
  else memcpy(isz, tt_l_arg_sizes(L, 2), sizeof(int64_t) * (size_t)ir);
  int64_t n = 1;
  for (int d = 0; d < r; d++) n *= isz[d];
  if (n == 0) {
    tt_l_output(L, rank == 0 ? tt_b_reshape(g, x, 0, NULL) : x);
    return NULL;
  }
  tt_val_t upd;
  if (src_tensor) {
    int sr = tt_l_arg_rank(L, value_arg);
    tt_val_t src = tt_l_tensor(L, value_arg);
    if (sr == 0) src = tt_b_reshape(g, src, 1, &one);
    int64_t zero[TT_MAX_RANK] = {0}, strides[TT_MAX_RANK];
    for (int d = 0; d < r; d++) strides[d] = 1;
    upd = tt_b_slice(g, src, zero, isz, strides);
  } else { /* CPU's kernel converts with value.to<scalar_t>() (checked), once there is an index */
    if (!tt_op_check_scalar_fits(L, value_arg, dt)) return NULL;
    upd = tt_op_fit(L, tt_l_scalar_arg(L, value_arg, dt), dt, r, isz);
  }
  const tt_type_t *xt = tt_graph_type(g, x);
  if (!xt) return NULL;
  tt_l_check_index(L, idx, 0, xt->dims[dim], dim, TT_CHECK_DIM);
  tt_val_t coords = dim_coords(L, idx, dim, r, isz, xt->dims[dim]);
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  for (int d = 0; d < r; d++) {
    sd.inserted_window_dims[sd.n_inserted++] = d;
    sd.scatter_to_operand[sd.n_to_operand++] = d;
  }
  if (dt == TT_BOOL && kind == TT_RED_SUM) kind = TT_RED_OR;
  if (dt == TT_BOOL && kind == TT_RED_PROD) kind = TT_RED_AND;
  tt_val_t out = sred >= 0 ? scatter_reduce_apply(g, x, coords, upd, &sd, sred, include_self, dt)
                           : tt_b_scatter(g, kind, x, coords, upd, &sd);
  if (rank == 0) out = tt_b_reshape(g, out, 0, NULL);
  tt_l_output(L, out);
  return NULL;
}

static tt_status_t scatter_common(tt_lower_t *L, tt_reduce_t kind, int value_arg) {
  return scatter_common_ex(L, kind, value_arg, -1, 1);
}

static tt_status_t lower_scatter(tt_lower_t *L) { return scatter_common(L, TT_RED_SET, 3); }
static tt_status_t lower_scatter_add(tt_lower_t *L) { return scatter_common(L, TT_RED_SUM, 3); }

/* scatter.reduce / scatter.value_reduce: reduce is "add" or "multiply";
 * complex values too (CPU's scatter_reduce kernels have complex cases: fuzz
 * 416:494, scatter(complex128, reduce="add") was refused). */
static tt_status_t lower_scatter_reduce_str(tt_lower_t *L) {
  const char *red = tt_l_str(L, 4, "");
  if (!strcmp(red, "add")) return scatter_common(L, TT_RED_SUM, 3);
  if (!strcmp(red, "multiply")) return scatter_common(L, TT_RED_PROD, 3);
  int dim; /* CPU's meta checks the reduce argument after the dim and the dtypes */
  tt_status_t st = scatter_checks_first(L, 3, &dim);
  if (st || dim < 0) return st;
  return tt_status_make(TT_INVALID_ARGUMENT, "reduce argument must be either add or multiply.");
}

/* ---- scatter_reduce.two, index_reduce -------------------------------------- */

static int parse_sreduce(const char *r, sreduce_t *out, int allow_sum) {
  static const char *names[] = {"sum", "prod", "mean", "amax", "amin"};
  for (int k = allow_sum ? 0 : 1; k < 5; k++)
    if (!strcmp(r, names[k])) { *out = (sreduce_t)k; return 1; }
  return 0;
}

/* A full tensor of the reduction's identity (what include_self=False starts from). */
static tt_val_t sreduce_identity(tt_graph_t *g, sreduce_t red, tt_dtype_t dt, int rank, const int64_t *dims) {
  int hi = red == SR_PROD || red == SR_AMIN;
  if (red == SR_SUM || red == SR_MEAN || red == SR_PROD) return tt_b_full_i(g, dt, rank, dims, red == SR_PROD);
  if (tt_dtype_is_float(dt)) return tt_b_full_f(g, dt, rank, dims, hi ? INFINITY : -INFINITY);
  int64_t lo_v = 0, hi_v = 1;
  switch (dt) {
    case TT_U8: hi_v = 255; break;
    case TT_I8: lo_v = INT8_MIN, hi_v = INT8_MAX; break;
    case TT_I16: lo_v = INT16_MIN, hi_v = INT16_MAX; break;
    case TT_I32: lo_v = INT32_MIN, hi_v = INT32_MAX; break;
    case TT_I64: lo_v = INT64_MIN, hi_v = INT64_MAX; break;
    default: break; /* bool: false / true */
  }
  return tt_b_full_i(g, dt, rank, dims, hi ? hi_v : lo_v);
}

/* a / b for b > 0: true division for floats, floor division for integers
 * (PyTorch's mean reductions divide integers with rounding_mode="floor"). */
static tt_val_t div_by_count(tt_graph_t *g, tt_val_t a, tt_val_t b, tt_dtype_t dt) {
  tt_val_t q = tt_b_binary(g, TT_BIN_DIV, a, b);
  if (tt_dtype_is_float(dt)) return q;
  tt_val_t inexact = tt_b_compare(g, TT_CMP_NE, tt_b_binary(g, TT_BIN_MUL, q, b), a);
  tt_val_t neg = tt_b_compare(g, TT_CMP_LT, a, tt_b_like_f(g, a, 0));
  tt_val_t fix = tt_b_binary(g, TT_BIN_AND, inexact, neg);
  return tt_b_select(g, fix, tt_b_binary(g, TT_BIN_SUB, q, tt_b_like_f(g, q, 1)), q);
}

/* self (x) reduced with upd at coords: include_self=False first resets the
 * targeted elements to the identity; mean divides by the number of values
 * that met at each element (plus self's). */
static tt_val_t scatter_reduce_apply(tt_graph_t *g, tt_val_t x, tt_val_t coords, tt_val_t upd, const tt_scatter_dims_t *sd,
                                     int red_i, int include_self, tt_dtype_t dt) {
  sreduce_t red = (sreduce_t)red_i;
  const tt_type_t *xt = tt_graph_type(g, x), *ut = tt_graph_type(g, upd);
  if (!xt || !ut) return -1;
  int64_t xd[TT_MAX_RANK], ud[TT_MAX_RANK];
  int xr = xt->rank, ur = ut->rank;
  memcpy(xd, xt->dims, sizeof(int64_t) * (size_t)xr);
  memcpy(ud, ut->dims, sizeof(int64_t) * (size_t)ur);
  int is_bool = dt == TT_BOOL;
  tt_reduce_t kind = red == SR_PROD ? TT_RED_PROD : red == SR_AMAX ? TT_RED_MAX : red == SR_AMIN ? TT_RED_MIN : TT_RED_SUM;
  if (is_bool) kind = (kind == TT_RED_PROD || kind == TT_RED_MIN) ? TT_RED_AND : TT_RED_OR;
  tt_val_t base = x;
  if (!include_self) base = tt_b_scatter(g, TT_RED_SET, x, coords, sreduce_identity(g, red, dt, ur, ud), sd);
  tt_val_t out = tt_b_scatter(g, kind, base, coords, upd, sd);
  if ((red == SR_AMAX || red == SR_AMIN) && tt_dtype_is_float(dt)) {
    /* CPU's max/min propagate NaN (a NaN source, or self's own with
     * include_self); XLA CPU's scatter combiner drops it (graph fuzzer 110:41) */
    tt_val_t hit = tt_b_scatter(g, TT_RED_OR, tt_b_full_i(g, TT_BOOL, xr, xd, 0), coords,
                                tt_b_compare(g, TT_CMP_NE, upd, upd), sd);
    if (include_self) {
      tt_val_t touched = tt_b_scatter(g, TT_RED_OR, tt_b_full_i(g, TT_BOOL, xr, xd, 0), coords, tt_b_full_i(g, TT_BOOL, ur, ud, 1), sd);
      hit = tt_b_binary(g, TT_BIN_OR, hit, tt_b_binary(g, TT_BIN_AND, touched, tt_b_compare(g, TT_CMP_NE, x, x)));
    }
    out = tt_b_select(g, hit, tt_b_like_f(g, out, NAN), out);
  }
  if (red != SR_MEAN) return out;
  tt_dtype_t ct = tt_op_math_type(dt);
  tt_val_t cnt = tt_b_scatter(g, TT_RED_SUM, tt_b_full_i(g, ct, xr, xd, include_self), coords, tt_b_full_i(g, ct, ur, ud, 1), sd);
  cnt = tt_b_binary(g, TT_BIN_MAX, cnt, tt_b_full_i(g, ct, xr, xd, 1));
  return tt_b_convert(g, div_by_count(g, tt_b_convert(g, out, ct), cnt, dt), dt);
}

/* scatter_reduce.two(self, dim, index, src, reduce, *, include_self=True) */
static tt_status_t lower_scatter_reduce_two(tt_lower_t *L) {
  const char *rs = tt_l_str(L, 4, "");
  sreduce_t red;
  if (!parse_sreduce(rs, &red, 1))
    return tt_status_make(TT_INVALID_ARGUMENT, "reduce argument must be either sum, prod, mean, amax or amin, got %s", rs);
  return scatter_common_ex(L, TT_RED_SET, 3, (int)red, tt_l_bool(L, 5, 1));
}

/* index_reduce(self, dim, index, source, reduce, *, include_self=True):
 * self[..., index[i], ...] reduced with source[..., i, ...]. */
static tt_status_t lower_index_reduce(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  const char *rs = tt_l_str(L, 4, "");
  int include_self = tt_l_bool(L, 5, 1);
  if (tt_graph_failed(L->g)) return NULL;
  sreduce_t red;
  if (!parse_sreduce(rs, &red, 0))
    return tt_status_make(TT_INVALID_ARGUMENT, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s.", rs);
  if (tt_l_arg_rank(L, 2) > 1) return tt_status_make(TT_INDEX_ERROR, "index_reduce_(): Index is supposed to be a vector");
  tt_dtype_t it = tt_l_arg_dtype(L, 2), dt = tt_l_arg_dtype(L, 0);
  if (it != TT_I64 && it != TT_I32) return tt_status_make(TT_INVALID_ARGUMENT, "index_reduce_(): Expected dtype int32/int64 for index but got: %s", tt_op_type_name(it));
  if (tt_l_arg_dtype(L, 3) != dt)
    return tt_status_make(TT_INVALID_ARGUMENT, "index_reduce_(): self (%s) and source (%s) must have the same scalar type",
                          tt_op_type_name(dt), tt_op_type_name(tt_l_arg_dtype(L, 3)));
  int sr = tt_l_arg_rank(L, 3);
  int64_t n = tt_l_arg_rank(L, 2) == 0 ? 1 : tt_l_arg_sizes(L, 2)[0];
  /* CPU's index_func_meta_impl: source's dim, its length, then the other dims */
  if (sr > 0 && dim >= sr)
    return tt_status_make(TT_INVALID_ARGUMENT, "index_reduce_(): Indexing dim %d is out of bounds of the source tensor with dim %d", dim, sr);
  int64_t slen = sr ? tt_l_arg_sizes(L, 3)[dim] : 1;
  if (slen != n)
    return tt_status_make(TT_INVALID_ARGUMENT, "index_reduce_(): Number of indices (%lld) should be equal to source.size(dim): (%lld), for dim: %d",
                          (long long)n, (long long)slen, dim);
  int same = rank && sr ? rank == sr : rank == sr; /* a 0-d self or source: whole shapes compared */
  for (int d = 0; same && d < rank; d++)
    same = (d == dim && sr) || tt_l_arg_sizes(L, 0)[d] == tt_l_arg_sizes(L, 3)[d];
  if (!same) {
    char a[160], b[160];
    tt_op_sizes_text(a, sizeof a, rank, tt_l_arg_sizes(L, 0));
    tt_op_sizes_text(b, sizeof b, sr, tt_l_arg_sizes(L, 3));
    return tt_status_make(TT_INVALID_ARGUMENT, "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = %s source.shape = %s", a, b);
  }
  int r = rank ? rank : 1;
  int64_t ssz[TT_MAX_RANK], xsz[TT_MAX_RANK];
  for (int d = 0; d < r; d++) {
    xsz[d] = rank ? tt_l_arg_sizes(L, 0)[d] : 1;
    ssz[d] = sr ? tt_l_arg_sizes(L, 3)[d] : 1;
  }
  /* CPU's Bool refusals: without include_self the kernel resetting self
   * first; with it the 1-D kernel, or past one dim (a loop of tensor ops)
   * mean's floor division by the counts */
  if (dt == TT_BOOL && (!include_self || rank <= 1))
    return tt_op_refuse_dtype(dt, include_self ? "index_func_" : "index_reduce_func_exclude_input_init");
  if (dt == TT_BOOL && red == SR_MEAN && n > 0) return tt_op_refuse_dtype(dt, "div_floor_cpu");
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_reshape(g, tt_l_tensor(L, 0), r, xsz);
  if (n == 0) {
    tt_l_output(L, tt_b_reshape(g, x, rank, xsz));
    return NULL;
  }
  tt_val_t src = tt_b_reshape(g, tt_l_tensor(L, 3), r, ssz);
  tt_val_t idx = tt_b_convert(g, tt_b_reshape(g, tt_l_tensor(L, 2), 1, &n), TT_I64);
  tt_l_check_index(L, idx, 0, xsz[dim], dim, TT_CHECK_SELF);
  int64_t bmap = dim;
  idx = tt_b_broadcast(g, idx, r, ssz, &bmap);
  tt_val_t coords = dim_coords(L, idx, dim, r, ssz, xsz[dim]);
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  for (int d = 0; d < r; d++) {
    sd.inserted_window_dims[sd.n_inserted++] = d;
    sd.scatter_to_operand[sd.n_to_operand++] = d;
  }
  tt_val_t out = scatter_reduce_apply(g, x, coords, src, &sd, (int)red, include_self, dt);
  tt_l_output(L, tt_b_reshape(g, out, rank, xsz));
  return NULL;
}

/* ---- index_fill, index_copy, take, put, masked_scatter ---------------------- */

/* Coordinates for writing along dim at the positions of a vector index
 * (argument 2): the target block T is self's shape with dim of the index's
 * length. Fills r, xsz (self, rank >= 1), tsz; returns -1 on error. */
static tt_val_t index_dim_coords(tt_lower_t *L, const char *op, int dim, int *r, int64_t *xsz, int64_t *tsz, tt_scatter_dims_t *sd) {
  int rank = tt_l_arg_rank(L, 0);
  if (tt_l_arg_rank(L, 2) > 1) return tt_l_fail(L, TT_INDEX_ERROR, "%s(): Index is supposed to be a vector", op);
  tt_dtype_t it = tt_l_arg_dtype(L, 2);
  if (it != TT_I64) return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s(): Expected a long tensor for index, but got %s", op, tt_op_type_name(it));
  *r = rank ? rank : 1;
  for (int d = 0; d < *r; d++) xsz[d] = rank ? tt_l_arg_sizes(L, 0)[d] : 1;
  int64_t n = tt_l_arg_rank(L, 2) == 0 ? 1 : tt_l_arg_sizes(L, 2)[0];
  memcpy(tsz, xsz, sizeof(int64_t) * (size_t)*r);
  tsz[dim] = n;
  if (n == 0) return 0; /* caller checks tsz[dim] */
  tt_graph_t *g = L->g;
  tt_val_t idx = tt_b_reshape(g, tt_b_convert(g, tt_l_tensor(L, 2), TT_I64), 1, &n);
  /* CPU's kernels check each index as they write through it, over self
   * restrided to the target block's shape (dim of the index's length):
   * where that block is empty nothing is checked (index_fill of an empty
   * (0, 3) along dim 1 at index -6 is the empty tensor), else every index
   * is, an empty dim's all out of range (fuzz 509:595: index_fill_ of an
   * expanded (0, 3) along dim 0 at [-1, 0] is CPU's 'index -1 is out of
   * bounds for dimension 0 with size 0'; tpu returned the empty tensor) */
  int64_t block_numel = 1;
  for (int d = 0; d < *r; d++) block_numel *= tsz[d];
  /* index_fill wraps a negative index; index_copy refuses it (CPU: "index_copy_(): index -1 is out of bounds") */
  int64_t lo = strcmp(op, "index_copy_") ? -xsz[dim] : 0;
  if (block_numel > 0) tt_l_check_index(L, idx, lo, xsz[dim], dim, TT_CHECK_SELF);
  int64_t bmap = dim;
  idx = tt_b_broadcast(g, idx, *r, tsz, &bmap);
  memset(sd, 0, sizeof *sd);
  for (int d = 0; d < *r; d++) {
    sd->inserted_window_dims[sd->n_inserted++] = d;
    sd->scatter_to_operand[sd->n_to_operand++] = d;
  }
  return dim_coords(L, idx, dim, *r, tsz, xsz[dim]);
}

/* index_fill(self, dim, index, value): value a number or a 0-dim tensor. */
static tt_status_t lower_index_fill(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (L->args[3].kind == TT_ARG_TENSOR && tt_l_arg_rank(L, 3) != 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).",
                          tt_l_arg_rank(L, 3));
  if (tt_l_arg_dtype(L, 2) != TT_I64) /* CPU's first check in index_fill_ (an IndexError, unlike index_copy's) */
    return tt_status_make(TT_INDEX_ERROR, "index_fill_(): Expected dtype int64 for index.");
  int complex_value = L->args[3].kind == TT_ARG_COMPLEX || (L->args[3].kind == TT_ARG_TENSOR && tt_dtype_is_complex(tt_l_arg_dtype(L, 3)));
  if (complex_value && !tt_dtype_is_complex(dt))
    return tt_status_make(TT_INVALID_ARGUMENT, "index_fill_(): Converting complex Scalar to non-complex type is not supported");
  /* the dim is wrapped after those checks (fuzz 488:337: index_fill(float64
   * (0, 3), 3, index, complex) is CPU's complex-value error, not the IndexError) */
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  if (!tt_op_check_value_fits(L, 3, dt)) return NULL;
  int r;
  int64_t xsz[TT_MAX_RANK], tsz[TT_MAX_RANK];
  tt_scatter_dims_t sd;
  tt_val_t coords = index_dim_coords(L, "index_fill_", dim, &r, xsz, tsz, &sd);
  if (tt_graph_failed(L->g)) return NULL;
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_reshape(g, tt_l_tensor(L, 0), r, xsz);
  /* An expanded self (fuzz 705:1104: complex128 (2, 3) of stride (0, 1),
   * filled along dim 1): CPU warns and writes the value through every
   * alias, so an element is filled where some alias of it is selected. */
  int64_t bdims[TT_MAX_RANK];
  int nb = !strncmp(L->op, "index_fill_", 11) && rank > 0 ? tt_op_expanded_dims(tt_l_ref(L, 0), bdims) : 0;
  if (nb > 0)
    L->warning = "Use of index_fill_ on expanded tensors is deprecated. Please clone() the tensor before performing "
                 "this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar";
  if (tsz[dim] > 0) {
    tt_val_t v = L->args[3].kind == TT_ARG_TENSOR ? tt_b_convert(g, tt_l_tensor(L, 3), dt) : tt_l_scalar_arg(L, 3, dt);
    if (nb > 0) {
      tt_val_t m = tt_b_scatter(g, TT_RED_SET, tt_b_full_i(g, TT_BOOL, r, xsz, 0), coords,
                                tt_b_full_i(g, TT_BOOL, r, tsz, 1), &sd);
      m = tt_op_alias_reduce(L, TT_RED_OR, m, r, xsz, nb, bdims);
      x = tt_b_select(g, m, tt_op_fit(L, v, dt, r, xsz), x);
    } else {
      x = tt_b_scatter(g, TT_RED_SET, x, coords, tt_op_fit(L, v, dt, r, tsz), &sd);
    }
  } else if (nb > 0) {
    L->alias_write = 1; /* nothing filled: self written back as it is */
  }
  tt_l_output(L, tt_b_reshape(g, x, rank, xsz));
  return NULL;
}

/* sz without dimension `skip` (when rank > 0), as CPU prints a size vector
 * in index_copy_'s message: "2 3", empty for none. Returns the count. */
static int drop_dim(int rank, const int64_t *sz, int skip, int64_t *out) {
  int m = 0;
  for (int d = 0; d < rank; d++)
    if (d != skip) out[m++] = sz[d];
  return m;
}

static void sizes_text(char *buf, size_t n, int m, const int64_t *sz) {
  size_t k = 0;
  buf[0] = 0;
  for (int d = 0; d < m && k < n; d++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? " " : "", (long long)sz[d]);
}

/* index_copy's argument checks in CPU's order (its meta function), with
 * its exception types: a 0-dim self or source counts as one element. */
static tt_status_t index_copy_checks(tt_lower_t *L, int dim) {
  int rank = tt_l_arg_rank(L, 0), ir = tt_l_arg_rank(L, 2), sr = tt_l_arg_rank(L, 3);
  const int64_t *xs = tt_l_arg_sizes(L, 0), *ss = tt_l_arg_sizes(L, 3);
  if (ir >= 2) return tt_status_make(TT_INDEX_ERROR, "index_copy_(): Index should have dimension 1 or 0 (got %d)", ir);
  int64_t n = ir == 0 ? 1 : tt_l_arg_sizes(L, 2)[0];
  if (sr == 0 && n != 1)
    return tt_status_make(TT_INDEX_ERROR, "index_copy_(): When source is scalar, index should have one element (got %lld)", (long long)n);
  if (sr != 0 && sr != rank && rank != 0)
    return tt_status_make(TT_INDEX_ERROR, "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
                          "Source dimensionality (%d), destination dimensionality (%d)", sr, rank);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (tt_l_arg_dtype(L, 2) != TT_I64)
    return tt_status_make(TT_INVALID_ARGUMENT, "index_copy_(): Expected a long tensor for index, but got %s", tt_op_type_name(tt_l_arg_dtype(L, 2)));
  if (tt_l_arg_dtype(L, 3) != dt)
    return tt_status_make(TT_INVALID_ARGUMENT, "index_copy_(): self and source expected to have the same dtype, but got (self) %s and (source) %s",
                          tt_op_type_name(dt), tt_op_type_name(tt_l_arg_dtype(L, 3)));
  /* Slice shapes: each shape without `dim` (a 0-dim shape stays empty). */
  int64_t xa[TT_MAX_RANK], sa[TT_MAX_RANK];
  int xm = drop_dim(rank, xs, dim, xa), sm = drop_dim(sr, ss, dim, sa);
  if (xm != sm || memcmp(xa, sa, sizeof(int64_t) * (size_t)xm)) {
    char a[200], b[200];
    sizes_text(a, sizeof a, xm, xa);
    sizes_text(b, sizeof b, sm, sa);
    return tt_status_make(TT_INVALID_ARGUMENT, "index_copy_(): Source/destination tensor must have same slice shapes. "
                          "Destination slice shape: %s at dimension %d and source slice shape: %s at dimension 0.", a, dim, b);
  }
  if (sr != 0 && n != ss[dim])
    return tt_status_make(TT_INDEX_ERROR, "index_copy_(): Number of indices (%lld) should be equal to source.size(dim) (%lld)",
                          (long long)n, (long long)ss[dim]);
  return NULL;
}

/* index_copy(self, dim, index, source) */
static tt_status_t lower_index_copy(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  tt_status_t st = index_copy_checks(L, dim);
  if (st) return st;
  int r;
  int64_t xsz[TT_MAX_RANK], tsz[TT_MAX_RANK];
  tt_scatter_dims_t sd;
  tt_val_t coords = index_dim_coords(L, "index_copy_", dim, &r, xsz, tsz, &sd);
  if (tt_graph_failed(L->g)) return NULL;
  int64_t tn = 1;
  for (int d = 0; d < r; d++) tn *= tsz[d];
  tt_graph_t *g = L->g;
  tt_val_t x = tt_b_reshape(g, tt_l_tensor(L, 0), r, xsz);
  if (tn > 0) x = tt_b_scatter(g, TT_RED_SET, x, coords, tt_b_reshape(g, tt_l_tensor(L, 3), r, tsz), &sd);
  tt_l_output(L, tt_b_reshape(g, x, rank, xsz));
  return NULL;
}

/* Flat int64 positions of index (argument 1) into self (numel n), negatives wrapped. */
static tt_val_t flat_positions(tt_lower_t *L, const char *op, int64_t n, int64_t *m) {
  tt_dtype_t it = tt_l_arg_dtype(L, 1);
  if (it != TT_I64) return tt_l_fail(L, TT_INVALID_ARGUMENT, "%s(): Expected a long tensor for index, but got %s", op, tt_op_type_name(it));
  int ir = tt_l_arg_rank(L, 1);
  *m = 1;
  for (int d = 0; d < ir; d++) *m *= tt_l_arg_sizes(L, 1)[d];
  tt_graph_t *g = L->g;
  tt_val_t idx = tt_b_reshape(g, tt_l_tensor(L, 1), 1, m);
  tt_l_check_index(L, idx, -n, n, 0, TT_CHECK_FLAT);
  tt_val_t neg = tt_b_compare(g, TT_CMP_LT, idx, tt_b_full_i(g, TT_I64, 1, m, 0));
  idx = tt_b_select(g, neg, tt_b_binary(g, TT_BIN_ADD, idx, tt_b_full_i(g, TT_I64, 1, m, n)), idx);
  int64_t cd[2] = {*m, 1};
  return tt_b_reshape(g, idx, 2, cd);
}

static int64_t arg_numel(tt_lower_t *L, int i) {
  int64_t n = 1;
  for (int d = 0; d < tt_l_arg_rank(L, i); d++) n *= tt_l_arg_sizes(L, i)[d];
  return n;
}

/* take(self, index): self flattened, read at index; the result has index's shape. */
static tt_status_t lower_take(tt_lower_t *L) {
  int64_t n = arg_numel(L, 0), m;
  tt_graph_t *g = L->g;
  tt_val_t coords = flat_positions(L, "take", n, &m);
  if (tt_graph_failed(g)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (m > 0 && n == 0) return tt_status_make(TT_INDEX_ERROR, "take(): tried to take from an empty tensor");
  tt_val_t out;
  if (m == 0) {
    out = tt_b_full_i(g, dt, 1, &m, 0);
  } else {
    tt_gather_dims_t gd;
    memset(&gd, 0, sizeof gd);
    gd.collapsed[gd.n_collapsed++] = 0;
    gd.start_index_map[gd.n_start_map++] = 0;
    gd.slice_sizes[0] = 1;
    out = tt_b_gather(g, tt_b_reshape(g, tt_l_tensor(L, 0), 1, &n), coords, &gd);
  }
  tt_l_output(L, tt_b_reshape(g, out, tt_l_arg_rank(L, 1), tt_l_arg_sizes(L, 1)));
  return NULL;
}

/* put(self, index, source, accumulate=False): self flattened, written at index. */
static tt_status_t lower_put(tt_lower_t *L) {
  int64_t n = arg_numel(L, 0), m;
  tt_graph_t *g = L->g;
  tt_val_t coords = flat_positions(L, "put_", n, &m);
  if (tt_graph_failed(g)) return NULL;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (tt_l_arg_dtype(L, 2) != dt)
    return tt_status_make(TT_INVALID_ARGUMENT, "put_(): self and source expected to have the same dtype, but got self.dtype = %s and source.dtype = %s",
                          tt_op_type_name(dt), tt_op_type_name(tt_l_arg_dtype(L, 2)));
  if (arg_numel(L, 2) != m)
    return tt_status_make(TT_INVALID_ARGUMENT, "put_(): Expected source and index to have the same number of elements, but got source.numel() = %lld, index.numel() = %lld",
                          (long long)arg_numel(L, 2), (long long)m);
  if (m > 0 && n == 0) return tt_status_make(TT_INDEX_ERROR, "put_(): Tried to put elements into an empty tensor");
  int accumulate = tt_l_bool(L, 3, 0);
  tt_val_t x = tt_l_tensor(L, 0);
  if (m > 0) {
    tt_scatter_dims_t sd;
    memset(&sd, 0, sizeof sd);
    sd.inserted_window_dims[sd.n_inserted++] = 0;
    sd.scatter_to_operand[sd.n_to_operand++] = 0;
    tt_reduce_t kind = !accumulate ? TT_RED_SET : dt == TT_BOOL ? TT_RED_OR : TT_RED_SUM;
    x = tt_b_scatter(g, kind, tt_b_reshape(g, x, 1, &n), coords, tt_b_reshape(g, tt_l_tensor(L, 2), 1, &m), &sd);
    x = tt_b_reshape(g, x, tt_l_arg_rank(L, 0), tt_l_arg_sizes(L, 0));
  }
  tt_l_output(L, x);
  return NULL;
}

/* masked_scatter_(self, mask, source): the k-th true element of mask (in
 * row-major order, mask broadcast to self) takes source's k-th element. The
 * rank k is an inclusive prefix sum of the mask, less one. */
static tt_status_t lower_masked_scatter(tt_lower_t *L) {
  if (tt_l_arg_dtype(L, 1) != TT_BOOL && tt_l_arg_dtype(L, 1) != TT_U8)
    return tt_status_make(TT_INVALID_ARGUMENT, "masked_scatter_ only supports boolean masks, but got mask with dtype %s", tt_op_type_name(tt_l_arg_dtype(L, 1)));
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  if (tt_l_arg_dtype(L, 2) != dt) /* CPU's words, "got" and the type run together */
    return tt_status_make(TT_INVALID_ARGUMENT, "masked_scatter: expected self and source to have same dtypes but got%s and %s",
                          tt_op_type_name(dt), tt_op_type_name(tt_l_arg_dtype(L, 2)));
  int rank = tt_l_arg_rank(L, 0);
  const int64_t *xsz = tt_l_arg_sizes(L, 0);
  int64_t n = arg_numel(L, 0), sn = arg_numel(L, 2);
  tt_graph_t *g = L->g;
  tt_val_t x = tt_l_tensor(L, 0);
  if (n == 0 || sn == 0) { /* nothing to read from (CPU raises if mask has a true element) */
    tt_l_output(L, x);
    return NULL;
  }
  tt_val_t mask = tt_op_fit(L, tt_b_convert(g, tt_l_tensor(L, 1), TT_BOOL), TT_BOOL, rank, xsz);
  tt_val_t m = tt_b_reshape(g, mask, 1, &n);
  int64_t win = n, st = 1, lo = n - 1, hi = 0;
  tt_val_t k = tt_b_reduce_window(g, TT_RED_SUM, tt_b_convert(g, m, TT_I64), -1, &win, &st, &lo, &hi);
  k = tt_b_binary(g, TT_BIN_SUB, k, tt_b_full_i(g, TT_I64, 1, &n, 1));
  k = tt_b_binary(g, TT_BIN_MAX, k, tt_b_full_i(g, TT_I64, 1, &n, 0));
  k = tt_b_binary(g, TT_BIN_MIN, k, tt_b_full_i(g, TT_I64, 1, &n, sn - 1));
  int64_t cd[2] = {n, 1};
  tt_gather_dims_t gd;
  memset(&gd, 0, sizeof gd);
  gd.collapsed[gd.n_collapsed++] = 0;
  gd.start_index_map[gd.n_start_map++] = 0;
  gd.slice_sizes[0] = 1;
  tt_val_t vals = tt_b_gather(g, tt_b_reshape(g, tt_l_tensor(L, 2), 1, &sn), tt_b_reshape(g, k, 2, cd), &gd);
  tt_val_t out = tt_b_select(g, m, vals, tt_b_reshape(g, x, 1, &n));
  tt_l_output(L, tt_b_reshape(g, out, rank, xsz));
  return NULL;
}

/* ---- embedding backward --------------------------------------------------- */

/* embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq) */
static tt_status_t lower_embedding_dense_backward(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int gr = tt_l_arg_rank(L, 0);
  if (gr < 1) return tt_status_make(TT_INVALID_ARGUMENT, "embedding_dense_backward: grad must have at least one dim");
  const int64_t *gsz = tt_l_arg_sizes(L, 0);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  int64_t dcol = gsz[gr - 1], nw = tt_l_int(L, 2, 0), pad = tt_l_int(L, 3, -1);
  int scale = tt_l_bool(L, 4, 0);
  int64_t n = 1;
  for (int d = 0; d < gr - 1; d++) n *= gsz[d];
  int64_t gd2[2] = {n, dcol}, wd[2] = {nw, dcol}, n1[2] = {n, 1};
  tt_val_t grad = tt_b_reshape(g, tt_l_tensor(L, 0), 2, gd2);
  tt_val_t idx = tt_b_convert(g, tt_b_reshape(g, tt_l_tensor(L, 1), 1, &n), TT_I64);
  if (n == 0) {
    tt_l_output(L, tt_b_full_i(g, dt, 2, wd, 0));
    return NULL;
  }
  tt_val_t coords = tt_b_reshape(g, idx, 2, n1);
  tt_scatter_dims_t sd;
  memset(&sd, 0, sizeof sd);
  sd.n_window = 1; sd.update_window_dims[0] = 1;
  sd.n_inserted = 1; sd.inserted_window_dims[0] = 0;
  sd.n_to_operand = 1; sd.scatter_to_operand[0] = 0;
  if (pad >= 0) { /* rows of padding_idx get no gradient */
    tt_val_t keep = tt_b_compare(g, TT_CMP_NE, idx, tt_b_full_i(g, TT_I64, 1, &n, pad));
    keep = tt_b_broadcast(g, keep, 2, gd2, (int64_t[]){0});
    grad = tt_b_select(g, keep, grad, tt_b_like_f(g, grad, 0));
  }
  if (scale) { /* divide each row by how often its index occurs */
    tt_scatter_dims_t sc;
    memset(&sc, 0, sizeof sc);
    sc.n_inserted = 1; sc.inserted_window_dims[0] = 0;
    sc.n_to_operand = 1; sc.scatter_to_operand[0] = 0;
    tt_val_t cnt = tt_b_scatter(g, TT_RED_SUM, tt_b_full_i(g, TT_I64, 1, &nw, 0), coords, tt_b_full_i(g, TT_I64, 1, &n, 1), &sc);
    tt_gather_dims_t gdm;
    memset(&gdm, 0, sizeof gdm);
    gdm.n_collapsed = 1; gdm.collapsed[0] = 0;
    gdm.n_start_map = 1; gdm.start_index_map[0] = 0;
    gdm.slice_sizes[0] = 1;
    tt_val_t per = tt_b_convert(g, tt_b_gather(g, cnt, coords, &gdm), dt);
    grad = tt_b_binary(g, TT_BIN_DIV, grad, tt_b_broadcast(g, per, 2, gd2, (int64_t[]){0}));
  }
  tt_l_output(L, tt_b_scatter(g, TT_RED_SUM, tt_b_full_i(g, dt, 2, wd, 0), coords, grad, &sd));
  return NULL;
}

/* ---- sorting --------------------------------------------------------------- */

/* sort.stable(self, stable, dim, descending) -> (values, indices) */
static tt_status_t lower_sort(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 2, -1), rank);
  int desc = tt_l_bool(L, 3, 0);
  tt_graph_t *g = L->g;
  if (tt_graph_failed(g)) return NULL;
  tt_val_t x = tt_l_tensor(L, 0);
  if (rank == 0) {
    tt_l_output(L, x);
    tt_l_output(L, tt_b_const_i(g, TT_I64, 0));
    return NULL;
  }
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  tt_val_t ops[2] = {x, tt_b_iota(g, TT_I64, rank, sz, dim)};
  /* Always stable: equal keys keep their order, as PyTorch's stable sort. */
  tt_val_t s = tt_b_sort(g, 2, ops, dim, desc, 1);
  tt_l_output(L, tt_b_get(g, s, 0));
  tt_l_output(L, tt_b_get(g, s, 1));
  return NULL;
}

/* topk(self, k, dim, largest, sorted) */
static tt_status_t lower_topk(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int64_t k = tt_l_int(L, 1, 1);
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 2, -1), rank);
  int largest = tt_l_bool(L, 3, 1);
  tt_graph_t *g = L->g;
  if (tt_graph_failed(g)) return NULL;
  int64_t size = rank ? tt_l_arg_sizes(L, 0)[dim] : 1;
  if (k < 0 || k > size) return tt_status_make(TT_INVALID_ARGUMENT, "selected index k out of range");
  tt_val_t x = tt_l_tensor(L, 0);
  if (rank == 0) {
    tt_l_output(L, x);
    tt_l_output(L, tt_b_const_i(g, TT_I64, 0));
    return NULL;
  }
  tt_val_t ops[2] = {x, tt_b_iota(g, TT_I64, rank, tt_l_arg_sizes(L, 0), dim)};
  tt_val_t s = tt_b_sort(g, 2, ops, dim, largest, 1);
  tt_l_output(L, tt_b_slice_dim(g, tt_b_get(g, s, 0), dim, 0, k, 1));
  tt_l_output(L, tt_b_slice_dim(g, tt_b_get(g, s, 1), dim, 0, k, 1));
  return NULL;
}

/* ---- nonzero (the count is downloaded by the Python kernel first) --------- */

static tt_val_t nonzero_pred(tt_lower_t *L, int64_t *n) {
  tt_val_t x = tt_l_tensor(L, 0);
  const tt_type_t *t = tt_graph_type(L->g, x);
  if (!t) return -1;
  *n = tt_type_numel(t);
  x = tt_b_reshape(L->g, x, 1, n);
  return tt_b_compare(L->g, TT_CMP_NE, x, tt_b_like_f(L->g, x, 0));
}

/* _tt_count_nonzero(self) -> int64 scalar */
static tt_status_t lower_count_nonzero(tt_lower_t *L) {
  int64_t n;
  tt_val_t p = nonzero_pred(L, &n);
  int64_t d0 = 0;
  tt_l_output(L, tt_b_reduce(L->g, TT_RED_SUM, tt_b_convert(L->g, p, TT_I64), 1, &d0));
  return NULL;
}

/* _tt_nonzero(self, count) -> [count, rank] int64 coordinates in row-major
 * order; nonzero(self, [count]) the same, its count from its size companion
 * (_tt_count_nonzero's lowering, downloaded by the caller). */
static tt_status_t lower_nonzero_known(tt_lower_t *L) {
  tt_graph_t *g = L->g;
  int rank = tt_l_arg_rank(L, 0);
  int64_t count = 0, n;
  if (tt_l_ints(L, 1, &count, 1) != 1)
    return tt_status_make(TT_INTERNAL, "%s: missing the downloaded count (its size companion's result)", L->op);
  tt_val_t p = nonzero_pred(L, &n);
  int64_t od[2] = {count, rank};
  if (count == 0 || rank == 0) {
    tt_l_output(L, tt_b_full_i(g, TT_I64, 2, od, 0));
    return NULL;
  }
  /* Stable sort of "is zero" keys moves the nonzero positions, in order, to the front. */
  tt_val_t ops[2] = {tt_b_convert(g, tt_b_unary(g, TT_UN_NOT, p), TT_I32), tt_b_iota(g, TT_I64, 1, &n, 0)};
  tt_val_t s = tt_b_sort(g, 2, ops, 0, 0, 1);
  tt_val_t flat = tt_b_slice_dim(g, tt_b_get(g, s, 1), 0, 0, count, 1);
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  int64_t c1[2] = {count, 1}, stride = 1;
  tt_val_t cols[TT_MAX_RANK];
  for (int d = rank - 1; d >= 0; d--) {
    tt_val_t q = tt_b_binary(g, TT_BIN_DIV, flat, tt_b_full_i(g, TT_I64, 1, &count, stride));
    q = tt_b_binary(g, TT_BIN_REM, q, tt_b_full_i(g, TT_I64, 1, &count, sz[d]));
    cols[d] = tt_b_reshape(g, q, 2, c1);
    stride *= sz[d];
  }
  tt_l_output(L, rank == 1 ? cols[0] : tt_b_concat(g, rank, cols, 1));
  return NULL;
}

const tt_op_def_t tt_ops_index[] = {
    {"index.Tensor", lower_index, TT_OPF_COMPLEX | TT_OPF_INDEX_MASKS},
    {"_unsafe_index.Tensor", lower_index, 0},
    {"index_put", lower_index_put, TT_OPF_COMPLEX | TT_OPF_INDEX_MASKS},
    {"_unsafe_index_put", lower_index_put, 0},
    {"_index_put_impl_", lower_index_put_impl_, TT_OPF_COMPLEX | TT_OPF_INDEX_MASKS},
    {"index_select", lower_index_select, TT_OPF_COMPLEX},
    {"index_add", lower_index_add, TT_OPF_COMPLEX},
    {"scatter_reduce.two", lower_scatter_reduce_two, 0},
    {"scatter_reduce_.two", lower_scatter_reduce_two, TT_OPF_INPLACE},
    {"index_reduce", lower_index_reduce, 0},
    {"index_fill.int_Scalar", lower_index_fill, TT_OPF_COMPLEX},
    {"index_fill.int_Tensor", lower_index_fill, TT_OPF_COMPLEX},
    {"index_fill_.int_Scalar", lower_index_fill, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"index_fill_.int_Tensor", lower_index_fill, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"index_copy", lower_index_copy, TT_OPF_COMPLEX},
    {"index_copy_", lower_index_copy, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"take", lower_take, TT_OPF_COMPLEX},
    {"put", lower_put, TT_OPF_COMPLEX},
    {"put_", lower_put, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"masked_scatter_", lower_masked_scatter, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"index_reduce_", lower_index_reduce, TT_OPF_INPLACE},
    {"index_add_", lower_index_add, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"gather", lower_gather, TT_OPF_COMPLEX},
    {"scatter.src", lower_scatter, TT_OPF_COMPLEX},
    {"scatter.value", lower_scatter, TT_OPF_COMPLEX},
    {"scatter_.src", lower_scatter, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"scatter_.value", lower_scatter, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"scatter.reduce", lower_scatter_reduce_str, TT_OPF_COMPLEX},
    {"scatter.value_reduce", lower_scatter_reduce_str, TT_OPF_COMPLEX},
    {"scatter_.reduce", lower_scatter_reduce_str, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"scatter_.value_reduce", lower_scatter_reduce_str, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"scatter_add", lower_scatter_add, TT_OPF_COMPLEX},
    {"scatter_add_", lower_scatter_add, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"embedding_dense_backward", lower_embedding_dense_backward, 0},
    {"sort.stable", lower_sort, TT_OPF_UNORDERED_CHECK, .layout = TT_LAYOUT_LIKE_INPUT},
    {"topk", lower_topk, TT_OPF_UNORDERED_CHECK},
    {"_tt_count_nonzero", lower_count_nonzero, TT_OPF_COMPLEX},
    {"_tt_nonzero", lower_nonzero_known, TT_OPF_COMPLEX},
    {"nonzero", lower_nonzero_known, TT_OPF_COMPLEX, .size = lower_count_nonzero},
    {NULL, NULL, 0},
};
