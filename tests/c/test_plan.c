/* Tests of plans (exec/plan.h) without Python: a graph of ops captured into
 * one executable and replayed on new arguments with no lowering, argument
 * mismatches refused, a host copy abandoning the capture with eager's
 * results, random draws fresh at every replay, and a graph's write into its
 * argument replayed into the argument's storage, constants kept alive by
 * the plan, and a refused capture that leaves its constants alone; an
 * argument the graph writes is updated in place (donated).
 * TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include <math.h>
#include <string.h>

#include "api/call.h"
#include "api/compiled.h"
#include "check.h"
#include "exec/plan.h"
#include "exec/engine.h"
#include "ops/registry.h"
#include "refs.h"
#include "test_engine.h"

static tt_storage_t *call1(const char *op, tt_arg_t *args, int n) {
  tt_call_result_t r;
  if (!CHECK_OK(tt_call(E, tt_ops_find(op), args, n, &r))) return NULL;
  tt_storage_t *s = r.n ? r.outs[0].storage : NULL;
  if (r.n) r.outs[0].storage = NULL;
  tt_call_result_clear(&r);
  return s;
}

/* sin(x * y) + x on 4-vectors, through the op path. */
static tt_storage_t *graph(tt_tensor_ref_t *x, tt_tensor_ref_t *y) {
  tt_arg_t a[3] = {tensor_arg(x), tensor_arg(y), {0}};
  tt_storage_t *m = call1("mul.Tensor", a, 2);
  tt_tensor_ref_t rm = vec(m, 4);
  tt_arg_t b[1] = {tensor_arg(&rm)};
  tt_storage_t *s = call1("sin", b, 1);
  tt_tensor_ref_t rs = vec(s, 4);
  tt_arg_t c[3] = {tensor_arg(&rs), tensor_arg(x), {0}};
  c[2].kind = TT_ARG_INT;
  c[2].i = 1; /* alpha */
  tt_storage_t *out = call1("add.Tensor", c, 3);
  tt_storage_release(m);
  tt_storage_release(s);
  return out;
}

static int close_to(const float *a, const float *b, int n) {
  for (int i = 0; i < n; i++)
    if (fabsf(a[i] - b[i]) > 1e-5f) return 0;
  return 1;
}

static void want_of(const float *x, const float *y, float *out) {
  for (int i = 0; i < 4; i++) out[i] = sinf(x[i] * y[i]) + x[i];
}

static void read4(tt_storage_t *s, float *out) {
  tt_tensor_ref_t r = vec(s, 4);
  CHECK_OK(tt_tensor_to_host(E, &r, TT_F32, out, sizeof(float) * 4));
}

