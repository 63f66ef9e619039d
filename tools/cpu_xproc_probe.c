/* Probe: can a CPU PJRT plugin run one collective across processes?
 *
 * Run it twice at once, as ranks 0 and 1:
 *   gcc -std=c11 -D_GNU_SOURCE -Icsrc tools/cpu_xproc_probe.c -o build/cpu_xproc_probe -ldl
 *   build/cpu_xproc_probe PLUGIN 0 [NAME...] & build/cpu_xproc_probe PLUGIN 1 [NAME...]
 * Each creates a client with cpu_device_count = 1, process_id = RANK (and
 * every extra NAME as an int64 option: "num_" names get 2, others RANK), and
 * key-value callbacks backed by files in /tmp/tt_xproc_kv (they print when the
 * plugin calls them); prints the process index and the global and addressable
 * devices, then compiles a 2-replica all_reduce. A plugin that can would
 * exchange its topology through the callbacks and list both processes'
 * devices. Findings for the plugins we know: README, "Which path runs
 * collectives where". Not part of the build or the tests. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pjrt/pjrt_api.h"

/* The few PJRT args layouts this probe needs beyond pjrt_api.h (minor 81+). */
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *ext;
  const PJRT_NamedValue *create_options;
  size_t num_options;
  void *kv_get, *kv_get_arg, *kv_put, *kv_put_arg;
  PJRT_Client *client;
  void *kv_try_get, *kv_try_get_arg;
} create_args_t;
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *ext;
  PJRT_Client *client;
  int process_index;
} process_index_args_t;
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *ext;
  PJRT_Client *client;
  PJRT_Device *const *devices;
  size_t num_devices;
} devices_args_t;
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *ext;
  PJRT_Device *device;
  PJRT_DeviceDescription *description;
} get_description_args_t;
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *ext;
  PJRT_DeviceDescription *description;
  int value;
} description_int_args_t;
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *ext;
  PJRT_Client *client;
  const PJRT_Program *program;
  const char *options;
  size_t options_size;
  PJRT_LoadedExecutable *executable;
} compile_args_t;
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *ext;
  const char *key;
  size_t key_size;
  int timeout_in_ms;
  void *callback_error, *user_arg;
  char *value;
  size_t value_size;
  void (*value_deleter)(char *);
} kv_get_args_t;
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *ext;
  const char *key;
  size_t key_size;
  const char *value;
  size_t value_size;
  void *callback_error, *user_arg;
} kv_put_args_t;

enum { SLOT_PROCESS_INDEX = 13, SLOT_DEVICES = 15, SLOT_DESC_ID = 23, SLOT_DESC_PROCESS = 24 };

static const PJRT_Api *g_api;
static int g_rank;
#define KV_DIR "/tmp/tt_xproc_kv"

static PJRT_Error *call(int slot, void *args) {
  return ((PJRT_Error * (*)(void *)) g_api->fn[slot])(args);
}

static void report(PJRT_Error *err, const char *what) {
  if (!err) {
    printf("[rank %d] %s: ok\n", g_rank, what);
    return;
  }
  PJRT_Error_Message_Args m;
  memset(&m, 0, sizeof m);
  m.struct_size = TT_PJRT_SIZE(PJRT_Error_Message_Args, message_size);
  m.error = err;
  TT_PJRT_CALL_VOID(g_api, Error_Message, &m);
  printf("[rank %d] %s: ERROR %.*s\n", g_rank, what, (int)m.message_size, m.message);
}

static void kv_path(const char *key, size_t n, char *out, size_t cap) {
  snprintf(out, cap, KV_DIR "/%.*s", (int)n, key);
  for (char *p = out + strlen(KV_DIR) + 1; *p; p++)
    if (*p == '/') *p = '_';
}

static PJRT_Error *kv_get(kv_get_args_t *a) {
  printf("[rank %d] plugin called kv_get('%.*s')\n", g_rank, (int)a->key_size, a->key);
  char path[512];
  kv_path(a->key, a->key_size, path, sizeof path);
  for (int waited = 0; waited <= a->timeout_in_ms; waited += 10) {
    FILE *f = fopen(path, "rb");
    if (f) {
      char *buf = malloc(1 << 20);
      a->value_size = buf ? fread(buf, 1, 1 << 20, f) : 0;
      a->value = buf;
      a->value_deleter = (void (*)(char *))free;
      fclose(f);
      return NULL;
    }
    usleep(10000);
  }
  return NULL; /* the plugin sees no value */
}

static PJRT_Error *kv_put(kv_put_args_t *a) {
  printf("[rank %d] plugin called kv_put('%.*s', %zu bytes)\n", g_rank, (int)a->key_size, a->key,
         a->value_size);
  char path[512];
  kv_path(a->key, a->key_size, path, sizeof path);
  FILE *f = fopen(path, "wb");
  if (f) {
    fwrite(a->value, 1, a->value_size, f);
    fclose(f);
  }
  return NULL;
}

