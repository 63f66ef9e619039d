/* Lowerings of the shape op family: ops that copy data into a new layout
 * (cat, pad, flip, roll, repeat, tril/triu, unfold's backward, the *_scatter
 * ops that write a view of a copy). Pure views never come here. */
#include <stdio.h>
#include <string.h>

#include "ops/common.h"
#include "ops/families.h"
#include "ops/linalg_util.h"
#include "views/view.h"

/* PyTorch skips legacy empty 1-D tensors of shape [0] in cat. */
static int cat_skipped(const tt_tensor_ref_t *r) { return r->view.rank == 1 && r->view.sizes[0] == 0; }

/* cat(Tensor[] tensors, int dim=0): inputs promoted to a common type. */
static tt_status_t lower_cat(tt_lower_t *L) {
  const tt_arg_t *a = &L->args[0];
  if (a->kind != TT_ARG_TENSORS) return tt_status_make(TT_TYPE_ERROR, "cat(): argument 'tensors' must be a list of Tensors");
  if (a->n == 0) return tt_status_make(TT_INVALID_ARGUMENT, "torch.cat(): expected a non-empty list of Tensors");
  tt_dtype_t dt = TT_DTYPE_INVALID;
  int first = -1;
  for (int j = 0; j < a->n; j++) {
    const tt_tensor_ref_t *r = &a->t[j];
    dt = dt == TT_DTYPE_INVALID ? r->dtype : tt_dtype_promote(dt, r->dtype);
    if (r->view.rank == 0)
      return tt_status_make(TT_INVALID_ARGUMENT, "zero-dimensional tensor (at position %d) cannot be concatenated", j);
    if (first < 0 && !cat_skipped(r)) first = j;
  }
  if (first < 0) { /* all legacy empties: the result is an empty [0] */
    int64_t z = 0;
    tt_l_output(L, tt_b_full_i(L->g, dt, 1, &z, 0));
    return NULL;
  }
  const tt_tensor_ref_t *f = &a->t[first];
  int rank = f->view.rank;
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank);
  if (tt_graph_failed(L->g)) return NULL;
  int64_t dims[TT_MAX_RANK];
  memcpy(dims, f->view.sizes, sizeof(int64_t) * (size_t)rank);
  dims[dim] = 0;
  tt_val_t xs[256];
  int n = 0;
  for (int j = 0; j < a->n; j++) {
    const tt_tensor_ref_t *r = &a->t[j];
    if (cat_skipped(r)) continue;
    if (r->view.rank != rank)
      return tt_status_make(TT_INVALID_ARGUMENT,
                            "Tensors must have same number of dimensions: got %d and %d", rank, r->view.rank);
    for (int d = 0; d < rank; d++)
      if (d != dim && r->view.sizes[d] != f->view.sizes[d])
        return tt_status_make(TT_INVALID_ARGUMENT,
                              "Sizes of tensors must match except in dimension %d. Expected size %lld but got size %lld for tensor number %d in the list.",
                              dim, (long long)f->view.sizes[d], (long long)r->view.sizes[d], j);
    dims[dim] += r->view.sizes[dim];
    if (r->view.sizes[dim] == 0) continue;
    if (n >= 256) return tt_status_make(TT_NOT_IMPLEMENTED, "cat: more than 256 tensors in one call");
    xs[n++] = tt_b_convert(L->g, tt_l_tensor_elem(L, 0, j), dt);
  }
  if (n == 0) tt_l_output(L, tt_b_full_i(L->g, dt, rank, dims, 0));
  else tt_l_output(L, n == 1 ? xs[0] : tt_b_concat(L->g, n, xs, dim));
  return NULL;
}

