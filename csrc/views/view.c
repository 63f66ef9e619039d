/* View decomposition (reads) and inversion (writes) over a flat base. */
#include "views/view.h"

#include <stdio.h>
#include <string.h>

#include "base/nbytes.h"
#include "ir/builder.h"

int64_t tt_view_numel(const tt_view_t *v) {
  int64_t n = 1;
  for (int i = 0; i < v->rank; i++) n *= v->sizes[i];
  return n;
}

int tt_view_is_whole(const tt_view_t *v, int64_t base_numel) {
  if (v->offset != 0 || tt_view_numel(v) != base_numel) return 0;
  int64_t expect = 1;
  for (int i = v->rank - 1; i >= 0; i--) {
    if (v->sizes[i] != 1 && v->strides[i] != expect) return 0;
    expect *= v->sizes[i];
  }
  return 1;
}

/* Base elements spanned from the view's first element to its last. */
static int64_t view_extent(const tt_view_t *v) {
  int64_t e = 1;
  for (int i = 0; i < v->rank; i++) e += (v->sizes[i] - 1) * v->strides[i];
  return e;
}

int tt_view_offset_may_vary(const tt_view_t *v, int64_t base_numel) {
  return tt_view_numel(v) > 0 && !tt_view_is_whole(v, base_numel) && view_extent(v) < base_numel;
}

/* The non-trivial dims of a view sorted by decreasing stride. */
typedef struct {
  int n;
  int dim[TT_MAX_RANK]; /* original dim index */
  int64_t size[TT_MAX_RANK], stride[TT_MAX_RANK];
} sorted_t;

static void sort_dims(const tt_view_t *v, sorted_t *s) {
  s->n = 0;
  for (int i = 0; i < v->rank; i++) {
    if (v->sizes[i] == 1 || v->strides[i] == 0) continue;
    int k = s->n++;
    while (k > 0 && s->stride[k - 1] < v->strides[i]) {
      s->dim[k] = s->dim[k - 1];
      s->size[k] = s->size[k - 1];
      s->stride[k] = s->stride[k - 1];
      k--;
    }
    s->dim[k] = i;
    s->size[k] = v->sizes[i];
    s->stride[k] = v->strides[i];
  }
}

int tt_view_has_internal_overlap(const tt_view_t *v) {
  if (tt_view_numel(v) == 0) return 0;
  for (int i = 0; i < v->rank; i++)
    if (v->sizes[i] > 1 && v->strides[i] == 0) return 1;
  sorted_t s;
  sort_dims(v, &s);
  /* Sufficient for non-overlap: each stride covers the extent of the inner dims. */
  int64_t extent = 1;
  for (int k = s.n - 1; k >= 0; k--) {
    if (s.stride[k] < extent) return 1;
    extent = s.stride[k] * (s.size[k] - 1) + extent;
  }
  return 0;
}

int tt_view_is_dense(const tt_view_t *v) {
  /* Dims of size >= 2 by increasing stride must have strides 1, s0, s0*s1, ... */
  int n = 0, dim[TT_MAX_RANK];
  for (int i = 0; i < v->rank; i++) {
    if (v->sizes[i] == 0) return 1;
    if (v->sizes[i] < 2) continue;
    int k = n++;
    while (k > 0 && v->strides[dim[k - 1]] > v->strides[i]) {
      dim[k] = dim[k - 1];
      k--;
    }
    dim[k] = i;
  }
  int64_t expect = 1;
  for (int k = 0; k < n; k++) {
    if (v->strides[dim[k]] != expect) return 0;
    expect *= v->sizes[dim[k]];
  }
  return 1;
}