static void list_devices(PJRT_Client *client, int slot, const char *what) {
  devices_args_t d = {.struct_size = sizeof d, .client = client};
  report(call(slot, &d), what);
  printf("[rank %d]   %zu devices:", g_rank, d.num_devices);
  for (size_t i = 0; i < d.num_devices; i++) {
    get_description_args_t g = {.struct_size = sizeof g, .device = d.devices[i]};
    call(TT_PJRT_SLOT_Device_GetDescription, &g);
    description_int_args_t id = {.struct_size = sizeof id, .description = g.description};
    description_int_args_t pr = {.struct_size = sizeof pr, .description = g.description};
    call(SLOT_DESC_ID, &id);
    call(SLOT_DESC_PROCESS, &pr);
    printf(" (id %d, process %d)", id.value, pr.value);
  }
  printf("\n");
}

static const char kAllReduce[] =
    "module @m attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {\n"
    "  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
    "    %0 = \"stablehlo.all_reduce\"(%a) ({\n"
    "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
    "      %s = \"stablehlo.add\"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
    "      \"stablehlo.return\"(%s) : (tensor<f32>) -> ()\n"
    "    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>\n"
    "    \"func.return\"(%0) : (tensor<3xf32>) -> ()\n  }\n}\n";

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s PLUGIN RANK [OPTION_NAME...]\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IONBF, 0);
  g_rank = atoi(argv[2]);
  mkdir(KV_DIR, 0700);
  void *dl = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  const PJRT_Api *(*get_api)(void) = dl ? (const PJRT_Api *(*)(void))dlsym(dl, "GetPjrtApi") : NULL;
  if (!get_api) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  g_api = get_api();
  printf("[rank %d] %s: PJRT API %d.%d\n", g_rank, argv[1], g_api->pjrt_api_version.major_version,
         g_api->pjrt_api_version.minor_version);
  PJRT_Plugin_Initialize_Args init = {.struct_size = sizeof init};
  report(TT_PJRT_CALL(g_api, Plugin_Initialize, &init), "PJRT_Plugin_Initialize");

  PJRT_NamedValue opts[16];
  int n = 0;
  for (int i = 0; i < argc - 1 && n < 16; i++) {
    const char *name = i == 0 ? "cpu_device_count" : i == 1 ? "process_id" : argv[i + 1];
    int64_t value = i == 0 ? 1 : strncmp(name, "num_", 4) == 0 ? 2 : g_rank;
    memset(&opts[n], 0, sizeof opts[n]);
    opts[n].struct_size = TT_PJRT_SIZE(PJRT_NamedValue, value_size);
    opts[n].name = name;
    opts[n].name_size = strlen(name);
    opts[n].type = PJRT_NamedValue_kInt64;
    opts[n].int64_value = value;
    opts[n].value_size = 1;
    printf("[rank %d] option %s = %lld\n", g_rank, name, (long long)value);
    n++;
  }
  create_args_t c = {.struct_size = sizeof c, .create_options = opts, .num_options = (size_t)n,
                     .kv_get = (void *)kv_get, .kv_put = (void *)kv_put};
  report(TT_PJRT_CALL(g_api, Client_Create, &c), "PJRT_Client_Create");
  if (!c.client) return 1;
  process_index_args_t pi = {.struct_size = sizeof pi, .client = c.client};
  report(call(SLOT_PROCESS_INDEX, &pi), "PJRT_Client_ProcessIndex");
  printf("[rank %d]   process index %d\n", g_rank, pi.process_index);
  list_devices(c.client, SLOT_DEVICES, "PJRT_Client_Devices (global)");
  list_devices(c.client, TT_PJRT_SLOT_Client_AddressableDevices, "PJRT_Client_AddressableDevices");

  PJRT_Program program = {.struct_size = TT_PJRT_SIZE(PJRT_Program, format_size),
                          .code = (char *)kAllReduce, .code_size = sizeof kAllReduce - 1,
                          .format = "mlir", .format_size = 4};
  /* CompileOptionsProto{executable_build_options: {device_ordinal: -1,
   * num_replicas: 2, num_partitions: 1}} */
  static const unsigned char kOptions[] = {0x1A, 0x0F, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                           0xFF, 0xFF, 0xFF, 0x01, 0x20, 0x02, 0x28, 0x01};
  compile_args_t ca = {.struct_size = sizeof ca, .client = c.client, .program = &program,
                       .options = (const char *)kOptions, .options_size = sizeof kOptions};
  report(TT_PJRT_CALL(g_api, Client_Compile, &ca), "PJRT_Client_Compile (2-replica all_reduce)");
  return 0;
}
