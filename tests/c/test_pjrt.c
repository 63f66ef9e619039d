/* Tests of the PJRT runtime layer against a real plugin.
 *
 * TORCH_TPU_PJRT_PLUGIN: the plugin to test (required).
 * TT_FAKE_PJRT_PLUGIN: optional, a build of tests/c/test_pjrt_fakeplugin.c,
 *   used to check that too-old API versions and short tables are refused.
 * Prints "N passed, M failed" and exits non-zero on any failure. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "pjrt/client_options.h"
#include "pjrt/runtime.h"

static const char *g_plugin;

/* ------------------------------------------------------------ helpers */

static tt_pjrt_buffer_t *upload(tt_pjrt_runtime_t *rt, const void *data, tt_dtype_t dt,
                                const int64_t *dims, int rank) {
  tt_pjrt_buffer_t *b = NULL;
  CHECK_OK(tt_pjrt_buffer_from_host(rt, data, dt, dims, rank, 0, &b));
  return b;
}

static tt_pjrt_executable_t *compile(tt_pjrt_runtime_t *rt, const char *mlir, int replicas,
                                     const char *what) {
  tt_pjrt_executable_t *exe = NULL;
  CHECK_OK(tt_pjrt_compile(rt, mlir, strlen(mlir), replicas, what, &exe));
  return exe;
}

/* Runs a 1-replica program on `args`, fills `outs`; returns 1 on success. */
static int run(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe, tt_pjrt_buffer_t *const *args,
               size_t nargs, tt_pjrt_buffer_t **outs) {
  if (!exe) return 0;
  return CHECK_OK(tt_pjrt_execute(rt, exe, args, nargs, "test program", outs));
}

/* ------------------------------------------------------------ tests */

static void test_info(tt_pjrt_runtime_t *rt) {
  const tt_pjrt_info_t *info = tt_pjrt_runtime_info(rt);
  int64_t shlo[3] = {0, 0, 0};
  int has_shlo = tt_pjrt_runtime_stablehlo_version(rt, shlo);
  printf("plugin: %s\n  api %d.%d, platform '%s' version '%s', device kind '%s',\n"
         "  xla_version '%s', devices %d, stablehlo %s%lld.%lld.%lld, identity %016llx\n",
         info->plugin_path, info->api_major, info->api_minor, info->platform_name,
         info->platform_version, info->device_kind, info->xla_version, info->num_devices,
         has_shlo ? "" : "(not reported) ", (long long)shlo[0], (long long)shlo[1],
         (long long)shlo[2], (unsigned long long)info->identity);
  CHECK(info->api_major == 0 && info->api_minor >= 57);
  CHECK(strcmp(info->platform_name, "cpu") == 0);
  CHECK(info->num_devices == 1); /* cpu_device_count 0 means 1 */
  CHECK(info->identity != 0);
  CHECK(strcmp(info->plugin_path, g_plugin) == 0);
}

static void test_f32_roundtrip_and_reuse(tt_pjrt_runtime_t *rt) {
  float host[6] = {1, 2, 3, 4, 5, 6};
  const int64_t dims[2] = {2, 3};
  tt_pjrt_buffer_t *b = upload(rt, host, TT_F32, dims, 2);
  if (!b) return;
  /* The host data may be reused as soon as from_host returns. */
  for (int i = 0; i < 6; i++) host[i] = -1;
  float back[6] = {0};
  CHECK_OK(tt_pjrt_buffer_to_host(rt, b, back, sizeof back));
  for (int i = 0; i < 6; i++) CHECK(back[i] == (float)(i + 1));
  CHECK(tt_pjrt_buffer_size(rt, b) >= sizeof back);
  CHECK_OK(tt_pjrt_buffer_await(rt, b));
  /* Wrong destination size is an error, not a partial copy. */
  tt_status_t s = tt_pjrt_buffer_to_host(rt, b, back, sizeof back - 4);
  CHECK(s != NULL);
  tt_status_free(s);
  tt_pjrt_buffer_destroy(rt, b);
}

