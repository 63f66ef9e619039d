/* Overflow-checked storage byte counts (PyTorch's rules and message). */
#include "base/nbytes.h"

#include <stdio.h>

static void dims_text(char *buf, size_t n, const int64_t *d, int rank) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < rank && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)d[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

static tt_status_t overflowed(const int64_t *sizes, const int64_t *strides, int rank) {
  char sz[400], st[400];
  dims_text(sz, sizeof sz, sizes, rank);
  if (!strides) return tt_status_make(TT_INVALID_ARGUMENT, "Storage size calculation overflowed with sizes=%s", sz);
  dims_text(st, sizeof st, strides, rank);
  return tt_status_make(TT_INVALID_ARGUMENT, "Storage size calculation overflowed with sizes=%s and strides=%s", sz,
                        st);
}

static int contiguous(const int64_t *sizes, int rank, int64_t offset, size_t itemsize, uint64_t *out) {
  uint64_t n = 1;
  int of = 0;
  for (int i = 0; i < rank; i++) of |= __builtin_mul_overflow(n, (uint64_t)sizes[i], &n);
  of |= __builtin_add_overflow(n, (uint64_t)offset, &n);
  of |= __builtin_mul_overflow(n, (uint64_t)itemsize, &n);
  *out = n;
  return of || n > (uint64_t)INT64_MAX;
}

int tt_nbytes_overflows(const int64_t *sizes, int rank, size_t itemsize) {
  uint64_t n;
  return contiguous(sizes, rank, 0, itemsize, &n);
}

tt_status_t tt_nbytes_contiguous(const int64_t *sizes, int rank, int64_t offset, size_t itemsize,
                                 int64_t *out_nbytes) {
  uint64_t n;
  if (contiguous(sizes, rank, offset, itemsize, &n)) return overflowed(sizes, NULL, rank);
  *out_nbytes = (int64_t)n;
  return TT_OK_STATUS;
}

tt_status_t tt_nbytes_strided(const int64_t *sizes, const int64_t *strides, int rank, int64_t offset,
                              size_t itemsize, int64_t *out_nbytes) {
  uint64_t n = (uint64_t)offset + 1;
  int of = 0;
  for (int i = 0; i < rank; i++) {
    if (sizes[i] == 0) {
      *out_nbytes = 0;
      return TT_OK_STATUS;
    }
    uint64_t span = 0;
    /* int64 * int64 into uint64, as c10::mul_overflows(stride, size - 1): a
     * negative span does not fit and counts as an overflow. */
    of |= __builtin_mul_overflow(strides[i], sizes[i] - 1, &span);
    of |= __builtin_add_overflow(n, span, &n);
  }
  of |= __builtin_mul_overflow(n, (uint64_t)itemsize, &n);
  if (of || n > (uint64_t)INT64_MAX) return overflowed(sizes, strides, rank);
  *out_nbytes = (int64_t)n;
  return TT_OK_STATUS;
}

tt_status_t tt_numel_check(const int64_t *sizes, int rank) {
  uint64_t n = 1;
  int of = 0;
  for (int i = 0; i < rank; i++) of |= __builtin_mul_overflow(n, (uint64_t)sizes[i], &n);
  if (of || n > (uint64_t)INT64_MAX) return tt_status_make(TT_INVALID_ARGUMENT, "numel: integer multiplication overflow");
  return TT_OK_STATUS;
}

tt_status_t tt_contiguous_strides_check(const int64_t *sizes, int rank) {
  int64_t stride = 1;
  for (int i = rank - 1; i > 0; i--)
    if (__builtin_mul_overflow(stride, sizes[i] > 1 ? sizes[i] : 1, &stride))
      return tt_status_make(TT_INVALID_ARGUMENT, "Stride calculation overflowed");
  return TT_OK_STATUS;
}
