/* Two engines in one process: each has its own runtime, region, queues,
 * caches, RNG and counters, so using one never disturbs the other, and two
 * threads may drive two engines at once with no common lock.
 * TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include <pthread.h>
#include <string.h>

#include "api/call.h"
#include "api/init.h"
#include "api/transfer.h"
#include "check.h"
#include "exec/engine.h"
#include "ops/registry.h"

static tt_storage_t *upload(tt_engine_t *e, const float *v, int64_t n) {
  tt_storage_t *s = NULL;
  tt_status_t st = tt_storage_from_host(e, v, TT_F32, n, &s);
  if (st) {
    tt_status_free(st);
    return NULL;
  }
  return s;
}

static tt_tensor_ref_t vec_of(tt_storage_t *s, int64_t n) {
  tt_tensor_ref_t r;
  memset(&r, 0, sizeof r);
  r.storage = s;
  r.dtype = s->dtype;
  r.view.rank = 1;
  r.view.sizes[0] = n;
  r.view.strides[0] = 1;
  return r;
}

/* out = a + b on engine e (a new storage, or NULL on error). */
static tt_storage_t *add(tt_engine_t *e, tt_storage_t *a, tt_storage_t *b, int64_t n, tt_status_t *out_status) {
  tt_tensor_ref_t ra = vec_of(a, n), rb = vec_of(b, n);
  tt_arg_t args[2];
  memset(args, 0, sizeof args);
  args[0].kind = args[1].kind = TT_ARG_TENSOR;
  args[0].t = &ra;
  args[1].t = &rb;
  tt_call_result_t r;
  *out_status = tt_call(e, tt_ops_find("add.Tensor"), args, 2, &r);
  if (*out_status) return NULL;
  tt_storage_t *s = r.outs[0].storage;
  r.n = 0; /* the storage is ours now */
  tt_call_result_clear(&r);
  return s;
}

static int read_back(tt_engine_t *e, tt_storage_t *s, float *out, int64_t n) {
  tt_tensor_ref_t r = vec_of(s, n);
  return CHECK_OK(tt_tensor_to_host(e, &r, TT_F32, out, sizeof(float) * (size_t)n));
}

/* Deferred work on one engine stays deferred while the other runs and
 * synchronizes; modes, counters and RNG are per engine. */
static void test_independent(tt_engine_t *e1, tt_engine_t *e2) {
  CHECK_OK(tt_set_eager_mode(e1, TT_MODE_DEFER_AND_FUSE));
  CHECK(tt_get_eager_mode(e1) == TT_MODE_DEFER_AND_FUSE && tt_get_eager_mode(e2) == TT_MODE_STRICT);
  float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40}, out[4];
  tt_storage_t *a1 = upload(e1, x, 4), *b1 = upload(e1, y, 4);
  tt_storage_t *a2 = upload(e2, y, 4), *b2 = upload(e2, y, 4);
  CHECK(a1 && b1 && a2 && b2);
  if (!(a1 && b1 && a2 && b2)) return;
  CHECK(a1->engine == e1 && a2->engine == e2);
  tt_status_t s;
  tt_storage_t *c1 = add(e1, a1, b1, 4, &s);
  CHECK_OK(s);
  uint64_t req2 = e2->stats.requests, flushes1 = tt_region_stats(e1)->flushes;
  CHECK(c1 && tt_region_is_pending(e1, c1)); /* deferred on e1 */
  tt_storage_t *c2 = add(e2, a2, b2, 4, &s);
  CHECK_OK(s);
  CHECK_OK(tt_synchronize(e2));
  if (c2 && read_back(e2, c2, out, 4))
    for (int i = 0; i < 4; i++) CHECK(out[i] == 2 * y[i]);
  CHECK(e2->stats.requests > req2);
  /* e2's op and sync touched nothing of e1: c1 is still pending there */
  CHECK(c1 && tt_region_is_pending(e1, c1) && tt_region_stats(e1)->flushes == flushes1);
  if (c1 && read_back(e1, c1, out, 4))
    for (int i = 0; i < 4; i++) CHECK(out[i] == x[i] + y[i]);
  CHECK(tt_region_stats(e1)->flushes == flushes1 + 1);
  /* a storage of e2 passed to e1's op: refused where the region binds it, naming the op and e2 */
  tt_storage_t *mixed = add(e1, a1, a2, 4, &s);
  char owner[64];
  snprintf(owner, sizeof owner, "another engine (%p, not this engine %p)", (void *)e2, (void *)e1);
  CHECK(!mixed && s && tt_status_code(s) == TT_INVALID_ARGUMENT &&
        strstr(tt_status_message(s), "aten::add.Tensor") &&
        strstr(tt_status_message(s), owner));
  tt_status_free(s);
  /* RNG state is the engine's */
  e1->rng_seed = 7;
  CHECK(e2->rng_seed == 67280421310721ULL);
  /* memory counters: each engine counts its own storages */
  tt_memory_stats_t m1 = tt_memory_snapshot(e1), m2 = tt_memory_snapshot(e2);
  CHECK(m1.live_buffers >= 3 && m2.live_buffers >= 3);
  int64_t before2 = m2.live_buffers;
  tt_storage_release(c2);
  CHECK(tt_memory_snapshot(e2).live_buffers == before2 - 1 && tt_memory_snapshot(e1).live_buffers == m1.live_buffers);
  tt_storage_release(a1);
  tt_storage_release(b1);
  tt_storage_release(c1);
  tt_storage_release(a2);
  tt_storage_release(b2);
  CHECK_OK(tt_set_eager_mode(e1, TT_MODE_STRICT));
}

