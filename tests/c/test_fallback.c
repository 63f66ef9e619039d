/* Tests of the CPU-fallback policy and counts (exec/fallback), without a plugin. */
#include <string.h>

#include "exec/fallback.h"
#include "base/alloc.h"
#include "check.h"

static tt_fallback_t F; /* an engine's fallback state, on its own */

static void test_off_by_default(void) {
  CHECK(!tt_fallback_enabled(&F));
  bool first = true;
  tt_status_t s = tt_fallback_enter(&F, "aten::cholesky.default", &first);
  CHECK(s && tt_status_code(s) == TT_NOT_IMPLEMENTED);
  const char *m = s ? tt_status_message(s) : "";
  CHECK(strstr(m, "aten::cholesky.default") != NULL);
  CHECK(strstr(m, "TORCH_TPU_CPU_FALLBACK=1") != NULL);
  CHECK(strstr(m, "torch.tpu.set_cpu_fallback(True)") != NULL);
  CHECK(strstr(m, "issue tracker") != NULL);
  tt_status_free(s);
  CHECK(!first);
  CHECK(tt_fallback_op_count(&F) == 0); /* refused runs are not counted */
}

static void test_counts_and_first(void) {
  tt_fallback_set_enabled(&F, true);
  bool first = false;
  CHECK_OK(tt_fallback_enter(&F, "aten::a.default", &first));
  CHECK(first);
  CHECK_OK(tt_fallback_enter(&F, "aten::b.out", &first));
  CHECK(first);
  CHECK_OK(tt_fallback_enter(&F, "aten::a.default", &first));
  CHECK(!first);
  for (int i = 0; i < 100; i++) { /* grows past the first allocation */
    char name[32];
    snprintf(name, sizeof name, "aten::op%d.default", i);
    CHECK_OK(tt_fallback_enter(&F, name, &first));
  }
  CHECK(tt_fallback_op_count(&F) == 102);
  uint64_t runs = 0;
  CHECK(strcmp(tt_fallback_op(&F, 0, &runs), "aten::a.default") == 0 && runs == 2);
  CHECK(strcmp(tt_fallback_op(&F, 1, &runs), "aten::b.out") == 0 && runs == 1);
  CHECK(tt_fallback_op(&F, 102, &runs) == NULL && tt_fallback_op(&F, -1, &runs) == NULL);
  tt_fallback_reset(&F);
  CHECK(tt_fallback_op_count(&F) == 0);
  CHECK_OK(tt_fallback_enter(&F, "aten::a.default", &first));
  CHECK(first); /* warns again after a reset */
  tt_fallback_reset(&F);
  tt_fallback_set_enabled(&F, false);
}

static void test_out_of_memory(void) {
  tt_fallback_set_enabled(&F, true);
  bool first = true;
  tt_alloc_fail_after(0);
  CHECK_ERR(tt_fallback_enter(&F, "aten::a.default", &first), TT_OUT_OF_MEMORY);
  tt_alloc_fail_after(-1);
  CHECK(!first && tt_fallback_op_count(&F) == 0);
  tt_fallback_reset(&F);
  tt_fallback_set_enabled(&F, false);
}

static void test_unsupported(void) {
  tt_status_t s = tt_fallback_unsupported("aten::add.Tensor", "sparse COO layout");
  CHECK(s && tt_status_code(s) == TT_NOT_IMPLEMENTED);
  CHECK(s && strstr(tt_status_message(s), "sparse COO layout is not supported on TPU yet") != NULL);
  tt_status_free(s);
}

int main(void) {
  test_off_by_default();
  test_counts_and_first();
  test_out_of_memory();
  test_unsupported();
  return check_summary();
}
