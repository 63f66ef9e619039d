/* Plans: capture of a compiled graph into one executable, and its replay. */
#include "exec/plan.h"
#include "exec/lower_env.h"
#include "exec/plan_defer.h"
#include "exec/plan_internal.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "exec/async_errors.h"
#include "exec/engine.h"
#include "exec/run.h"

int tt_plan_num_args(const tt_plan_t *p) { return p->nargs; }
int tt_plan_num_outputs(const tt_plan_t *p) { return p->nouts; }
const tt_plan_out_t *tt_plan_output(const tt_plan_t *p, int k) { return &p->outs[k]; }
int tt_plan_num_params(const tt_plan_t *p) { return p->nparams; }
int tt_plan_num_results(const tt_plan_t *p) { return p->nresults; }

void tt_plan_release(tt_plan_t *p) {
  if (!p) return;
  if (p->engine->region.follow_mark == &p->followed) p->engine->region.follow_mark = NULL;
  for (int i = 0; i < p->nparams; i++)
    if (p->params[i].kind == P_CONST && p->params[i].bind.kind == TT_BIND_STORAGE)
      tt_storage_release(p->params[i].bind.storage);
  for (int i = 0; i < p->nresults; i++)
    if (p->results[i].kind == R_CONST) tt_storage_release(p->results[i].storage);
  if (p->exe) tt_tier1_release(p->engine->tier1, p->exe);
  tt_free(p->args);
  tt_free(p->params);
  tt_free(p->results);
  tt_free(p->outs);
  tt_free(p->checks);
  tt_free(p);
}

tt_status_t tt_plan_capture_begin(tt_engine_t *e, int bake) {
  if (e->region.capture.active)
    return tt_status_make(TT_INTERNAL, "torch.compile(backend=\"tpu\"): a graph's capture began while another's "
                                       "was open (captures do not nest)");
  TT_RETURN_IF_ERROR(tt_region_flush(e, "the start of a compiled graph"));
  tt_region_capture_begin(e, bake);
  return TT_OK_STATUS;
}

void tt_plan_capture_abort(tt_engine_t *e) { memset(&e->region.capture, 0, sizeof e->region.capture); }

int tt_plan_capturing(const tt_engine_t *e) { return e->region.capture.active; }

void tt_plan_capture_fail(tt_engine_t *e, const char *why) { tt_region_capture_fail(e, why); }

/* A signature as text, for mismatch messages. */
static void sig_text(const arg_sig_t *s, char *buf, size_t n) {
  tt_strbuf_t b;
  tt_strbuf_init(&b);
  tt_strbuf_appendf(&b, "%s[", tt_dtype_name(s->dtype));
  for (int d = 0; d < s->view.rank; d++) tt_strbuf_appendf(&b, "%s%lld", d ? ", " : "", (long long)s->view.sizes[d]);
  tt_strbuf_appendf(&b, "] strides (");
  for (int d = 0; d < s->view.rank; d++)
    tt_strbuf_appendf(&b, "%s%lld", d ? ", " : "", (long long)s->view.strides[d]);
  tt_strbuf_appendf(&b, ") offset %lld, storage %s[%lld]", (long long)s->view.offset, tt_dtype_name(s->storage_dtype),
                    (long long)s->storage_numel);
  if (s->conj) tt_strbuf_appendf(&b, ", conjugated");
  if (s->neg) tt_strbuf_appendf(&b, ", negated");
  if (s->alias >= 0) tt_strbuf_appendf(&b, ", sharing argument %d's storage", s->alias);
  else tt_strbuf_appendf(&b, ", its own storage");
  snprintf(buf, n, "%s", b.data ? b.data : "?");
  tt_strbuf_free(&b);
}