static const char *kAddF32 =
    "module @m {\n"
    "  func.func public @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
    "    %0 = stablehlo.add %a, %b : tensor<2x3xf32>\n"
    "    return %0 : tensor<2x3xf32>\n"
    "  }\n"
    "}\n";

static void test_add_f32(tt_pjrt_runtime_t *rt) {
  const float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {10, 20, 30, 40, 50, 60};
  const int64_t dims[2] = {2, 3};
  tt_pjrt_buffer_t *args[2] = {upload(rt, x, TT_F32, dims, 2), upload(rt, y, TT_F32, dims, 2)};
  tt_pjrt_executable_t *exe = compile(rt, kAddF32, 1, "add_f32");
  if (exe) CHECK(tt_pjrt_executable_num_outputs(exe) == 1);
  tt_pjrt_buffer_t *out[1] = {NULL};
  if (args[0] && args[1] && run(rt, exe, args, 2, out)) {
    float r[6] = {0};
    CHECK_OK(tt_pjrt_buffer_to_host(rt, out[0], r, sizeof r));
    for (int i = 0; i < 6; i++) CHECK(r[i] == x[i] + y[i]);
    tt_pjrt_buffer_destroy(rt, out[0]);
  }
  tt_pjrt_executable_destroy(rt, exe);
  tt_pjrt_buffer_destroy(rt, args[0]);
  tt_pjrt_buffer_destroy(rt, args[1]);
}

/* Uploads, downloads and compares `nbytes` of `data` as `dt`. */
static void roundtrip(tt_pjrt_runtime_t *rt, const void *data, size_t nbytes, tt_dtype_t dt,
                      int64_t n) {
  tt_pjrt_buffer_t *b = upload(rt, data, dt, &n, 1);
  if (!b) return;
  unsigned char back[64] = {0};
  CHECK_OK(tt_pjrt_buffer_to_host(rt, b, back, nbytes));
  CHECK(memcmp(back, data, nbytes) == 0);
  tt_pjrt_buffer_destroy(rt, b);
}

/* Runs a unary program text on `in` (n elements) and compares to `expect`. */
static void unary(tt_pjrt_runtime_t *rt, const char *mlir, const void *in, const void *expect,
                  size_t nbytes, tt_dtype_t dt, int64_t n, const char *what) {
  tt_pjrt_buffer_t *arg = upload(rt, in, dt, &n, 1);
  tt_pjrt_executable_t *exe = compile(rt, mlir, 1, what);
  tt_pjrt_buffer_t *out[1] = {NULL};
  if (arg && run(rt, exe, &arg, 1, out)) {
    unsigned char r[64] = {0};
    CHECK_OK(tt_pjrt_buffer_to_host(rt, out[0], r, nbytes));
    if (memcmp(r, expect, nbytes) != 0) fprintf(stderr, "  (%s: wrong values)\n", what);
    CHECK(memcmp(r, expect, nbytes) == 0);
    tt_pjrt_buffer_destroy(rt, out[0]);
  }
  tt_pjrt_executable_destroy(rt, exe);
  tt_pjrt_buffer_destroy(rt, arg);
}

