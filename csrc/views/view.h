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

/* base: a rank-1 value of base_numel elements. Returns a value shaped like the view. */
tt_val_t tt_view_read(tt_graph_t *g, tt_val_t base, const tt_view_t *v);
/* value: shaped like the view, in the base's dtype. Returns the new base. */
tt_val_t tt_view_write(tt_graph_t *g, tt_val_t base, const tt_view_t *v, tt_val_t value);

#endif