static int sig_of(const tt_tensor_ref_t *args, int i, arg_sig_t *out) {
  const tt_tensor_ref_t *a = &args[i];
  if (!a->storage || a->is_host_scalar) return 0;
  memset(out, 0, sizeof *out);
  out->dtype = a->dtype;
  out->view.rank = a->view.rank;
  memcpy(out->view.sizes, a->view.sizes, sizeof(int64_t) * (size_t)a->view.rank);
  memcpy(out->view.strides, a->view.strides, sizeof(int64_t) * (size_t)a->view.rank);
  out->view.offset = a->view.offset;
  out->conj = a->conj;
  out->neg = a->neg;
  out->storage_dtype = a->storage->dtype;
  out->storage_numel = a->storage->numel;
  out->alias = -1;
  for (int j = 0; j < i; j++)
    if (args[j].storage == a->storage) {
      out->alias = j;
      break;
    }
  return 1;
}

static int arg_of_storage(const tt_tensor_ref_t *args, int nargs, const tt_storage_t *s) {
  for (int j = 0; j < nargs; j++)
    if (args[j].storage == s) return j;
  return -1;
}

/* Abandons the capture for `why` and runs the region as a flush would. */
static tt_status_t give_up(tt_engine_t *e, char *why, size_t why_len, const char *text) {
  tt_region_capture_fail(e, text);
  snprintf(why, why_len, "%s", text);
  e->plans.capture_failures++;
  tt_plan_capture_abort(e);
  return tt_region_flush(e, "a compiled graph that could not be captured");
}

/* The plan's tables from the region's parameters, pending storages and
 * checks, and the graph's arguments and outputs; 0 with the cause in why
 * when the graph cannot be replayed. */
static int describe(tt_engine_t *e, tt_plan_t *p, const tt_tensor_ref_t *args, const tt_tensor_ref_t *outs,
                    char *why, size_t why_len) {
  tt_region_t *R = &e->region;
  uint64_t first = R->capture.first_serial;
  for (int i = 0; i < p->nargs; i++)
    if (!sig_of(args, i, &p->args[i])) {
      snprintf(why, why_len, "argument %d is not a tpu tensor (its value would be baked into the program)", i);
      return 0;
    }
  for (int i = 0; i < R->nparams; i++) {
    const tt_binding_t *b = &R->binds[i];
    param_t *q = &p->params[i];
    memset(q, 0, sizeof *q);
    q->bind = *b;
    q->kind = P_CONST;
    if (b->kind == TT_BIND_RNG) {
      q->kind = P_RNG;
    } else if (b->kind == TT_BIND_STORAGE) {
      int j = arg_of_storage(args, p->nargs, b->storage);
      if (j >= 0) {
        q->kind = P_ARG;
        q->arg = j;
      } else if (b->storage->serial >= first) {
        q->kind = P_ZEROS;
        q->dtype = b->storage->dtype;
        q->numel = b->storage->numel;
      }
    }
  }
  for (int r = 0; r < R->npending; r++) {
    tt_storage_t *s = R->pending[r];
    result_t *q = &p->results[r];
    memset(q, 0, sizeof *q);
    q->dtype = s->dtype;
    q->numel = s->numel;
    q->donated = tt_region_param_of_pending(R, r) >= 0; /* the capture aliases it (exec/region.h) */
    int j = arg_of_storage(args, p->nargs, s);
    if (j >= 0) {
      q->kind = R_ARG;
      q->arg = j;
    } else if (s->serial < first) {
      q->kind = R_CONST;
      q->storage = s;
    } else {
      q->kind = R_DROP;
      for (int k = 0; k < p->nouts; k++)
        if (outs[k].storage == s) q->kind = R_NEW;
    }
  }
  for (int k = 0; k < p->nouts; k++) {
    const tt_tensor_ref_t *o = &outs[k];
    tt_plan_out_t *q = &p->outs[k];
    memset(q, 0, sizeof *q);
    if (!o->storage || o->is_host_scalar) {
      snprintf(why, why_len, "output %d is not a tpu tensor", k);
      return 0;
    }
    if (o->conj || o->neg) {
      snprintf(why, why_len, "output %d carries a lazy conjugate or negative bit", k);
      return 0;
    }
    q->dtype = o->dtype;
    q->view = o->view;
    int j = arg_of_storage(args, p->nargs, o->storage);
    int r = -1;
    for (int i = 0; i < R->npending && r < 0; i++)
      if (R->pending[i] == o->storage) r = i;
    if (j >= 0) {
      q->kind = TT_PLAN_OUT_ARG;
      q->index = j;
    } else if (r >= 0) {
      q->kind = TT_PLAN_OUT_RESULT;
      q->index = r;
    } else {
      snprintf(why, why_len, "output %d views a tensor the graph neither takes nor computes (a constant)", k);
      return 0;
    }
  }
  if (R->nchecks) memcpy(p->checks, R->checks, sizeof(tt_index_check_t) * (size_t)R->nchecks);
  return 1;
}

