/* Tests of tiered compilation (exec/tiered.h): a new program compiles
 * quickly first and is not written to tier 3; once hot and steady its
 * optimized compile replaces it in tier 1 (and reaches tier 3); values are
 * the same all along; a launch holding the quick executable keeps it alive
 * across the swap; threshold 0 or the pool off means no quick compiles; the
 * engine's destroy drops an upgrade still queued. TORCH_TPU_PJRT_PLUGIN
 * names the plugin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/call.h"
#include "test_engine.h"
#include "cache/tier1.h"
#include "check.h"
#include "refs.h"
#include "exec/compile_pool.h"
#include "exec/tiered.h"
#include "ops/registry.h"

/* out = (a + b) * b over [n] (a[i] = i, b[i] = 2 + k): checks the values. */
static int add_mul(int64_t n, int k) {
  float a[64], b[64], out[64];
  for (int i = 0; i < n; i++) a[i] = (float)i, b[i] = (float)(2 + k);
  tt_storage_t *sa = host_f32(a, n), *sb = host_f32(b, n);
  tt_tensor_ref_t ra = vec(sa, n), rb = vec(sb, n);
  tt_arg_t args[2] = {tensor_arg(&ra), tensor_arg(&rb)};
  tt_call_result_t r1, r2;
  int ok = 0;
  if (CHECK_OK(tt_call(E, tt_ops_find("add.Tensor"), args, 2, &r1))) {
    tt_tensor_ref_t rs = vec(r1.outs[0].storage, n);
    tt_arg_t args2[2] = {tensor_arg(&rs), tensor_arg(&rb)};
    if (CHECK_OK(tt_call(E, tt_ops_find("mul.Tensor"), args2, 2, &r2))) {
      tt_tensor_ref_t ro = vec(r2.outs[0].storage, n);
      if (CHECK_OK(tt_tensor_to_host(E, &ro, TT_F32, out, sizeof(float) * (size_t)n))) {
        ok = 1;
        for (int i = 0; i < n; i++) ok &= out[i] == (a[i] + b[i]) * b[i];
      }
      tt_call_result_clear(&r2);
    }
    tt_call_result_clear(&r1);
  }
  tt_storage_release(sa);
  tt_storage_release(sb);
  return ok;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_quick_then_optimized(void) {
  tt_engine_t *e = E;
  tt_tiered_set_threshold(e, 1);
  CHECK(tt_tiered_threshold(e) == 1);
  uint64_t fast0 = e->stats.fast_compiles, up0 = e->stats.upgrades, w0 = e->stats.tier3_writes;
  uint64_t miss0 = e->stats.misses;
  CHECK(add_mul(17, 0));
  CHECK(e->stats.misses - miss0 == 2 && e->stats.fast_compiles - fast0 == 2); /* add and mul, quick */
  CHECK(e->stats.tier3_writes == w0);                                          /* quick ones stay in memory */
  /* Hot and steady: upgrades land one at a time as lookups go on. */
  int ok = 1;
  double t0 = now();
  for (int k = 1; e->stats.upgrades - up0 < 2 && now() - t0 < 60; k++) ok &= add_mul(17, k % 5);
  CHECK(ok);
  CHECK(e->stats.upgrades - up0 == 2);
  CHECK(e->stats.tier3_writes - w0 == 2);      /* the optimized ones reach tier 3 */
  CHECK(e->stats.misses - miss0 == 2);         /* an upgrade is not a miss */
  CHECK(e->stats.fast_compiles - fast0 == 2);
  CHECK(e->tiered.recs == NULL && e->tiered.upgrading == NULL);
  CHECK(add_mul(17, 3));
}

/* Off: threshold 0, and without the compile pool whatever the threshold. */
static void test_off(void) {
  tt_engine_t *e = E;
  uint64_t fast0 = e->stats.fast_compiles, miss0 = e->stats.misses;
  tt_tiered_set_threshold(e, 0);
  CHECK(add_mul(19, 0));
  tt_tiered_set_threshold(e, 1);
  tt_compile_pool_set_enabled(e, 0);
  CHECK(tt_tiered_threshold(e) == 0);
  CHECK(add_mul(21, 0));
  tt_compile_pool_set_enabled(e, -1);
  CHECK(e->stats.misses - miss0 == 4 && e->stats.fast_compiles == fast0);
}

/* tier1_replace: a holder of the old entry (a launch in flight) keeps a live
 * executable; the key then finds the new, untagged one; the old one goes
 * with its last release (ASan sees any use after). */
static void test_replace_keeps_holders(void) {
  tt_tier1_t *t1;
  if (!CHECK_OK(tt_tier1_create(E->rt, 0, &t1))) return;
  tt_cache_key_t k = {7, 7, 7}, other = {8, 8, 8};
  int tag;
  tt_tier1_exe_t *quick = tt_tier1_insert_as(t1, &k, compile_identity(2), &tag);
  CHECK(quick && tt_tier1_tag(quick) == &tag);
  CHECK(tt_tier1_replace(t1, &k, compile_identity(2)));
  CHECK(tt_tier1_size(t1) == 1 && tt_tier1_lingering(t1) == 1 && tt_tier1_evicted(t1) == 0);
  CHECK(tt_pjrt_executable_num_outputs(tt_tier1_executable(quick)) == 1); /* still alive */
  tt_tier1_exe_t *now_ = tt_tier1_lookup(t1, &k);
  CHECK(now_ && now_ != quick && tt_tier1_tag(now_) == NULL);
  tt_tier1_release(t1, quick);
  CHECK(tt_tier1_lingering(t1) == 0);
  tt_tier1_release(t1, now_);
  CHECK(tt_tier1_replace(t1, &other, compile_identity(3))); /* an absent key: inserted */
  CHECK(tt_tier1_size(t1) == 2);
  tt_tier1_destroy(t1);
}

/* An upgrade still queued or compiling when the engine goes: dropped, no leak
 * (ASan's leak check runs this test too). */
static void test_destroy_with_upgrade_pending(void) {
  tt_engine_t *e2 = NULL;
  if (!CHECK_OK(tt_init(NULL, &e2))) return;
  tt_engine_t *saved = E;
  E = e2;
  tt_tiered_set_threshold(e2, 1);
  for (int k = 0; k < 80; k++) add_mul(29, k % 3); /* quiet after the first: upgrades start */
  CHECK(e2->stats.fast_compiles == 2);
  E = saved;
  tt_shutdown(e2);
}

int main(void) {
  char dir[] = "/tmp/tt_test_tiered_XXXXXX";
  if (!mkdtemp(dir)) return 1;
  setenv("TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT", dir, 1);
  unsetenv("TORCH_TPU_TIER2_COMPILATION_CACHE");
  unsetenv("TORCH_TPU_TIERED_COMPILE");
  unsetenv("WORLD_SIZE");
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  CHECK(tt_tiered_threshold(E) == 0); /* off by default */
  test_quick_then_optimized();
  test_off();
  test_replace_keeps_holders();
  test_destroy_with_upgrade_pending();
  tt_shutdown(E);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return check_summary();
}
