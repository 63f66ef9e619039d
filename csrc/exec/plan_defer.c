/* A replay of a plan recorded into the open region as one call of its
 * program (exec/plan_defer.h). */
#include "exec/plan_defer.h"

#include <string.h>

#include "base/alloc.h"
#include "exec/engine.h"
#include "exec/plan_internal.h"
#include "exec/region.h"
#include "ir/builder.h"
#include "ir/foreign.h"

int tt_plan_defer_enabled(const tt_engine_t *e) { return e->fuse_plans && e->mode != TT_MODE_DEBUG; }

void tt_plan_defer_prepare(tt_engine_t *e, tt_plan_t *p, const tt_strbuf_t *text) {
  p->fusable = 0;
  /* A graph that computes nothing has no program to call. */
  if (!p->exe || !text || !text->data || !text->len) return;
  uint64_t key = 0;
  tt_status_t s = tt_foreign_intern(text->data, text->len, &key);
  if (s) { /* a program the splicer cannot read launches on its own, as before */
    tt_status_free(s);
    return;
  }
  const tt_foreign_t *f = tt_foreign_get(key);
  if (!f || f->nin != p->nparams || f->nout != p->nprog_outs) return;
  (void)e;
  p->foreign_key = key;
  p->fusable = 1;
}

/* The region value of parameter i for this call, or -1 (graph failed). */
static tt_val_t param_value(tt_engine_t *e, tt_plan_t *p, const tt_foreign_t *f, int i, const tt_tensor_ref_t *args,
                            tt_storage_t **zeros) {
  const param_t *q = &p->params[i];
  tt_binding_t b = q->bind;
  switch (q->kind) {
    case P_ARG: return tt_region_base(e, args[q->arg].storage);
    case P_CONST:
      if (b.kind == TT_BIND_STORAGE) return tt_region_base(e, b.storage);
      return tt_region_param(e, &f->in[i], b);
    case P_RNG:
      b.host[0] = e->rng_seed;
      b.host[1] = e->rng_offset++;
      return tt_region_param(e, &f->in[i], b);
    case P_ZEROS: {
      tt_status_t s = tt_storage_create(e, q->dtype, q->numel, NULL, zeros);
      if (s) return tt_graph_fail(tt_region_graph(e), tt_status_code(s), "%s", tt_status_message(s));
      return tt_region_base(e, *zeros);
    }
  }
  return -1;
}