tt_status_t tt_plan_capture_end(tt_engine_t *e, const tt_tensor_ref_t *args, int nargs, const tt_tensor_ref_t *outs,
                                int nouts, const char *name, tt_plan_t **out_plan, char *why, size_t why_len) {
  tt_region_t *R = &e->region;
  *out_plan = NULL;
  why[0] = 0;
  if (!R->capture.active) {
    if (!R->capture.failed) return tt_status_make(TT_INTERNAL, "tt_plan_capture_end: no capture is open");
    snprintf(why, why_len, "%s", R->capture.why);
    e->plans.capture_failures++;
    tt_plan_capture_abort(e);
    return TT_OK_STATUS;
  }
  tt_plan_t *p = tt_calloc(1, sizeof *p);
  if (p) {
    p->engine = e;
    p->nargs = nargs;
    p->nparams = R->nparams;
    p->nresults = R->npending;
    p->nouts = nouts;
    p->nchecks = R->nchecks;
    p->args = tt_calloc((size_t)(nargs ? nargs : 1), sizeof(arg_sig_t));
    p->params = tt_calloc((size_t)(R->nparams ? R->nparams : 1), sizeof(param_t));
    p->results = tt_calloc((size_t)(R->npending ? R->npending : 1), sizeof(result_t));
    p->outs = tt_calloc((size_t)(nouts ? nouts : 1), sizeof(tt_plan_out_t));
    p->checks = tt_calloc((size_t)(R->nchecks ? R->nchecks : 1), sizeof(tt_index_check_t));
    snprintf(p->what, sizeof p->what, "compiled graph %s", name ? name : "?");
    p->matmul_precision = tt_engine_matmul_precision(e);
    p->default_float = e->default_float;
    p->options_key = tt_engine_options_key(e);
  }
  if (!p || !p->args || !p->params || !p->results || !p->outs || !p->checks) {
    tt_plan_release(p);
    return give_up(e, why, why_len, "out of host memory recording the plan");
  }
  char text[200];
  if (!describe(e, p, args, outs, text, sizeof text)) {
    p->nparams = p->nresults = 0; /* nothing retained yet */
    tt_plan_release(p);
    return give_up(e, why, why_len, text);
  }
  /* Retain the constants before the region's run releases its references. */
  for (int i = 0; i < p->nparams; i++)
    if (p->params[i].kind == P_CONST && p->params[i].bind.kind == TT_BIND_STORAGE)
      tt_storage_retain(p->params[i].bind.storage);
  for (int r = 0; r < p->nresults; r++)
    if (p->results[r].kind == R_CONST) tt_storage_retain(p->results[r].storage);
  int defer = tt_plan_defer_enabled(e);
  tt_strbuf_t module;
  tt_strbuf_init(&module);
  tt_status_t s = tt_region_capture_run(e, p->what, defer ? &module : NULL, &p->exe, &p->nprog_outs);
  tt_plan_capture_abort(e);
  if (!s && defer) tt_plan_defer_prepare(e, p, &module);
  tt_strbuf_free(&module);
  if (s) {
    tt_plan_release(p);
    return s;
  }
  e->plans.captures++;
  *out_plan = p;
  return TT_OK_STATUS;
}

/* Checks the arguments against the plan's signatures. */
static const char *precision_name(int p) { return p == TT_PREC_MEDIUM ? "medium" : p == TT_PREC_HIGH ? "high" : "highest"; }