static void test_dtypes(tt_pjrt_runtime_t *rt) {
  const int64_t i64[4] = {1, -2, 3000000000000LL, INT64_MIN};
  const int64_t i64_neg[4] = {-1, 2, -3000000000000LL, INT64_MIN};
  roundtrip(rt, i64, sizeof i64, TT_I64, 4);
  unary(rt,
        "module @m { func.func public @main(%a: tensor<4xi64>) -> tensor<4xi64> {\n"
        "  %0 = stablehlo.negate %a : tensor<4xi64>\n  return %0 : tensor<4xi64> } }\n",
        i64, i64_neg, sizeof i64, TT_I64, 4, "negate_i64");

  const unsigned char pred[4] = {1, 0, 0, 1}, pred_not[4] = {0, 1, 1, 0};
  roundtrip(rt, pred, sizeof pred, TT_BOOL, 4);
  unary(rt,
        "module @m { func.func public @main(%a: tensor<4xi1>) -> tensor<4xi1> {\n"
        "  %0 = stablehlo.not %a : tensor<4xi1>\n  return %0 : tensor<4xi1> } }\n",
        pred, pred_not, sizeof pred, TT_BOOL, 4, "not_i1");

  /* bf16 bit patterns: 1.0, 2.0, -3.5, 0.5 and their doubles. */
  const uint16_t bf[4] = {0x3F80, 0x4000, 0xC060, 0x3F00};
  const uint16_t bf2[4] = {0x4000, 0x4080, 0xC0E0, 0x3F80};
  roundtrip(rt, bf, sizeof bf, TT_BF16, 4);
  unary(rt,
        "module @m { func.func public @main(%a: tensor<4xbf16>) -> tensor<4xbf16> {\n"
        "  %0 = stablehlo.add %a, %a : tensor<4xbf16>\n  return %0 : tensor<4xbf16> } }\n",
        bf, bf2, sizeof bf, TT_BF16, 4, "double_bf16");

  const uint8_t u8[4] = {0, 1, 200, 255};
  roundtrip(rt, u8, sizeof u8, TT_U8, 4);
  const double f64[2] = {1.0 / 3.0, -1e300};
  roundtrip(rt, f64, sizeof f64, TT_F64, 2);
  const uint16_t f16[3] = {0x3C00, 0xC000, 0x7BFF};
  roundtrip(rt, f16, sizeof f16, TT_F16, 3);
  const uint32_t u32[2] = {0xFFFFFFFFu, 7};
  roundtrip(rt, u32, sizeof u32, TT_U32, 2);

  /* A rank-0 scalar. */
  const int32_t scalar = 42;
  tt_pjrt_buffer_t *b = NULL;
  if (CHECK_OK(tt_pjrt_buffer_from_host(rt, &scalar, TT_I32, NULL, 0, 0, &b))) {
    int32_t back = 0;
    CHECK_OK(tt_pjrt_buffer_to_host(rt, b, &back, sizeof back));
    CHECK(back == 42);
    tt_pjrt_buffer_destroy(rt, b);
  }
}

static const char *kTwoOutputs =
    "module @m {\n"
    "  func.func public @main(%a: tensor<3xf32>, %b: tensor<3xf32>)\n"
    "      -> (tensor<3xf32>, tensor<3xf32>) {\n"
    "    %0 = stablehlo.add %a, %b : tensor<3xf32>\n"
    "    %1 = stablehlo.multiply %a, %b : tensor<3xf32>\n"
    "    return %0, %1 : tensor<3xf32>, tensor<3xf32>\n"
    "  }\n"
    "}\n";

static void check_two_outputs(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe) {
  const float x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
  const int64_t n = 3;
  tt_pjrt_buffer_t *args[2] = {upload(rt, x, TT_F32, &n, 1), upload(rt, y, TT_F32, &n, 1)};
  CHECK(tt_pjrt_executable_num_outputs(exe) == 2);
  tt_pjrt_buffer_t *out[2] = {NULL, NULL};
  if (args[0] && args[1] && run(rt, exe, args, 2, out)) {
    float s[3], p[3];
    CHECK_OK(tt_pjrt_buffer_to_host(rt, out[0], s, sizeof s));
    CHECK_OK(tt_pjrt_buffer_to_host(rt, out[1], p, sizeof p));
    for (int i = 0; i < 3; i++) CHECK(s[i] == x[i] + y[i] && p[i] == x[i] * y[i]);
    tt_pjrt_buffer_destroy(rt, out[0]);
    tt_pjrt_buffer_destroy(rt, out[1]);
  }
  tt_pjrt_buffer_destroy(rt, args[0]);
  tt_pjrt_buffer_destroy(rt, args[1]);
}

