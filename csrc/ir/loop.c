/* Loop builders: stablehlo.while with inline condition and body regions. */
#include <string.h>

#include "ir/builder.h"

static void set_all(tt_val_t *out, int n, tt_val_t v) {
  if (out)
    for (int i = 0; i < n; i++) out[i] = v;
}

static void fail_loop(tt_loop_t *lp, tt_val_t *out, int n) {
  lp->node = -1;
  lp->stage = 3;
  set_all(out, n, -1);
}

/* Opens a region: one REGION_ARG per carried value. */
static void open_region(tt_graph_t *g, tt_loop_t *lp, tt_val_t *out_carried) {
  for (int i = 0; i < lp->n; i++) {
    int64_t pos = i;
    tt_val_t a = tt_graph_append(g, TT_OPK_REGION_ARG, 0, NULL, 0, &pos, 1, 0.0, &lp->types[i]);
    if (out_carried) out_carried[i] = a;
  }
  if (tt_graph_failed(g)) fail_loop(lp, out_carried, lp->n);
}

void tt_b_while_begin(tt_graph_t *g, tt_loop_t *lp, int n, const tt_val_t *inits,
                      tt_val_t *out_carried) {
  memset(lp, 0, sizeof *lp);
  lp->n = n;
  lp->counter = -1;
  if (n < 1 || n > TT_LOOP_MAX_CARRIED) {
    tt_graph_fail(g, TT_INTERNAL, "while: %d carried values (1 to %d supported)", n, TT_LOOP_MAX_CARRIED);
    lp->n = 0;
    { fail_loop(lp, NULL, 0); return; }
  }
  for (int i = 0; i < n; i++) {
    if (inits[i] < 0 || tt_graph_failed(g)) { fail_loop(lp, out_carried, n); return; }
    lp->types[i] = *tt_graph_type(g, inits[i]);
  }
  lp->node = tt_graph_append_multi(g, TT_OPK_WHILE, 0, inits, n, NULL, 0, lp->types, n);
  if (lp->node < 0) { fail_loop(lp, out_carried, n); return; }
  lp->stage = 1;
  open_region(g, lp, out_carried);
}

void tt_b_while_body(tt_graph_t *g, tt_loop_t *lp, tt_val_t pred, tt_val_t *out_carried) {
  if (lp->stage != 1 || lp->node < 0 || pred < 0 || tt_graph_failed(g)) {
    if (lp->stage != 1 && !tt_graph_failed(g)) tt_graph_fail(g, TT_INTERNAL, "while: body opened twice");
    { fail_loop(lp, out_carried, lp->n); return; }
  }
  const tt_type_t *pt = tt_graph_type(g, pred);
  if (pt->rank != 0 || pt->dtype != TT_BOOL) {
    tt_graph_fail(g, TT_INTERNAL, "while: the condition must be a rank-0 bool");
    { fail_loop(lp, out_carried, lp->n); return; }
  }
  int64_t which = 0;
  tt_graph_append(g, TT_OPK_RETURN, 0, &pred, 1, &which, 1, 0.0, pt);
  lp->stage = 2;
  open_region(g, lp, out_carried);
}

tt_val_t tt_b_while_end(tt_graph_t *g, tt_loop_t *lp, const tt_val_t *next, tt_val_t *out_results) {
  if (lp->stage != 2 || lp->node < 0 || tt_graph_failed(g)) {
    if (lp->stage != 2 && !tt_graph_failed(g)) tt_graph_fail(g, TT_INTERNAL, "while: closed before its body opened");
    fail_loop(lp, out_results, lp->n);
    return -1;
  }
  for (int i = 0; i < lp->n; i++) {
    if (next[i] < 0) {
      fail_loop(lp, out_results, lp->n);
      return -1;
    }
    if (!tt_type_equal(tt_graph_type(g, next[i]), &lp->types[i])) {
      char a[128], b[128];
      tt_type_describe(tt_graph_type(g, next[i]), a, sizeof a);
      tt_type_describe(&lp->types[i], b, sizeof b);
      tt_graph_fail(g, TT_INTERNAL, "while: carried value %d changes type: %s, was %s", i, a, b);
      fail_loop(lp, out_results, lp->n);
      return -1;
    }
  }
  int64_t which = 1;
  /* The RETURN's own type is unused; any valid type will do. */
  tt_graph_append(g, TT_OPK_RETURN, 0, next, lp->n, &which, 1, 0.0, &lp->types[0]);
  tt_val_t node = lp->node;
  lp->stage = 3;
  if (out_results)
    for (int i = 0; i < lp->n; i++) out_results[i] = tt_b_get(g, node, i);
  if (tt_graph_failed(g)) {
    fail_loop(lp, out_results, lp->n);
    return -1;
  }
  return node;
}

void tt_b_for_begin(tt_graph_t *g, tt_loop_t *lp, int64_t lo, int64_t hi, int n,
                    const tt_val_t *inits, tt_val_t *out_i, tt_val_t *out_carried) {
  tt_val_t all[TT_LOOP_MAX_CARRIED], c[TT_LOOP_MAX_CARRIED];
  *out_i = -1;
  if (n < 0 || n + 1 > TT_LOOP_MAX_CARRIED) {
    memset(lp, 0, sizeof *lp);
    tt_graph_fail(g, TT_INTERNAL, "for: %d carried values (at most %d)", n, TT_LOOP_MAX_CARRIED - 1);
    { fail_loop(lp, out_carried, n > 0 ? n : 0); return; }
  }
  all[0] = tt_b_const_i(g, TT_I64, lo);
  for (int i = 0; i < n; i++) all[1 + i] = inits[i];
  tt_b_while_begin(g, lp, n + 1, all, c);
  tt_val_t pred = tt_b_compare(g, TT_CMP_LT, c[0], tt_b_const_i(g, TT_I64, hi));
  tt_b_while_body(g, lp, pred, c);
  lp->counted = 1;
  lp->counter = c[0];
  *out_i = c[0];
  for (int i = 0; i < n; i++) out_carried[i] = c[1 + i];
}

tt_val_t tt_b_for_end(tt_graph_t *g, tt_loop_t *lp, const tt_val_t *next, tt_val_t *out_results) {
  tt_val_t all[TT_LOOP_MAX_CARRIED], res[TT_LOOP_MAX_CARRIED];
  int n = lp->n - 1;
  if (!lp->counted || n < 0) {
    if (!tt_graph_failed(g)) tt_graph_fail(g, TT_INTERNAL, "for: end without begin");
    set_all(out_results, n > 0 ? n : 0, -1);
    return -1;
  }
  all[0] = tt_b_binary(g, TT_BIN_ADD, lp->counter, tt_b_const_i(g, TT_I64, 1));
  for (int i = 0; i < n; i++) all[1 + i] = next[i];
  tt_val_t node = tt_b_while_end(g, lp, all, res);
  if (out_results)
    for (int i = 0; i < n; i++) out_results[i] = res[1 + i];
  return node;
}