tt_status_t tt_plan_check_args(const tt_plan_t *p, const tt_tensor_ref_t *args, int nargs) {
  const tt_engine_t *e = p->engine;
  if (tt_engine_matmul_precision(e) != p->matmul_precision)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s was captured with float32 matmul precision '%s', called with '%s'",
                          p->what, precision_name(p->matmul_precision), precision_name(tt_engine_matmul_precision(e)));
  if (e->default_float != p->default_float)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s was captured with default dtype %s, called with %s", p->what,
                          tt_dtype_name(p->default_float), tt_dtype_name(e->default_float));
  if (tt_engine_options_key(e) != p->options_key)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s was captured with other compile options "
                          "(torch.tpu.allow_excess_precision)", p->what);
  if (nargs != p->nargs)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: called with %d arguments, compiled for %d", p->what, nargs,
                          p->nargs);
  for (int i = 0; i < nargs; i++) {
    const arg_sig_t *want = &p->args[i];
    arg_sig_t got;
    if (!sig_of(args, i, &got))
      return tt_status_make(TT_INVALID_ARGUMENT, "%s: argument %d is not a tpu tensor; it was compiled for a tpu tensor",
                            p->what, i);
    int same = got.dtype == want->dtype && got.view.rank == want->view.rank && got.view.offset == want->view.offset &&
               got.conj == want->conj && got.neg == want->neg && got.storage_dtype == want->storage_dtype &&
               got.storage_numel == want->storage_numel && got.alias == want->alias &&
               !memcmp(got.view.sizes, want->view.sizes, sizeof(int64_t) * (size_t)got.view.rank) &&
               !memcmp(got.view.strides, want->view.strides, sizeof(int64_t) * (size_t)got.view.rank);
    if (!same) {
      char a[400], b[400];
      sig_text(&got, a, sizeof a);
      sig_text(want, b, sizeof b);
      return tt_status_make(TT_INVALID_ARGUMENT,
                            "%s: argument %d does not match what the graph was compiled for: got %s, compiled for %s "
                            "(the compiled program would compute something else; recompile for these arguments)",
                            p->what, i, a, b);
    }
    if (args[i].storage->engine != p->engine)
      return tt_status_make(TT_INVALID_ARGUMENT, "%s: argument %d lives on another engine", p->what, i);
    if (args[i].storage->poisoned)
      return tt_status_make(TT_INTERNAL, "%s: argument %d: this tensor's value was never computed: the deferred "
                                         "computation that produced it failed earlier", p->what, i);
  }
  return TT_OK_STATUS;
}

void tt_plan_hand_out(tt_plan_t *p, const tt_tensor_ref_t *args, tt_storage_t *const *made,
                      tt_storage_t **out_storages) {
  for (int k = 0; k < p->nouts; k++) {
    const tt_plan_out_t *o = &p->outs[k];
    tt_storage_t *st = o->kind == TT_PLAN_OUT_ARG ? args[o->index].storage : made[o->index];
    tt_storage_retain(st);
    out_storages[k] = st;
  }
  p->engine->plans.replays++;
}