tt_overlap_t tt_view_overlap(const tt_view_t *a, size_t a_itemsize, const tt_view_t *b, size_t b_itemsize) {
  int64_t na = tt_view_numel(a), nb = tt_view_numel(b);
  if (na == 0 || nb == 0) return TT_OVERLAP_NO;
  if (!tt_view_is_dense(a) || !tt_view_is_dense(b)) return TT_OVERLAP_TOO_HARD;
  int64_t a0 = a->offset * (int64_t)a_itemsize, a1 = a0 + na * (int64_t)a_itemsize;
  int64_t b0 = b->offset * (int64_t)b_itemsize, b1 = b0 + nb * (int64_t)b_itemsize;
  if (a0 == b0 && a1 == b1) {
    int same = a->rank == b->rank && a_itemsize == b_itemsize;
    for (int i = 0; same && i < a->rank; i++) same = a->strides[i] == b->strides[i];
    return same ? TT_OVERLAP_FULL : TT_OVERLAP_PARTIAL;
  }
  return a0 < b1 && b0 < a1 ? TT_OVERLAP_PARTIAL : TT_OVERLAP_NO;
}

tt_val_t tt_view_drop_broadcast(tt_graph_t *g, tt_val_t value, const tt_view_t *v, tt_view_t *out_view) {
  *out_view = *v;
  for (int i = 0; i < v->rank && value >= 0; i++) {
    if (v->strides[i] != 0 || v->sizes[i] <= 1) continue;
    value = tt_b_slice_dim(g, value, i, 0, 1, 1);
    out_view->sizes[i] = 1;
  }
  return value;
}

/* A "block" view: strides divide each other, so the elements are a
 * rectangular sub-block of the base reshaped to [s0, D1, ..., Dm, step]. */
static int is_block(const sorted_t *s) {
  if (s->n == 0) return 1;
  for (int k = 0; k + 1 < s->n; k++) {
    if (s->stride[k] < 0 || s->stride[k] % s->stride[k + 1]) return 0;
    if (s->stride[k] / s->stride[k + 1] < s->size[k + 1]) return 0;
  }
  return s->stride[s->n - 1] > 0;
}

/* Block shape: [s0, D1, ..., Dm, step] and its total length. */
static int block_shape(const sorted_t *s, int64_t *dims) {
  int r = 0;
  dims[r++] = s->size[0];
  for (int k = 1; k < s->n; k++) dims[r++] = s->stride[k - 1] / s->stride[k];
  dims[r++] = s->stride[s->n - 1];
  return r;
}

static int64_t block_len(const int64_t *dims, int r) {
  int64_t n = 1;
  for (int i = 0; i < r; i++) n *= dims[i];
  return n;
}

/* Zeros appended to a base of n elements so that a block of len elements
 * starting at the view's offset fits. With a runtime offset the amount must
 * not depend on it: a valid view ends by n, so len - extent always suffices
 * (whether to pad at all still depends on the offset: at most two programs). */
static int64_t block_pad(const tt_view_t *v, int64_t n, int64_t len, tt_val_t off) {
  if (v->offset + len <= n) return 0;
  return off >= 0 ? len - view_extent(v) : v->offset + len - n;
}

static tt_val_t pad_end(tt_graph_t *g, tt_val_t base, int64_t hi) {
  int64_t lo = 0, in = 0;
  return tt_b_pad(g, base, tt_b_const_i(g, tt_graph_type(g, base)->dtype, 0), &lo, &hi, &in);
}

/* base[offset : offset+len] of a rank-1 base; off: the offset as a rank-0
 * i64 runtime value, or -1 to bake v->offset into the program. */
static tt_val_t take(tt_graph_t *g, tt_val_t base, const tt_view_t *v, int64_t len, tt_val_t off) {
  if (off < 0) return tt_b_slice_dim(g, base, 0, v->offset, v->offset + len, 1);
  return tt_b_dslice(g, base, &off, &len);
}

/* base[offset : offset+len], padding past the end with zeros. */
static tt_val_t region(tt_graph_t *g, tt_val_t base, const tt_view_t *v, int64_t len, tt_val_t off) {
  int64_t pad = block_pad(v, tt_graph_type(g, base)->dims[0], len, off);
  if (pad > 0) base = pad_end(g, base, pad);
  return take(g, base, v, len, off);
}