static void test_two_outputs_and_serialize(tt_pjrt_runtime_t *rt) {
  tt_pjrt_executable_t *exe = compile(rt, kTwoOutputs, 1, "two_outputs");
  if (!exe) return;
  check_two_outputs(rt, exe);

  void *data = NULL;
  size_t size = 0;
  if (CHECK_OK(tt_pjrt_executable_serialize(rt, exe, &data, &size))) {
    printf("  serialized executable: %zu bytes\n", size);
    CHECK(size > 0);
    tt_pjrt_executable_t *again = NULL;
    if (CHECK_OK(tt_pjrt_executable_deserialize(rt, data, size, &again))) {
      check_two_outputs(rt, again);
      tt_pjrt_executable_destroy(rt, again);
    }
    tt_free(data);
  }
  /* Garbage is an error, not a crash. */
  tt_pjrt_executable_t *bad = NULL;
  tt_status_t s = tt_pjrt_executable_deserialize(rt, "not an executable", 17, &bad);
  CHECK(s != NULL && bad == NULL);
  if (s) printf("  bad deserialize -> %s\n", tt_status_message(s));
  tt_status_free(s);
  tt_pjrt_executable_destroy(rt, exe);
}

static void test_compile_error(tt_pjrt_runtime_t *rt) {
  const char *bad = "module @m { func.func public @main( this is not mlir";
  tt_pjrt_executable_t *exe = NULL;
  tt_status_t s = tt_pjrt_compile(rt, bad, strlen(bad), 1, "aten::bogus", &exe);
  CHECK(s != NULL && exe == NULL);
  if (!s) return;
  const char *msg = tt_status_message(s);
  printf("  compile error -> %s: %.300s%s\n", tt_code_name(tt_status_code(s)), msg,
         strlen(msg) > 300 ? "..." : "");
  CHECK(strstr(msg, "aten::bogus") != NULL); /* names the op */
  CHECK(strstr(msg, g_plugin) != NULL);      /* names the plugin */
  /* Carries the plugin's own words after our prefix (the MLIR parser error). */
  const char *colon = strstr(msg, "): ");
  CHECK(colon && strlen(colon) > 10);
  tt_status_free(s);
}

/* The plugin takes the compile options with the excess-precision override
 * (env_option_overrides) and the program compiles; so with every override. */
static void test_exact_precision_option(tt_pjrt_runtime_t *rt) {
  tt_pjrt_compile_options_t o = {1, 1, 0, -1, 0};
  tt_pjrt_executable_t *exe = NULL;
  if (CHECK_OK(tt_pjrt_compile_with(rt, kAddF32, strlen(kAddF32), &o, "add (exact precision)", &exe)))
    CHECK(tt_pjrt_executable_num_outputs(exe) == 1);
  tt_pjrt_executable_destroy(rt, exe);
  exe = NULL;
  /* Every override at once: level 1 and XLA CPU's classic emitters too. */
  tt_pjrt_compile_options_t all = {1, 1, 0, 1, 1};
  if (CHECK_OK(tt_pjrt_compile_with(rt, kAddF32, strlen(kAddF32), &all, "add (all overrides)", &exe)))
    CHECK(tt_pjrt_executable_num_outputs(exe) == 1);
  tt_pjrt_executable_destroy(rt, exe);
  o.num_replicas = 0;
  tt_status_t s = tt_pjrt_compile_with(rt, kAddF32, strlen(kAddF32), &o, "add", &exe);
  CHECK(s && tt_status_code(s) == TT_INVALID_ARGUMENT);
  tt_status_free(s);
}

static void test_execute_arg_errors(tt_pjrt_runtime_t *rt) {
  tt_pjrt_executable_t *exe = compile(rt, kAddF32, 1, "add_f32");
  if (!exe) return;
  const float x[3] = {1, 2, 3};
  const int64_t n = 3; /* wrong shape for the program */
  tt_pjrt_buffer_t *args[2] = {upload(rt, x, TT_F32, &n, 1), upload(rt, x, TT_F32, &n, 1)};
  tt_pjrt_buffer_t *out[1] = {NULL};
  tt_status_t s = tt_pjrt_execute(rt, exe, args, 2, "aten::add", out);
  if (!s) { /* some plugins only fail when the result is awaited */
    s = tt_pjrt_buffer_await(rt, out[0]);
    tt_pjrt_buffer_destroy(rt, out[0]);
  }
  CHECK(s != NULL);
  if (s) printf("  wrong-shape execute -> %.200s\n", tt_status_message(s));
  tt_status_free(s);
  tt_pjrt_buffer_destroy(rt, args[0]);
  tt_pjrt_buffer_destroy(rt, args[1]);
  tt_pjrt_executable_destroy(rt, exe);
}