/* A thread drives its own engine: `rounds` chained adds, each checked. */
typedef struct worker_s {
  tt_engine_t *e;
  int rounds;
  float scale;
  int errors; /* results differing from the host's, or failed calls */
} worker_t;

static void *drive(void *arg) {
  worker_t *w = arg;
  float one[8], out[8];
  for (int i = 0; i < 8; i++) one[i] = w->scale * (float)(i + 1);
  tt_storage_t *inc = upload(w->e, one, 8), *acc = upload(w->e, one, 8);
  if (!inc || !acc) {
    w->errors++;
    return NULL;
  }
  for (int r = 1; r < w->rounds; r++) {
    tt_status_t s;
    tt_storage_t *next = add(w->e, acc, inc, 8, &s);
    if (s) {
      tt_status_free(s);
      w->errors++;
      break;
    }
    tt_storage_release(acc);
    acc = next;
    if (r % 16 == 0 || r == w->rounds - 1) {
      tt_tensor_ref_t ref = vec_of(acc, 8);
      s = tt_tensor_to_host(w->e, &ref, TT_F32, out, sizeof out);
      if (s) {
        tt_status_free(s);
        w->errors++;
        break;
      }
      for (int i = 0; i < 8; i++)
        if (out[i] != (float)(r + 1) * one[i]) w->errors++;
    }
  }
  tt_storage_release(inc);
  tt_storage_release(acc);
  return NULL;
}

static void test_two_threads(tt_engine_t *e1, tt_engine_t *e2) {
  CHECK_OK(tt_set_eager_mode(e2, TT_MODE_DEFER_AND_FUSE)); /* one engine strict, the other deferring */
  worker_t w[2] = {{e1, 100, 1.0f, 0}, {e2, 100, 0.5f, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, drive, &w[i]) == 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  CHECK(w[0].errors == 0 && w[1].errors == 0);
  CHECK_OK(tt_set_eager_mode(e2, TT_MODE_STRICT));
}

/* Destroying one engine leaves the other working. */
static void test_destroy_one(tt_engine_t *e2) {
  float x[3] = {1, 2, 3}, out[3];
  tt_storage_t *a = upload(e2, x, 3);
  CHECK(a);
  if (!a) return;
  tt_status_t s;
  tt_storage_t *c = add(e2, a, a, 3, &s);
  CHECK_OK(s);
  if (c && read_back(e2, c, out, 3))
    for (int i = 0; i < 3; i++) CHECK(out[i] == 2 * x[i]);
  tt_storage_release(a);
  tt_storage_release(c);
}

int main(void) {
  tt_engine_t *e1 = NULL, *e2 = NULL;
  if (!CHECK_OK(tt_engine_create(NULL, &e1)) || !CHECK_OK(tt_engine_create(NULL, &e2))) return check_summary();
  CHECK(e1 != e2 && e1->rt != e2->rt);
  test_independent(e1, e2);
  test_two_threads(e1, e2);
  tt_engine_destroy(e1);
  test_destroy_one(e2);
  tt_engine_destroy(e2);
  return check_summary();
}
