/* Small programs compile with XLA CPU's classic emitters (exec/opt_level.h):
 * which module texts count as small, the engine's bound from the
 * environment and the platform, the bound in the compile-options key, and
 * the same values either way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/call.h"
#include "check.h"
#include "exec/find.h"
#include "exec/opt_level.h"
#include "ops/registry.h"
#include "refs.h"
#include "test_engine.h"

static int small(const char *text, int64_t bound) { return tt_module_is_small(text, strlen(text), bound); }

static void test_module_is_small(void) {
  const char *m = "func.func @main(%a: tensor<4x8xf32>, %b: tensor<f32>) -> tensor<32xi32>";
  CHECK(small(m, 32));
  CHECK(!small(m, 31));                                          /* 4x8 is 32 elements */
  CHECK(!small(m, 0));                                           /* 0: never */
  CHECK(small("tensor<16384xi64> tensor<128x128xbf16>", 16384));
  CHECK(!small("tensor<16385xf32>", 16384));
  CHECK(!small("tensor<2x3x4096xf32>", 16384));                  /* 24576 */
  CHECK(!small("tensor<?x4xf32, #stablehlo.bounds<8, ?>>", 1 << 20)); /* dynamic: not small */
  CHECK(small("tensor<0x99999xf32>", 16)); /* empty */
  CHECK(!small("tensor<99999999999999999999xf32>", 16384));     /* no overflow */
  CHECK(small("no tensors at all", 1));
  CHECK(small("tensor<3xcomplex<f32>> tensor<i1>", 3));
  /* matrix products and convolutions keep the fusion emitters at any size */
  CHECK(!small("%0 = stablehlo.dot_general %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>", 1 << 20));
  CHECK(!small("%0 = stablehlo.convolution(%a, %b) : tensor<1x1x4x4xf32>", 1 << 20));
}

/* exp over n values on engine e, copied to out. */
static int run_exp(tt_engine_t *e, int64_t n, float *out) {
  float *a = malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; i++) a[i] = (float)(i % 97) * 0.173f - 8.0f;
  tt_storage_t *sa = NULL;
  CHECK_OK(tt_storage_from_host(e, a, TT_F32, n, &sa)); /* on e: a storage belongs to one engine */
  tt_tensor_ref_t ra = vec(sa, n);
  tt_arg_t args[1] = {tensor_arg(&ra)};
  tt_call_result_t r;
  int ok = 0;
  if (CHECK_OK(tt_call(e, tt_ops_find("exp"), args, 1, &r))) {
    tt_tensor_ref_t ro = vec(r.outs[0].storage, n);
    ok = CHECK_OK(tt_tensor_to_host(e, &ro, TT_F32, out, sizeof(float) * (size_t)n));
    tt_call_result_clear(&r);
  }
  tt_storage_release(sa);
  free(a);
  return ok;
}

/* A plugin without classic emitters (XLA CPU built from jaxlib 0.11's XLA)
 * refuses the option: the small program compiles without it, and so does
 * every later one of the engine; the values are right. */
static void test_plugin_without_classic_emitters(int cpu) {
  setenv("TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT", "off", 1); /* compiles, not loads */
  tt_engine_t *e = NULL;
  if (!CHECK_OK(tt_init(NULL, &e))) return;
  tt_exec_set_refuse_classic(e, 1);
  enum { N = 100 };
  static float a[2 * N];
  CHECK(run_exp(e, N, a));
  CHECK(atomic_load(&e->no_classic_emitters) == cpu); /* elsewhere nothing asks for classic emitters */
  for (int i = 0; i < N; i++) CHECK(fabsf(a[i] - expf((float)(i % 97) * 0.173f - 8.0f)) <= 1e-6f * a[i]);
  CHECK(run_exp(e, 2 * N, a)); /* a new small program compiles too */
  tt_shutdown(e);
}

int main(void) {
  unsetenv("TORCH_TPU_SMALL_PROGRAM_ELEMENTS");
  test_module_is_small();
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  int cpu = !strcmp(tt_pjrt_runtime_info(E->rt)->platform_name, "cpu");
  CHECK(E->small_program == (cpu ? TT_SMALL_PROGRAM_CPU_DEFAULT : 0));

  test_plugin_without_classic_emitters(cpu);
  setenv("TORCH_TPU_SMALL_PROGRAM_ELEMENTS", "0", 1);
  tt_engine_t *off = NULL;
  if (CHECK_OK(tt_init(NULL, &off))) {
    CHECK(off->small_program == 0);
    /* Another bound compiles differently: another compile-options key. */
    CHECK(off->options_key != E->options_key || !cpu);
    /* The same values from a small exp compiled either way (exp is the same
     * in both emitters here; float32 erf or softmax may differ in the last bit). */
    enum { N = 1000 };
    static float a[N], b[N];
    if (run_exp(E, N, a) && run_exp(off, N, b)) {
      int same = 1;
      for (int i = 0; i < N; i++) same &= a[i] == b[i] && fabsf(a[i] - expf((float)(i % 97) * 0.173f - 8.0f)) <= 1e-6f * a[i];
      CHECK(same);
    }
    tt_shutdown(off);
  }
  unsetenv("TORCH_TPU_SMALL_PROGRAM_ELEMENTS");
  tt_shutdown(E);
  return check_summary();
}
