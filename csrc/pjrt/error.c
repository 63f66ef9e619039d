/* PJRT errors and events turned into tt_status_t. Every PJRT_Error that
 * reaches us passes through tt_pjrt_error_status, which always destroys it. */
#include <string.h>

#include "base/blocking.h"
#include "base/alloc.h"
#include "pjrt/pjrt_internal.h"

static const char *code_name(PJRT_Error_Code code) {
  static const char *const names[] = {
      "OK",        "CANCELLED",           "UNKNOWN",   "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS",      "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION", "ABORTED",   "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
      "UNAVAILABLE", "DATA_LOSS",         "UNAUTHENTICATED"};
  if ((int)code < 0 || (size_t)code >= sizeof names / sizeof names[0]) return "UNKNOWN_CODE";
  return names[code];
}

/* The tt code a caller should see: the PyTorch exception class that fits. */
static tt_code_t map_code(PJRT_Error_Code code) {
  switch (code) {
    case PJRT_Error_Code_INVALID_ARGUMENT:
    case PJRT_Error_Code_OUT_OF_RANGE:
    case PJRT_Error_Code_FAILED_PRECONDITION:
      return TT_INVALID_ARGUMENT;
    case PJRT_Error_Code_RESOURCE_EXHAUSTED:
      return TT_OUT_OF_MEMORY;
    case PJRT_Error_Code_UNIMPLEMENTED:
      return TT_NOT_IMPLEMENTED;
    case PJRT_Error_Code_UNAVAILABLE:
    case PJRT_Error_Code_NOT_FOUND:
      return TT_UNAVAILABLE;
    default:
      return TT_INTERNAL;
  }
}

char *tt_pjrt_strndup(const char *s, size_t n) {
  char *copy = tt_malloc(n + 1);
  if (!copy) return NULL;
  if (n) memcpy(copy, s, n);
  copy[n] = '\0';
  return copy;
}

tt_status_t tt_pjrt_error_status(const tt_pjrt_plugin_t *plugin, PJRT_Error *err,
                                 const char *what) {
  if (!err) return TT_OK_STATUS;
  const PJRT_Api *api = plugin->api;

  TT_PJRT_ARGS(PJRT_Error_Message_Args, msg, message_size);
  msg.error = err;
  TT_PJRT_CALL_VOID(api, Error_Message, &msg);

  TT_PJRT_ARGS(PJRT_Error_GetCode_Args, gc, code);
  gc.error = err;
  PJRT_Error *gc_err = TT_PJRT_CALL(api, Error_GetCode, &gc);
  PJRT_Error_Code code = gc_err ? PJRT_Error_Code_UNKNOWN : gc.code;
  if (gc_err) { /* an error about the error: drop it, keep the original */
    TT_PJRT_ARGS(PJRT_Error_Destroy_Args, d, error);
    d.error = gc_err;
    TT_PJRT_CALL_VOID(api, Error_Destroy, &d);
  }

  /* The message lives only as long as err, so format before destroying. */
  int len = msg.message_size > 65536 ? 65536 : (int)msg.message_size;
  tt_status_t status = tt_status_make(map_code(code), "%s failed in PJRT plugin '%s' (%s): %.*s",
                                      what ? what : "PJRT call", plugin->path, code_name(code),
                                      len, msg.message ? msg.message : "");

  TT_PJRT_ARGS(PJRT_Error_Destroy_Args, d, error);
  d.error = err;
  TT_PJRT_CALL_VOID(api, Error_Destroy, &d);
  return status;
}

void tt_pjrt_event_destroy(const tt_pjrt_plugin_t *plugin, PJRT_Event *event) {
  if (!event) return;
  TT_PJRT_ARGS(PJRT_Event_Args, a, event);
  a.event = event;
  /* Nothing useful to do if destroying fails; just don't leak the error. */
  tt_status_free(tt_pjrt_error_status(plugin, TT_PJRT_CALL(plugin->api, Event_Destroy, &a),
                                      "PJRT_Event_Destroy"));
}

tt_status_t tt_pjrt_event_await(const tt_pjrt_plugin_t *plugin, PJRT_Event *event,
                                const char *what) {
  if (!event) return TT_OK_STATUS;
  TT_PJRT_ARGS(PJRT_Event_Args, a, event);
  a.event = event;
  void *token = tt_blocking_begin(); /* the embedding may let its other threads run */
  PJRT_Error *err = TT_PJRT_CALL(plugin->api, Event_Await, &a);
  tt_blocking_end(token);
  tt_status_t status = tt_pjrt_error_status(plugin, err, what);
  tt_pjrt_event_destroy(plugin, event);
  return status;
}
