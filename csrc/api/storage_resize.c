/* Storages resized in place: grown with zeros past the old end, shrunk to a
 * prefix, or emptied (the buffer freed). Each change that keeps contents is
 * a program of its own (pad or slice of the flat buffer): resizes are rare,
 * and the open region may hold deferred work. */
#include "api/storage_resize.h"

#include <string.h>

#include "base/nbytes.h"
#include "exec/region.h"
#include "exec/run.h"
#include "ir/builder.h"
#include "ops/result_layout.h"

/* Runs `kind` (grow: pad with zeros; shrink: slice) of s's flat buffer to
 * numel elements and installs the result as s's buffer. */
static tt_status_t rebuffer(tt_storage_t *s, int64_t numel, int grow, const char *what) {
  tt_engine_t *e = s->engine;
  tt_graph_t *g;
  TT_RETURN_IF_ERROR(tt_graph_create(&g));
  tt_type_t t = tt_type_make(s->dtype, 1, &s->numel);
  tt_val_t base = tt_b_param(g, &t);
  tt_val_t v;
  if (grow) {
    int64_t lo = 0, hi = numel - s->numel, in = 0;
    v = tt_b_pad(g, base, tt_b_const_i(g, s->dtype, 0), &lo, &hi, &in);
  } else {
    v = tt_b_slice_dim(g, base, 0, 0, numel, 1);
  }
  tt_status_t st = tt_graph_add_output(g, v);
  tt_binding_t bind = {.kind = TT_BIND_STORAGE, .storage = s};
  tt_pjrt_buffer_t *buf = NULL;
  if (!st) st = tt_exec_run(e, g, &bind, what, &buf);
  tt_graph_destroy(g);
  TT_RETURN_IF_ERROR(st);
  tt_storage_set_buffer(s, NULL); /* accounted at the old size */
  s->numel = numel;
  tt_storage_set_buffer(s, buf);
  return TT_OK_STATUS;
}

tt_status_t tt_storage_grow(tt_storage_t *s, int64_t numel) {
  if (numel <= s->numel) return TT_OK_STATUS;
  TT_RETURN_IF_ERROR(tt_region_flush(s->engine, "Tensor.resize_"));
  if (!s->buf) { /* never written (or emptied): still all zeros */
    s->numel = numel;
    return TT_OK_STATUS;
  }
  return rebuffer(s, numel, 1, "aten::resize_");
}

tt_status_t tt_storage_shrink(tt_storage_t *s, int64_t numel) {
  if (numel < 0)
    return tt_status_make(TT_INVALID_ARGUMENT, "UntypedStorage.resize_: size %lld is negative", (long long)numel);
  if (numel >= s->numel) return TT_OK_STATUS;
  /* deferred writes of s land in its buffer, deferred reads of it run */
  TT_RETURN_IF_ERROR(tt_region_flush(s->engine, "UntypedStorage.resize_"));
  if (!s->buf || numel == 0) {
    tt_storage_set_buffer(s, NULL); /* frees the device buffer (accounted at the old size) */
    s->numel = numel;
    return TT_OK_STATUS;
  }
  return rebuffer(s, numel, 0, "UntypedStorage.resize_");
}

tt_status_t tt_storage_resize(tt_storage_t *s, int64_t numel) {
  return numel < s->numel ? tt_storage_shrink(s, numel) : tt_storage_grow(s, numel);
}

tt_status_t tt_resize_layout(int resize, int rank, const int64_t *sizes, tt_memory_format_t fmt, size_t itemsize,
                             int64_t offset, int64_t *strides, int64_t *nbytes) {
  if (rank > TT_MAX_RANK)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: %d dims (at most %d on TPU)", resize ? "resize_" : "empty", rank,
                          TT_MAX_RANK);
  if (resize) TT_RETURN_IF_ERROR(tt_numel_check(sizes, rank));
  if (resize) TT_RETURN_IF_ERROR(tt_contiguous_strides_check(sizes, rank));
  if (fmt == TT_MEMORY_FORMAT_PRESERVE)
    return tt_status_make(TT_INVALID_ARGUMENT, resize ? "Unsupported memory formatPreserve"
                                                      : "unsupported memory format Preserve");
  if (tt_layout_format_strides(rank, sizes, fmt, strides))
    return tt_status_make(TT_INVALID_ARGUMENT, "%s", tt_layout_format_rank_error(fmt));
  *nbytes = 0;
  for (int d = 0; d < rank; d++)
    if (sizes[d] == 0) return TT_OK_STATUS;
  return tt_nbytes_contiguous(sizes, rank, offset, itemsize, nbytes);
}

tt_status_t tt_set_layout(int rank, const int64_t *sizes, int nstrides, const int64_t *strides, size_t itemsize,
                          int64_t offset, int64_t *out_strides, int64_t *nbytes) {
  if (nstrides > 0 && nstrides != rank)
    return tt_status_make(TT_INVALID_ARGUMENT, "unequal size length (%d) and stride length (%d)", rank, nstrides);
  if (rank > TT_MAX_RANK)
    return tt_status_make(TT_INVALID_ARGUMENT, "set_: %d dims (at most %d on TPU)", rank, TT_MAX_RANK);
  if (offset < 0) return tt_status_make(TT_INVALID_ARGUMENT, "Tensor: invalid storage offset %lld", (long long)offset);
  TT_RETURN_IF_ERROR(tt_numel_check(sizes, rank));
  if (nstrides > 0) {
    memcpy(out_strides, strides, sizeof(int64_t) * (size_t)rank);
  } else {
    TT_RETURN_IF_ERROR(tt_contiguous_strides_check(sizes, rank));
    tt_layout_format_strides(rank, sizes, TT_MEMORY_FORMAT_CONTIGUOUS, out_strides);
  }
  return tt_nbytes_strided(sizes, out_strides, rank, offset, itemsize, nbytes);
}
