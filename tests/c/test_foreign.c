/* Tests of foreign StableHLO modules (ir/foreign.h): parsing of JAX-style
 * module text, renaming of its symbols, errors, and a graph that calls two
 * modules with same-named private functions, emitted, compiled and run on
 * the real plugin. TORCH_TPU_PJRT_PLUGIN names the plugin. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hlo/emit.h"
#include "ir/builder.h"
#include "ir/fingerprint.h"
#include "ir/foreign.h"
#include "pjrt/runtime.h"

/* As jax.jit(f).lower(...).as_text() prints it: module attributes, result
 * attributes, a private helper called with `call`, a custom-call-like symbol
 * that is not the module's (must keep its name). */
static const char *kModA =
    "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
    "  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32> {mhlo.layout_mode = \"default\"}) -> "
    "(tensor<3xf32> {jax.result_info = \"result[0]\"}, tensor<i32> {jax.result_info = \"result[1]\"}) {\n"
    "    %0 = call @inner(%arg0, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n"
    "    %c = stablehlo.constant dense<7> : tensor<i32>\n"
    "    return %0, %c : tensor<3xf32>, tensor<i32>\n"
    "  }\n"
    "  func.func private @inner(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32> {\n"
    "    %0 = stablehlo.add %arg0, %arg1 : tensor<3xf32>\n"
    "    return %0 : tensor<3xf32>\n"
    "  }\n"
    "}\n";

static const char *kModB =
    "module @jit_g {\n"
    "  func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {\n"
    "    %0 = call @inner(%arg0) : (tensor<3xf32>) -> tensor<3xf32>\n"
    "    return %0 : tensor<3xf32>\n"
    "  }\n"
    "  func.func private @inner(%arg0: tensor<3xf32>) -> tensor<3xf32> {\n"
    "    %0 = stablehlo.multiply %arg0, %arg0 : tensor<3xf32>\n"
    "    return %0 : tensor<3xf32>\n"
    "  }\n"
    "}\n";

/* As lowered for TPU: a Mosaic kernel is a custom call whose target is not a
 * symbol of the module (kept), its body an escaped string (kept). */
static const char *kModTpu =
    "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
    "  func.func public @main(%arg0: tensor<8x128xf32>) -> (tensor<8x128xf32> {jax.result_info = \"result\"}) {\n"
    "    %0 = stablehlo.custom_call @tpu_custom_call(%arg0) {backend_config = \"{\\22body\\22: \\22@main }{\\22}\", "
    "kernel_name = \"k\"} : (tensor<8x128xf32>) -> tensor<8x128xf32>\n"
    "    return %0 : tensor<8x128xf32>\n"
    "  }\n"
    "}\n";

static void test_parse(void) {
  uint64_t ka = 0, ka2 = 0, kb = 0;
  CHECK_OK(tt_foreign_intern(kModA, strlen(kModA), &ka));
  CHECK_OK(tt_foreign_intern(kModA, strlen(kModA), &ka2));
  CHECK_OK(tt_foreign_intern(kModB, strlen(kModB), &kb));
  CHECK(ka == ka2 && ka != kb);
  const tt_foreign_t *a = tt_foreign_get(ka);
  CHECK(a != NULL && tt_foreign_get(ka2) == a);
  if (!a) return;
  CHECK(a->nin == 2 && a->nout == 2);
  CHECK(a->in[0].dtype == TT_F32 && a->in[0].rank == 1 && a->in[0].dims[0] == 3);
  CHECK(a->out[1].dtype == TT_I32 && a->out[1].rank == 0);
  CHECK(strstr(a->funcs, "func.func private @tt_ff") != NULL);
  CHECK(strstr(a->funcs, "public") == NULL);
  CHECK(strstr(a->funcs, "@inner") == NULL && strstr(a->funcs, "_inner(") != NULL);
  CHECK(strstr(a->funcs, "\"result[0]\"") != NULL); /* strings untouched */
  CHECK(strncmp(a->entry, "tt_ff", 5) == 0 && strcmp(a->entry + strlen(a->entry) - 5, "_main") == 0);
  CHECK(tt_foreign_get(ka ^ 1) == NULL);

  uint64_t kt = 0;
  CHECK_OK(tt_foreign_intern(kModTpu, strlen(kModTpu), &kt));
  const tt_foreign_t *tp = tt_foreign_get(kt);
  CHECK(tp && tp->nin == 1 && tp->nout == 1);
  CHECK(tp && strstr(tp->funcs, "stablehlo.custom_call @tpu_custom_call(%arg0)") != NULL);
  CHECK(tp && strstr(tp->funcs, "\\22@main }{\\22}") != NULL);

  uint64_t k;
  static const char *bad[] = {
      "func.func @main() {}",                                                               /* no module */
      "module { func.func private @f(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> } }", /* no entry */
      "module { func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> { return %a : tensor<?xf32> } }",     /* dynamic */
      "module { func.func @main(%a: tensor<2xf8E4M3FN>) -> tensor<2xf8E4M3FN> { return %a : tensor<2xf8E4M3FN> } }",
      "module { func.func @main(%a: !stablehlo.token) -> !stablehlo.token { return %a : !stablehlo.token } }",
  };
  static const tt_code_t codes[] = {TT_INVALID_ARGUMENT, TT_INVALID_ARGUMENT, TT_NOT_IMPLEMENTED, TT_NOT_IMPLEMENTED,
                                    TT_NOT_IMPLEMENTED};
  for (int i = 0; i < 5; i++) CHECK_ERR(tt_foreign_intern(bad[i], strlen(bad[i]), &k), codes[i]);
}