/* constant_pad_nd(self, pad, value): pairs from the last dim; negative crops. */
static tt_status_t lower_constant_pad_nd(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  int64_t pad[2 * TT_MAX_RANK + 2];
  int np = tt_l_ints(L, 1, pad, 2 * TT_MAX_RANK + 2);
  if (tt_graph_failed(L->g)) return NULL;
  if (np % 2) return tt_status_make(TT_INVALID_ARGUMENT, "Length of pad must be even but instead it equals %d", np);
  if (np / 2 > rank)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "Length of pad should be no more than twice the number of dimensions of the input. Pad length is %d while the input has %d dimensions.",
                          np, rank);
  int64_t lo[TT_MAX_RANK] = {0}, hi[TT_MAX_RANK] = {0}, in[TT_MAX_RANK] = {0};
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  for (int k = 0; k < np / 2; k++) {
    int d = rank - 1 - k;
    lo[d] = pad[2 * k];
    hi[d] = pad[2 * k + 1];
    if (sz[d] + lo[d] + hi[d] < 0)
      return tt_status_make(TT_INVALID_ARGUMENT,
                            "The input size %lld, plus negative padding %lld and %lld resulted in a negative output size, which is invalid. Check dimension %d of your input.",
                            (long long)sz[d], (long long)lo[d], (long long)hi[d], d);
  }
  tt_val_t x = tt_l_tensor(L, 0);
  tt_l_output(L, tt_b_pad(L->g, x, tt_l_scalar_arg(L, 2, dt), lo, hi, in));
  return NULL;
}

static tt_status_t lower_flip(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int64_t dims[TT_MAX_RANK];
  int n = tt_l_ints(L, 1, dims, TT_MAX_RANK);
  int seen[TT_MAX_RANK] = {0};
  for (int i = 0; i < n; i++) {
    dims[i] = tt_op_wrap_dim(L, dims[i], rank);
    if (tt_graph_failed(L->g)) return NULL;
    if (seen[dims[i]]++) return tt_status_make(TT_INVALID_ARGUMENT, "dim %lld appears multiple times in the list of dims", (long long)dims[i]);
  }
  tt_val_t x = tt_l_tensor(L, 0);
  tt_l_output(L, n && rank ? tt_b_reverse(L->g, x, n, dims) : x);
  return NULL;
}

/* Roll one dim: the last `s` elements move to the front. */
static tt_val_t roll_dim(tt_graph_t *g, tt_val_t x, int dim, int64_t size, int64_t shift) {
  if (size == 0) return x;
  int64_t s = ((shift % size) + size) % size;
  if (s == 0) return x;
  tt_val_t parts[2] = {tt_b_slice_dim(g, x, dim, size - s, size, 1), tt_b_slice_dim(g, x, dim, 0, size - s, 1)};
  return tt_b_concat(g, 2, parts, dim);
}

static tt_status_t lower_roll(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int64_t shifts[TT_MAX_RANK], dims[TT_MAX_RANK];
  int ns = tt_l_ints(L, 1, shifts, TT_MAX_RANK), nd = tt_l_ints(L, 2, dims, TT_MAX_RANK);
  if (tt_graph_failed(L->g)) return NULL;
  if (ns == 0) return tt_status_make(TT_INVALID_ARGUMENT, "`shifts` required");
  tt_val_t x = tt_l_tensor(L, 0);
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  if (nd == 0) { /* roll the flattened tensor, then restore the shape */
    if (ns != 1) return tt_status_make(TT_INVALID_ARGUMENT, "shifts and dimensions must align. shifts: %d, dims:0", ns);
    int64_t n = tt_type_numel(tt_graph_type(L->g, x));
    tt_val_t flat = roll_dim(L->g, tt_b_reshape(L->g, x, 1, &n), 0, n, shifts[0]);
    tt_l_output(L, tt_b_reshape(L->g, flat, rank, sz));
    return NULL;
  }
  if (ns != nd) return tt_status_make(TT_INVALID_ARGUMENT, "shifts and dimensions must align. shifts: %d, dims:%d", ns, nd);
  /* CPU returns an empty tensor's clone before it wraps any dim: roll(empty(0, 3), 1, 3) is empty(0, 3) */
  if (tt_type_numel(tt_graph_type(L->g, x)) == 0) {
    tt_l_output(L, x);
    return NULL;
  }
  if (rank == 0) /* CPU wraps each dim with wrap_scalar off: a 0-dim tensor has none to roll */
    return tt_status_make(TT_INDEX_ERROR, "Dimension specified as %lld but tensor has no dimensions", (long long)dims[0]);
  for (int i = 0; i < nd; i++) {
    int d = tt_op_wrap_dim(L, dims[i], rank);
    if (tt_graph_failed(L->g)) return NULL;
    x = roll_dim(L->g, x, d, rank ? sz[d] : 1, shifts[i]);
  }
  tt_l_output(L, x);
  return NULL;
}

