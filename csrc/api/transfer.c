/* Host transfers of tensors and storages. */
#include "api/transfer.h"

#include <string.h>

#include "api/call.h"
#include "base/alloc.h"
#include "exec/engine.h"
#include "ops/registry.h"
#include "views/view_gather.h"

/* A view of a storage at most this many times its size (plus the slack
 * below) is read by downloading the storage and gathering on the host, with
 * no program: a narrowed or strided view of a padded result (a bounded
 * dynamic output, an eager bucket) of any length then needs no compile. */
enum { TT_HOST_GATHER_RATIO = 4 };
#define TT_HOST_GATHER_SLACK_BYTES ((size_t)1 << 20)

static int host_gather_pays(const tt_tensor_ref_t *t, size_t view_bytes) {
  size_t storage_bytes = (size_t)t->storage->numel * tt_dtype_size(t->storage->dtype);
  return tt_view_extent(&t->view) <= t->storage->numel &&
         storage_bytes <= TT_HOST_GATHER_RATIO * view_bytes + TT_HOST_GATHER_SLACK_BYTES;
}

/* The view's elements from a host copy of its whole storage. */
static tt_status_t to_host_gathered(tt_engine_t *e, const tt_tensor_ref_t *t, void *dst) {
  size_t itemsize = tt_dtype_size(t->dtype);
  size_t storage_bytes = (size_t)t->storage->numel * itemsize;
  void *tmp = tt_malloc(storage_bytes ? storage_bytes : 1);
  if (!tmp)
    return tt_status_make(TT_OUT_OF_MEMORY, "to_host: %zu host bytes to read a %s view of a storage", storage_bytes,
                          tt_dtype_name(t->dtype));
  tt_pjrt_buffer_t *buf;
  tt_status_t s = tt_storage_buffer(t->storage, &buf);
  if (!s) s = tt_pjrt_buffer_to_host(e->rt, buf, tmp, storage_bytes);
  if (!s) tt_view_gather_host(tmp, &t->view, itemsize, dst);
  tt_free(tmp);
  return s ? s : tt_async_errors_check(e, 1); /* every earlier launch's flags (see async_errors.h) */
}

tt_status_t tt_storage_from_host(tt_engine_t *e, const void *data, tt_dtype_t dtype, int64_t numel,
                                 tt_storage_t **out_storage) {
  tt_pjrt_buffer_t *buf;
  TT_RETURN_IF_ERROR(tt_pjrt_buffer_from_host(e->rt, data, dtype, &numel, 1, 0, &buf));
  return tt_storage_create(e, dtype, numel, buf, out_storage);
}

tt_status_t tt_tensor_to_host(tt_engine_t *e, const tt_tensor_ref_t *t, tt_dtype_t dtype, void *dst, size_t nbytes) {
  int64_t numel = tt_view_numel(&t->view);
  if ((size_t)numel * tt_dtype_size(dtype) != nbytes)
    return tt_status_make(TT_INTERNAL, "to_host: %zu bytes for %lld elements of %s", nbytes,
                          (long long)numel, tt_dtype_name(dtype));
  /* Nothing to copy, but still the synchronization point a copy to the host
   * is: an earlier op's deferred error (an index out of range, even one whose
   * result is empty) surfaces here, as CPU raised it at the op. */
  if (numel == 0) return tt_synchronize(e);
  TT_RETURN_IF_ERROR(tt_region_flush(e, "a copy to the host"));
  if (dtype == t->dtype && t->dtype == t->storage->dtype && !t->conj && !t->neg && tt_view_is_whole(&t->view, t->storage->numel)) {
    tt_pjrt_buffer_t *buf;
    TT_RETURN_IF_ERROR(tt_storage_buffer(t->storage, &buf));
    TT_RETURN_IF_ERROR(tt_pjrt_buffer_to_host(e->rt, buf, dst, nbytes));
    return tt_async_errors_check(e, 1); /* every earlier launch's flags (see async_errors.h) */
  }
  if (dtype == t->dtype && t->dtype == t->storage->dtype && !t->conj && !t->neg && host_gather_pays(t, nbytes))
    return to_host_gathered(e, t, dst);
  /* Materialize the view (and convert) on device, then download. */
  int id = tt_ops_find("_tt_materialize");
  tt_arg_t a[2];
  memset(a, 0, sizeof a);
  a[0].kind = TT_ARG_TENSOR;
  a[0].t = (tt_tensor_ref_t *)t;
  a[1].kind = TT_ARG_DTYPE;
  a[1].i = dtype;
  tt_call_result_t r;
  TT_RETURN_IF_ERROR(tt_call(e, id, a, 2, &r));
  tt_pjrt_buffer_t *buf;
  tt_status_t s = tt_region_flush(e, "a copy to the host");
  if (!s) s = tt_storage_buffer(r.outs[0].storage, &buf);
  if (!s) s = tt_pjrt_buffer_to_host(e->rt, buf, dst, nbytes);
  tt_call_result_clear(&r);
  return s ? s : tt_async_errors_check(e, 1); /* every earlier launch's flags (see async_errors.h) */
}

tt_status_t tt_tensor_from_host(tt_engine_t *e, const tt_tensor_ref_t *dst, const void *data, tt_dtype_t dtype,
                                int64_t numel) {
  /* The destination's buffer may be swapped below: deferred readers of the
   * old contents run first. */
  TT_RETURN_IF_ERROR(tt_materialize(e, "a copy from the host"));
  tt_storage_t *tmp;
  TT_RETURN_IF_ERROR(tt_storage_from_host(e, data, dtype, numel, &tmp));
  tt_status_t s = TT_OK_STATUS;
  if (dtype == dst->dtype && dst->storage->dtype == dtype && !dst->conj && !dst->neg &&
      tt_view_is_whole(&dst->view, dst->storage->numel) && numel == dst->storage->numel) {
    tt_storage_set_buffer(dst->storage, tt_storage_take_buffer(tmp)); /* steal: no device copy */
  } else {
    tt_tensor_ref_t src;
    memset(&src, 0, sizeof src);
    src.storage = tmp;
    src.dtype = dtype;
    src.view.rank = 1;
    src.view.sizes[0] = numel;
    src.view.strides[0] = 1;
    if (numel == tt_view_numel(&dst->view)) { /* the data has dst's shape: contiguous strides */
      src.view = dst->view;
      src.view.offset = 0;
      int64_t st = 1;
      for (int i = dst->view.rank - 1; i >= 0; i--) {
        src.view.strides[i] = st;
        st *= dst->view.sizes[i];
      }
    }
    tt_arg_t a[2];
    memset(a, 0, sizeof a);
    a[0].kind = TT_ARG_TENSOR;
    a[0].t = (tt_tensor_ref_t *)dst;
    a[1].kind = TT_ARG_TENSOR;
    a[1].t = &src;
    tt_call_result_t r;
    s = tt_call(e, tt_ops_find("copy_"), a, 2, &r);
    tt_call_result_clear(&r);
  }
  tt_storage_release(tmp);
  return s;
}
