/* Tests of the IR's while loops: builder rules, emitted text compiled and run
 * on the real plugin (counted, general and nested loops, captured values),
 * and fingerprints that see region contents. TORCH_TPU_PJRT_PLUGIN names the plugin. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hlo/emit.h"
#include "ir/builder.h"
#include "ir/fingerprint.h"
#include "pjrt/runtime.h"

static tt_pjrt_runtime_t *g_rt;

/* Compiles g and runs it on args; downloads output i to outs[i] (nbytes[i]). */
static void run_graph(tt_graph_t *gr, tt_pjrt_buffer_t *const *args, int nargs, void **outs,
                      const size_t *nbytes) {
  tt_strbuf_t sb;
  tt_strbuf_init(&sb);
  tt_pjrt_executable_t *exe = NULL;
  if (!CHECK_OK(tt_hlo_emit_module(gr, &sb)) ||
      !CHECK_OK(tt_pjrt_compile(g_rt, sb.data, sb.len, 1, "loop test", &exe))) {
    fprintf(stderr, "%s\n", sb.data ? sb.data : "");
    tt_strbuf_free(&sb);
    return;
  }
  tt_strbuf_free(&sb);
  int nout = tt_graph_num_outputs(gr);
  tt_pjrt_buffer_t *ob[8] = {NULL};
  if (CHECK_OK(tt_pjrt_execute(g_rt, exe, args, (size_t)nargs, "loop test", ob)))
    for (int i = 0; i < nout; i++) {
      CHECK_OK(tt_pjrt_buffer_to_host(g_rt, ob[i], outs[i], nbytes[i]));
      tt_pjrt_buffer_destroy(g_rt, ob[i]);
    }
  tt_pjrt_executable_destroy(g_rt, exe);
}

/* acc = 0; for i in [0, 5): acc = 2 * acc + x + i   (x captured from above)
 * total = 0; for i in [0, 5): for j in [0, i): total += 1   (nested: 10)
 * v = 1; while (v < 100) v = 3 * v                        (general: 243) */
static void test_run(void) {
  tt_graph_t *g = NULL;
  if (!CHECK_OK(tt_graph_create(&g))) return;
  int64_t three = 3;
  tt_type_t tx = tt_type_make(TT_F32, 1, &three);
  tt_val_t x = tt_b_param(g, &tx);
  tt_loop_t lp, inner;
  tt_val_t i, acc, res;
  tt_val_t acc0 = tt_b_full_f(g, TT_F32, 1, &three, 0.0);
  tt_b_for_begin(g, &lp, 0, 5, 1, &acc0, &i, &acc);
  tt_val_t fi = tt_b_broadcast(g, tt_b_convert(g, i, TT_F32), 1, &three, NULL);
  tt_val_t nx = tt_b_binary(g, TT_BIN_ADD, tt_b_binary(g, TT_BIN_MUL, acc, tt_b_like_f(g, acc, 2.0)),
                            tt_b_binary(g, TT_BIN_ADD, x, fi));
  tt_b_for_end(g, &lp, &nx, &res);
  CHECK_OK(tt_graph_add_output(g, res));

  tt_val_t t0 = tt_b_const_i(g, TT_I32, 0), t, tin, j, total;
  tt_b_for_begin(g, &lp, 0, 5, 1, &t0, &i, &t);
  /* The inner loop's bound is the outer counter: a general while. */
  tt_val_t c2[2], init2[2] = {tt_b_const_i(g, TT_I64, 0), t};
  tt_b_while_begin(g, &inner, 2, init2, c2);
  tt_b_while_body(g, &inner, tt_b_compare(g, TT_CMP_LT, c2[0], i), c2);
  j = tt_b_binary(g, TT_BIN_ADD, c2[0], tt_b_const_i(g, TT_I64, 1));
  tt_val_t next2[2] = {j, tt_b_binary(g, TT_BIN_ADD, c2[1], tt_b_const_i(g, TT_I32, 1))}, r2[2];
  tt_b_while_end(g, &inner, next2, r2);
  tin = r2[1];
  tt_b_for_end(g, &lp, &tin, &total);
  CHECK_OK(tt_graph_add_output(g, total));

  tt_val_t v, one = tt_b_const_i(g, TT_I64, 1), vr;
  tt_b_while_begin(g, &lp, 1, &one, &v);
  tt_b_while_body(g, &lp, tt_b_compare(g, TT_CMP_LT, v, tt_b_const_i(g, TT_I64, 100)), &v);
  tt_val_t v3 = tt_b_binary(g, TT_BIN_MUL, v, tt_b_const_i(g, TT_I64, 3));
  tt_b_while_end(g, &lp, &v3, &vr);
  CHECK_OK(tt_graph_add_output(g, vr));
  CHECK(!tt_graph_failed(g));

  float xv[3] = {1, -2, 0.5f}, out[3] = {0};
  int32_t tot = -1;
  int64_t vv = -1;
  tt_pjrt_buffer_t *b = NULL;
  if (CHECK_OK(tt_pjrt_buffer_from_host(g_rt, xv, TT_F32, &three, 1, 0, &b))) {
    void *outs[3] = {out, &tot, &vv};
    size_t nb[3] = {sizeof out, sizeof tot, sizeof vv};
    run_graph(g, &b, 1, outs, nb);
    for (int k = 0; k < 3; k++) {
      float e = 0;
      for (int it = 0; it < 5; it++) e = 2 * e + xv[k] + (float)it;
      CHECK(out[k] == e);
    }
    CHECK(tot == 10);
    CHECK(vv == 243);
    tt_pjrt_buffer_destroy(g_rt, b);
  }
  tt_graph_destroy(g);
}