tt_status_t tt_plan_run(tt_engine_t *e, tt_plan_t *p, const tt_tensor_ref_t *args, int nargs,
                        tt_storage_t **out_storages) {
  TT_RETURN_IF_ERROR(tt_plan_check_args(p, args, nargs));
  /* Deferred when worth it: the plan was followed by other work before a
   * sync, or other calls wait in the region for this one to join them (not
   * inside another graph's capture: that one ends as it always did), and
   * its fused programs do not keep changing (a new one to compile every
   * step: eager work on new shapes between graphs, a generate loop). */
  if (p->fusable && tt_plan_defer_enabled(e) && !e->region.capture.active && (p->followed || e->region.ncalls) &&
      tt_region_fused_misses(e, p->foreign_key) < TT_PLAN_MAX_FUSED_MISSES) {
    int deferred = 0;
    TT_RETURN_IF_ERROR(tt_plan_defer(e, p, args, out_storages, &deferred));
    if (deferred) return TT_OK_STATUS;
  }
  /* This call follows the last plan launched (itself again is no reason:
   * an inference loop that never syncs). */
  if (e->region.follow_mark && e->region.follow_mark != &p->followed) *e->region.follow_mark = 1;
  /* Pending work first: writes to the arguments' storages come before. */
  TT_RETURN_IF_ERROR(tt_region_flush(e, p->what));
  int np = p->nparams, nout = p->nprog_outs;
  tt_binding_t bsmall[32];
  tt_storage_t *zsmall[32];
  tt_pjrt_buffer_t *osmall[32];
  tt_storage_t *nsmall[32];
  tt_binding_t *binds = np <= 32 ? bsmall : tt_malloc(sizeof(tt_binding_t) * (size_t)np);
  tt_storage_t **zeros = np <= 32 ? zsmall : tt_calloc((size_t)np, sizeof(tt_storage_t *));
  tt_pjrt_buffer_t **bufs = nout <= 32 ? osmall : tt_malloc(sizeof(tt_pjrt_buffer_t *) * (size_t)nout);
  tt_storage_t **made = p->nresults <= 32 ? nsmall : tt_calloc((size_t)p->nresults, sizeof(tt_storage_t *));
  tt_status_t s = (!binds || !zeros || !bufs || !made)
                      ? tt_status_make(TT_OUT_OF_MEMORY, "%s: out of host memory binding arguments", p->what)
                      : TT_OK_STATUS;
  int nz = 0;
  for (int i = 0; !s && i < np; i++) {
    const param_t *q = &p->params[i];
    switch (q->kind) {
      case P_ARG:
        memset(&binds[i], 0, sizeof binds[i]);
        binds[i].kind = TT_BIND_STORAGE;
        binds[i].storage = args[q->arg].storage;
        break;
      case P_CONST: binds[i] = q->bind; break;
      case P_RNG:
        binds[i] = q->bind;
        binds[i].host[0] = e->rng_seed;
        binds[i].host[1] = e->rng_offset++;
        break;
      case P_ZEROS:
        s = tt_storage_create(e, q->dtype, q->numel, NULL, &zeros[nz]);
        if (!s) {
          memset(&binds[i], 0, sizeof binds[i]);
          binds[i].kind = TT_BIND_STORAGE;
          binds[i].storage = zeros[nz++];
        }
        break;
    }
  }
  if (!s && p->exe) s = tt_exec_launch(e, p->exe, binds, np, nout, p->what, bufs);
  for (int i = 0; i < nz; i++) tt_storage_release(zeros[i]);
  int nmade = 0;
  if (!s && p->exe) {
    for (int r = 0; r < p->nresults; r++) {
      const result_t *q = &p->results[r];
      made[r] = NULL;
      switch (q->kind) {
        case R_NEW: {
          tt_status_t cs = tt_storage_create(e, q->dtype, q->numel, bufs[r], &made[r]);
          if (cs && !s) s = cs;
          else tt_status_free(cs);
          nmade = r + 1;
          break;
        }
        case R_ARG:
        case R_CONST: {
          tt_storage_t *st = q->kind == R_ARG ? args[q->arg].storage : q->storage;
          if (q->donated) tt_storage_set_buffer_donated(st, bufs[r]);
          else tt_storage_set_buffer(st, bufs[r]);
          break;
        }
        case R_DROP: tt_pjrt_buffer_destroy(e->rt, bufs[r]); break;
      }
    }
    if (p->nchecks) {
      tt_status_t cs = tt_async_errors_push(e, bufs[nout - 1], p->checks, p->nchecks);
      if (cs && !s) s = cs;
      else tt_status_free(cs);
    }
  }
  if (!s) {
    e->region.follow_mark = &p->followed;
    tt_plan_hand_out(p, args, made, out_storages);
  }
  for (int r = 0; r < nmade; r++) tt_storage_release(made[r]);
  if (binds != bsmall) tt_free(binds);
  if (zeros != zsmall) tt_free(zeros);
  if (bufs != osmall) tt_free(bufs);
  if (made != nsmall) tt_free(made);
  return s;
}