/* A block at a baked offset without padding: when the base of n elements
 * divides into rows of the block's inner length (bd[1] * ... * bd[r-1]),
 * the base reshaped to dims = [n / inner, D1, ..., Dm, step] holds the view
 * as a static box starting at the offset's mixed-radix digits (start),
 * provided no digit plus the view's extent there crosses its dimension.
 * (qkv.unbind(0) in an attention block: k and v start inside a row, and a
 * flat region of the block's length from their offset would run past the
 * end of the base, which costs a padded copy of it.) Returns 0 when the
 * view is not such a box. */
static int digit_box(int64_t n, const tt_view_t *v, const sorted_t *s, const int64_t *bd, int r, int64_t *dims,
                     int64_t *start, int64_t *lim) {
  int64_t inner = 1;
  for (int k = 1; k < r; k++) inner *= bd[k];
  if (inner <= 0 || n % inner) return 0;
  dims[0] = n / inner;
  for (int k = 1; k < r; k++) dims[k] = bd[k];
  int64_t rest = v->offset, place = n;
  for (int k = 0; k < r; k++) {
    place /= dims[k];
    start[k] = rest / place;
    rest %= place;
    lim[k] = start[k] + (k < s->n ? s->size[k] : 1);
    if (lim[k] > dims[k]) return 0;
  }
  return 1;
}

static tt_val_t digit_slice(tt_graph_t *g, tt_val_t base, const tt_view_t *v, const sorted_t *s, const int64_t *bd,
                            int r) {
  int64_t dims[TT_MAX_RANK + 1], start[TT_MAX_RANK + 1], lim[TT_MAX_RANK + 1], one[TT_MAX_RANK + 1];
  if (!digit_box(tt_graph_type(g, base)->dims[0], v, s, bd, r, dims, start, lim)) return -1;
  for (int k = 0; k < r; k++) one[k] = 1;
  return tt_b_slice(g, tt_b_reshape(g, base, r, dims), start, lim, one);
}

static tt_val_t flat_indices(tt_graph_t *g, const tt_view_t *v, tt_val_t off) {
  tt_val_t idx = off >= 0 ? tt_b_broadcast(g, off, v->rank, v->sizes, NULL)
                          : tt_b_full_i(g, TT_I64, v->rank, v->sizes, v->offset);
  for (int i = 0; i < v->rank; i++) {
    if (v->sizes[i] == 1 || v->strides[i] == 0) continue;
    tt_val_t io = tt_b_iota(g, TT_I64, v->rank, v->sizes, i);
    tt_val_t st = tt_b_full_i(g, TT_I64, v->rank, v->sizes, v->strides[i]);
    idx = tt_b_binary(g, TT_BIN_ADD, idx, tt_b_binary(g, TT_BIN_MUL, io, st));
  }
  int64_t shape[2] = {tt_view_numel(v), 1};
  return tt_b_reshape(g, idx, 2, shape);
}

static tt_val_t gather_read(tt_graph_t *g, tt_val_t base, const tt_view_t *v, tt_val_t off) {
  tt_gather_dims_t d;
  memset(&d, 0, sizeof d);
  d.n_collapsed = 1;
  d.collapsed[0] = 0;
  d.n_start_map = 1;
  d.start_index_map[0] = 0;
  d.slice_sizes[0] = 1;
  tt_val_t flat = tt_b_gather(g, base, flat_indices(g, v, off), &d);
  return tt_b_reshape(g, flat, v->rank, v->sizes);
}

tt_val_t tt_view_read(tt_graph_t *g, tt_val_t base, const tt_view_t *v) { return tt_view_read_at(g, base, v, -1); }

