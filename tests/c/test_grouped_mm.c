/* aten::_grouped_mm through the registry, without Python: the values of a
 * 2d x 3d call (an empty group, a row past offs[-1]) and of a 2d x 2d call
 * with overlapping ranges against a host loop written as CPU's kernel reads;
 * refused offsets. TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include <string.h>

#include "api/call.h"
#include "check.h"
#include "ops/registry.h"
#include "refs.h"
#include "test_engine.h"

static tt_storage_t *host_i32(const int32_t *v, int64_t n) {
  tt_storage_t *s = NULL;
  CHECK_OK(tt_storage_from_host(E, v, TT_I32, n, &s));
  return s;
}

static tt_arg_t none_arg(void) {
  tt_arg_t a;
  memset(&a, 0, sizeof a);
  a.kind = TT_ARG_NONE;
  return a;
}

/* Calls _grouped_mm(a, b, offs) and compares with want (n floats). */
static void expect(tt_tensor_ref_t *a, tt_tensor_ref_t *b, tt_tensor_ref_t *offs, const float *want, int n) {
  tt_arg_t args[5] = {tensor_arg(a), tensor_arg(b), tensor_arg(offs), none_arg(), none_arg()};
  tt_call_result_t r;
  if (!CHECK_OK(tt_call(E, tt_ops_find("_grouped_mm"), args, 5, &r))) return;
  float out[64];
  tt_storage_t *s = r.outs[0].storage;
  tt_tensor_ref_t ro = vec(s, n);
  if (CHECK_OK(tt_tensor_to_host(E, &ro, TT_F32, out, sizeof(float) * (size_t)n)))
    for (int i = 0; i < n; i++) CHECK(out[i] == want[i]);
  tt_call_result_clear(&r);
}

/* [4,2] x [3,2,2], offs {1,1,3}: row 0 in group 0, group 1 empty, rows 1-2
 * in group 2, row 3 in none (zeros). */
static void test_2d_3d(void) {
  float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[12] = {1, 0, 0, 1, 2, 2, 2, 2, 0, 1, 1, 0};
  int32_t o[3] = {1, 1, 3};
  tt_storage_t *sa = host_f32(a, 8), *sb = host_f32(b, 12), *so = host_i32(o, 3);
  int64_t za[2] = {4, 2}, ta[2] = {2, 1}, zb[3] = {3, 2, 2}, tb[3] = {4, 2, 1};
  tt_tensor_ref_t ra = ref_of(sa, 2, za, ta, 0), rb = ref_of(sb, 3, zb, tb, 0), ro = vec(so, 3);
  float want[8] = {0};
  int32_t start = 0;
  for (int g = 0; g < 3; g++) {
    for (int m = start; m < o[g]; m++)
      for (int n = 0; n < 2; n++) want[m * 2 + n] = a[m * 2] * b[g * 4 + n] + a[m * 2 + 1] * b[g * 4 + 2 + n];
    start = o[g];
  }
  expect(&ra, &rb, &ro, want, 8);
  /* int64 offsets: CPU's "Offsets have to be int32" */
  int64_t zo[1] = {3}, to[1] = {1};
  tt_storage_t *s64 = NULL;
  int64_t o64[3] = {1, 1, 3};
  CHECK_OK(tt_storage_from_host(E, o64, TT_I64, 3, &s64));
  tt_tensor_ref_t r64 = ref_of(s64, 1, zo, to, 0);
  tt_arg_t bad[5] = {tensor_arg(&ra), tensor_arg(&rb), tensor_arg(&r64), none_arg(), none_arg()};
  tt_call_result_t r;
  CHECK_ERR(tt_call(E, tt_ops_find("_grouped_mm"), bad, 5, &r), TT_INVALID_ARGUMENT);
  tt_storage_release(s64);
  tt_storage_release(sa);
  tt_storage_release(sb);
  tt_storage_release(so);
}

/* [1,4] x [4,1], offs {3,1,4}: group 0 contracts k 0-2, group 1 none (its
 * end precedes its start), group 2 k 1-3 (overlapping group 0's). */
static void test_2d_2d_overlap(void) {
  float a[4] = {1, 2, 3, 4}, b[4] = {10, 100, 1000, 10000};
  int32_t o[3] = {3, 1, 4};
  tt_storage_t *sa = host_f32(a, 4), *sb = host_f32(b, 4), *so = host_i32(o, 3);
  int64_t za[2] = {1, 4}, ta[2] = {4, 1}, zb[2] = {4, 1}, tb[2] = {1, 1};
  tt_tensor_ref_t ra = ref_of(sa, 2, za, ta, 0), rb = ref_of(sb, 2, zb, tb, 0), ro = vec(so, 3);
  float want[3] = {1 * 10 + 2 * 100 + 3 * 1000, 0, 2 * 100 + 3 * 1000 + 4 * 10000};
  expect(&ra, &rb, &ro, want, 3);
  tt_storage_release(sa);
  tt_storage_release(sb);
  tt_storage_release(so);
}

int main(void) {
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  test_2d_3d();
  test_2d_2d_overlap();
  tt_shutdown(E);
  return check_summary();
}