/* body(x) = x op c, in a loop of 3 iterations. */
static tt_graph_key_t loop_key(tt_binary_t op, double c) {
  tt_graph_t *g = NULL;
  tt_graph_key_t k = {0, 0};
  if (!CHECK_OK(tt_graph_create(&g))) return k;
  int64_t two = 2;
  tt_type_t t = tt_type_make(TT_F32, 1, &two);
  tt_val_t x = tt_b_param(g, &t), i, cx, r;
  tt_loop_t lp;
  tt_b_for_begin(g, &lp, 0, 3, 1, &x, &i, &cx);
  tt_val_t nx = tt_b_binary(g, op, cx, tt_b_like_f(g, cx, c));
  tt_b_for_end(g, &lp, &nx, &r);
  CHECK_OK(tt_graph_add_output(g, r));
  k = tt_graph_fingerprint(g);
  tt_graph_destroy(g);
  return k;
}

static void test_fingerprint(void) {
  tt_graph_key_t a = loop_key(TT_BIN_MUL, 2.0), b = loop_key(TT_BIN_MUL, 2.0);
  tt_graph_key_t c = loop_key(TT_BIN_MUL, 3.0), d = loop_key(TT_BIN_ADD, 2.0);
  CHECK(a.shapeless == b.shapeless && a.dims == b.dims);
  CHECK(a.shapeless == c.shapeless && a.dims != c.dims);
  CHECK(a.shapeless != d.shapeless);
}

static void test_errors(void) {
  tt_graph_t *g = NULL;
  if (!CHECK_OK(tt_graph_create(&g))) return;
  tt_val_t x = tt_b_const_f(g, TT_F32, 1.0), c, r = 0, i;
  tt_loop_t lp;
  /* A carried value that changes type. */
  tt_b_while_begin(g, &lp, 1, &x, &c);
  tt_b_while_body(g, &lp, tt_b_const_i(g, TT_BOOL, 0), &c);
  tt_val_t wrong = tt_b_convert(g, c, TT_I32);
  CHECK(tt_b_while_end(g, &lp, &wrong, &r) == -1 && r == -1);
  CHECK_ERR(tt_graph_take_error(g), TT_INTERNAL);
  tt_graph_reset(g);
  /* A non-bool condition. */
  x = tt_b_const_f(g, TT_F32, 1.0);
  tt_b_while_begin(g, &lp, 1, &x, &c);
  tt_b_while_body(g, &lp, c, &c);
  CHECK(c == -1);
  CHECK(tt_b_while_end(g, &lp, &c, &r) == -1);
  CHECK_ERR(tt_graph_take_error(g), TT_INTERNAL);
  tt_graph_reset(g);
  /* An unclosed loop is refused by the emitter. */
  x = tt_b_const_f(g, TT_F32, 1.0);
  tt_b_for_begin(g, &lp, 0, 2, 1, &x, &i, &c);
  CHECK(!tt_graph_failed(g));
  tt_strbuf_t sb;
  tt_strbuf_init(&sb);
  CHECK_ERR(tt_hlo_emit_module(g, &sb), TT_INTERNAL);
  tt_strbuf_free(&sb);
  tt_graph_destroy(g);
}

int main(void) {
  const char *plugin = getenv("TORCH_TPU_PJRT_PLUGIN");
  test_fingerprint();
  test_errors();
  if (!plugin || !plugin[0]) {
    fprintf(stderr, "set TORCH_TPU_PJRT_PLUGIN to the PJRT plugin to test\n");
    return 2;
  }
  if (CHECK_OK(tt_pjrt_runtime_create(plugin, NULL, &g_rt))) {
    test_run();
    tt_pjrt_runtime_destroy(g_rt);
  }
  return check_summary();
}
