/* Tests of float32 precision modes on dot_general and convolution nodes:
 * the mode is in the fingerprint; a TPU plugin gets precision_config
 * (DEFAULT / HIGH / HIGHEST) on one contraction, other plugins get 1 or 3
 * bf16 passes written out (HIGHEST stays one native f32 contraction); non
 * float32 nodes ignore the mode; the CPU plugin compiles every form.
 * TORCH_TPU_PJRT_PLUGIN names the plugin. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hlo/emit.h"
#include "ir/builder.h"
#include "ir/fingerprint.h"
#include "pjrt/runtime.h"

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

/* A graph of one [4, 8] x [8, 3] dot (or a 1x1x5x5 by 2x1x3x3 conv) of dtype dt in mode prec. */
static tt_graph_t *build(int conv, tt_dtype_t dt, int prec) {
  tt_graph_t *g = NULL;
  if (!CHECK_OK(tt_graph_create(&g))) return NULL;
  tt_val_t y;
  if (!conv) {
    int64_t da[2] = {4, 8}, db[2] = {8, 3};
    tt_type_t ta = tt_type_make(dt, 2, da), tb = tt_type_make(dt, 2, db);
    tt_val_t a = tt_b_param(g, &ta), b = tt_b_param(g, &tb);
    int64_t lc = 1, rc = 0;
    y = tt_b_dot_prec(g, prec, a, b, 0, NULL, NULL, 1, &lc, &rc);
  } else {
    int64_t dx[4] = {1, 1, 5, 5}, dw[4] = {2, 1, 3, 3};
    tt_type_t tx = tt_type_make(dt, 4, dx), tw = tt_type_make(dt, 4, dw);
    tt_val_t x = tt_b_param(g, &tx), w = tt_b_param(g, &tw);
    tt_conv_params_t p;
    memset(&p, 0, sizeof p);
    p.nsp = 2;
    for (int i = 0; i < 2; i++) p.stride[i] = p.lhs_dilation[i] = p.rhs_dilation[i] = 1;
    p.feature_groups = p.batch_groups = 1;
    p.precision = prec;
    y = tt_b_conv(g, x, w, &p);
  }
  CHECK(y >= 0);
  CHECK_OK(tt_graph_add_output(g, y));
  return g;
}

static char *emit(tt_graph_t *g, const char *platform) {
  tt_strbuf_t sb;
  tt_strbuf_init(&sb);
  if (!CHECK_OK(tt_hlo_emit_module_for(g, platform, &sb))) {
    tt_strbuf_free(&sb);
    return NULL;
  }
  return sb.data; /* owned by the caller */
}

static void compiles(tt_pjrt_runtime_t *rt, const char *text, const char *what) {
  tt_pjrt_executable_t *exe = NULL;
  if (!CHECK_OK(tt_pjrt_compile(rt, text, strlen(text), 1, what, &exe))) fprintf(stderr, "%s\n", text);
  tt_pjrt_executable_destroy(rt, exe);
}

int main(void) {
  const char *plugin = getenv("TORCH_TPU_PJRT_PLUGIN");
  tt_pjrt_runtime_t *rt = NULL;
  if (!plugin || !CHECK_OK(tt_pjrt_runtime_create(plugin, NULL, &rt))) {
    fprintf(stderr, "set TORCH_TPU_PJRT_PLUGIN to a PJRT plugin\n");
    return check_summary() | 1;
  }
  static const char *const op[2] = {"stablehlo.dot_general", "stablehlo.convolution"};
  for (int conv = 0; conv < 2; conv++) {
    tt_graph_t *g[3];
    for (int m = 0; m < 3; m++) g[m] = build(conv, TT_F32, m);
    /* The mode is part of the key: three different fingerprints. */
    tt_graph_key_t k0 = tt_graph_fingerprint(g[0]), k1 = tt_graph_fingerprint(g[1]), k2 = tt_graph_fingerprint(g[2]);
    CHECK(memcmp(&k0, &k1, sizeof k0) && memcmp(&k0, &k2, sizeof k0) && memcmp(&k1, &k2, sizeof k1));

    static const char *const tpu_prec[3] = {"precision HIGHEST", "precision HIGH>", "precision DEFAULT"};
    static const int cpu_passes[3] = {1, 3, 1};
    for (int m = 0; m < 3; m++) {
      char *tpu = emit(g[m], "tpu"), *cpu = emit(g[m], "cpu");
      if (!tpu || !cpu) {
        free(tpu);
        free(cpu);
        continue;
      }
      /* TPU: one contraction with the mode's precision_config, no bf16. */
      CHECK(count(tpu, op[conv]) == 1);
      CHECK(count(tpu, tpu_prec[m]) == 2);
      CHECK(!strstr(tpu, "bf16"));
      /* Elsewhere: the passes; HIGHEST is the native f32 contraction. */
      CHECK(count(cpu, op[conv]) == cpu_passes[m]);
      CHECK((strstr(cpu, "bf16") != NULL) == (m != TT_PREC_HIGHEST));
      if (m == TT_PREC_HIGH) CHECK(count(cpu, "stablehlo.subtract") == 2 && count(cpu, "stablehlo.add") == 2 &&
                                   count(cpu, "comparison_direction NE") == 1);
      compiles(rt, cpu, "precision emit test");
      free(tpu);
      free(cpu);
    }
    for (int m = 0; m < 3; m++) tt_graph_destroy(g[m]);

    /* Other dtypes: one native contraction whatever the mode. */
    static const tt_dtype_t others[3] = {TT_F64, TT_BF16, TT_F16};
    for (int i = 0; i < 3; i++) {
      tt_graph_t *h = build(conv, others[i], TT_PREC_HIGH);
      char *cpu = h ? emit(h, "cpu") : NULL;
      if (cpu) {
        CHECK(count(cpu, op[conv]) == 1);
        CHECK(count(cpu, "precision HIGHEST") == 2);
        compiles(rt, cpu, "precision emit test");
      }
      free(cpu);
      tt_graph_destroy(h);
    }
  }
  tt_pjrt_runtime_destroy(rt);
  return check_summary();
}
