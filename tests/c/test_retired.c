/* Buffers retired behind the launches in flight (exec/retired.h): destroyed
 * at once with nothing in flight, kept while a launch is recorded, destroyed
 * by synchronize, by the next launch once the earlier ones are done, and at
 * the engine's end; tt_storage_set_buffer destroys the old buffer at once.
 * Eager in-place ops do not donate (compiled plans do:
 * tests/python/test_inplace_launch.py), so the test writes a launch's result
 * back with tt_storage_set_buffer_donated as a plan's replay does
 * (white-box). ASan/LSan see any leak or double destroy.
 * TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include <stdio.h>
#include <stdlib.h>

#include "api/call.h"
#include "check.h"
#include "exec/mode.h"
#include "exec/retired.h"
#include "ops/registry.h"
#include "refs.h"
#include "test_engine.h"

#define N 16

static tt_pjrt_buffer_t *host_buffer(float v) {
  float data[N];
  for (int i = 0; i < N; i++) data[i] = v;
  int64_t dim = N;
  tt_pjrt_buffer_t *b = NULL;
  CHECK_OK(tt_pjrt_buffer_from_host(E->rt, data, TT_F32, &dim, 1, 0, &b));
  return b;
}

/* s = s + t (Strict: one launch), written back as a plan writes a donated
 * argument: s's old buffer is retired behind the launch. */
static void add_inplace(tt_storage_t *s, tt_storage_t *t) {
  tt_tensor_ref_t rs = vec(s, N), rt = vec(t, N);
  tt_arg_t args[2] = {tensor_arg(&rs), tensor_arg(&rt)};
  tt_call_result_t r;
  if (!CHECK_OK(tt_call(E, tt_ops_find("add.Tensor"), args, 2, &r))) return;
  tt_storage_set_buffer_donated(s, tt_storage_take_buffer(r.outs[0].storage));
  tt_call_result_clear(&r);
}

static void test_nothing_in_flight_destroys_at_once(void) {
  CHECK_OK(tt_synchronize(E));
  tt_retire_buffer(E, host_buffer(1));
  CHECK(E->retired.count == 0);
}

static void test_kept_behind_a_launch_until_synchronize(void) {
  float one[N], two[N], out[N];
  for (int i = 0; i < N; i++) one[i] = 1, two[i] = 2;
  tt_storage_t *s = host_f32(one, N), *t = host_f32(two, N);
  tt_storage_t *warm = host_f32(one, N);
  add_inplace(warm, t); /* compiles add (a queued launch: its result has no buffer yet), then runs */
  CHECK_OK(tt_synchronize(E));
  tt_storage_release(warm);
  CHECK(E->retired.count == 0);
  tt_tensor_ref_t rs = vec(s, N), rt = vec(t, N);
  tt_arg_t args[2] = {tensor_arg(&rs), tensor_arg(&rt)};
  tt_call_result_t res;
  if (CHECK_OK(tt_call(E, tt_ops_find("add_.Tensor"), args, 2, &res))) tt_call_result_clear(&res);
  CHECK(E->retired.count == 0); /* tt_storage_set_buffer (eager's write): destroyed at once */
  add_inplace(s, t); /* launched at once: s's old buffer is retired behind it */
  CHECK(E->retired.count == 1);
  for (int i = 0; i < 200; i++) tt_retire_buffer(E, host_buffer((float)i)); /* the ring grows */
  CHECK(E->retired.count == 201);
  CHECK_OK(tt_synchronize(E));
  CHECK(E->retired.count == 0);
  tt_tensor_ref_t r = vec(s, N);
  if (CHECK_OK(tt_tensor_to_host(E, &r, TT_F32, out, sizeof out))) CHECK(out[0] == 5 && out[N - 1] == 5);
  tt_storage_release(s);
  tt_storage_release(t);
}

static void test_the_next_launch_collects_what_is_done(void) {
  float one[N], out[N];
  for (int i = 0; i < N; i++) one[i] = 1;
  tt_storage_t *s = host_f32(one, N), *t = host_f32(one, N);
  add_inplace(s, t);
  CHECK(E->retired.count == 1);
  /* Wait for that launch without going through the ring, then launch again:
   * the ring finds the first launch done and destroys what waited for it. */
  if (CHECK_OK(tt_pjrt_buffer_await(E->rt, s->buf))) {
    add_inplace(s, t);
    CHECK(E->retired.count == 1); /* only the second launch's old buffer is left */
  }
  for (int k = 0; k < 400; k++) add_inplace(s, t); /* more launches than the ring holds */
  CHECK(E->retired.count <= TT_INFLIGHT_DEPTH);
  tt_tensor_ref_t r = vec(s, N);
  if (CHECK_OK(tt_tensor_to_host(E, &r, TT_F32, out, sizeof out))) CHECK(out[0] == 403 && out[N - 1] == 403);
  CHECK_OK(tt_synchronize(E));
  CHECK(E->retired.count == 0);
  add_inplace(s, t); /* left retired: the engine's end destroys it */
  tt_storage_release(s);
  tt_storage_release(t);
}

int main(void) {
  setenv("TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT", "off", 1);
  unsetenv("TORCH_TPU_TIER2_COMPILATION_CACHE");
  unsetenv("WORLD_SIZE");
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  tt_set_eager_mode(E, TT_MODE_STRICT);
  test_nothing_in_flight_destroys_at_once();
  test_kept_behind_a_launch_until_synchronize();
  test_the_next_launch_collects_what_is_done();
  tt_shutdown(E);
  return check_summary();
}
