/* A strided view of a flat base (sizes, strides, offset in elements) and
 * the arithmetic on it that needs no graph: numel, density, overlap,
 * PyTorch's bounds rule. A value type, readable above the IR (arguments, the
 * facade); reading and writing views in a graph is views/view.h. */
#ifndef TT_VIEWS_VIEW_TYPE_H
#define TT_VIEWS_VIEW_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include "base/rank.h"
#include "base/status.h"

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

/* PyTorch's setStorage bounds rule: the bytes the view reaches must lie in a
 * storage of storage_bytes; otherwise its RuntimeError text. */
tt_status_t tt_view_check_bounds(const tt_view_t *v, size_t itemsize, int64_t storage_bytes);

#endif
