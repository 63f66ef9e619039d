/* Tests of storages resized in place (api/storage_resize.h: shrink keeps the
 * prefix, 0 frees the buffer, growth reads as zeros) and of device events
 * (api/events.h: marks in launch order). TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include "api/call.h"
#include "api/events.h"
#include "api/storage_resize.h"
#include "check.h"
#include "refs.h"
#include "ops/registry.h"
#include "exec/engine.h"

static void test_shrink_free_regrow(void) {
  float a[6] = {1, 2, 3, 4, 5, 6}, out[6];
  tt_storage_t *s = host_f32(a, 6);
  int64_t live = tt_memory_snapshot(E).live_bytes;
  if (CHECK_OK(tt_storage_shrink(s, 4))) {
    tt_tensor_ref_t r = vec(s, 4);
    CHECK(s->numel == 4 && tt_memory_snapshot(E).live_bytes == live - 8);
    if (CHECK_OK(tt_tensor_to_host(E, &r, TT_F32, out, 16)))
      for (int i = 0; i < 4; i++) CHECK(out[i] == a[i]);
  }
  CHECK_OK(tt_storage_shrink(s, 0));
  CHECK(s->numel == 0 && s->buf == NULL && tt_memory_snapshot(E).live_bytes == live - 24);
  CHECK_OK(tt_storage_resize(s, 6));
  tt_tensor_ref_t r6 = vec(s, 6);
  if (CHECK_OK(tt_tensor_to_host(E, &r6, TT_F32, out, 24)))
    for (int i = 0; i < 6; i++) CHECK(out[i] == 0.0f); /* regrown from nothing: zeros */
  CHECK_ERR(tt_storage_shrink(s, -1), TT_INVALID_ARGUMENT);
  tt_storage_release(s);
}

static void test_event_marks(void) {
  float a[4] = {1, 2, 3, 4}, out[4];
  tt_storage_t *s = host_f32(a, 4);
  tt_tensor_ref_t r = vec(s, 4);
  tt_arg_t args[2] = {tensor_arg(&r), tensor_arg(&r)};
  uint64_t before, after;
  int done = 0;
  CHECK_OK(tt_event_record(E, &before));
  tt_call_result_t res;
  if (CHECK_OK(tt_call(E, tt_ops_find("add.Tensor"), args, 2, &res))) {
    CHECK_OK(tt_event_record(E, &after));
    CHECK(after == before + 1); /* one launch between the two marks */
    CHECK_OK(tt_event_query(E, before, &done));
    CHECK(done); /* nothing launched before it */
    CHECK_OK(tt_event_synchronize(E, after));
    CHECK_OK(tt_event_query(E, after, &done));
    CHECK(done);
    tt_tensor_ref_t ro = vec(res.outs[0].storage, 4);
    if (CHECK_OK(tt_tensor_to_host(E, &ro, TT_F32, out, 16)))
      for (int i = 0; i < 4; i++) CHECK(out[i] == 2 * a[i]);
    tt_call_result_clear(&res);
  }
  tt_storage_release(s);
}

int main(void) {
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  test_shrink_free_regrow();
  test_event_marks();
  tt_shutdown(E);
  return check_summary();
}