static void test_capture_and_replay(void) {
  float x[4] = {0.1f, 0.2f, 0.3f, 0.4f}, y[4] = {1, 2, 3, 4}, got[4], want[4];
  tt_storage_t *sx = host_f32(x, 4), *sy = host_f32(y, 4);
  tt_tensor_ref_t rx = vec(sx, 4), ry = vec(sy, 4);
  CHECK_OK(tt_compiled_capture_begin(E, 1));
  tt_storage_t *out = graph(&rx, &ry);
  tt_tensor_ref_t args[2] = {rx, ry}, outs[1] = {vec(out, 4)};
  tt_plan_t *plan = NULL;
  char why[256];
  uint64_t flushes = E->region.stats.flushes;
  CHECK_OK(tt_compiled_capture_end(E, args, 2, outs, 1, "test", &plan, why, sizeof why));
  CHECK(plan != NULL && E->region.stats.flushes == flushes + 1); /* the whole graph ran as one region */
  CHECK(plan && tt_plan_num_results(plan) == 1 && tt_plan_num_outputs(plan) == 1);
  read4(out, got);
  want_of(x, y, want);
  CHECK(close_to(got, want, 4));
  tt_storage_release(out);
  /* Replays on new values: right results, nothing lowered or keyed. */
  float x2[4] = {-1, 0.5f, 2, 3}, y2[4] = {0.25f, -2, 1, 0};
  tt_storage_t *sx2 = host_f32(x2, 4), *sy2 = host_f32(y2, 4);
  tt_tensor_ref_t args2[2] = {vec(sx2, 4), vec(sy2, 4)};
  uint64_t ops = E->region.stats.ops, requests = E->stats.requests, replays = E->plans.replays;
  for (int k = 0; plan && k < 3; k++) {
    tt_storage_t *o = NULL;
    CHECK_OK(tt_compiled_run(E, plan, args2, 2, &o));
    if (!o) break;
    read4(o, got);
    want_of(x2, y2, want);
    CHECK(close_to(got, want, 4));
    tt_storage_release(o);
  }
  CHECK(E->region.stats.ops == ops && E->stats.requests == requests && E->plans.replays == replays + 3);
  /* Mismatches: a longer storage, a strided view, one storage for both. */
  float z[8] = {0};
  tt_storage_t *s8 = host_f32(z, 8);
  const int64_t four = 4, two = 2;
  tt_tensor_ref_t bad[3][2] = {{vec(s8, 4), vec(sy2, 4)}, {ref_of(s8, 1, &four, &two, 0), vec(sy2, 4)},
                               {vec(sx2, 4), vec(sx2, 4)}};
  const char *names[3] = {"argument 0", "argument 0", "argument 1"};
  for (int k = 0; plan && k < 3; k++) {
    tt_storage_t *o = NULL;
    tt_status_t s = tt_compiled_run(E, plan, bad[k], 2, &o);
    CHECK(s && tt_status_code(s) == TT_INVALID_ARGUMENT && strstr(tt_status_message(s), names[k]) &&
          strstr(tt_status_message(s), "compiled for float32[4] strides (1) offset 0, storage float32[4]"));
    tt_status_free(s);
  }
  /* Another float32 matmul precision: the plan's program is not the one eager would run. */
  tt_call_set_matmul_precision(E, TT_PREC_MEDIUM);
  if (plan) {
    tt_storage_t *o = NULL;
    tt_status_t s = tt_compiled_run(E, plan, args2, 2, &o);
    CHECK(s && strstr(tt_status_message(s), "matmul precision 'highest', called with 'medium'"));
    tt_status_free(s);
  }
  tt_call_set_matmul_precision(E, TT_PREC_HIGHEST);
  tt_plan_release(plan);
  tt_storage_release(s8);
  tt_storage_release(sx);
  tt_storage_release(sy);
  tt_storage_release(sx2);
  tt_storage_release(sy2);
}

static void test_host_copy_abandons_the_capture(void) {
  float x[4] = {0.1f, 0.2f, 0.3f, 0.4f}, y[4] = {1, 2, 3, 4}, got[4], want[4], mid[4];
  tt_storage_t *sx = host_f32(x, 4), *sy = host_f32(y, 4);
  tt_tensor_ref_t rx = vec(sx, 4), ry = vec(sy, 4);
  uint64_t failures = E->plans.capture_failures;
  CHECK_OK(tt_compiled_capture_begin(E, 1));
  tt_storage_t *out = graph(&rx, &ry);
  read4(out, mid); /* a host copy inside the graph */
  CHECK(!tt_plan_capturing(E));
  tt_tensor_ref_t args[2] = {rx, ry}, outs[1] = {vec(out, 4)};
  tt_plan_t *plan = NULL;
  char why[256];
  CHECK_OK(tt_compiled_capture_end(E, args, 2, outs, 1, "test", &plan, why, sizeof why));
  CHECK(!plan && strstr(why, "a copy to the host") && E->plans.capture_failures == failures + 1);
  want_of(x, y, want);
  read4(out, got);
  CHECK(close_to(got, want, 4) && close_to(mid, want, 4));
  tt_storage_release(out);
  tt_storage_release(sx);
  tt_storage_release(sy);
}

/* x.mul_(2) then uniform_ on a new tensor: the write lands in the argument
 * at every replay, and each replay draws new numbers. */