tt_status_t tt_plan_defer(tt_engine_t *e, tt_plan_t *p, const tt_tensor_ref_t *args, tt_storage_t **out_storages,
                          int *out_deferred) {
  *out_deferred = 0;
  const tt_foreign_t *f = tt_foreign_get(p->foreign_key);
  if (!f) return TT_OK_STATUS;
  tt_region_t *R = &e->region;
  /* The next step of a loop (this program is called in the region already)
   * or a full call table: the region runs first, and this call opens the
   * next one. */
  if (!tt_region_take_call(e, p->foreign_key)) {
    TT_RETURN_IF_ERROR(tt_region_flush(e, p->what));
    if (!tt_region_take_call(e, p->foreign_key)) return TT_OK_STATUS;
  }
  tt_graph_t *g = tt_region_graph(e);
  if (!g) return tt_status_make(TT_OUT_OF_MEMORY, "%s: out of host memory recording its call", p->what);
  tt_region_begin_op(e);
  int np = p->nparams;
  tt_val_t small[64];
  tt_storage_t *zsmall[64];
  tt_storage_t *msmall[64];
  tt_val_t vsmall[64];
  tt_val_t *ins = np <= 64 ? small : tt_malloc(sizeof(tt_val_t) * (size_t)np);
  tt_storage_t **zeros = np <= 64 ? zsmall : tt_calloc((size_t)np, sizeof(tt_storage_t *));
  tt_storage_t **made = p->nresults <= 64 ? msmall : tt_calloc((size_t)p->nresults, sizeof(tt_storage_t *));
  tt_val_t *vals = p->nresults <= 64 ? vsmall : tt_malloc(sizeof(tt_val_t) * (size_t)p->nresults);
  tt_status_t s = TT_OK_STATUS;
  if (!ins || !zeros || !made || !vals) {
    s = tt_status_make(TT_OUT_OF_MEMORY, "%s: out of host memory recording its call", p->what);
    R->ncalls--;
    goto done;
  }
  int nz = 0;
  if (made == msmall) memset(msmall, 0, sizeof msmall);
  for (int i = 0; !s && i < np; i++) {
    tt_storage_t *z = NULL;
    ins[i] = param_value(e, p, f, i, args, &z);
    if (z) zeros[nz++] = z;
    if (ins[i] < 0 || tt_graph_failed(g)) break;
    if (!tt_type_equal(tt_graph_type(g, ins[i]), &f->in[i])) { /* e.g. a storage resized since the capture */
      ins[i] = tt_graph_fail(g, TT_INVALID_ARGUMENT, "%s: parameter %d's type changed since the capture", p->what, i);
      break;
    }
  }
  tt_val_t node = -1;
  if (!s && !tt_graph_failed(g)) {
    int64_t key = (int64_t)p->foreign_key;
    node = tt_graph_append_multi(g, TT_OPK_FOREIGN, 0, ins, np, &key, 1, f->out, f->nout);
  }
  /* The results' values first (graph building may fail: then nothing of
   * this call stays), then the writes (which fail only out of memory). */
  for (int r = 0; !s && node >= 0 && !tt_graph_failed(g) && r < p->nresults; r++) {
    if (p->results[r].kind == R_DROP) continue;
    vals[r] = tt_b_get(g, node, r);
    if (vals[r] < 0) break;
  }
  /* The graph's index checks: their flags (TT_CHECK_FLAG_LEN values each, side by side) are
   * the program's last result; each joins the region's checks, read at the
   * next synchronization point as a launch of its own would be. */
  tt_index_check_t *checks = NULL;
  if (!s && node >= 0 && !tt_graph_failed(g) && p->nchecks) {
    checks = tt_malloc(sizeof(tt_index_check_t) * (size_t)p->nchecks);
    tt_val_t flags = checks ? tt_b_get(g, node, p->nprog_outs - 1) : -1;
    if (!checks) tt_graph_fail(g, TT_OUT_OF_MEMORY, "%s: out of host memory", p->what);
    for (int i = 0; flags >= 0 && !tt_graph_failed(g) && i < p->nchecks; i++) {
      checks[i] = p->checks[i];
      checks[i].flag = p->nchecks == 1 ? flags : tt_b_slice_dim(g, flags, 0, TT_CHECK_FLAG_LEN * i, TT_CHECK_FLAG_LEN * (i + 1), 1);
    }
  }
  if (!s && (node < 0 || tt_graph_failed(g))) {
    tt_status_free(tt_graph_take_error(g));
    tt_region_rollback(e);
    R->ncalls--;
    node = -1;
  }
  for (int r = 0; !s && node >= 0 && r < p->nresults; r++) {
    const result_t *q = &p->results[r];
    if (q->kind == R_DROP) continue;
    if (q->kind == R_NEW) {
      s = tt_storage_create(e, q->dtype, q->numel, NULL, &made[r]);
      if (!s) s = tt_region_write(e, made[r], vals[r]);
    } else {
      s = tt_region_write(e, q->kind == R_ARG ? args[q->arg].storage : q->storage, vals[r]);
    }
  }
  if (!s && node >= 0 && p->nchecks) s = tt_region_add_checks(e, checks, p->nchecks);
  tt_free(checks);
  for (int i = 0; i < nz; i++) tt_storage_release(zeros[i]);
  if (!s && node >= 0) {
    tt_plan_hand_out(p, args, made, out_storages);
    e->plans.deferred++;
    *out_deferred = 1;
    s = tt_region_end_op(e, p->foreign_key, p->what);
  }
  for (int r = 0; r < p->nresults; r++)
    if (made[r]) tt_storage_release(made[r]);
done:
  if (ins != small) tt_free(ins);
  if (zeros != zsmall) tt_free(zeros);
  if (made != msmall) tt_free(made);
  if (vals != vsmall) tt_free(vals);
  return s;
}