/* repeat(self, repeats): broadcast into interleaved [r0, s0, r1, s1, ...], then merge pairs. */
static tt_status_t lower_repeat(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int64_t reps[TT_MAX_RANK];
  int nr = tt_l_ints(L, 1, reps, TT_MAX_RANK);
  if (tt_graph_failed(L->g)) return NULL;
  if (nr < rank)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  int64_t s[TT_MAX_RANK], out[TT_MAX_RANK];
  for (int i = 0; i < nr; i++) {
    s[i] = i < nr - rank ? 1 : sz[i - (nr - rank)];
    out[i] = s[i] * reps[i];
  }
  /* CPU's empty(sizes * repeats): a negative repeat of an empty dim is an empty dim */
  for (int i = 0; i < nr; i++) {
    if (out[i] < 0) {
      char t[192];
      tt_op_sizes_text(t, sizeof t, nr, out);
      return tt_status_make(TT_INVALID_ARGUMENT, "Trying to create tensor with negative dimension %lld: %s", (long long)out[i], t);
    }
    if (reps[i] < 0) reps[i] = 0;
  }
  tt_val_t x = tt_b_reshape(L->g, tt_l_tensor(L, 0), nr, s);
  if (2 * nr <= TT_MAX_RANK) {
    int64_t bd[2 * TT_MAX_RANK], map[TT_MAX_RANK];
    for (int i = 0; i < nr; i++) {
      bd[2 * i] = reps[i];
      bd[2 * i + 1] = s[i];
      map[i] = 2 * i + 1;
    }
    x = tt_b_broadcast(L->g, x, 2 * nr, bd, map);
    tt_l_output(L, tt_b_reshape(L->g, x, nr, out));
    return NULL;
  }
  for (int i = 0; i < nr; i++) { /* rare: rank > 4 */
    if (reps[i] == 1) continue;
    if (reps[i] == 0 || s[i] == 0) {
      int64_t cur[TT_MAX_RANK];
      memcpy(cur, tt_graph_type(L->g, x)->dims, sizeof(int64_t) * (size_t)nr);
      cur[i] = 0;
      x = tt_b_full_i(L->g, tt_l_arg_dtype(L, 0), nr, cur, 0);
      continue;
    }
    tt_val_t parts[64];
    if (reps[i] > 64) return tt_status_make(TT_NOT_IMPLEMENTED, "repeat: more than 64 repeats of a dim with rank > 4");
    for (int k = 0; k < reps[i]; k++) parts[k] = x;
    x = tt_b_concat(L->g, (int)reps[i], parts, i);
  }
  tt_l_output(L, x);
  return NULL;
}

/* Whether CPU's tril_/triu_ write self in place (checkTrilTriuBatchContiguous
 * with zero strides allowed): a rank <= 3 self, or batch dims laid out as a
 * contiguous stack of matrices (a leading one may be expanded); otherwise
 * it copies a contiguous result into self (its copy_ refuses an expanded
 * self). */
static int cpu_tri_in_place(const tt_tensor_ref_t *self) {
  if (!self) return 0;
  const tt_view_t *v = &self->view;
  if (v->rank <= 3) return 1;
  int64_t expect = v->sizes[v->rank - 1] * v->sizes[v->rank - 2];
  for (int i = v->rank - 3; i >= 0; i--) {
    if (i == 0 && (v->strides[i] == 0 || v->sizes[i] == 1)) continue;
    if (v->strides[i] != expect) return 0;
    expect *= v->sizes[i];
  }
  return 1;
}