tt_val_t tt_view_read_at(tt_graph_t *g, tt_val_t base, const tt_view_t *v, tt_val_t off) {
  if (base < 0) return -1;
  tt_dtype_t dt = tt_graph_type(g, base)->dtype;
  if (tt_view_numel(v) == 0) return tt_b_full_i(g, dt, v->rank, v->sizes, 0);
  if (tt_view_is_whole(v, tt_graph_type(g, base)->dims[0])) return tt_b_reshape(g, base, v->rank, v->sizes);
  sorted_t s;
  sort_dims(v, &s);
  if (!is_block(&s)) return gather_read(g, base, v, off);
  tt_val_t x;
  if (s.n == 0) {
    x = take(g, base, v, 1, off);
    x = tt_b_reshape(g, x, 0, NULL);
  } else {
    int64_t bd[TT_MAX_RANK + 1];
    int r = block_shape(&s, bd);
    x = off < 0 && v->offset + block_len(bd, r) > tt_graph_type(g, base)->dims[0] ? digit_slice(g, base, v, &s, bd, r)
                                                                                   : -1;
    if (x < 0) {
      x = region(g, base, v, block_len(bd, r), off);
      x = tt_b_reshape(g, x, r, bd);
      int64_t lim[TT_MAX_RANK + 1];
      for (int k = 0; k < s.n; k++) lim[k] = s.size[k];
      lim[s.n] = 1;
      int64_t zero[TT_MAX_RANK + 1] = {0}, one[TT_MAX_RANK + 1];
      for (int k = 0; k < r; k++) one[k] = 1;
      x = tt_b_slice(g, x, zero, lim, one);
    }
    x = tt_b_reshape(g, x, s.n, s.size);
    /* Sorted order -> original order of the non-trivial dims. */
    int64_t perm[TT_MAX_RANK];
    int order[TT_MAX_RANK], m = 0;
    for (int i = 0; i < v->rank; i++)
      for (int k = 0; k < s.n; k++)
        if (s.dim[k] == i) order[m++] = k;
    for (int i = 0; i < m; i++) perm[i] = order[i];
    x = tt_b_transpose(g, x, perm);
  }
  /* Re-insert size-1 dims and broadcast stride-0 dims. */
  int64_t bdims[TT_MAX_RANK];
  int m = 0;
  for (int i = 0; i < v->rank; i++)
    if (!(v->sizes[i] == 1 || v->strides[i] == 0)) bdims[m++] = i;
  return tt_b_broadcast(g, x, v->rank, v->sizes, bdims);
}

tt_val_t tt_view_write(tt_graph_t *g, tt_val_t base, const tt_view_t *v, tt_val_t value) {
  return tt_view_write_at(g, base, v, value, -1);
}

