/* The runtime object: plugin + client + addressable devices, and its info. */
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "pjrt/client_options.h"
#include "pjrt/pjrt_internal.h"

static tt_status_t oom(void) { return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory"); }

static PJRT_Error *create_client(tt_pjrt_runtime_t *rt, const PJRT_NamedValue *opts,
                                 size_t num_opts) {
  TT_PJRT_ARGS(PJRT_Client_Create_Args, a, kv_try_get_user_arg);
  a.create_options = opts;
  a.num_options = num_opts;
  PJRT_Error *err = TT_PJRT_CALL(rt->plugin.api, Client_Create, &a);
  if (!err) rt->client = a.client;
  return err;
}

/* The user's options (tt_pjrt_options_t.client_options) plus
 * cpu_device_count, an option only the CPU plugin knows: we cannot ask the
 * platform before a client exists, so we offer it unless the user named it
 * and, if the plugin rejects it by name (plugins that validate option names
 * do so before touching any device), create again without it. An error with
 * user options says where they came from. */
static tt_status_t open_client(tt_pjrt_runtime_t *rt, const tt_pjrt_options_t *options) {
  static const char kName[] = "cpu_device_count";
  const char *kSource = tt_env_decl(TT_ENV_PJRT_CLIENT_OPTIONS)->name; /* where the engine reads them */
  int count = options && options->cpu_device_count > 0 ? options->cpu_device_count : 1;
  const char *text = options ? options->client_options : NULL;
  tt_pjrt_client_options_t opts;
  TT_RETURN_IF_ERROR(tt_pjrt_client_options_parse(text, kSource, &opts));
  size_t users = opts.count;
  int ours = tt_pjrt_client_options_find(&opts, kName) < 0;
  if (ours) tt_pjrt_client_options_add_int(&opts, kName, count);

  tt_status_t status = tt_pjrt_error_status(&rt->plugin, create_client(rt, opts.items, opts.count),
                                            "PJRT_Client_Create");
  if (status && ours && strstr(tt_status_message(status), kName)) {
    tt_status_free(status);
    status = tt_pjrt_error_status(&rt->plugin, create_client(rt, opts.items, users), "PJRT_Client_Create");
  }
  if (status && users)
    status = tt_status_annotate(status, "creating the client with %s=%s (option names are the plugin's own)", kSource,
                                text);
  tt_pjrt_client_options_free(&opts);
  return status;
}

/* PlatformName and PlatformVersion share one args shape. */
static tt_status_t client_string(tt_pjrt_runtime_t *rt, int version, char **out_str) {
  TT_PJRT_ARGS(PJRT_Client_String_Args, a, str_size);
  a.client = rt->client;
  PJRT_Error *err = version ? TT_PJRT_CALL(rt->plugin.api, Client_PlatformVersion, &a)
                            : TT_PJRT_CALL(rt->plugin.api, Client_PlatformName, &a);
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(
      &rt->plugin, err, version ? "PJRT_Client_PlatformVersion" : "PJRT_Client_PlatformName"));
  *out_str = tt_pjrt_strndup(a.str ? a.str : "", a.str ? a.str_size : 0);
  return *out_str ? TT_OK_STATUS : oom();
}

static tt_status_t list_devices(tt_pjrt_runtime_t *rt) {
  TT_PJRT_ARGS(PJRT_Client_AddressableDevices_Args, a, num_devices);
  a.client = rt->client;
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(rt->plugin.api, Client_AddressableDevices, &a),
      "PJRT_Client_AddressableDevices"));
  if (a.num_devices == 0 || !a.devices)
    return tt_status_make(TT_UNAVAILABLE, "PJRT plugin '%s' reports no addressable devices",
                          rt->plugin.path);
  rt->devices = tt_calloc(a.num_devices, sizeof *rt->devices);
  if (!rt->devices) return oom();
  memcpy(rt->devices, a.devices, a.num_devices * sizeof *rt->devices);
  rt->num_devices = a.num_devices;
  return TT_OK_STATUS;
}

static tt_status_t read_device_kind(tt_pjrt_runtime_t *rt) {
  const PJRT_Api *api = rt->plugin.api;
  TT_PJRT_ARGS(PJRT_Device_GetDescription_Args, d, device_description);
  d.device = rt->devices[0];
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(&rt->plugin, TT_PJRT_CALL(api, Device_GetDescription, &d),
                                          "PJRT_Device_GetDescription"));
  TT_PJRT_ARGS(PJRT_DeviceDescription_Kind_Args, k, device_kind_size);
  k.device_description = d.device_description;
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(&rt->plugin,
                                          TT_PJRT_CALL(api, DeviceDescription_Kind, &k),
                                          "PJRT_DeviceDescription_Kind"));
  rt->device_kind = tt_pjrt_strndup(k.device_kind ? k.device_kind : "",
                                    k.device_kind ? k.device_kind_size : 0);
  return rt->device_kind ? TT_OK_STATUS : oom();
}