static void test_writes_and_draws(void) {
  float x[4] = {1, 2, 3, 4}, got[4], r1[4], r2[4];
  tt_storage_t *sx = host_f32(x, 4);
  tt_tensor_ref_t rx = vec(sx, 4);
  CHECK_OK(tt_compiled_capture_begin(E, 1));
  tt_arg_t a[2] = {tensor_arg(&rx), {0}};
  a[1].kind = TT_ARG_INT;
  a[1].i = 2;
  tt_call_result_t res;
  CHECK_OK(tt_call(E, tt_ops_find("mul_.Scalar"), a, 2, &res));
  tt_call_result_clear(&res);
  tt_arg_t b[3] = {tensor_arg(&rx), {0}, {0}};
  tt_storage_t *sq = call1("mul.Tensor", (tt_arg_t[]){tensor_arg(&rx), tensor_arg(&rx)}, 2);
  tt_tensor_ref_t rq = vec(sq, 4);
  b[0] = tensor_arg(&rq);
  b[1].kind = b[2].kind = TT_ARG_FLOAT;
  b[1].f = 0;
  b[2].f = 1;
  CHECK_OK(tt_call(E, tt_ops_find("uniform_"), b, 3, &res));
  tt_call_result_clear(&res);
  tt_tensor_ref_t args[1] = {rx}, outs[1] = {rq};
  tt_plan_t *plan = NULL;
  char why[256];
  CHECK_OK(tt_compiled_capture_end(E, args, 1, outs, 1, "test", &plan, why, sizeof why));
  CHECK(plan != NULL);
  read4(sx, got);
  CHECK(got[0] == 2 && got[3] == 8);
  tt_storage_release(sq);
  tt_storage_t *o1 = NULL, *o2 = NULL;
  uint64_t addr0 = 0, addr1 = 0;
  CHECK_OK(tt_compiled_device_address(E, sx, &addr0));
  if (plan) {
    CHECK_OK(tt_compiled_run(E, plan, args, 1, &o1));
    CHECK_OK(tt_compiled_run(E, plan, args, 1, &o2));
  }
  /* the argument written is donated: updated in place, its buffer kept */
  CHECK_OK(tt_compiled_device_address(E, sx, &addr1));
  CHECK(addr0 != 0 && addr0 == addr1);
  if (o1 && o2) {
    read4(sx, got);
    CHECK(got[0] == 8 && got[3] == 32); /* two more doublings */
    read4(o1, r1);
    read4(o2, r2);
    CHECK(memcmp(r1, r2, sizeof r1) != 0);
    for (int i = 0; i < 4; i++) CHECK(r1[i] >= 0 && r1[i] < 1 && r2[i] >= 0 && r2[i] < 1);
  }
  tt_storage_release(o1);
  tt_storage_release(o2);
  tt_plan_release(plan);
  tt_storage_release(sx);
}

/* x * c with c a storage made before the graph: a constant the plan keeps
 * alive; a graph whose output is not a tpu tensor is refused with eager's
 * results, and its constant is not released by the refusal. */
static void test_constants_and_refused_outputs(void) {
  float x[4] = {1, 2, 3, 4}, c[4] = {0.5f, -1, 2, 10}, got[4];
  for (int round = 0; round < 2; round++) {
    tt_storage_t *sx = host_f32(x, 4), *sc = host_f32(c, 4);
    tt_tensor_ref_t rx = vec(sx, 4), rc = vec(sc, 4);
    CHECK_OK(tt_compiled_capture_begin(E, 1));
    tt_storage_t *out = call1("mul.Tensor", (tt_arg_t[]){tensor_arg(&rx), tensor_arg(&rc)}, 2);
    tt_tensor_ref_t args[1] = {rx}, outs[2] = {vec(out, 4), {0}};
    outs[1].dtype = TT_DTYPE_INVALID; /* a non-tensor or CPU output */
    tt_plan_t *plan = NULL;
    char why[256];
    CHECK_OK(tt_compiled_capture_end(E, args, 1, outs, round ? 2 : 1, "test", &plan, why, sizeof why));
    read4(out, got);
    CHECK(got[0] == 0.5f && got[3] == 40);
    if (round == 0) {
      CHECK(plan != NULL);
      tt_storage_release(sc); /* the plan keeps the constant */
      sc = NULL;
      float x2[4] = {2, 2, 2, 2};
      tt_storage_t *sx2 = host_f32(x2, 4), *o = NULL;
      tt_tensor_ref_t a2[1] = {vec(sx2, 4)};
      if (plan) CHECK_OK(tt_compiled_run(E, plan, a2, 1, &o));
      if (o) {
        read4(o, got);
        CHECK(got[0] == 1 && got[1] == -2 && got[3] == 20);
      }
      tt_storage_release(o);
      tt_storage_release(sx2);
    } else {
      CHECK(!plan && strstr(why, "output 1 is not a tpu tensor"));
      read4(sc, got); /* still alive and intact */
      CHECK(got[2] == 2);
    }
    tt_plan_release(plan);
    tt_storage_release(out);
    tt_storage_release(sx);
    tt_storage_release(sc);
  }
}

int main(void) {
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  test_capture_and_replay();
  test_host_copy_abandons_the_capture();
  test_writes_and_draws();
  test_constants_and_refused_outputs();
  tt_shutdown(E);
  return check_summary();
}