/* out = A(x, y)[0] * 2 then B(.): (x + y)^2 * 4 ... both modules' @inner in one program. */
static void test_splice_run(const char *plugin) {
  tt_pjrt_runtime_t *rt = NULL;
  if (!CHECK_OK(tt_pjrt_runtime_create(plugin, NULL, &rt))) return;
  uint64_t ka = 0, kb = 0;
  CHECK_OK(tt_foreign_intern(kModA, strlen(kModA), &ka));
  CHECK_OK(tt_foreign_intern(kModB, strlen(kModB), &kb));
  const tt_foreign_t *a = tt_foreign_get(ka), *b = tt_foreign_get(kb);
  tt_graph_t *g = NULL;
  if (!a || !b || !CHECK_OK(tt_graph_create(&g))) {
    tt_pjrt_runtime_destroy(rt);
    return;
  }
  int64_t three = 3;
  tt_type_t t = tt_type_make(TT_F32, 1, &three);
  tt_val_t x = tt_b_param(g, &t), y = tt_b_param(g, &t);
  tt_val_t ins[2] = {x, y};
  int64_t ika = (int64_t)ka, ikb = (int64_t)kb;
  tt_val_t na = tt_graph_append_multi(g, TT_OPK_FOREIGN, 0, ins, 2, &ika, 1, a->out, a->nout);
  tt_val_t s = tt_b_binary(g, TT_BIN_MUL, tt_b_get(g, na, 0), tt_b_like_f(g, x, 2.0));
  tt_val_t nb = tt_graph_append_multi(g, TT_OPK_FOREIGN, 0, &s, 1, &ikb, 1, b->out, b->nout);
  CHECK_OK(tt_graph_add_output(g, nb));
  CHECK_OK(tt_graph_add_output(g, tt_b_get(g, na, 1)));
  tt_graph_key_t k1 = tt_graph_fingerprint(g);

  tt_strbuf_t sb;
  tt_strbuf_init(&sb);
  tt_pjrt_executable_t *exe = NULL;
  if (CHECK_OK(tt_hlo_emit_module(g, &sb)) && CHECK_OK(tt_pjrt_compile(rt, sb.data, sb.len, 1, "foreign test", &exe))) {
    float xv[3] = {1, 2, 3}, yv[3] = {0.5f, -1, 4}, out[3] = {0};
    int32_t seven = 0;
    tt_pjrt_buffer_t *bx = NULL, *by = NULL, *ob[2] = {NULL, NULL};
    CHECK_OK(tt_pjrt_buffer_from_host(rt, xv, TT_F32, &three, 1, 0, &bx));
    CHECK_OK(tt_pjrt_buffer_from_host(rt, yv, TT_F32, &three, 1, 0, &by));
    tt_pjrt_buffer_t *args[2] = {bx, by};
    if (CHECK_OK(tt_pjrt_execute(rt, exe, args, 2, "foreign test", ob))) {
      CHECK_OK(tt_pjrt_buffer_to_host(rt, ob[0], out, sizeof out));
      CHECK_OK(tt_pjrt_buffer_to_host(rt, ob[1], &seven, sizeof seven));
      for (int i = 0; i < 3; i++) {
        float e = (xv[i] + yv[i]) * 2;
        CHECK(out[i] == e * e);
      }
      CHECK(seven == 7);
      tt_pjrt_buffer_destroy(rt, ob[0]);
      tt_pjrt_buffer_destroy(rt, ob[1]);
    }
    tt_pjrt_buffer_destroy(rt, bx);
    tt_pjrt_buffer_destroy(rt, by);
    tt_pjrt_executable_destroy(rt, exe);
  } else if (sb.data) {
    fprintf(stderr, "%s\n", sb.data);
  }
  tt_strbuf_free(&sb);
  tt_graph_destroy(g);

  /* The same graph calling B then A differs in its key. */
  CHECK_OK(tt_graph_create(&g));
  x = tt_b_param(g, &t);
  y = tt_b_param(g, &t);
  ins[0] = x;
  ins[1] = y;
  na = tt_graph_append_multi(g, TT_OPK_FOREIGN, 0, ins, 2, &ikb, 1, b->out, b->nout); /* wrong arity on purpose: key only */
  CHECK_OK(tt_graph_add_output(g, na));
  tt_graph_key_t k2 = tt_graph_fingerprint(g);
  CHECK(k1.shapeless != k2.shapeless);
  tt_graph_destroy(g);
  tt_pjrt_runtime_destroy(rt);
}

int main(void) {
  test_parse();
  const char *plugin = getenv("TORCH_TPU_PJRT_PLUGIN");
  if (plugin) test_splice_run(plugin);
  else fprintf(stderr, "TORCH_TPU_PJRT_PLUGIN unset: splice run not tested\n");
  printf("test_foreign: %d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
