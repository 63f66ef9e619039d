/* Loading a PJRT plugin: dlopen, GetPjrtApi, version and size checks,
 * PJRT_Plugin_Initialize (once per process per plugin), and its attributes. */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "pjrt/pjrt_internal.h"

#define FIX_HINT "set TORCH_TPU_PJRT_PLUGIN to the path of a PJRT plugin .so"

/* Plugins whose PJRT_Plugin_Initialize already ran. dlopen hands back the same
 * handle for the same file, and Initialize must run only once per process. */
#define MAX_PLUGINS 16
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static void *g_initialized[MAX_PLUGINS];
static int g_num_initialized;

static int already_initialized(void *dl) {
  for (int i = 0; i < g_num_initialized; i++)
    if (g_initialized[i] == dl) return 1;
  return 0;
}

static tt_status_t stat_plugin(const char *path, tt_pjrt_plugin_t *p) {
  struct stat st;
  if (stat(path, &st) != 0)
    return tt_status_make(TT_UNAVAILABLE, "PJRT plugin '%s' does not exist; " FIX_HINT, path);
  if (!S_ISREG(st.st_mode))
    return tt_status_make(TT_UNAVAILABLE, "PJRT plugin '%s' is not a regular file; " FIX_HINT,
                          path);
  p->file_size = (uint64_t)st.st_size;
  p->file_mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  return TT_OK_STATUS;
}

typedef const PJRT_Api *(*get_api_fn_t)(void);

/* dlsym returns void*; POSIX guarantees it converts to a function pointer,
 * and going through memcpy keeps strict C11 compilers quiet about it. */
static get_api_fn_t find_get_api(void *dl) {
  void *sym = dlsym(dl, "GetPjrtApi");
  get_api_fn_t fn = NULL;
  if (sym) memcpy(&fn, &sym, sizeof fn);
  return fn;
}

static tt_status_t open_library(const char *path, tt_pjrt_plugin_t *p) {
  dlerror();
  /* RTLD_LOCAL: XLA plugins carry their own LLVM/protobuf/abseil copies that
   * must not interpose on each other's or the host's symbols. */
  p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!p->dl) {
    const char *why = dlerror();
    return tt_status_make(TT_UNAVAILABLE,
                          "cannot load PJRT plugin '%s' as a shared library (%s); " FIX_HINT,
                          path, why ? why : "unknown dlopen error");
  }
  get_api_fn_t get_api = find_get_api(p->dl);
  if (!get_api) {
    /* Nothing of it has run but its constructors; safe to unload. */
    dlclose(p->dl);
    p->dl = NULL;
    return tt_status_make(TT_UNAVAILABLE,
                          "'%s' is a shared library but not a PJRT plugin (no GetPjrtApi "
                          "symbol); " FIX_HINT,
                          path);
  }
  p->api = get_api();
  if (!p->api)
    return tt_status_make(TT_UNAVAILABLE, "PJRT plugin '%s': GetPjrtApi returned NULL; " FIX_HINT,
                          path);
  return TT_OK_STATUS;
}

static tt_status_t check_version(const tt_pjrt_plugin_t *p) {
  int major = p->api->pjrt_api_version.major_version;
  int minor = p->api->pjrt_api_version.minor_version;
  if (major != TT_PJRT_HEADER_MAJOR || minor < TT_PJRT_MIN_MINOR)
    return tt_status_make(TT_UNAVAILABLE,
                          "PJRT plugin '%s' implements PJRT C API %d.%d, but torchtpu needs "
                          "%d.%d or newer within major %d (torchtpu is built for %d.%d); "
                          "use a newer plugin or " FIX_HINT,
                          p->path, major, minor, TT_PJRT_HEADER_MAJOR, TT_PJRT_MIN_MINOR,
                          TT_PJRT_HEADER_MAJOR, TT_PJRT_HEADER_MAJOR, TT_PJRT_HEADER_MINOR);
  if (p->api->struct_size < TT_PJRT_API_MIN_SIZE)
    return tt_status_make(TT_UNAVAILABLE,
                          "PJRT plugin '%s' (API %d.%d) has a function table of %zu bytes, "
                          "fewer than the %zu torchtpu (built for %d.%d) calls into; " FIX_HINT,
                          p->path, major, minor, p->api->struct_size,
                          (size_t)TT_PJRT_API_MIN_SIZE, TT_PJRT_HEADER_MAJOR,
                          TT_PJRT_HEADER_MINOR);
  return TT_OK_STATUS;
}