/* tril/triu: keep elements by (col - row) against the diagonal on the last two dims. */
static tt_status_t tri(tt_lower_t *L, int lower) {
  int rank = tt_l_arg_rank(L, 0);
  if (rank < 2)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: input tensor must have at least 2 dimensions", lower ? "tril" : "triu");
  int64_t k = tt_l_int(L, 1, 0);
  tt_graph_t *g = L->g;
  tt_val_t x = tt_l_tensor(L, 0);
  int64_t bdims[TT_MAX_RANK];
  const tt_tensor_ref_t *self = tt_l_ref(L, 0);
  int nb = L->op[4] == '_' && cpu_tri_in_place(self) ? tt_op_expanded_dims(self, bdims) : 0;
  if (nb > 0 && !tt_graph_failed(g)) {
    /* An expanded self that CPU's kernel writes in place (fuzz 709:462:
     * tril_(-1) of a bool (3, 1) expanded from (1, 1) is False): it zeroes
     * each element outside the triangle through its alias, so an element is
     * zeroed where some alias of it is outside. */
    const int64_t *dims = self->view.sizes;
    tt_val_t zero = tt_b_unary(g, TT_UN_NOT, tt_la_tri(g, tt_b_full_i(g, TT_BOOL, rank, dims, 1), lower, k));
    zero = tt_op_alias_reduce(L, TT_RED_OR, zero, rank, dims, nb, bdims);
    tt_l_output(L, tt_b_select(g, zero, tt_b_like_f(g, x, 0.0), x));
    return NULL;
  }
  tt_l_output(L, tt_la_tri(g, x, lower, k));
  return NULL;
}
static tt_status_t lower_tril(tt_lower_t *L) { return tri(L, 1); }
static tt_status_t lower_triu(tt_lower_t *L) { return tri(L, 0); }

/* stack(tensors, dim): each input gains a size-1 dim, then cat. */
static tt_status_t lower_stack(tt_lower_t *L) {
  const tt_arg_t *a = &L->args[0];
  if (a->kind != TT_ARG_TENSORS || a->n == 0) return tt_status_make(TT_INVALID_ARGUMENT, "stack expects a non-empty TensorList");
  const tt_tensor_ref_t *f = &a->t[0];
  int rank = f->view.rank;
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 1, 0), rank + 1);
  if (tt_graph_failed(L->g)) return NULL;
  tt_dtype_t dt = f->dtype;
  for (int j = 0; j < a->n; j++) {
    const tt_tensor_ref_t *r = &a->t[j];
    dt = tt_dtype_promote(dt, r->dtype);
    if (r->view.rank != rank || memcmp(r->view.sizes, f->view.sizes, sizeof(int64_t) * (size_t)rank)) {
      char sa[192], sb[192]; /* c10's sizes, without the dtype */
      tt_op_sizes_text(sa, sizeof sa, rank, f->view.sizes);
      tt_op_sizes_text(sb, sizeof sb, r->view.rank, r->view.sizes);
      return tt_status_make(TT_INVALID_ARGUMENT, "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d", sa, sb, j);
    }
  }
  if (a->n > 256) return tt_status_make(TT_NOT_IMPLEMENTED, "stack: more than 256 tensors in one call");
  int64_t ud[TT_MAX_RANK];
  for (int d = 0, s = 0; d <= rank; d++) ud[d] = d == dim ? 1 : f->view.sizes[s++];
  tt_val_t xs[256];
  for (int j = 0; j < a->n; j++) xs[j] = tt_b_reshape(L->g, tt_b_convert(L->g, tt_l_tensor_elem(L, 0, j), dt), rank + 1, ud);
  tt_l_output(L, a->n == 1 ? xs[0] : tt_b_concat(L->g, a->n, xs, dim));
  return NULL;
}

/* unfold_backward(grad_in, input_sizes, dim, size, step): grad_in summed
 * into a zero input through the unfold view (windows may overlap). */
