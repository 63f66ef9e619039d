/* Byte counts of storages for a shape, checked for overflow: PyTorch's rules
 * (computeStorageNbytesContiguous / computeStorageNbytes) and its message, so
 * a size whose bytes do not fit int64 raises instead of wrapping to a tiny
 * storage that a later op (or XLA, which aborts) trips over. */
#ifndef TT_BASE_NBYTES_H
#define TT_BASE_NBYTES_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* (product of sizes + offset) * itemsize; the product is taken left to right
 * with a sticky overflow flag, as c10::safe_multiplies_u64 (so a 0 after an
 * overflowing prefix still overflows, as on CPU). */
tt_status_t tt_nbytes_contiguous(const int64_t *sizes, int rank, int64_t offset, size_t itemsize,
                                 int64_t *out_nbytes);
/* (offset + 1 + sum (size - 1) * stride) * itemsize; 0 when a size is 0. */
tt_status_t tt_nbytes_strided(const int64_t *sizes, const int64_t *strides, int rank, int64_t offset,
                              size_t itemsize, int64_t *out_nbytes);
/* c10's safe_compute_numel for new sizes: the product as uint64 (a
 * negative size is huge) must fit int64, else CPU's message "numel: integer
 * multiplication overflow". */
tt_status_t tt_numel_check(const int64_t *sizes, int rank);
/* The contiguous strides of sizes (a size below 1 counts as 1) must fit
 * int64, else CPU's "Stride calculation overflowed". */
tt_status_t tt_contiguous_strides_check(const int64_t *sizes, int rank);
/* The check alone, for hot paths: 1 when the contiguous byte count of sizes
 * (offset 0) does not fit int64. */
int tt_nbytes_overflows(const int64_t *sizes, int rank, size_t itemsize);

#endif