static void expect_load_error(const char *path, const char *label) {
  tt_pjrt_runtime_t *rt = NULL;
  tt_status_t s = tt_pjrt_runtime_create(path, NULL, &rt);
  CHECK(s != NULL && rt == NULL);
  if (!s) {
    tt_pjrt_runtime_destroy(rt);
    return;
  }
  printf("  %s -> %s: %s\n", label, tt_code_name(tt_status_code(s)), tt_status_message(s));
  CHECK(tt_status_code(s) == TT_UNAVAILABLE);
  CHECK(strstr(tt_status_message(s), path) != NULL);
  tt_status_free(s);
}

static void test_load_errors(void) {
  expect_load_error("/nonexistent/dir/libnope_pjrt.so", "nonexistent path");
  const char *text = "/tmp/tt_test_pjrt_not_a_library.so";
  FILE *f = fopen(text, "w");
  if (f) {
    fputs("this is a text file, not ELF\n", f);
    fclose(f);
    expect_load_error(text, "text file");
    remove(text);
  }
  expect_load_error("/lib/x86_64-linux-gnu/libm.so.6", "library without GetPjrtApi");
  expect_load_error("/tmp", "a directory");
}

static void test_fake_plugin(void) {
  const char *fake = getenv("TT_FAKE_PJRT_PLUGIN");
  if (!fake || !fake[0]) {
    printf("  (TT_FAKE_PJRT_PLUGIN not set: version-refusal tests skipped)\n");
    return;
  }
  /* The fake reports the version/size it finds in these variables. */
  setenv("TT_FAKE_PJRT_MINOR", "50", 1);
  expect_load_error(fake, "API 0.50 plugin");
  setenv("TT_FAKE_PJRT_MINOR", "81", 1);
  setenv("TT_FAKE_PJRT_MAJOR", "1", 1);
  expect_load_error(fake, "API 1.81 plugin");
  setenv("TT_FAKE_PJRT_MAJOR", "0", 1);
  setenv("TT_FAKE_PJRT_SLOTS", "40", 1);
  expect_load_error(fake, "short function table");
}

static void test_discover(void) {
  char *path = NULL;
  tt_env_t env;
  setenv("TORCH_TPU_PJRT_PLUGIN", "/some/plugin.so", 1);
  tt_env_read(&env);
  if (CHECK_OK(tt_pjrt_discover_plugin(&env, "/fallback.so", &path))) {
    CHECK(strcmp(path, "/some/plugin.so") == 0);
    tt_free(path);
  }
  unsetenv("TORCH_TPU_PJRT_PLUGIN");
  unsetenv("TPU_LIBRARY_PATH");
  tt_env_free(&env);
  tt_env_read(&env);
  if (CHECK_OK(tt_pjrt_discover_plugin(&env, "/fallback.so", &path))) {
    CHECK(strcmp(path, "/fallback.so") == 0);
    tt_free(path);
  }
  tt_status_t s = tt_pjrt_discover_plugin(&env, NULL, &path);
  CHECK(s != NULL && path == NULL);
  tt_status_free(s);
  tt_env_free(&env);
  setenv("TORCH_TPU_PJRT_PLUGIN", g_plugin, 1);
}

static const char *kAllReduce =
    "module @m attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {\n"
    "  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
    "    %0 = \"stablehlo.all_reduce\"(%a) ({\n"
    "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
    "      %s = stablehlo.add %x, %y : tensor<f32>\n"
    "      stablehlo.return %s : tensor<f32>\n"
    "    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}\n"
    "       : (tensor<3xf32>) -> tensor<3xf32>\n"
    "    return %0 : tensor<3xf32>\n"
    "  }\n"
    "}\n";