static tt_status_t lower_unfold_backward(tt_lower_t *L) {
  tt_val_t grad = tt_l_tensor(L, 0);
  tt_view_t v;
  memset(&v, 0, sizeof v);
  v.rank = tt_l_ints(L, 1, v.sizes, TT_MAX_RANK - 1);
  if (v.rank < 0 || tt_graph_failed(L->g)) return NULL;
  int64_t in_numel = 1;
  for (int i = v.rank - 1; i >= 0; i--) {
    v.strides[i] = in_numel;
    in_numel *= v.sizes[i];
  }
  int dim = v.rank == 0 ? 0 : tt_op_wrap_dim(L, tt_l_int(L, 2, 0), v.rank);
  int64_t size = tt_l_int(L, 3, 1), step = tt_l_int(L, 4, 1);
  int64_t in_sizes[TT_MAX_RANK];
  memcpy(in_sizes, v.sizes, sizeof in_sizes);
  int in_rank = v.rank;
  if (tt_graph_failed(L->g)) return NULL;
  if (step <= 0) return tt_status_make(TT_INVALID_ARGUMENT, "unfold_backward: step is %lld but must be > 0", (long long)step);
  int64_t dim_size = v.rank == 0 ? 1 : v.sizes[dim], dim_stride = v.rank == 0 ? 1 : v.strides[dim];
  if (v.rank > 0) {
    v.sizes[dim] = dim_size >= size ? (dim_size - size) / step + 1 : 0;
    v.strides[dim] = dim_stride * step;
  }
  v.sizes[v.rank] = size;
  v.strides[v.rank] = dim_stride;
  v.rank++;
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  tt_val_t zero = tt_b_full_i(L->g, dt, 1, &in_numel, 0);
  tt_val_t flat = tt_view_accumulate(L->g, zero, &v, grad);
  tt_l_output(L, tt_b_reshape(L->g, flat, in_rank, in_sizes));
  return NULL;
}


/* ---- select/slice/diagonal/as_strided_scatter ------------------------- */
/* PyTorch's composite kernels for these clone self by its storage size, which
 * a tpu tensor's host-side storage does not carry (nbytes 0), so they are
 * lowered here: a view of the flattened copy takes src, as copy_ would. */

static void describe_dims(char *buf, size_t n, int rank, const int64_t *d) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < rank && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)d[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* Contiguous view of a tensor shaped like argument 0. */
static void contiguous_view(tt_lower_t *L, tt_view_t *v) {
  int rank = tt_l_arg_rank(L, 0);
  const int64_t *sz = tt_l_arg_sizes(L, 0);
  memset(v, 0, sizeof *v);
  v->rank = rank;
  int64_t acc = 1;
  for (int i = rank - 1; i >= 0; i--) {
    v->sizes[i] = sz[i];
    v->strides[i] = acc;
    acc *= sz[i] > 1 ? sz[i] : 1;
  }
}

/* src (argument 1) written through `dst` into `base` (flat), then the result
 * read back through `out`. src must have dst's shape; its dtype converts. */
static tt_status_t write_view_of_copy(tt_lower_t *L, const char *name, tt_val_t base, const tt_view_t *dst,
                                      const tt_view_t *out) {
  int srank = tt_l_arg_rank(L, 1);
  const int64_t *ss = tt_l_arg_sizes(L, 1);
  if (tt_graph_failed(L->g)) return NULL;
  if (srank != dst->rank || memcmp(ss, dst->sizes, sizeof(int64_t) * (size_t)srank)) {
    char a[160], b[160];
    describe_dims(a, sizeof a, srank, ss);
    describe_dims(b, sizeof b, dst->rank, dst->sizes);
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: expected src to have a size equal to the slice of self. src size = %s, slice size = %s",
                          name, a, b);
  }
  tt_dtype_t dt = tt_l_arg_dtype(L, 0);
  tt_val_t src = tt_b_convert(L->g, tt_l_tensor(L, 1), dt);
  tt_val_t nb = tt_view_write(L->g, base, dst, src);
  tt_l_output(L, tt_view_read(L->g, nb, out));
  return NULL;
}

/* self flattened (logical order) with its contiguous view. */
static tt_val_t flat_self(tt_lower_t *L, tt_view_t *v) {
  contiguous_view(L, v);
  int64_t n = tt_view_numel(v);
  return tt_b_reshape(L->g, tt_l_tensor(L, 0), 1, &n);
}

