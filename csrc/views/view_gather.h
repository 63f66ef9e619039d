/* Reading a strided view out of a host copy of its base: the elements in
 * row-major order, dense. Pure arithmetic on host memory. */
#ifndef TT_VIEWS_VIEW_GATHER_H
#define TT_VIEWS_VIEW_GATHER_H

#include <stddef.h>

#include "views/view_type.h"

/* Copies the view's elements (itemsize bytes each) from base into dst, dense
 * row-major. Strides are in elements and non-negative (PyTorch's). */
void tt_view_gather_host(const void *base, const tt_view_t *v, size_t itemsize, void *dst);

/* The number of base elements the view reaches: offset + the largest index
 * + 1 (0 for an empty view). */
int64_t tt_view_extent(const tt_view_t *v);

#endif
