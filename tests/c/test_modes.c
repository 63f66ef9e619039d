/* Tests of the eager modes without Python: names, environment selection,
 * debug mode's bounds checks raising at the op, and Strict/DeferAndFuse
 * raising them at the next synchronization point.
 * TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/call.h"
#include "test_engine.h"
#include "exec/mode.h"
#include "check.h"
#include "refs.h"
#include "exec/async_errors.h"
#include "exec/inflight.h"
#include "ops/registry.h"

/* The eager mode the environment asks for, read as an engine reads it. */
static tt_eager_mode_t mode_from_env(void) {
  tt_env_t env;
  tt_env_read(&env);
  tt_eager_mode_t m = tt_eager_mode_from_env(&env);
  tt_env_free(&env);
  return m;
}

static void test_names_and_env(void) {
  tt_eager_mode_t m;
  CHECK_OK(tt_eager_mode_parse("Debug", &m));
  CHECK(m == TT_MODE_DEBUG);
  CHECK_OK(tt_eager_mode_parse("defer_and_fuse", &m));
  CHECK(m == TT_MODE_DEFER_AND_FUSE && !strcmp(tt_eager_mode_name(m), "defer_and_fuse"));
  CHECK_ERR(tt_eager_mode_parse("fast", &m), TT_VALUE_ERROR);
  unsetenv("TORCH_TPU_DEFER_AND_FUSE");
  setenv("TORCH_TPU_LAUNCH_BLOCKING", "1", 1);
  CHECK(mode_from_env() == TT_MODE_DEBUG);
  setenv("TORCH_TPU_LAUNCH_BLOCKING", "0", 1);
  CHECK(mode_from_env() == TT_MODE_STRICT);
  setenv("TORCH_TPU_DEFER_AND_FUSE", "1", 1);
  CHECK(mode_from_env() == TT_MODE_DEFER_AND_FUSE);
  unsetenv("TORCH_TPU_DEFER_AND_FUSE");
  unsetenv("TORCH_TPU_LAUNCH_BLOCKING");
  /* The environment asking for defer-and-fuse: init starts in that mode. */
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TORCH_TPU_DEFER_AND_FUSE", "1", 1);
    tt_status_t s = tt_init(NULL, &E);
    int ok = !s && E && tt_get_eager_mode(E) == TT_MODE_DEFER_AND_FUSE;
    tt_status_free(s);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* index_select(x[5], 0, idx) in the current mode. */
static tt_status_t index_select(const int64_t *idx, int64_t n, float *out) {
  float x[5] = {10, 11, 12, 13, 14};
  tt_storage_t *sx = NULL, *si = NULL;
  tt_status_t s = tt_storage_from_host(E, x, TT_F32, 5, &sx);
  if (!s) s = tt_storage_from_host(E, idx, TT_I64, n, &si);
  if (s) return s;
  tt_tensor_ref_t rx = vec(sx, 5), ri = vec(si, n);
  tt_arg_t args[3] = {tensor_arg(&rx), {0}, tensor_arg(&ri)};
  args[1].kind = TT_ARG_INT;
  tt_call_result_t res;
  s = tt_call(E, tt_ops_find("index_select"), args, 3, &res);
  if (!s) {
    tt_tensor_ref_t ro = vec(res.outs[0].storage, n);
    s = tt_tensor_to_host(E, &ro, TT_F32, out, sizeof(float) * (size_t)n);
    tt_call_result_clear(&res);
  }
  tt_storage_release(sx);
  tt_storage_release(si);
  return s;
}

/* index_select(x[5], 0, idx) launched without reading the result; keep
 * says whether the result stays alive until the next sync. */
static tt_call_result_t g_kept;
static tt_status_t launch_index_select(const int64_t *idx, int64_t n, int keep) {
  float x[5] = {10, 11, 12, 13, 14};
  tt_storage_t *sx = NULL, *si = NULL;
  tt_status_t s = tt_storage_from_host(E, x, TT_F32, 5, &sx);
  if (!s) s = tt_storage_from_host(E, idx, TT_I64, n, &si);
  if (s) return s;
  tt_tensor_ref_t rx = vec(sx, 5), ri = vec(si, n);
  tt_arg_t args[3] = {tensor_arg(&rx), {0}, tensor_arg(&ri)};
  args[1].kind = TT_ARG_INT;
  s = tt_call(E, tt_ops_find("index_select"), args, 3, &g_kept);
  if (!s && !keep) tt_call_result_clear(&g_kept);
  tt_storage_release(sx);
  tt_storage_release(si);
  return s;
}

/* The message Debug mode gives, plus the asynchronous note when async. */
static int names_op_index_size(tt_status_t s, int async) {
  const char *m = s ? tt_status_message(s) : "";
  return s && tt_status_code(s) == TT_INDEX_ERROR && strstr(m, "index out of range in self") &&
         strstr(m, "index_select") && strstr(m, "index 7") && strstr(m, "size 5") &&
         (strstr(m, "asynchronously") != NULL) == async;
}

static void test_debug_checks(void) {
  float out[3];
  int64_t good[3] = {4, 0, 2}, bad[3] = {1, 7, 9};
  CHECK_OK(tt_set_eager_mode(E, TT_MODE_DEBUG));
  if (CHECK_OK(index_select(good, 3, out))) CHECK(out[0] == 14 && out[1] == 10 && out[2] == 12);
  tt_status_t s = index_select(bad, 3, out);
  /* The message names the op, the first bad index and the size. */
  CHECK(names_op_index_size(s, 0));
  tt_status_free(s);
  CHECK(tt_async_errors_pending(E) == 0);
  CHECK_OK(tt_set_eager_mode(E, TT_MODE_STRICT));
}

/* Strict and DeferAndFuse: the flag of a bad launch is read at the next
 * synchronization point, which raises Debug's error with the async note. */
static void test_async_checks(void) {
  float out[3];
  int64_t good[3] = {4, 0, 2}, bad[3] = {1, 7, 9};
  CHECK(tt_get_eager_mode(E) == TT_MODE_STRICT);
  /* A copy to the host of the bad op's own result. */
  tt_status_t s = index_select(bad, 3, out);
  CHECK(names_op_index_size(s, 1));
  tt_status_free(s);
  CHECK(tt_async_errors_pending(E) == 0);
  /* Raised once: the next program runs and reads fine. */
  if (CHECK_OK(index_select(good, 3, out))) CHECK(out[0] == 14 && out[1] == 10 && out[2] == 12);
  /* Launched, nothing read: pending until synchronize. */
  CHECK_OK(launch_index_select(bad, 3, 0));
  CHECK(tt_async_errors_pending(E) == 1);
  s = tt_synchronize(E);
  CHECK(names_op_index_size(s, 1));
  tt_status_free(s);
  CHECK_OK(tt_synchronize(E));
  /* An op with no index checks leaves nothing pending. */
  if (CHECK_OK(index_select(good, 3, out))) CHECK(tt_async_errors_pending(E) == 0);
  /* A mode switch reads the flags of launches already done. */
  CHECK_OK(launch_index_select(bad, 3, 0));
  CHECK_OK(tt_inflight_wait_all(E));
  s = tt_set_eager_mode(E, TT_MODE_DEFER_AND_FUSE);
  CHECK(names_op_index_size(s, 1));
  tt_status_free(s);
  CHECK(tt_get_eager_mode(E) == TT_MODE_DEFER_AND_FUSE); /* the switch happened */
  /* DeferAndFuse: the bad op is deferred, runs at the sync and raises. */
  CHECK_OK(launch_index_select(bad, 3, 1));
  CHECK(tt_async_errors_pending(E) == 0);
  s = tt_synchronize(E);
  CHECK(names_op_index_size(s, 1));
  tt_status_free(s);
  tt_call_result_clear(&g_kept);
  /* Its result died before any flush: the check still runs. */
  CHECK_OK(launch_index_select(bad, 3, 0));
  s = tt_synchronize(E);
  CHECK(names_op_index_size(s, 1));
  tt_status_free(s);
  if (CHECK_OK(index_select(good, 3, out))) CHECK(out[0] == 14 && out[1] == 10 && out[2] == 12);
  s = index_select(bad, 3, out);
  CHECK(names_op_index_size(s, 1));
  tt_status_free(s);
  CHECK_OK(tt_set_eager_mode(E, TT_MODE_STRICT));
}

int main(void) {
  test_names_and_env();
  if (!CHECK_OK(tt_init(NULL, &E))) return check_summary();
  test_debug_checks();
  test_async_checks();
  tt_shutdown(E);
  return check_summary();
}
