/* Device buffers: host -> device, device -> host, readiness, size, release. */
#include <string.h>

#include "pjrt/pjrt_internal.h"

PJRT_Buffer_Type tt_pjrt_buffer_type(tt_dtype_t dt) {
  switch (dt) {
    case TT_BOOL: return PJRT_Buffer_Type_PRED;
    case TT_U8: return PJRT_Buffer_Type_U8;
    case TT_I8: return PJRT_Buffer_Type_S8;
    case TT_I16: return PJRT_Buffer_Type_S16;
    case TT_I32: return PJRT_Buffer_Type_S32;
    case TT_I64: return PJRT_Buffer_Type_S64;
    case TT_F16: return PJRT_Buffer_Type_F16;
    case TT_BF16: return PJRT_Buffer_Type_BF16;
    case TT_F32: return PJRT_Buffer_Type_F32;
    case TT_F64: return PJRT_Buffer_Type_F64;
    case TT_U32: return PJRT_Buffer_Type_U32;
    case TT_U64: return PJRT_Buffer_Type_U64;
    case TT_C64: return PJRT_Buffer_Type_C64;
    case TT_C128: return PJRT_Buffer_Type_C128;
    default: return PJRT_Buffer_Type_INVALID;
  }
}

static tt_status_t check_upload(const tt_pjrt_runtime_t *rt, const void *data, tt_dtype_t dtype,
                                const int64_t *dims, int rank, int device) {
  if (tt_pjrt_buffer_type(dtype) == PJRT_Buffer_Type_INVALID)
    return tt_status_make(TT_INVALID_ARGUMENT, "no PJRT element type for dtype %d", (int)dtype);
  if (rank < 0 || (rank > 0 && !dims))
    return tt_status_make(TT_INVALID_ARGUMENT, "invalid rank %d for a device buffer", rank);
  int64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0)
      return tt_status_make(TT_INVALID_ARGUMENT, "negative dimension %lld in a device buffer",
                            (long long)dims[i]);
    n *= dims[i];
  }
  if (n > 0 && !data) return tt_status_make(TT_INVALID_ARGUMENT, "NULL host data for upload");
  if (device < 0 || (size_t)device >= rt->num_devices)
    return tt_status_make(TT_INVALID_ARGUMENT, "device %d out of range (plugin '%s' has %zu)",
                          device, rt->plugin.path, rt->num_devices);
  return TT_OK_STATUS;
}

tt_status_t tt_pjrt_buffer_from_host(tt_pjrt_runtime_t *rt, const void *data, tt_dtype_t dtype,
                                     const int64_t *dims, int rank, int device,
                                     tt_pjrt_buffer_t **out_buffer) {
  *out_buffer = NULL;
  TT_RETURN_IF_ERROR(check_upload(rt, data, dtype, dims, rank, device));
  /* A zero-element upload still needs a valid pointer on some plugins. */
  static const char kEmpty[16];
  TT_PJRT_ARGS(PJRT_Client_BufferFromHostBuffer_Args, a, buffer);
  a.client = rt->client;
  a.data = data ? data : kEmpty;
  a.type = tt_pjrt_buffer_type(dtype);
  a.dims = rank > 0 ? dims : NULL;
  a.num_dims = (size_t)rank;
  /* ImmutableOnlyDuringCall: the plugin copies or stages before returning,
   * which is what lets the caller reuse `data` at once. */
  a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  a.device = rt->devices[device];
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(rt->plugin.api, Client_BufferFromHostBuffer, &a),
      "PJRT_Client_BufferFromHostBuffer"));
  /* Under these semantics the event should already be ready; waiting anyway
   * keeps the promise even for a plugin that treats them loosely. */
  tt_status_t status = tt_pjrt_event_await(&rt->plugin, a.done_with_host_buffer,
                                           "waiting for a host-to-device copy");
  if (status) {
    tt_pjrt_buffer_destroy(rt, tt_pjrt_wrap_buf(a.buffer));
    return status;
  }
  *out_buffer = tt_pjrt_wrap_buf(a.buffer);
  return TT_OK_STATUS;
}

/* Asks the plugin how many bytes a dense host copy of `buf` takes. */
static tt_status_t host_size(tt_pjrt_runtime_t *rt, PJRT_Buffer *buf, size_t *out_size) {
  TT_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args, a, event);
  a.src = buf;
  tt_status_t status = tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(rt->plugin.api, Buffer_ToHostBuffer, &a),
      "PJRT_Buffer_ToHostBuffer (size query)");
  tt_pjrt_event_destroy(&rt->plugin, a.event); /* a size query has nothing to wait for */
  *out_size = a.dst_size;
  return status;
}