static tt_status_t initialize_once(tt_pjrt_plugin_t *p) {
  pthread_mutex_lock(&g_lock);
  tt_status_t status = TT_OK_STATUS;
  if (!already_initialized(p->dl)) {
    TT_PJRT_ARGS(PJRT_Plugin_Initialize_Args, a, extension_start);
    status = tt_pjrt_error_status(p, TT_PJRT_CALL(p->api, Plugin_Initialize, &a),
                                  "PJRT_Plugin_Initialize");
    if (!status && g_num_initialized < MAX_PLUGINS) g_initialized[g_num_initialized++] = p->dl;
  }
  pthread_mutex_unlock(&g_lock);
  return status;
}

static int name_is(const PJRT_NamedValue *v, const char *name) {
  return v->name && v->name_size == strlen(name) && memcmp(v->name, name, v->name_size) == 0;
}

/* Reads the attributes we use; a plugin that reports none is fine. */
static tt_status_t read_attributes(tt_pjrt_plugin_t *p) {
  TT_PJRT_ARGS(PJRT_Plugin_Attributes_Args, a, num_attributes);
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(p, TT_PJRT_CALL(p->api, Plugin_Attributes, &a),
                                          "PJRT_Plugin_Attributes"));
  for (size_t i = 0; i < a.num_attributes && a.attributes; i++) {
    const PJRT_NamedValue *v = &a.attributes[i];
    if (name_is(v, "xla_version") && !p->xla_version[0]) {
      char buf[32];
      const char *s = buf;
      size_t n;
      if (v->type == PJRT_NamedValue_kString) {
        s = v->string_value ? v->string_value : "";
        n = v->string_value ? v->value_size : 0;
      } else if (v->type == PJRT_NamedValue_kInt64) {
        n = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)v->int64_value);
      } else {
        continue;
      }
      char *copy = tt_pjrt_strndup(s, n);
      if (!copy) return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory");
      tt_free(p->xla_version);
      p->xla_version = copy;
    } else if (name_is(v, "stablehlo_current_version") && v->type == PJRT_NamedValue_kInt64List &&
               v->value_size >= 3 && v->int64_array_value) {
      memcpy(p->stablehlo_version, v->int64_array_value, sizeof p->stablehlo_version);
      p->has_stablehlo_version = 1;
    }
  }
  return TT_OK_STATUS;
}

tt_status_t tt_pjrt_plugin_load(const char *path, tt_pjrt_plugin_t *out_plugin) {
  memset(out_plugin, 0, sizeof *out_plugin);
  if (!path || !path[0])
    return tt_status_make(TT_UNAVAILABLE, "no PJRT plugin path given; " FIX_HINT);
  tt_pjrt_plugin_t *p = out_plugin;
  p->path = tt_strdup(path);
  p->xla_version = tt_strdup("");
  tt_status_t status = (!p->path || !p->xla_version)
                           ? tt_status_make(TT_OUT_OF_MEMORY, "out of host memory")
                           : TT_OK_STATUS;
  if (!status) status = stat_plugin(path, p);
  if (!status) status = tt_pjrt_plugin_check_file(path, p->file_size);
  if (!status) status = open_library(path, p);
  if (!status) status = check_version(p);
  if (!status) status = initialize_once(p);
  if (!status) status = read_attributes(p);
  if (status) tt_pjrt_plugin_release(p);
  return status;
}

/* The library stays mapped: XLA plugins start threads and register static
 * state that is not safe to tear down with dlclose while the process lives. */
void tt_pjrt_plugin_release(tt_pjrt_plugin_t *plugin) {
  tt_free(plugin->path);
  tt_free(plugin->xla_version);
  memset(plugin, 0, sizeof *plugin);
}
