/* Host gather of a strided view (views/view_gather.h). The innermost dim is
 * copied as one run when its stride is 1; an odometer walks the others. */
#include "views/view_gather.h"

#include <string.h>

int64_t tt_view_extent(const tt_view_t *v) {
  int64_t last = v->offset;
  for (int d = 0; d < v->rank; d++) {
    if (v->sizes[d] == 0) return 0;
    last += (v->sizes[d] - 1) * v->strides[d];
  }
  return last + 1;
}

void tt_view_gather_host(const void *base, const tt_view_t *v, size_t itemsize, void *dst) {
  const char *src = base;
  char *out = dst;
  if (tt_view_numel(v) == 0) return;
  if (v->rank == 0) {
    memcpy(out, src + (size_t)v->offset * itemsize, itemsize);
    return;
  }
  int inner = v->rank - 1;
  int64_t run = v->sizes[inner], inner_stride = v->strides[inner];
  int64_t idx[TT_MAX_RANK] = {0};
  for (;;) {
    int64_t at = v->offset;
    for (int d = 0; d < inner; d++) at += idx[d] * v->strides[d];
    if (inner_stride == 1) {
      memcpy(out, src + (size_t)at * itemsize, (size_t)run * itemsize);
      out += (size_t)run * itemsize;
    } else {
      for (int64_t i = 0; i < run; i++, out += itemsize)
        memcpy(out, src + (size_t)(at + i * inner_stride) * itemsize, itemsize);
    }
    int d = inner - 1;
    while (d >= 0 && ++idx[d] == v->sizes[d]) idx[d--] = 0;
    if (d < 0) return;
  }
}
