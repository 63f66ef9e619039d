/* Tests of tier 1's entry limit (LRU eviction, executables held by launches
 * outlive their eviction, a re-miss reloads from tier 3) and of asynchronous
 * compilation (same values as synchronous, concurrent misses of one key
 * compile once, a compile error surfaces with the same text and poisons what
 * the failed launch and those queued after it should have produced).
 * TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/call.h"
#include "test_engine.h"
#include "exec/mode.h"
#include "base/alloc.h"
#include "cache/tier1.h"
#include "check.h"
#include "refs.h"
#include "exec/compile_pool.h"
#include "exec/find.h"
#include "ops/registry.h"

#define LIMIT 3

/* out = a (op) b for two [n] storages; the result storage is the caller's. */
static tt_status_t binary(const char *op, tt_storage_t *a, tt_storage_t *b, int64_t n, tt_storage_t **out) {
  tt_tensor_ref_t ra = vec(a, n), rb = vec(b, n);
  tt_arg_t args[2] = {tensor_arg(&ra), tensor_arg(&rb)};
  tt_call_result_t r;
  TT_RETURN_IF_ERROR(tt_call(E, tt_ops_find(op), args, 2, &r));
  *out = r.outs[0].storage;
  tt_storage_retain(*out);
  tt_call_result_clear(&r);
  return TT_OK_STATUS;
}

static int read_back(tt_storage_t *s, int64_t n, float *out) {
  tt_tensor_ref_t r = vec(s, n);
  return CHECK_OK(tt_tensor_to_host(E, &r, TT_F32, out, sizeof(float) * (size_t)n));
}

/* (a + b) * b over [n] with a[i] = i, b[i] = 2: checks the values. */
static void add_mul(int64_t n) {
  float a[64], b[64], out[64];
  for (int i = 0; i < n; i++) a[i] = (float)i, b[i] = 2;
  tt_storage_t *sa = host_f32(a, n), *sb = host_f32(b, n), *s1 = NULL, *s2 = NULL;
  if (CHECK_OK(binary("add.Tensor", sa, sb, n, &s1)) && CHECK_OK(binary("mul.Tensor", s1, sb, n, &s2)) &&
      read_back(s2, n, out)) {
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= out[i] == (a[i] + 2) * 2;
    CHECK(ok);
  }
  if (s1) tt_storage_release(s1);
  if (s2) tt_storage_release(s2);
  tt_storage_release(sa);
  tt_storage_release(sb);
}

/* A held executable (a launch's reference) outlives its eviction; the last
 * release destroys it (ASan sees any use after). */
static void test_tier1_lru_unit(void) {
  tt_tier1_t *t1;
  if (!CHECK_OK(tt_tier1_create(E->rt, 2, &t1))) return;
  tt_cache_key_t k[3] = {{1, 1, 1}, {2, 2, 2}, {3, 3, 3}};
  tt_tier1_exe_t *e0 = tt_tier1_insert(t1, &k[0], compile_identity(2));
  tt_tier1_exe_t *e1 = tt_tier1_insert(t1, &k[1], compile_identity(3));
  CHECK(e0 && e1 && tt_tier1_size(t1) == 2);
  tt_tier1_release(t1, e1);
  /* k[0] is used again: k[1] is now the least recently used. */
  tt_tier1_exe_t *again = tt_tier1_lookup(t1, &k[0]);
  CHECK(again == e0);
  tt_tier1_release(t1, again);
  tt_tier1_exe_t *e2 = tt_tier1_insert(t1, &k[2], compile_identity(4));
  CHECK(tt_tier1_size(t1) == 2 && tt_tier1_evicted(t1) == 1);
  CHECK(tt_tier1_lookup(t1, &k[1]) == NULL);
  CHECK(tt_tier1_lingering(t1) == 0); /* k[1] was not held: destroyed at once */
  /* Evict k[0] while still held (as by a launch in flight). */
  tt_tier1_release(t1, tt_tier1_lookup(t1, &k[2]));
  tt_tier1_exe_t *e1b = tt_tier1_insert(t1, &k[1], compile_identity(5));
  CHECK(tt_tier1_evicted(t1) == 2 && tt_tier1_lookup(t1, &k[0]) == NULL);
  CHECK(tt_tier1_lingering(t1) == 1);
  CHECK(tt_pjrt_executable_num_outputs(tt_tier1_executable(e0)) == 1); /* still alive */
  tt_tier1_release(t1, e0);
  CHECK(tt_tier1_lingering(t1) == 0);
  /* A racing insert of a present key keeps the present executable. */
  tt_tier1_exe_t *dup = tt_tier1_insert(t1, &k[1], compile_identity(6));
  CHECK(dup == e1b);
  tt_tier1_release(t1, dup);
  tt_tier1_release(t1, e1b);
  tt_tier1_release(t1, e2);
  tt_tier1_destroy(t1);
}

/* Through the op path: more shapes than the limit, then the first again. */
static void test_tier1_limit_end_to_end(void) {
  tt_engine_t *c = E;
  uint64_t ev0 = c->stats.tier1_evicted;
  for (int64_t n = 11; n <= 14; n++) add_mul(n); /* 8 programs */
  CHECK(c->stats.executables <= LIMIT);
  CHECK(c->stats.tier1_evicted - ev0 >= 5);
  /* A re-miss after eviction: tier 3 (on in this test) has it. */
  uint64_t misses = c->stats.misses, t3 = c->stats.tier3_hits;
  add_mul(11);
  CHECK(c->stats.misses == misses);
  CHECK(c->stats.tier3_hits - t3 == 2);
  CHECK(tt_tier1_lingering(c->tier1) <= 256); /* bounded by the in-flight ring */
}