/* select_scatter(self, src, dim, index) */
static tt_status_t lower_select_scatter(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  if (rank == 0) return tt_status_make(TT_INDEX_ERROR, "select() cannot be applied to a 0-dim tensor.");
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 2, 0), rank);
  int64_t index = tt_l_int(L, 3, 0);
  if (tt_graph_failed(L->g)) return NULL;
  tt_view_t self, dst;
  tt_val_t base = flat_self(L, &self);
  int64_t size = self.sizes[dim];
  if (index < -size || index >= size) {
    char a[160];
    describe_dims(a, sizeof a, rank, self.sizes);
    return tt_status_make(TT_INDEX_ERROR, "select(): index %lld out of range for tensor of size %s at dimension %d",
                          (long long)index, a, dim);
  }
  if (index < 0) index += size;
  dst.rank = 0;
  dst.offset = index * self.strides[dim];
  for (int i = 0; i < rank; i++) {
    if (i == dim) continue;
    dst.sizes[dst.rank] = self.sizes[i];
    dst.strides[dst.rank++] = self.strides[i];
  }
  return write_view_of_copy(L, "select_scatter", base, &dst, &self);
}

/* slice_scatter(self, src, dim=0, start=None, end=None, step=1) */
static tt_status_t lower_slice_scatter(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  if (rank == 0) return tt_status_make(TT_INDEX_ERROR, "slice() cannot be applied to a 0-dim tensor.");
  int dim = tt_op_wrap_dim(L, tt_l_int(L, 2, 0), rank);
  tt_view_t self, dst;
  tt_val_t base = flat_self(L, &self);
  int64_t size = self.sizes[dim];
  int64_t start = tt_l_int(L, 3, 0), end = tt_l_int(L, 4, INT64_MAX), step = tt_l_int(L, 5, 1);
  if (tt_graph_failed(L->g)) return NULL;
  if (step <= 0) return tt_status_make(TT_INVALID_ARGUMENT, "slice step must be positive");
  if (start < 0) start += size;
  if (end < 0) end += size;
  if (start < 0) start = 0;
  if (start > size) start = size;
  if (end < start) end = start;
  if (end > size) end = size;
  dst = self;
  dst.sizes[dim] = (end - start + step - 1) / step;
  dst.strides[dim] = self.strides[dim] * step;
  dst.offset = start * self.strides[dim];
  return write_view_of_copy(L, "slice_scatter", base, &dst, &self);
}

/* diagonal_scatter(self, src, offset=0, dim1=0, dim2=1) */
static tt_status_t lower_diagonal_scatter(tt_lower_t *L) {
  int rank = tt_l_arg_rank(L, 0);
  int64_t off = tt_l_int(L, 2, 0);
  int d1 = tt_op_wrap_dim(L, tt_l_int(L, 3, 0), rank), d2 = tt_op_wrap_dim(L, tt_l_int(L, 4, 1), rank);
  if (tt_graph_failed(L->g)) return NULL;
  if (d1 == d2) return tt_status_make(TT_INVALID_ARGUMENT, "diagonal dimensions cannot be identical %d, %d", d1, d2);
  tt_view_t self, dst;
  tt_val_t base = flat_self(L, &self);
  int64_t s1 = self.sizes[d1], s2 = self.sizes[d2], len;
  if (off >= 0) len = s2 - off < s1 ? s2 - off : s1;
  else len = s1 + off < s2 ? s1 + off : s2;
  if (len < 0) len = 0;
  dst.rank = 0;
  dst.offset = len == 0 ? 0 : off >= 0 ? off * self.strides[d2] : -off * self.strides[d1];
  for (int i = 0; i < rank; i++) {
    if (i == d1 || i == d2) continue;
    dst.sizes[dst.rank] = self.sizes[i];
    dst.strides[dst.rank++] = self.strides[i];
  }
  dst.sizes[dst.rank] = len;
  dst.strides[dst.rank++] = self.strides[d1] + self.strides[d2];
  return write_view_of_copy(L, "diagonal_scatter", base, &dst, &self);
}

/* PyTorch's has_internal_overlap() == Yes: a stride-0 dim of size > 1 (the
 * only case it is sure of; harder ones it lets through). */
static int surely_overlaps(const tt_view_t *v) {
  for (int i = 0; i < v->rank; i++)
    if (v->sizes[i] > 1 && v->strides[i] == 0) return 1;
  return 0;
}

