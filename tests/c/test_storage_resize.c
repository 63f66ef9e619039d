/* Tests of storages resized in place (api/storage_resize.h: shrink keeps the
 * prefix, 0 frees the buffer, growth reads as zeros) and of device events
 * (api/events.h: marks in launch order). TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include "api/call.h"
#include "api/events.h"
#include "api/storage_resize.h"
#include "check.h"
#include "refs.h"
#include "ops/registry.h"
#include "ops/result_layout.h"
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

static int same(const int64_t *a, const int64_t *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* Tensor.resize_'s metadata and checks (CPU's values, from PyTorch 2.13). */
static void test_resize_layout(void) {
  int64_t st[5], nb;
  int64_t cl[] = {2, 3, 4, 5}, cl_st[] = {60, 1, 15, 3};
  if (CHECK_OK(tt_resize_layout(1, 4, cl, TT_MEMORY_FORMAT_CHANNELS_LAST, 4, 0, st, &nb)))
    CHECK(same(st, cl_st, 4) && nb == 480);
  int64_t z[] = {2, 0, 4, 5}, z_st[] = {0, 1, 0, 0};
  if (CHECK_OK(tt_resize_layout(1, 4, z, TT_MEMORY_FORMAT_CHANNELS_LAST, 4, 0, st, &nb))) CHECK(same(st, z_st, 4) && nb == 0);
  int64_t neg[] = {2, -3}, big[] = {(int64_t)1 << 32, (int64_t)1 << 31}, wide[] = {0, (int64_t)1 << 62, (int64_t)1 << 62};
  CHECK_ERR(tt_resize_layout(1, 2, neg, TT_MEMORY_FORMAT_CONTIGUOUS, 4, 0, st, &nb), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_resize_layout(1, 2, big, TT_MEMORY_FORMAT_CONTIGUOUS, 4, 0, st, &nb), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_resize_layout(1, 3, wide, TT_MEMORY_FORMAT_CONTIGUOUS, 4, 0, st, &nb), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_resize_layout(1, 2, cl, TT_MEMORY_FORMAT_CHANNELS_LAST, 4, 0, st, &nb), TT_INVALID_ARGUMENT);
  CHECK_ERR(tt_resize_layout(1, 2, cl, TT_MEMORY_FORMAT_PRESERVE, 4, 0, st, &nb), TT_INVALID_ARGUMENT);
  int64_t v[] = {7}, v_st[] = {1};
  if (CHECK_OK(tt_resize_layout(1, 1, v, TT_MEMORY_FORMAT_CONTIGUOUS, 8, 2, st, &nb))) CHECK(same(st, v_st, 1) && nb == 72);
}

/* Tensor.set_'s checks, in CPU's order, and the bytes its view reaches. */
static void test_set_layout(void) {
  int64_t sz[] = {3, 3}, st[] = {3, 1}, out[2], nb;
  if (CHECK_OK(tt_set_layout(2, sz, 2, st, 4, 2, out, &nb))) CHECK(out[0] == 3 && out[1] == 1 && nb == 44);
  if (CHECK_OK(tt_set_layout(2, sz, 0, NULL, 4, 0, out, &nb))) CHECK(out[0] == 3 && out[1] == 1 && nb == 36);
  CHECK_ERR(tt_set_layout(2, sz, 1, st, 4, 0, out, &nb), TT_INVALID_ARGUMENT); /* unequal lengths */
  CHECK_ERR(tt_set_layout(2, sz, 2, st, 4, -1, out, &nb), TT_INVALID_ARGUMENT); /* negative offset */
  int64_t neg[] = {-2}, one[] = {1}, back[] = {-1};
  CHECK_ERR(tt_set_layout(1, neg, 1, one, 4, 0, out, &nb), TT_INVALID_ARGUMENT); /* numel overflow */
  int64_t two[] = {2};
  CHECK_ERR(tt_set_layout(1, two, 1, back, 4, 0, out, &nb), TT_INVALID_ARGUMENT); /* negative stride */
}

/* A copy's strides (clone's rule): dense views keep theirs, size-1 dims too. */
static void test_copy_strides(void) {
  int64_t order[5], st[5];
  tt_view_t t = {.rank = 2, .sizes = {3, 4}, .strides = {1, 3}}; /* a transpose */
  CHECK(tt_layout_copy_strides(&t, TT_MEMORY_FORMAT_PRESERVE, order, st) == 1 && st[0] == 1 && st[1] == 3 &&
        order[0] == 1 && order[1] == 0);
  CHECK(tt_layout_copy_strides(&t, TT_MEMORY_FORMAT_CONTIGUOUS, order, st) == 0 && st[0] == 4 && st[1] == 1);
  tt_view_t c1 = {.rank = 4, .sizes = {2, 1, 4, 1}, .strides = {4, 1, 1, 1}}, sliced = {.rank = 2, .sizes = {3, 4}, .strides = {1, 6}};
  int64_t c1_st[] = {4, 1, 1, 1};
  CHECK(tt_layout_copy_strides(&c1, TT_MEMORY_FORMAT_PRESERVE, order, st) == 1 && same(st, c1_st, 4));
  CHECK(tt_layout_copy_strides(&sliced, TT_MEMORY_FORMAT_PRESERVE, order, st) == 1 && st[0] == 1 && st[1] == 3);
  CHECK(tt_layout_copy_strides(&t, TT_MEMORY_FORMAT_CHANNELS_LAST, order, st) == -1);
}

int main(void) {
  test_resize_layout();
  test_copy_strides();
  test_set_layout();
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  test_shrink_free_regrow();
  test_event_marks();
  tt_shutdown(E);
  return check_summary();
}
