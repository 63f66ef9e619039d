/* Views over a flat base buffer: a strided view (sizes, strides, offset) is
 * read by decomposing it into slice/reshape/transpose/broadcast steps (or a
 * gather when no such steps exist), and written by inverting those steps
 * into the base, so every alias of the base sees the write. */
#ifndef TT_VIEWS_VIEW_H
#define TT_VIEWS_VIEW_H

#include <stdint.h>

#include "ir/graph.h"
#include "views/view_type.h"

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
