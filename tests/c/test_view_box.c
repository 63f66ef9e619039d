/* Views read and written at a baked offset whose flat block would run past
 * the end of the base (k and v of qkv.unbind(0) in an attention block): a
 * static box of the base reshaped by the view's strides, with no padded
 * copy of the base and no dynamic slice (views/view.c digit_box). The
 * emitted module compiles on the plugin TORCH_TPU_PJRT_PLUGIN names; the
 * values are checked from Python (tests/python/test_compile_constants.py). */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hlo/emit.h"
#include "ir/builder.h"
#include "pjrt/runtime.h"
#include "views/view.h"

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

/* qkv laid out [b=2, t=4, 3, h=2, d=8] (contiguous), permuted to
 * [3, b, h, t, d] and indexed at `which`: sizes [2, 2, 4, 8]. */
static tt_view_t qkv_view(int which) {
  tt_view_t v;
  memset(&v, 0, sizeof v);
  v.rank = 4;
  int64_t sizes[4] = {2, 2, 4, 8}, strides[4] = {4 * 3 * 2 * 8, 8, 3 * 2 * 8, 1};
  memcpy(v.sizes, sizes, sizeof sizes);
  memcpy(v.strides, strides, sizeof strides);
  v.offset = which * 2 * 8;
  return v;
}

static char *emit(tt_graph_t *g) {
  tt_strbuf_t sb;
  tt_strbuf_init(&sb);
  if (!CHECK_OK(tt_hlo_emit_module_for(g, "cpu", &sb))) {
    tt_strbuf_free(&sb);
    return NULL;
  }
  return sb.data;
}

static void check_module(tt_pjrt_runtime_t *rt, tt_graph_t *g, int padless) {
  char *text = emit(g);
  if (!text) return;
  CHECK(!count(text, "stablehlo.dynamic_slice"));
  if (padless) CHECK(!count(text, "stablehlo.pad"));
  tt_pjrt_executable_t *exe = NULL;
  if (!CHECK_OK(tt_pjrt_compile(rt, text, strlen(text), 1, "view box test", &exe))) fprintf(stderr, "%s\n", text);
  tt_pjrt_executable_destroy(rt, exe);
  free(text);
}

int main(void) {
  const char *plugin = getenv("TORCH_TPU_PJRT_PLUGIN");
  tt_pjrt_runtime_t *rt = NULL;
  if (!plugin || !CHECK_OK(tt_pjrt_runtime_create(plugin, NULL, &rt))) {
    fprintf(stderr, "set TORCH_TPU_PJRT_PLUGIN to a PJRT plugin\n");
    return check_summary() | 1;
  }
  int64_t n = 2 * 4 * 3 * 2 * 8;
  tt_type_t tb = tt_type_make(TT_F32, 1, &n);
  for (int which = 0; which < 3; which++) {
    tt_view_t v = qkv_view(which);
    /* read */
    tt_graph_t *g = NULL;
    if (!CHECK_OK(tt_graph_create(&g))) break;
    tt_val_t base = tt_b_param(g, &tb);
    tt_val_t x = tt_view_read(g, base, &v);
    CHECK(x >= 0 && tt_graph_type(g, x)->rank == 4 && tt_graph_type(g, x)->dims[2] == 4);
    CHECK_OK(tt_graph_add_output(g, x));
    check_module(rt, g, 1);
    tt_graph_destroy(g);
    /* write */
    g = NULL;
    if (!CHECK_OK(tt_graph_create(&g))) break;
    base = tt_b_param(g, &tb);
    tt_type_t tv = tt_type_make(TT_F32, 4, v.sizes);
    tt_val_t val = tt_b_param(g, &tv);
    tt_val_t nb = tt_view_write(g, base, &v, val);
    CHECK(nb >= 0 && tt_graph_type(g, nb)->rank == 1 && tt_graph_type(g, nb)->dims[0] == n);
    CHECK_OK(tt_graph_add_output(g, nb));
    check_module(rt, g, 1);
    tt_graph_destroy(g);
  }
  tt_pjrt_runtime_destroy(rt);
  return check_summary();
}