static void test_replicated(void) {
  tt_pjrt_options_t opts = {.cpu_device_count = 2};
  tt_pjrt_runtime_t *rt = NULL;
  if (!CHECK_OK(tt_pjrt_runtime_create(g_plugin, &opts, &rt))) return;
  const tt_pjrt_info_t *info = tt_pjrt_runtime_info(rt);
  printf("  cpu_device_count=2 -> %d devices\n", info->num_devices);
  CHECK(info->num_devices == 2);
  tt_pjrt_executable_t *exe = compile(rt, kAllReduce, 2, "all_reduce");
  if (exe && info->num_devices >= 2) {
    const float x0[3] = {1, 2, 3}, x1[3] = {10, 20, 30};
    const int64_t n = 3;
    tt_pjrt_buffer_t *args[2] = {NULL, NULL};
    CHECK_OK(tt_pjrt_buffer_from_host(rt, x0, TT_F32, &n, 1, 0, &args[0]));
    CHECK_OK(tt_pjrt_buffer_from_host(rt, x1, TT_F32, &n, 1, 1, &args[1]));
    tt_pjrt_buffer_t *outs[2] = {NULL, NULL};
    if (args[0] && args[1] &&
        CHECK_OK(tt_pjrt_execute_replicated(rt, exe, 2, args, 1, "all_reduce", outs))) {
      for (int d = 0; d < 2; d++) {
        float r[3] = {0};
        CHECK_OK(tt_pjrt_buffer_to_host(rt, outs[d], r, sizeof r));
        for (int i = 0; i < 3; i++) CHECK(r[i] == x0[i] + x1[i]);
        tt_pjrt_buffer_destroy(rt, outs[d]);
      }
    }
    /* A replicated program through the single-device entry is refused. */
    tt_status_t s = tt_pjrt_execute(rt, exe, args, 1, "all_reduce", outs);
    CHECK(s != NULL);
    tt_status_free(s);
    tt_pjrt_buffer_destroy(rt, args[0]);
    tt_pjrt_buffer_destroy(rt, args[1]);
  }
  tt_pjrt_executable_destroy(rt, exe);
  tt_pjrt_runtime_destroy(rt);
}

/* TORCH_TPU_PJRT_CLIENT_OPTIONS's text: values typed by spelling, malformed
 * entries refused with the variable's name; on the plugin, a user's
 * cpu_device_count wins over ours, and a name the plugin refuses says where
 * it came from. */
static void test_client_options(void) {
  tt_pjrt_client_options_t o;
  if (CHECK_OK(tt_pjrt_client_options_parse("preallocate=false,memory_fraction=0.5,n=-3,allocator=platform,x=1e2",
                                            "VAR", &o))) {
    CHECK(o.count == 5);
    CHECK(o.items[0].type == PJRT_NamedValue_kBool && !o.items[0].bool_value);
    CHECK(o.items[1].type == PJRT_NamedValue_kFloat && o.items[1].float_value == 0.5f);
    CHECK(o.items[2].type == PJRT_NamedValue_kInt64 && o.items[2].int64_value == -3);
    CHECK(o.items[3].type == PJRT_NamedValue_kString && o.items[3].value_size == 8 &&
          !memcmp(o.items[3].string_value, "platform", 8));
    CHECK(o.items[4].type == PJRT_NamedValue_kFloat && o.items[4].float_value == 100.0f);
    CHECK(o.items[1].name_size == strlen("memory_fraction") && tt_pjrt_client_options_find(&o, "allocator") == 3);
    CHECK(tt_pjrt_client_options_find(&o, "alloc") == -1);
    tt_pjrt_client_options_free(&o);
  }
  if (CHECK_OK(tt_pjrt_client_options_parse(NULL, "VAR", &o))) {
    CHECK(o.count == 0);
    tt_pjrt_client_options_free(&o);
  }
  const char *bad[] = {"preallocate", "=1", "a=", "a=1,a=2"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    tt_status_t s = tt_pjrt_client_options_parse(bad[i], "VAR", &o);
    CHECK(s && tt_status_code(s) == TT_INVALID_ARGUMENT && strstr(tt_status_message(s), "VAR"));
    tt_status_free(s);
  }

  /* The user's cpu_device_count reaches the CPU plugin (other plugins refuse
   * or ignore the name: not asked there). */
  tt_pjrt_runtime_t *rt = NULL;
  int cpu = 0;
  if (CHECK_OK(tt_pjrt_runtime_create(g_plugin, NULL, &rt))) {
    cpu = !strcmp(tt_pjrt_runtime_info(rt)->platform_name, "cpu");
    tt_pjrt_runtime_destroy(rt);
    rt = NULL;
  }
  tt_pjrt_options_t two = {.cpu_device_count = 1, .client_options = "cpu_device_count=2"};
  if (cpu && CHECK_OK(tt_pjrt_runtime_create(g_plugin, &two, &rt))) {
    CHECK(tt_pjrt_runtime_info(rt)->num_devices == 2);
    tt_pjrt_runtime_destroy(rt);
    rt = NULL;
  }
  /* XLA's CUDA plugin refuses a name it does not know; the CPU plugin
   * (xla-cpu-pjrt 0.0.1) ignores it. */
  tt_pjrt_options_t unknown = {.client_options = "no_such_option_here=1"};
  tt_status_t s = tt_pjrt_runtime_create(g_plugin, &unknown, &rt);
  printf("  unknown client option -> %s\n", s ? tt_status_message(s) : "accepted (not validated by this plugin)");
  if (s)
    CHECK(strstr(tt_status_message(s), "TORCH_TPU_PJRT_CLIENT_OPTIONS") &&
          strstr(tt_status_message(s), "no_such_option_here") && rt == NULL);
  else
    tt_pjrt_runtime_destroy(rt);
  tt_status_free(s);
  rt = NULL;
  tt_pjrt_options_t malformed = {.client_options = "preallocate"};
  s = tt_pjrt_runtime_create(g_plugin, &malformed, &rt);
  CHECK(s && tt_status_code(s) == TT_INVALID_ARGUMENT && strstr(tt_status_message(s), "TORCH_TPU_PJRT_CLIENT_OPTIONS") &&
        rt == NULL);
  tt_status_free(s);
}

