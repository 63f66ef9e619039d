/* Shared between the files of csrc/pjrt only: the runtime's layout and the
 * helpers each file uses. Nothing outside csrc/pjrt includes this. */
#ifndef TT_PJRT_INTERNAL_H
#define TT_PJRT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "pjrt/pjrt_api.h"
#include "pjrt/runtime.h"

/* A loaded plugin before it has a client: enough to call it and to name it
 * in errors. */
typedef struct tt_pjrt_plugin_s {
  void *dl;           /* dlopen handle; never closed once initialized */
  const PJRT_Api *api;
  char *path;         /* owned */
  char *xla_version;  /* owned, "" if not reported */
  int64_t stablehlo_version[3];
  int has_stablehlo_version;
  uint64_t file_size;
  int64_t file_mtime_ns;
} tt_pjrt_plugin_t;

struct tt_pjrt_runtime_s {
  tt_pjrt_plugin_t plugin;
  PJRT_Client *client;
  PJRT_Device **devices; /* owned copy of the addressable device list */
  size_t num_devices;
  char *platform_name;   /* owned */
  char *platform_version;
  char *device_kind;
  tt_pjrt_info_t info;   /* points into the strings above */
};

struct tt_pjrt_executable_s {
  PJRT_LoadedExecutable *exe;
  size_t num_outputs;
  int num_replicas;
};

/* Buffers cost no allocation of ours: a tt_pjrt_buffer_t* is the plugin's
 * PJRT_Buffer* under another name (the struct is never defined). */
static inline PJRT_Buffer *tt_pjrt_buf(tt_pjrt_buffer_t *b) { return (PJRT_Buffer *)(void *)b; }
static inline tt_pjrt_buffer_t *tt_pjrt_wrap_buf(PJRT_Buffer *b) {
  return (tt_pjrt_buffer_t *)(void *)b;
}

/* error.c: turns `err` into a status naming `what`, the plugin path, the PJRT
 * code and message, and destroys `err`. NULL err gives OK. */
tt_status_t tt_pjrt_error_status(const tt_pjrt_plugin_t *plugin, PJRT_Error *err,
                                 const char *what);
/* error.c: a copy of `s[0..n)` with a NUL, or NULL if out of memory. */
char *tt_pjrt_strndup(const char *s, size_t n);
/* error.c: awaits then destroys `event` (NULL is fine); returns its error. */
tt_status_t tt_pjrt_event_await(const tt_pjrt_plugin_t *plugin, PJRT_Event *event,
                                const char *what);
/* error.c: destroys `event` without waiting (NULL is fine). */
void tt_pjrt_event_destroy(const tt_pjrt_plugin_t *plugin, PJRT_Event *event);

/* plugin_file.c: the file's ELF header, program headers and section header
 * table lie within its size (checked before dlopen maps it). */
tt_status_t tt_pjrt_plugin_check_file(const char *path, uint64_t file_size);

/* plugin_load.c */
tt_status_t tt_pjrt_plugin_load(const char *path, tt_pjrt_plugin_t *out_plugin);
void tt_pjrt_plugin_release(tt_pjrt_plugin_t *plugin);

/* client.c */
tt_status_t tt_pjrt_client_open(tt_pjrt_runtime_t *rt, const tt_pjrt_options_t *options);
void tt_pjrt_client_close(tt_pjrt_runtime_t *rt);

/* buffer.c: the PJRT element type for `dt`, PJRT_Buffer_Type_INVALID if none. */
PJRT_Buffer_Type tt_pjrt_buffer_type(tt_dtype_t dt);

#endif