tt_status_t tt_pjrt_client_open(tt_pjrt_runtime_t *rt, const tt_pjrt_options_t *options) {
  TT_RETURN_IF_ERROR(open_client(rt, options));
  TT_RETURN_IF_ERROR(client_string(rt, 0, &rt->platform_name));
  TT_RETURN_IF_ERROR(client_string(rt, 1, &rt->platform_version));
  TT_RETURN_IF_ERROR(list_devices(rt));
  return read_device_kind(rt);
}

void tt_pjrt_client_close(tt_pjrt_runtime_t *rt) {
  if (rt->client) {
    TT_PJRT_ARGS(PJRT_Client_Destroy_Args, a, client);
    a.client = rt->client;
    tt_status_free(tt_pjrt_error_status(&rt->plugin,
                                        TT_PJRT_CALL(rt->plugin.api, Client_Destroy, &a),
                                        "PJRT_Client_Destroy"));
    rt->client = NULL;
  }
  tt_free(rt->devices);
  tt_free(rt->platform_name);
  tt_free(rt->platform_version);
  tt_free(rt->device_kind);
  rt->devices = NULL;
  rt->platform_name = rt->platform_version = rt->device_kind = NULL;
}

/* Everything that decides whether a compiled executable from one process is
 * valid in another: what the plugin is, which build, which compiler. */
static uint64_t identity(const tt_pjrt_runtime_t *rt) {
  const tt_pjrt_plugin_t *p = &rt->plugin;
  uint64_t h = TT_HASH_SEED;
  h = tt_hash_str(h, rt->platform_name);
  h = tt_hash_str(h, rt->platform_version);
  h = tt_hash_str(h, p->xla_version);
  h = tt_hash_u64(h, (uint64_t)p->api->pjrt_api_version.major_version);
  h = tt_hash_u64(h, (uint64_t)p->api->pjrt_api_version.minor_version);
  h = tt_hash_u64(h, p->file_size);
  h = tt_hash_u64(h, (uint64_t)p->file_mtime_ns);
  return h;
}

static void fill_info(tt_pjrt_runtime_t *rt) {
  tt_pjrt_info_t *info = &rt->info;
  info->plugin_path = rt->plugin.path;
  info->platform_name = rt->platform_name;
  info->platform_version = rt->platform_version;
  info->device_kind = rt->device_kind;
  info->xla_version = rt->plugin.xla_version;
  info->api_major = rt->plugin.api->pjrt_api_version.major_version;
  info->api_minor = rt->plugin.api->pjrt_api_version.minor_version;
  info->num_devices = (int)rt->num_devices;
  info->identity = identity(rt);
}

tt_status_t tt_pjrt_runtime_create(const char *path, const tt_pjrt_options_t *options,
                                   tt_pjrt_runtime_t **out_runtime) {
  *out_runtime = NULL;
  tt_pjrt_runtime_t *rt = tt_calloc(1, sizeof *rt);
  if (!rt) return oom();
  tt_status_t status = tt_pjrt_plugin_load(path, &rt->plugin);
  if (status) {
    tt_free(rt);
    return status;
  }
  status = tt_pjrt_client_open(rt, options);
  if (status) {
    tt_pjrt_runtime_destroy(rt);
    return status;
  }
  fill_info(rt);
  *out_runtime = rt;
  return TT_OK_STATUS;
}

void tt_pjrt_runtime_destroy(tt_pjrt_runtime_t *rt) {
  if (!rt) return;
  tt_pjrt_client_close(rt);
  tt_pjrt_plugin_release(&rt->plugin);
  tt_free(rt);
}

const tt_pjrt_info_t *tt_pjrt_runtime_info(const tt_pjrt_runtime_t *rt) { return &rt->info; }

int tt_pjrt_runtime_stablehlo_version(const tt_pjrt_runtime_t *rt, int64_t out_version[3]) {
  if (!rt->plugin.has_stablehlo_version) return 0;
  memcpy(out_version, rt->plugin.stablehlo_version, sizeof rt->plugin.stablehlo_version);
  return 1;
}
