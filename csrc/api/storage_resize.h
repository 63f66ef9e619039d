/* Resizing a storage in place, as UntypedStorage.resize_ and Tensor.resize_
 * do: the torch storage object stays, its device buffer changes.
 * Thread safety: callers hold the engine lock (api/engine_lock.h). */
#ifndef TT_API_STORAGE_RESIZE_H
#define TT_API_STORAGE_RESIZE_H

#include <stdint.h>

#include "base/status.h"
#include "ops/args.h"

/* Grows a storage in place to numel elements (Tensor.resize_): the old
 * contents stay as the prefix, the rest reads as zeros. Smaller: nothing. */
tt_status_t tt_storage_grow(tt_storage_t *s, int64_t numel);
/* Shrinks a storage in place to numel elements (UntypedStorage.resize_):
 * the first numel elements stay; 0 frees the device buffer (FSDP frees an
 * unsharded parameter so), and a later grow starts from zeros. Deferred
 * readers of the old contents run first. Larger: nothing. */
tt_status_t tt_storage_shrink(tt_storage_t *s, int64_t numel);
/* Either of the two, by the size asked for. */
tt_status_t tt_storage_resize(tt_storage_t *s, int64_t numel);

/* What Tensor.resize_(sizes, memory_format) (resize = 1) or
 * torch.empty(sizes, memory_format=) (resize = 0) installs, with CPU's checks
 * in CPU's order: the numel and stride overflow checks, the format (preserve
 * is refused, each with its own message) and its rank, then the bytes the
 * storage must hold from `offset` (0 for an empty size).
 * Arithmetic only: no engine, no lock. */
tt_status_t tt_resize_layout(int resize, int rank, const int64_t *sizes, tt_memory_format_t fmt, size_t itemsize,
                             int64_t offset, int64_t *strides, int64_t *nbytes);

/* What Tensor.set_(storage, offset, sizes, strides) installs, with CPU's
 * checks in CPU's order (nstrides 0: contiguous; then sizes and strides of
 * unequal length, a negative offset, the numel overflow) and the bytes the
 * storage must hold for it (0 for an empty size). Arithmetic only. */
tt_status_t tt_set_layout(int rank, const int64_t *sizes, int nstrides, const int64_t *strides, size_t itemsize,
                          int64_t offset, int64_t *out_strides, int64_t *nbytes);

#endif
