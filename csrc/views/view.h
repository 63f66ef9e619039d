/* Views over a flat base buffer: a strided view (sizes, strides, offset) is
 * read by decomposing it into slice/reshape/transpose/broadcast steps (or a
 * gather when no such steps exist), and written by inverting those steps
 * into the base, so every alias of the base sees the write. */
#ifndef TT_VIEWS_VIEW_H
#define TT_VIEWS_VIEW_H

#include <stdint.h>

#include "ir/graph.h"

typedef struct tt_view_s {
  int rank;
  int64_t sizes[TT_MAX_RANK];
  int64_t strides[TT_MAX_RANK];
  int64_t offset;
} tt_view_t;

int64_t tt_view_numel(const tt_view_t *v);
/* True when the view is the whole base in row-major order. */
int tt_view_is_whole(const tt_view_t *v, int64_t base_numel);
/* True when two elements of the view share a base element (a write would be
 * ambiguous, as with an expanded tensor). */
int tt_view_has_internal_overlap(const tt_view_t *v);

/* PyTorch's is_non_overlapping_and_dense: the elements are exactly a
 * contiguous range of the base, in some dim order. */
int tt_view_is_dense(const tt_view_t *v);

/* How two views of one storage overlap, as PyTorch's get_overlap_status sees
 * it (byte ranges, so views of different dtypes compare): an in-place op
 * whose input PARTIALly overlaps its output is refused on CPU. */
typedef enum { TT_OVERLAP_NO, TT_OVERLAP_FULL, TT_OVERLAP_PARTIAL, TT_OVERLAP_TOO_HARD } tt_overlap_t;
tt_overlap_t tt_view_overlap(const tt_view_t *a, size_t a_itemsize, const tt_view_t *b, size_t b_itemsize);

/* A view without its broadcast (stride-0) dims: each becomes size 1, and
 * value (shaped like v) is sliced to match. For writes of one value
 * everywhere (fill_), where every alias of an element gets the same value. */
tt_val_t tt_view_drop_broadcast(tt_graph_t *g, tt_val_t value, const tt_view_t *v, tt_view_t *out_view);

/* The flat base of dtype `to` holding the same bytes as flat (a rank-1
 * value): Tensor.view(dtype). Zero-padded or truncated to to_numel
 * elements; bool is read as bytes != 0 and written as 0/1. */
tt_val_t tt_view_bitcast_flat(tt_graph_t *g, tt_val_t flat, tt_dtype_t to, int64_t to_numel);
/* Elements of `to` covering numel elements of `from` (rounded up). */
int64_t tt_view_bitcast_numel(tt_dtype_t from, int64_t numel, tt_dtype_t to);

/* PyTorch's setStorage bounds rule: the bytes the view reaches must lie in a
 * storage of storage_bytes; otherwise its RuntimeError text. */
tt_status_t tt_view_check_bounds(const tt_view_t *v, size_t itemsize, int64_t storage_bytes);

/* base: a rank-1 value of base_numel elements. Returns a value shaped like the view. */
tt_val_t tt_view_read(tt_graph_t *g, tt_val_t base, const tt_view_t *v);
/* value: shaped like the view, in the base's dtype. Returns the new base. */
tt_val_t tt_view_write(tt_graph_t *g, tt_val_t base, const tt_view_t *v, tt_val_t value);

/* True when other views of this shape and strides fit elsewhere in the base
 * (x[i], x[i:j], x[:, j], ...), so that the offset is worth passing to the
 * program at run time: one program then serves every i. */
int tt_view_offset_may_vary(const tt_view_t *v, int64_t base_numel);
/* tt_view_read/tt_view_write with the offset as off, a rank-0 i64 runtime
 * value holding v->offset (-1: bake v->offset into the program). Only the
 * choice of padding still depends on v->offset. */
tt_val_t tt_view_read_at(tt_graph_t *g, tt_val_t base, const tt_view_t *v, tt_val_t off);
tt_val_t tt_view_write_at(tt_graph_t *g, tt_val_t base, const tt_view_t *v, tt_val_t value, tt_val_t off);

/* Like tt_view_write, but adds value into the base, summing where elements
 * of the view alias each other (the backward of an overlapping view). */
tt_val_t tt_view_accumulate(tt_graph_t *g, tt_val_t base, const tt_view_t *v, tt_val_t value);

#endif
