/* Tests of the engine lock (recursive; another thread waits for it), the
 * blocking hooks (called around the core's host waits, on the waiting
 * thread), and the fork guard (a child forked after init is marked, the
 * parent is not). TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/call.h"
#include "test_engine.h"
#include "api/engine_lock.h"
#include "base/blocking.h"
#include "check.h"
#include "refs.h"
#include "ops/registry.h"

static atomic_int g_other_got_it;

static void *try_from_other_thread(void *unused) {
  (void)unused;
  atomic_store(&g_other_got_it, tt_engine_trylock());
  if (atomic_load(&g_other_got_it)) tt_engine_unlock();
  return NULL;
}

static void *lock_from_other_thread(void *unused) {
  (void)unused;
  tt_engine_lock(); /* blocks until the main thread lets go */
  atomic_store(&g_other_got_it, 1);
  tt_engine_unlock();
  return NULL;
}

static void test_lock_is_recursive_and_exclusive(void) {
  CHECK(tt_engine_trylock());
  CHECK(tt_engine_trylock()); /* the same thread again: recursive */
  pthread_t t;
  pthread_create(&t, NULL, try_from_other_thread, NULL);
  pthread_join(t, NULL);
  CHECK(!atomic_load(&g_other_got_it)); /* held here: another thread cannot take it */
  tt_engine_unlock();
  pthread_create(&t, NULL, try_from_other_thread, NULL);
  pthread_join(t, NULL);
  CHECK(!atomic_load(&g_other_got_it)); /* still held once */
  pthread_create(&t, NULL, lock_from_other_thread, NULL);
  usleep(20000);
  CHECK(!atomic_load(&g_other_got_it)); /* it waits */
  tt_engine_unlock();
  pthread_join(t, NULL);
  CHECK(atomic_load(&g_other_got_it)); /* and gets it once released */
}

static atomic_int g_begins, g_ends, g_unbalanced;
static _Thread_local int t_depth;
static int g_token = 7;

static void *count_begin(void) {
  atomic_fetch_add(&g_begins, 1);
  t_depth++;
  return &g_token;
}

static void count_end(void *token) {
  atomic_fetch_add(&g_ends, 1);
  if (token != &g_token || --t_depth < 0) atomic_store(&g_unbalanced, 1);
}

static void test_blocking_hooks_wrap_host_waits(void) {
  tt_blocking_set_hooks(count_begin, count_end);
  float a[5] = {1, 2, 3, 4, 5}, out[5] = {0};
  tt_storage_t *s = host_f32(a, 5);
  tt_tensor_ref_t r = vec(s, 5);
  tt_arg_t args[2] = {tensor_arg(&r), tensor_arg(&r)};
  tt_call_result_t res;
  int b0 = atomic_load(&g_begins);
  if (CHECK_OK(tt_call(E, tt_ops_find("add.Tensor"), args, 2, &res))) {
    tt_tensor_ref_t o = vec(res.outs[0].storage, 5);
    CHECK_OK(tt_tensor_to_host(E, &o, TT_F32, out, sizeof out)); /* waits for the device */
    tt_call_result_clear(&res);
  }
  CHECK(out[4] == 10.0f);
  CHECK(atomic_load(&g_begins) > b0);                       /* the waits called the hook */
  CHECK(atomic_load(&g_begins) == atomic_load(&g_ends));   /* balanced */
  CHECK(!atomic_load(&g_unbalanced));                       /* on the thread that began, with its token */
  tt_storage_release(s);
  tt_blocking_set_hooks(NULL, NULL);
}

static void test_fork_guard_marks_the_child(void) {
  CHECK(!tt_engine_forked());
  pid_t pid = fork();
  if (pid == 0) _exit(tt_engine_forked() ? 0 : 1); /* the child touches nothing else */
  int st = 0;
  CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  CHECK(!tt_engine_forked()); /* the parent is not marked */
}

int main(void) {
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  test_lock_is_recursive_and_exclusive();
  test_blocking_hooks_wrap_host_waits();
  test_fork_guard_marks_the_child();
  return check_summary();
}