tt_val_t tt_view_write_at(tt_graph_t *g, tt_val_t base, const tt_view_t *v, tt_val_t value, tt_val_t off) {
  if (base < 0 || value < 0) return -1;
  int64_t n = tt_graph_type(g, base)->dims[0];
  int64_t numel = tt_view_numel(v);
  if (numel == 0) return base;
  int64_t flat_shape[1] = {n};
  if (tt_view_is_whole(v, n)) return tt_b_reshape(g, value, 1, flat_shape);
  sorted_t s;
  sort_dims(v, &s);
  if (!is_block(&s)) {
    tt_scatter_dims_t d;
    memset(&d, 0, sizeof d);
    d.n_inserted = 1;
    d.inserted_window_dims[0] = 0;
    d.n_to_operand = 1;
    d.scatter_to_operand[0] = 0;
    int64_t un[1] = {numel};
    return tt_b_scatter(g, TT_RED_SET, base, flat_indices(g, v, off), tt_b_reshape(g, value, 1, un), &d);
  }
  /* Value in sorted order with a trailing unit dim, as laid out in the block. */
  tt_val_t x = value;
  int64_t bd[TT_MAX_RANK + 1];
  int r;
  if (s.n == 0) {
    bd[0] = 1;
    r = 1;
    x = tt_b_reshape(g, x, 1, bd);
  } else {
    int64_t squeezed[TT_MAX_RANK], perm[TT_MAX_RANK];
    int m = 0, order[TT_MAX_RANK];
    for (int i = 0; i < v->rank; i++)
      if (!(v->sizes[i] == 1 || v->strides[i] == 0)) squeezed[m++] = v->sizes[i];
    x = tt_b_reshape(g, x, m, squeezed);
    /* perm[k] = position among the non-trivial dims of sorted dim k. */
    for (int k = 0; k < s.n; k++) {
      int pos = 0;
      for (int i = 0; i < s.dim[k]; i++)
        if (!(v->sizes[i] == 1 || v->strides[i] == 0)) pos++;
      order[k] = pos;
    }
    for (int k = 0; k < s.n; k++) perm[k] = order[k];
    x = tt_b_transpose(g, x, perm);
    int64_t withunit[TT_MAX_RANK + 1];
    for (int k = 0; k < s.n; k++) withunit[k] = s.size[k];
    withunit[s.n] = 1;
    x = tt_b_reshape(g, x, s.n + 1, withunit);
    r = block_shape(&s, bd);
  }
  int64_t len = block_len(bd, r);
  int64_t dims[TT_MAX_RANK + 1], start[TT_MAX_RANK + 1], lim[TT_MAX_RANK + 1];
  if (off < 0 && v->offset + len > n && digit_box(n, v, &s, bd, r, dims, start, lim))
    return tt_b_reshape(g, tt_b_dus(g, tt_b_reshape(g, base, r, dims), x, start), 1, flat_shape);
  int64_t pad = block_pad(v, n, len, off);
  tt_val_t b = pad > 0 ? pad_end(g, base, pad) : base;
  tt_val_t blk = take(g, b, v, len, off);
  blk = tt_b_reshape(g, blk, r, bd);
  int64_t zeros[TT_MAX_RANK + 1] = {0};
  blk = tt_b_dus(g, blk, x, zeros);
  int64_t ln[1] = {len}, at[1] = {v->offset};
  blk = tt_b_reshape(g, blk, 1, ln);
  b = off >= 0 ? tt_b_dus_v(g, b, blk, &off) : tt_b_dus(g, b, blk, at);
  if (pad > 0) b = tt_b_slice_dim(g, b, 0, 0, n, 1);
  return b;
}

tt_val_t tt_view_accumulate(tt_graph_t *g, tt_val_t base, const tt_view_t *v, tt_val_t value) {
  if (base < 0 || value < 0) return -1;
  int64_t numel = tt_view_numel(v);
  if (numel == 0) return base;
  if (!tt_view_has_internal_overlap(v))
    return tt_view_write(g, base, v, tt_b_binary(g, TT_BIN_ADD, tt_view_read(g, base, v), value));
  tt_scatter_dims_t d;
  memset(&d, 0, sizeof d);
  d.n_inserted = 1;
  d.inserted_window_dims[0] = 0;
  d.n_to_operand = 1;
  d.scatter_to_operand[0] = 0;
  int64_t un[1] = {numel};
  return tt_b_scatter(g, TT_RED_SUM, base, flat_indices(g, v, -1), tt_b_reshape(g, value, 1, un), &d);
}

static void dims_text(char *buf, size_t n, const int64_t *d, int rank) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < rank && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)d[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

tt_status_t tt_view_check_bounds(const tt_view_t *v, size_t itemsize, int64_t storage_bytes) {
  int64_t need; /* computeStorageNbytes: 0 for an empty view */
  TT_RETURN_IF_ERROR(tt_nbytes_strided(v->sizes, v->strides, v->rank, 0, itemsize, &need));
  if (need == 0 || need + v->offset * (int64_t)itemsize <= storage_bytes) return TT_OK_STATUS;
  char sz[256], st[256];
  dims_text(sz, sizeof sz, v->sizes, v->rank);
  dims_text(st, sizeof st, v->strides, v->rank);
  return tt_status_make(TT_INVALID_ARGUMENT,
                        "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %zu requiring a "
                        "storage size of %lld are out of bounds for storage of size %lld",
                        sz, st, (long long)v->offset, itemsize, (long long)(need + v->offset * (int64_t)itemsize),
                        (long long)storage_bytes);
}