tt_status_t tt_pjrt_buffer_to_host(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf, void *dst,
                                   size_t nbytes) {
  size_t need = 0;
  TT_RETURN_IF_ERROR(host_size(rt, tt_pjrt_buf(buf), &need));
  if (need != nbytes)
    return tt_status_make(TT_INTERNAL,
                          "device buffer holds %zu bytes but the host destination has %zu", need,
                          nbytes);
  if (nbytes == 0) return tt_pjrt_buffer_await(rt, buf);
  TT_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args, a, event);
  a.src = tt_pjrt_buf(buf);
  a.dst = dst;
  a.dst_size = nbytes;
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(rt->plugin.api, Buffer_ToHostBuffer, &a),
      "PJRT_Buffer_ToHostBuffer"));
  /* The copy's event also carries any error of the computation that
   * produced the buffer. */
  return tt_pjrt_event_await(&rt->plugin, a.event, "copying a device buffer to host");
}

tt_status_t tt_pjrt_buffer_ready_event(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf,
                                       tt_pjrt_event_t **out_event) {
  TT_PJRT_ARGS(PJRT_Buffer_ReadyEvent_Args, a, event);
  a.buffer = tt_pjrt_buf(buf);
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(rt->plugin.api, Buffer_ReadyEvent, &a), "PJRT_Buffer_ReadyEvent"));
  *out_event = (tt_pjrt_event_t *)(void *)a.event;
  return TT_OK_STATUS;
}

tt_status_t tt_pjrt_buffer_is_ready(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf, int *out_ready) {
  tt_pjrt_event_t *ev;
  TT_RETURN_IF_ERROR(tt_pjrt_buffer_ready_event(rt, buf, &ev));
  TT_PJRT_ARGS(PJRT_Event_IsReady_Args, a, is_ready);
  a.event = (PJRT_Event *)(void *)ev;
  tt_status_t s = tt_pjrt_error_status(&rt->plugin, TT_PJRT_CALL(rt->plugin.api, Event_IsReady, &a),
                                       "PJRT_Event_IsReady");
  tt_pjrt_event_destroy(&rt->plugin, a.event);
  *out_ready = !s && a.is_ready;
  return s;
}

tt_status_t tt_pjrt_event_is_ready(tt_pjrt_runtime_t *rt, tt_pjrt_event_t *event, int *out_ready) {
  TT_PJRT_ARGS(PJRT_Event_IsReady_Args, a, is_ready);
  a.event = (PJRT_Event *)(void *)event;
  tt_status_t s = tt_pjrt_error_status(&rt->plugin, TT_PJRT_CALL(rt->plugin.api, Event_IsReady, &a),
                                       "PJRT_Event_IsReady");
  *out_ready = !s && a.is_ready;
  return s;
}

tt_status_t tt_pjrt_event_wait(tt_pjrt_runtime_t *rt, tt_pjrt_event_t *event) {
  return tt_pjrt_event_await(&rt->plugin, (PJRT_Event *)(void *)event, "waiting for a device computation");
}

tt_status_t tt_pjrt_buffer_await(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf) {
  tt_pjrt_event_t *ev;
  TT_RETURN_IF_ERROR(tt_pjrt_buffer_ready_event(rt, buf, &ev));
  return tt_pjrt_event_wait(rt, ev);
}

tt_status_t tt_pjrt_buffer_address(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf, uint64_t *out_address) {
  TT_PJRT_ARGS(PJRT_Buffer_UnsafePointer_Args, a, buffer_pointer);
  a.buffer = tt_pjrt_buf(buf);
  *out_address = 0;
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(&rt->plugin, TT_PJRT_CALL(rt->plugin.api, Buffer_UnsafePointer, &a),
                                          "PJRT_Buffer_UnsafePointer"));
  *out_address = (uint64_t)a.buffer_pointer;
  return TT_OK_STATUS;
}

size_t tt_pjrt_buffer_size(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf) {
  TT_PJRT_ARGS(PJRT_Buffer_OnDeviceSizeInBytes_Args, a, on_device_size_in_bytes);
  a.buffer = tt_pjrt_buf(buf);
  tt_status_t status = tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(rt->plugin.api, Buffer_OnDeviceSizeInBytes, &a),
      "PJRT_Buffer_OnDeviceSizeInBytes");
  if (!status) return a.on_device_size_in_bytes;
  /* Not every plugin implements it; the dense host size is a fair estimate. */
  tt_status_free(status);
  size_t n = 0;
  tt_status_free(host_size(rt, tt_pjrt_buf(buf), &n));
  return n;
}

void tt_pjrt_buffer_destroy(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf) {
  if (!buf) return;
  TT_PJRT_ARGS(PJRT_Buffer_Args, a, buffer);
  a.buffer = tt_pjrt_buf(buf);
  tt_status_free(tt_pjrt_error_status(&rt->plugin,
                                      TT_PJRT_CALL(rt->plugin.api, Buffer_Destroy, &a),
                                      "PJRT_Buffer_Destroy"));
}