static void test_async_values_and_joins(void) {
  tt_engine_t *c = E;
  tt_eager_mode_t modes[2] = {TT_MODE_STRICT, TT_MODE_DEFER_AND_FUSE};
  for (int m = 0; m < 2; m++) {
    CHECK_OK(tt_set_eager_mode(E, modes[m]));
    for (int async = 0; async < 2; async++) {
      tt_compile_pool_set_enabled(E, async);
      uint64_t started = c->stats.async_compiles;
      add_mul(20 + 2 * m + async); /* a new shape: compiles */
      CHECK(async ? c->stats.async_compiles > started : c->stats.async_compiles == started);
    }
  }
  CHECK_OK(tt_set_eager_mode(E, TT_MODE_STRICT));
  /* Many misses of one key before its compile is done: one compile. */
  tt_compile_pool_set_enabled(E, 1);
  float a[30], out[30];
  for (int i = 0; i < 30; i++) a[i] = (float)i;
  tt_storage_t *sa = host_f32(a, 30), *acc = host_f32(a, 30); /* two parameters from the first op on */
  uint64_t misses = c->stats.misses, joins = c->stats.compile_joins, t1 = c->stats.tier1_hits;
  for (int i = 0; i < 8; i++) {
    tt_storage_t *next = NULL;
    if (!CHECK_OK(binary("sub.Tensor", acc, sa, 30, &next))) break;
    tt_storage_release(acc);
    acc = next;
  }
  if (read_back(acc, 30, out)) { /* runs the queue: every job collected */
    int ok = 1;
    for (int i = 0; i < 30; i++) ok &= out[i] == -7.0f * a[i];
    CHECK(ok);
  }
  CHECK(c->stats.misses - misses == 1);
  CHECK(c->stats.compile_joins - joins + c->stats.tier1_hits - t1 == 7);
  tt_storage_release(acc);
  tt_storage_release(sa);
}

/* The error of a failed compile: synchronously at the op; asynchronously at
 * the next point that runs the queue, with the same text; what the failed
 * launch and the ones queued after it would have written is poisoned. */
static void test_async_compile_error(void) {
  float a[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, out[9];
  tt_storage_t *sa = host_f32(a, 9), *s1 = NULL, *s2 = NULL;
  tt_exec_set_compile_fault(E, "aten::div");
  tt_compile_pool_set_enabled(E, 0);
  tt_status_t sync = binary("div.Tensor", sa, sa, 9, &s1);
  CHECK(sync != NULL);
  char sync_msg[512] = "";
  if (sync) snprintf(sync_msg, sizeof sync_msg, "%s", tt_status_message(sync));
  tt_status_free(sync);
  tt_compile_pool_set_enabled(E, 1);
  /* Behind a real compile (a new shape), the failing one is queued and the
   * ops after it too; the error surfaces where the queue runs (at one of the
   * ops when the compiles were that fast, else at the synchronization). */
  float b[17] = {0};
  tt_storage_t *sb = host_f32(b, 17), *sb2 = NULL;
  tt_status_t s = binary("add.Tensor", sb, sb, 17, &sb2);
  if (!s) s = binary("div.Tensor", sa, sa, 9, &s1);
  if (!s) s = binary("add.Tensor", s1, sa, 9, &s2);
  if (!s) s = tt_synchronize(E);
  CHECK(s != NULL && strstr(sync_msg, "aten::div") && !strcmp(tt_status_message(s), sync_msg));
  tt_status_free(s);
  CHECK(!s1 || s1->poisoned);
  CHECK(!s2 || s2->poisoned);
  CHECK(sb2 && !sb2->poisoned); /* queued before the failure: it ran */
  /* Using a poisoned result raises; the process goes on. */
  tt_storage_t *s3 = NULL;
  if (s1) CHECK_ERR(binary("mul.Tensor", s1, sa, 9, &s3), TT_INTERNAL);
  if (sb2) tt_storage_release(sb2);
  tt_storage_release(sb);
  tt_exec_set_compile_fault(E, NULL);
  add_mul(9);
  tt_storage_t *ok = NULL;
  if (CHECK_OK(binary("div.Tensor", sa, sa, 9, &ok)) && read_back(ok, 9, out)) CHECK(out[0] == 1 && out[8] == 1);
  if (ok) tt_storage_release(ok);
  if (s1) tt_storage_release(s1);
  if (s2) tt_storage_release(s2);
  tt_storage_release(sa);
}

int main(void) {
  char dir[] = "/tmp/tt_test_async_XXXXXX";
  if (!mkdtemp(dir)) return 1;
  setenv("TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT", dir, 1);
  setenv("TORCH_TPU_TIER1_COMPILATION_CACHE_MAX_ENTRIES", "3", 1);
  unsetenv("TORCH_TPU_TIER2_COMPILATION_CACHE");
  unsetenv("WORLD_SIZE");
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  CHECK(E->tier3 != NULL);
  test_tier1_lru_unit();
  test_tier1_limit_end_to_end();
  test_async_values_and_joins();
  test_async_compile_error();
  tt_shutdown(E);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return check_summary();
}