/* Every host allocation failing in turn gives OUT_OF_MEMORY, never a crash
 * or a leak (the plugin's own allocations do not go through tt_malloc). */
static void test_alloc_failures(void) {
  int created = 0;
  for (long k = 0; k < 64 && !created; k++) {
    tt_pjrt_runtime_t *rt = NULL;
    tt_alloc_fail_after(k);
    tt_status_t s = tt_pjrt_runtime_create(g_plugin, NULL, &rt);
    tt_pjrt_executable_t *exe = NULL;
    tt_status_t c = s ? NULL : tt_pjrt_compile(rt, kAddF32, strlen(kAddF32), 1, "add", &exe);
    tt_alloc_fail_after(-1);
    if (s) {
      CHECK(tt_status_code(s) == TT_OUT_OF_MEMORY && rt == NULL);
      tt_status_free(s);
      continue;
    }
    CHECK(c == NULL || tt_status_code(c) == TT_OUT_OF_MEMORY);
    created = c == NULL;
    tt_status_free(c);
    tt_pjrt_executable_destroy(rt, exe);
    tt_pjrt_runtime_destroy(rt);
  }
  CHECK(created);
}

int main(void) {
  g_plugin = getenv("TORCH_TPU_PJRT_PLUGIN");
  if (!g_plugin || !g_plugin[0]) {
    fprintf(stderr, "set TORCH_TPU_PJRT_PLUGIN to the PJRT plugin to test\n");
    return 2;
  }
  tt_pjrt_runtime_t *rt = NULL;
  if (CHECK_OK(tt_pjrt_runtime_create(g_plugin, NULL, &rt))) {
    test_info(rt);
    test_f32_roundtrip_and_reuse(rt);
    test_add_f32(rt);
    test_dtypes(rt);
    test_two_outputs_and_serialize(rt);
    test_compile_error(rt);
    test_exact_precision_option(rt);
    test_execute_arg_errors(rt);
    tt_pjrt_runtime_destroy(rt);
  }
  test_load_errors();
  test_fake_plugin();
  test_discover();
  test_replicated();
  test_client_options();
  test_alloc_failures();
  /* A second runtime on the same plugin: Initialize must not run twice. */
  if (CHECK_OK(tt_pjrt_runtime_create(g_plugin, NULL, &rt))) {
    test_add_f32(rt);
    tt_pjrt_runtime_destroy(rt);
  }
  return check_summary();
}
