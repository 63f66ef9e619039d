/* out= writes: resize_output's rule and the partial-overlap refusal, with
 * CPU PyTorch 2.13's messages (ops/out_write.h). */
#include "ops/out_write.h"

#include <stdio.h>
#include <string.h>

#include "base/dtype.h"

static int same_sizes(const int64_t *a, int na, const int64_t *b, int nb) {
  if (na != nb) return 0;
  for (int i = 0; i < na; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* "[2, 3]" as c10's IntArrayRef prints; "[]" for a 0-dim shape. */
static size_t shape_text(char *buf, size_t cap, const int64_t *d, int n) {
  size_t at = 0;
  int w = snprintf(buf, cap, "[");
  at = w > 0 ? (size_t)w : 0;
  for (int i = 0; i < n && at < cap; i++) {
    w = snprintf(buf + at, cap - at, "%s%lld", i ? ", " : "", (long long)d[i]);
    if (w > 0) at += (size_t)w;
  }
  if (at < cap) {
    w = snprintf(buf + at, cap - at, "]");
    if (w > 0) at += (size_t)w;
  }
  return at;
}

tt_out_resize_t tt_op_out_resize(const int64_t *out, int out_rank, const int64_t *res, int res_rank, char *warn,
                                 size_t cap) {
  if (same_sizes(out, out_rank, res, res_rank)) return TT_OUT_KEEP;
  int64_t numel = 1;
  for (int i = 0; i < out_rank; i++) numel *= out[i];
  if (numel == 0) return TT_OUT_RESIZE;
  if (warn && cap) {
    char a[256], b[256];
    shape_text(a, sizeof a, out, out_rank);
    shape_text(b, sizeof b, res, res_rank);
    snprintf(warn, cap,
             "An output with one or more elements was resized since it had shape %s, which does not match the "
             "required output shape %s. This behavior is deprecated, and in a future PyTorch release outputs will "
             "not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing "
             "it, inplace, to zero elements with t.resize_(0).",
             a, b);
  }
  return TT_OUT_RESIZE_WARN;
}

tt_status_t tt_op_out_overlap(const tt_tensor_ref_t *out, const tt_tensor_ref_t *in) {
  if (!out->storage || out->storage != in->storage) return NULL;
  if (tt_view_overlap(&out->view, tt_dtype_size(out->dtype), &in->view, tt_dtype_size(in->dtype)) !=
      TT_OVERLAP_PARTIAL)
    return NULL;
  return tt_status_make(TT_INVALID_ARGUMENT,
                        "unsupported operation: some elements of the input tensor and the written-to tensor refer "
                        "to a single memory location. Please clone() the tensor before performing the operation.");
}