/* as_strided_scatter(self, src, size, stride, storage_offset=None): size and
 * stride index self's storage, as in PyTorch (whose clone keeps self's
 * strides), unless self overlaps itself (then a contiguous clone). */
static tt_status_t lower_as_strided_scatter(tt_lower_t *L) {
  const tt_tensor_ref_t *r = tt_l_ref(L, 0);
  if (tt_graph_failed(L->g)) return NULL;
  tt_view_t dst, self;
  memset(&dst, 0, sizeof dst);
  int ns = tt_l_ints(L, 2, dst.sizes, TT_MAX_RANK), nt = tt_l_ints(L, 3, dst.strides, TT_MAX_RANK);
  if (tt_graph_failed(L->g)) return NULL;
  if (ns != nt) return tt_status_make(TT_INVALID_ARGUMENT, "mismatch in length of strides and shape");
  dst.rank = ns;
  tt_val_t base;
  int64_t numel;
  if (!r->storage || r->is_host_scalar || r->dtype != tt_l_storage_dtype(L, r->storage) || surely_overlaps(&r->view)) {
    base = flat_self(L, &self);
    numel = tt_view_numel(&self);
    dst.offset = tt_l_int(L, 4, 0);
  } else {
    self = r->view;
    numel = tt_l_storage_numel(L, r->storage);
    base = tt_l_storage_base(L, r->storage);
    dst.offset = tt_l_int(L, 4, r->view.offset);
  }
  if (tt_graph_failed(L->g)) return NULL;
  int64_t need = 0;
  for (int i = 0; i < ns; i++) {
    if (dst.sizes[i] < 0) return tt_status_make(TT_INVALID_ARGUMENT, "as_strided_scatter: negative size %lld", (long long)dst.sizes[i]);
    if (dst.strides[i] < 0) return tt_status_make(TT_INVALID_ARGUMENT, "as_strided: Negative strides are not supported at the moment, got strides: %lld", (long long)dst.strides[i]);
  }
  if (dst.offset < 0) return tt_status_make(TT_INVALID_ARGUMENT, "Tensor: invalid storage offset %lld", (long long)dst.offset);
  if (tt_view_numel(&dst) > 0) {
    need = dst.offset + 1;
    for (int i = 0; i < ns; i++) need += (dst.sizes[i] - 1) * dst.strides[i];
  }
  if (need > numel) {
    char a[160], b[160];
    describe_dims(a, sizeof a, ns, dst.sizes);
    describe_dims(b, sizeof b, ns, dst.strides);
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "setStorage: sizes %s, strides %s, storage offset %lld requiring a storage size of %lld elements are out of bounds for storage of size %lld elements",
                          a, b, (long long)dst.offset, (long long)need, (long long)numel);
  }
  if (surely_overlaps(&dst)) /* copy_ into such a view is refused on CPU too */
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.");
  return write_view_of_copy(L, "as_strided_scatter", base, &dst, &self);
}

const tt_op_def_t tt_ops_shape[] = {
    {"select_scatter", lower_select_scatter, TT_OPF_COMPLEX},
    {"slice_scatter", lower_slice_scatter, TT_OPF_COMPLEX},
    {"diagonal_scatter", lower_diagonal_scatter, TT_OPF_COMPLEX},
    {"as_strided_scatter", lower_as_strided_scatter, TT_OPF_COMPLEX},
    {"unfold_backward", lower_unfold_backward, 0},
    {"cat", lower_cat, TT_OPF_COMPLEX},
    {"stack", lower_stack, TT_OPF_COMPLEX},
    {"constant_pad_nd", lower_constant_pad_nd, TT_OPF_COMPLEX, .layout = TT_LAYOUT_MEMORY_FORMAT},
    {"flip", lower_flip, TT_OPF_COMPLEX},
    {"roll", lower_roll, TT_OPF_COMPLEX},
    {"repeat", lower_repeat, TT_OPF_COMPLEX},
    {"tril", lower_tril, TT_OPF_COMPLEX},
    {"triu", lower_triu, TT_OPF_COMPLEX},
    {"tril_", lower_tril, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {"triu_", lower_triu, TT_OPF_INPLACE | TT_OPF_COMPLEX},
    {NULL, NULL, 0},
};
