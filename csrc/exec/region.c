/* The open region: parameters, pending storages, flushing and rollback. */
#include "exec/region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/engine.h"
#include "base/alloc.h"
#include "base/prof.h"
#include "exec/async_errors.h"
#include "exec/compile_pool.h"
#include "exec/find.h"
#include "exec/launch_queue.h"
#include "exec/repeat.h"
#include "ir/builder.h"

/* A deferred region is closed before an op once it is this large. */
#define MAX_NODES 50000

static void count_fused_miss(tt_region_t *R, int hit);
#define MAX_PARAMS 4096


/* DeferAndFuse's chunks: the first region of a step closes after
 * DEFAULT_CHUNK_OPS ops and each next chunk may be twice as long, so the
 * device starts on the step early while the host records the rest, and a
 * long step still fuses into a few (log2) executables. Cuts count ops since
 * the last cut, so they fall at the same places every step. Measured on the
 * 2-core CPU plugin (bench/bench_modes.py, interleaved): CNN step
 * DeferAndFuse/Strict 0.95x without chunks, 1.3-1.4x with; the transformer
 * step (already cut by a repeat) unchanged at ~1.55x. */
#define DEFAULT_CHUNK_OPS 16

void tt_region_init(tt_region_t *r, const tt_env_t *env) {
  memset(r, 0, sizeof *r);
  r->gen = 1;
  r->repeat_detection = 1;
  r->chunk_ops = r->chunk_limit = DEFAULT_CHUNK_OPS;
  r->repeat_detection = tt_env_flag(env, TT_ENV_DETECT_REPEATED_OPS, 1);
  r->chunk_ops = r->chunk_limit = (int)tt_env_count(env, TT_ENV_DEFER_CHUNK_OPS, DEFAULT_CHUNK_OPS);
}

static int grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return 1;
  int c = *cap ? *cap * 2 : 64;
  while (c < need) c *= 2;
  void *q = tt_realloc(*p, (size_t)c * elem);
  if (!q) return 0;
  *p = q;
  *cap = c;
  return 1;
}

tt_graph_t *tt_region_graph(tt_engine_t *e) {
  tt_region_t *R = &e->region;
  if (!R->g) {
    tt_status_t s = tt_graph_create(&R->g);
    if (s) { /* builders on a NULL graph would crash: keep the status for the caller */
      tt_status_free(s);
      return NULL;
    }
  }
  return R->g;
}

int tt_region_is_pending(tt_engine_t *e, const tt_storage_t *s) { return s->gen == e->region.gen && s->pending >= 0; }

static void claim(tt_engine_t *e, tt_storage_t *s) {
  tt_region_t *R = &e->region;
  if (s->gen != R->gen) {
    s->gen = R->gen;
    s->pending = -1;
    s->param = -1;
  }
}

tt_val_t tt_region_param(tt_engine_t *e, const tt_type_t *type, tt_binding_t b) {
  tt_region_t *R = &e->region;
  if (!grow((void **)&R->binds, &R->cap_params, R->nparams + 1, sizeof(tt_binding_t)))
    return tt_graph_fail(R->g, TT_OUT_OF_MEMORY, "out of host memory adding a parameter");
  tt_val_t v = tt_b_param(R->g, type);
  if (v < 0) return -1;
  if (b.kind == TT_BIND_STORAGE) tt_storage_retain(b.storage);
  R->binds[R->nparams++] = b;
  return v;
}

/* A storage of another engine: its buffer lives on that engine's client, and
 * its gen/pending/param fields index that engine's region, not this one's. */
#define FOREIGN_FMT "a storage of another engine (%p, not this engine %p); copy it through the host " \
                    "(tt_tensor_to_host, tt_storage_from_host) to use it here"

tt_val_t tt_region_base(tt_engine_t *e, tt_storage_t *s) {
  tt_region_t *R = &e->region;
  if (s->engine != e) return tt_graph_fail(R->g, TT_INVALID_ARGUMENT, FOREIGN_FMT, (void *)s->engine, (void *)e);
  claim(e, s);
  if (s->pending >= 0) return s->pending;
  if (s->param >= 0) return s->param;
  if (s->poisoned)
    return tt_graph_fail(R->g, TT_INTERNAL,
                         "this tensor's value was never computed: the deferred computation that "
                         "produced it failed earlier");
  tt_type_t t = tt_type_make(s->dtype, 1, &s->numel);
  tt_binding_t b = {.kind = TT_BIND_STORAGE, .storage = s};
  s->param = tt_region_param(e, &t, b);
  return s->param;
}

tt_status_t tt_region_write(tt_engine_t *e, tt_storage_t *s, tt_val_t v) {
  tt_region_t *R = &e->region;
  if (s->engine != e) return tt_status_make(TT_INVALID_ARGUMENT, FOREIGN_FMT, (void *)s->engine, (void *)e);
  claim(e, s);
  if (s->pending < 0) {
    if (!grow((void **)&R->pending, &R->cap_pending, R->npending + 1, sizeof(tt_storage_t *)))
      return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory recording a write");
    R->pending[R->npending++] = s;
  }
  s->pending = v;
  return TT_OK_STATUS;
}

void tt_region_forget(tt_engine_t *e, tt_storage_t *s) {
  tt_region_t *R = &e->region;
  if (!tt_region_is_pending(e, s)) return;
  for (int i = 0; i < R->npending; i++) {
    if (R->pending[i] != s) continue;
    memmove(&R->pending[i], &R->pending[i + 1], sizeof(tt_storage_t *) * (size_t)(R->npending - i - 1));
    R->npending--;
    break;
  }
  s->pending = -1;
}

/* Drops the region's contents; the storages it touched forget it. */
static void reset(tt_engine_t *e) {
  tt_region_t *R = &e->region;
  for (int i = 0; i < R->nparams; i++)
    if (R->binds[i].kind == TT_BIND_STORAGE) tt_storage_release(R->binds[i].storage);
  R->nparams = 0;
  R->npending = 0;
  R->nchecks = 0;
  R->nops = 0;
  R->ncalls = 0;
  if (R->g) tt_graph_reset(R->g);
  R->gen++;
}

void tt_region_begin_op(tt_engine_t *e) {
  tt_region_t *R = &e->region;
  R->op_nodes = R->g ? tt_graph_num_nodes(R->g) : 0;
  R->op_params = R->nparams;
  R->op_checks = R->nchecks;
}

tt_status_t tt_region_add_checks(tt_engine_t *e, const tt_index_check_t *checks, int n) {
  tt_region_t *R = &e->region;
  if (!grow((void **)&R->checks, &R->cap_checks, R->nchecks + n, sizeof(tt_index_check_t)))
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory recording index checks");
  memcpy(&R->checks[R->nchecks], checks, sizeof(tt_index_check_t) * (size_t)n);
  R->nchecks += n;
  return TT_OK_STATUS;
}

void tt_region_rollback(tt_engine_t *e) {
  tt_region_t *R = &e->region;
  for (int i = R->op_params; i < R->nparams; i++)
    if (R->binds[i].kind == TT_BIND_STORAGE) {
      tt_storage_t *s = R->binds[i].storage;
      if (s->gen == R->gen) s->param = -1;
      tt_storage_release(s);
    }
  R->nparams = R->op_params;
  R->nchecks = R->op_checks;
  if (R->g) tt_graph_truncate(R->g, R->op_nodes);
}

/* The region's results never land. A region of deferred program calls
 * (a fused compiled step) fails as a whole while its plans would each have
 * run: storages that had a value keep it (nothing was donated, the step's
 * updates are simply lost) so that training goes on unfused; storages the
 * region made have no value. */
static void poison_pending(tt_engine_t *e) {
  tt_region_t *R = &e->region;
  for (int i = 0; i < R->npending; i++)
    if (!R->ncalls || !R->pending[i]->buf) R->pending[i]->poisoned = 1;
}

/* The region's index checks as one output: their flags side by side. */
static tt_val_t checks_output(tt_engine_t *e) {
  tt_region_t *R = &e->region;
  tt_val_t small[64];
  tt_val_t *parts = R->nchecks <= 64 ? small : tt_malloc(sizeof(tt_val_t) * (size_t)R->nchecks);
  if (!parts) return tt_graph_fail(R->g, TT_OUT_OF_MEMORY, "out of host memory collecting index checks");
  for (int i = 0; i < R->nchecks; i++) parts[i] = R->checks[i].flag;
  tt_val_t v = R->nchecks == 1 ? parts[0] : tt_b_concat(R->g, R->nchecks, parts, 0);
  if (parts != small) tt_free(parts);
  return v;
}

/* Gives the region's live storages their new buffers (or poisons them when
 * the launch failed); hands the index-check flags to exec/async_errors. */
static tt_status_t land(tt_engine_t *e, tt_status_t s, int ran, tt_pjrt_buffer_t **bufs, int nout, int nflag) {
  tt_region_t *R = &e->region;
  if (s && ran) { /* vetoed: nothing lands, the storages keep their buffers */
    for (int i = 0; i < R->npending; i++) tt_pjrt_buffer_destroy(e->rt, bufs[i]);
    if (nflag) tt_pjrt_buffer_destroy(e->rt, bufs[nout - 1]);
  } else if (s) {
    poison_pending(e);
  } else {
    for (int i = 0; i < R->npending; i++) {
      R->pending[i]->poisoned = 0;
      if (tt_graph_output_alias(R->g, i) >= 0) tt_storage_set_buffer_donated(R->pending[i], bufs[i]); /* a capture's */
      else tt_storage_set_buffer(R->pending[i], bufs[i]);
    }
    if (nflag) s = tt_async_errors_push(e, bufs[nout - 1], R->checks, R->nchecks);
  }
  return s;
}

/* The region as a queued launch (exec/launch_queue.h), holding references to
 * its storages and to its executable or compile job. */
static tt_status_t make_launch(tt_engine_t *e, tt_launch_t *l, tt_tier1_exe_t *exe, tt_compile_job_t *job, const char *what) {
  tt_region_t *R = &e->region;
  memset(l, 0, sizeof *l);
  size_t wn = strlen(what) + 1;
  l->binds = tt_malloc(sizeof(tt_binding_t) * (size_t)(R->nparams ? R->nparams : 1));
  l->outs = tt_malloc(sizeof(tt_storage_t *) * (size_t)(R->npending ? R->npending : 1));
  l->checks = R->nchecks ? tt_malloc(sizeof(tt_index_check_t) * (size_t)R->nchecks) : NULL;
  l->what = tt_malloc(wn);
  if (!l->binds || !l->outs || (R->nchecks && !l->checks) || !l->what) {
    tt_free(l->binds);
    tt_free(l->outs);
    tt_free(l->checks);
    tt_free(l->what);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory queueing %s", what);
  }
  memcpy(l->binds, R->binds, sizeof(tt_binding_t) * (size_t)R->nparams);
  for (int i = 0; i < R->nparams; i++)
    if (l->binds[i].kind == TT_BIND_STORAGE) tt_storage_retain(l->binds[i].storage);
  l->nparams = R->nparams;
  memcpy(l->outs, R->pending, sizeof(tt_storage_t *) * (size_t)R->npending);
  for (int i = 0; i < R->npending; i++) tt_storage_retain(l->outs[i]);
  l->nouts = R->npending;
  if (R->nchecks) memcpy(l->checks, R->checks, sizeof(tt_index_check_t) * (size_t)R->nchecks);
  l->nchecks = R->nchecks;
  memcpy(l->what, what, wn);
  l->exe = exe;
  l->job = job;
  l->fused = R->ncalls > 0;
  for (int i = 0; i < R->npending; i++) {
    if (tt_graph_output_alias(R->g, i) < 0) continue;
    /* out of memory: the launch stays, its buffer swaps only wait longer */
    if (!l->donated && !(l->donated = tt_calloc((size_t)R->npending, 1))) break;
    l->donated[i] = 1;
  }
  return TT_OK_STATUS;
}

/* Closes the region with asynchronous compilation: launches it now when its
 * executable is in tier 1 and nothing is queued before it; otherwise queues
 * it behind its compile (joining one of the same key under way). */
static tt_status_t close_async(tt_engine_t *e, const char *what, tt_pjrt_buffer_t **bufs, int nout, int nflag) {
  tt_region_t *R = &e->region;
    tt_cache_key_t key = tt_exec_key(e, R->g);
  TT_PROF_BEGIN(TT_PROF_FIND);
  tt_tier1_exe_t *exe = tt_exec_find_cached(e, &key);
  TT_PROF_END(TT_PROF_FIND);
  if (exe && !tt_launchq_length(e)) {
    tt_status_t s = tt_exec_launch(e, exe, R->binds, R->nparams, nout, what, bufs);
    tt_tier1_release(e->tier1, exe);
    return land(e, s, 0, bufs, nout, nflag);
  }
  tt_compile_job_t *job = NULL;
  tt_status_t s = TT_OK_STATUS;
  if (R->ncalls) count_fused_miss(R, exe != NULL);
  if (!exe) {
    job = tt_compile_job_find(e, &key);
    if (job) {
      e->stats.compile_joins++;
    } else {
      tt_strbuf_t text;
      tt_cache_entry_id_t id;
      s = tt_exec_emit(e, R->g, &key, &text, &id);
      if (!s) {
        s = tt_compile_job_start(e, &id, &text, what, &job);
        tt_strbuf_free(&text);
      }
      if (!s) e->stats.async_compiles++;
    }
  }
  tt_launch_t l;
  if (!s) s = make_launch(e, &l, exe, job, what);
  if (s) {
    tt_tier1_release(e->tier1, exe);
    tt_compile_job_release(job);
    poison_pending(e);
    return s;
  }
  return tt_launchq_push(e, &l);
}

/* The outputs of a region about to run: its live storages' values, then
 * the extra values, then the index checks' flags. */
static tt_status_t add_outputs(tt_engine_t *e, const tt_val_t *extra, int nextra, int nflag) {
  tt_region_t *R = &e->region;
  tt_status_t s = TT_OK_STATUS;
  for (int i = 0; !s && i < R->npending; i++) s = tt_graph_add_output(R->g, R->pending[i]->pending);
  for (int i = 0; !s && i < nextra; i++) s = tt_graph_add_output(R->g, extra[i]);
  if (!s && nflag) s = tt_graph_add_output(R->g, checks_output(e));
  return s;
}

/* After a region ran (or failed): its statistics, the result array, a fresh region. */
static void finish_run(tt_engine_t *e, tt_pjrt_buffer_t **bufs, tt_pjrt_buffer_t **small) {
  tt_region_t *R = &e->region;
  R->stats.flushes++;
  R->stats.last_nodes = (uint64_t)tt_graph_num_nodes(R->g);
  R->stats.last_outputs = (uint64_t)R->npending;
  R->stats.last_ops = R->nops;
  if (bufs && bufs != small) tt_free(bufs);
  reset(e);
}

static tt_status_t flush(tt_engine_t *e, const char *what, const tt_val_t *extra, int nextra,
                         tt_status_t (*accept)(void *, tt_pjrt_buffer_t **), void *ctx, int drain) {
  tt_region_t *R = &e->region;
  if (R->capture.active) tt_region_capture_fail(e, what);
  /* A region whose results all died still runs for its index checks (an
   * out-of-range index raises as on CUDA, whether or not the result is used). */
  int nflag = R->nchecks > 0;
  R->chunk_limit = R->chunk_ops; /* every cut starts the chunks over (a chunk cut then doubles it) */
  if (!R->g || R->npending + nextra + nflag == 0) {
    if (R->g && tt_graph_num_nodes(R->g)) reset(e); /* everything it computed died */
    return drain ? tt_launchq_drain(e) : TT_OK_STATUS;
  }
  int nout = R->npending + nextra + nflag;
  char fused_what[256];
  if (R->ncalls) { /* named in compile errors (and by tests' compile faults) */
    snprintf(fused_what, sizeof fused_what, "a fused compiled step (run for %s)", what);
    what = fused_what;
  }
  tt_status_t s = add_outputs(e, extra, nextra, nflag);
  /* A region holding deferred program calls (exec/plan_defer.h) donates as
   * their own launches would: a storage it reads and writes (parameters,
   * optimizer state) gets its new value in the buffer it was read from. */
  for (int r = 0; !s && R->ncalls && !nextra && r < R->npending; r++) {
    int i = tt_region_param_of_pending(R, r);
    if (i >= 0) s = tt_graph_alias_output(R->g, r, i);
  }
  tt_pjrt_buffer_t *small[64];
  tt_pjrt_buffer_t **bufs = nout <= 64 ? small : tt_malloc(sizeof(*bufs) * (size_t)nout);
  if (!s && !bufs) s = tt_status_make(TT_OUT_OF_MEMORY, "out of host memory running a region");
  /* Extra outputs (Debug's checks) and Debug itself run synchronously, after
   * everything queued. */
  int sync = nextra || tt_get_eager_mode(e) == TT_MODE_DEBUG || !tt_compile_pool_enabled(e);
  if (s) {
    poison_pending(e);
  } else if (sync) {
    int ran = 0;
    s = tt_launchq_drain(e);
    if (!s) {
      TT_PROF_BEGIN(TT_PROF_FLUSH);
      s = tt_exec_run(e, R->g, R->binds, what, bufs);
      TT_PROF_END(TT_PROF_FLUSH);
      ran = !s;
      if (s && R->ncalls) s = tt_region_fused_compile_failed(e, s);
    }
    if (!s && nextra) s = accept(ctx, bufs + R->npending);
    s = land(e, s, ran, bufs, nout, nflag);
  } else {
    TT_PROF_BEGIN(TT_PROF_FLUSH);
    s = close_async(e, what, bufs, nout, nflag);
    if (!s && drain) s = tt_launchq_drain(e);
    TT_PROF_END(TT_PROF_FLUSH);
  }
  finish_run(e, bufs, small);
  return s;
}

/* Any cut but a repeat boundary (a materialization, a large region, a mode
 * switch) restarts the repeat history: each step of a loop then starts from
 * the same state, so the heuristic cuts it at the same places every step and
 * its executables are reused, whatever ran before (a period learned from an
 * earlier workload used to cut at shifting places and compile every step). */
tt_status_t tt_region_flush(tt_engine_t *e, const char *what) {
  e->region.follow_mark = NULL;
  tt_repeat_reset(&e->repeat);
  return flush(e, what, NULL, 0, NULL, NULL, 1);
}

tt_status_t tt_region_flush_checked(tt_engine_t *e, const char *what, const tt_val_t *extra, int n,
                                    tt_status_t (*accept)(void *ctx, tt_pjrt_buffer_t **bufs),
                                    void *ctx) {
  tt_region_t *R = &e->region;
  R->nops++;
  R->stats.ops++;
  tt_repeat_reset(&e->repeat);
  return flush(e, what, extra, n, accept, ctx, 1);
}

tt_status_t tt_region_end_op(tt_engine_t *e, uint64_t op_hash, const char *what) {
  tt_region_t *R = &e->region;
  R->nops++;
  R->stats.ops++;
  if (R->follow_mark) {
    *R->follow_mark = 1;
    R->follow_mark = NULL;
  }
  if (R->capture.active) return TT_OK_STATUS; /* the whole graph is one region */
  /* Strict and Debug: one op per region. Strict does not drain the launch
   * queue, so an op whose executable is compiling does not stop the host
   * from lowering the next ones (exec/launch_queue.h). */
  if (tt_get_eager_mode(e) != TT_MODE_DEFER_AND_FUSE) {
    /* Deferred program calls pending: the op joins them (below: only the
     * size limits close the region). */
    if (!R->ncalls) {
      tt_repeat_reset(&e->repeat);
      return flush(e, what, NULL, 0, NULL, NULL, 0);
    }
  } else if (R->repeat_detection && tt_repeat_observe(&e->repeat, op_hash)) {
    R->stats.repeat_cuts++;
    return flush(e, "a repeated op sequence (DeferAndFuse)", NULL, 0, NULL, NULL, 0);
  }
  int limit = tt_get_eager_mode(e) == TT_MODE_DEFER_AND_FUSE ? R->chunk_limit : 0;
  if (limit > 0 && R->nops >= (uint64_t)limit) {
    R->stats.chunk_cuts++;
    tt_status_t s = flush(e, "a chunk of ops (DeferAndFuse)", NULL, 0, NULL, NULL, 0);
    R->chunk_limit = limit < (1 << 29) ? 2 * limit : limit;
    return s;
  }
  if (tt_graph_num_nodes(R->g) > MAX_NODES || R->nparams > MAX_PARAMS) {
    tt_repeat_reset(&e->repeat);
    return flush(e, "a large deferred region (DeferAndFuse)", NULL, 0, NULL, NULL, 0);
  }
  return TT_OK_STATUS;
}

void tt_region_capture_begin(tt_engine_t *e, int bake) {
  tt_region_capture_t *c = &e->region.capture;
  memset(c, 0, sizeof *c);
  c->active = 1;
  c->bake = bake;
  c->first_serial = e->storage_serial;
}

void tt_region_capture_fail(tt_engine_t *e, const char *why) {
  tt_region_capture_t *c = &e->region.capture;
  if (!c->active) return;
  c->active = 0;
  c->failed = 1;
  snprintf(c->why, sizeof c->why, "%s", why);
}

int tt_region_param_of_pending(const tt_region_t *R, int r) {
  for (int i = 0; i < R->nparams; i++)
    if (R->binds[i].kind == TT_BIND_STORAGE && R->binds[i].storage == R->pending[r]) return i;
  return -1;
}

int tt_region_fused_misses(const tt_engine_t *e, uint64_t key) {
  const tt_region_t *R = &e->region;
  for (int i = 0; i < TT_REGION_MISS_SLOTS; i++)
    if (R->miss_counts[i] && R->miss_keys[i] == key) return R->miss_counts[i];
  return 0;
}

void tt_region_forget_fused_misses(tt_engine_t *e) {
  memset(e->region.miss_counts, 0, sizeof e->region.miss_counts);
}

/* The open region's calls missed the executable cache (hit 0): counted per
 * program (a full table forgets its least-missed entry); or found it (hit
 * 1): their counts start again, so only misses in a row stop a program's
 * deferral (a training loop whose eval steps, or earlier loops on other
 * shapes, compiled fused programs of their own keeps it). */
static void count_fused_miss(tt_region_t *R, int hit) {
  for (int c = 0; c < R->ncalls; c++) {
    if (hit) {
      for (int i = 0; i < TT_REGION_MISS_SLOTS; i++)
        if (R->miss_counts[i] && R->miss_keys[i] == R->calls[c]) R->miss_counts[i] = 0;
      continue;
    }
    int slot = -1, low = 0;
    for (int i = 0; i < TT_REGION_MISS_SLOTS && slot < 0; i++)
      if (R->miss_counts[i] && R->miss_keys[i] == R->calls[c]) slot = i;
    for (int i = 0; i < TT_REGION_MISS_SLOTS && slot < 0; i++)
      if (!R->miss_counts[i]) slot = i;
    if (slot < 0) {
      for (int i = 1; i < TT_REGION_MISS_SLOTS; i++)
        if (R->miss_counts[i] < R->miss_counts[low]) low = i;
      slot = low;
      R->miss_counts[slot] = 0;
    }
    R->miss_keys[slot] = R->calls[c];
    R->miss_counts[slot]++;
  }
}

tt_status_t tt_region_fused_compile_failed(tt_engine_t *e, tt_status_t s) {
  e->fuse_plans = 0;
  return tt_status_annotate(s, "the compiled graphs of this step ran fused into one program, which failed; they "
                               "launch on their own from now on (TORCH_TPU_FUSE_COMPILED_CALLS=0 starts that way)");
}

int tt_region_take_call(tt_engine_t *e, uint64_t key) {
  tt_region_t *R = &e->region;
  if (R->ncalls == TT_REGION_MAX_CALLS) return 0;
  for (int i = 0; i < R->ncalls; i++)
    if (R->calls[i] == key) return 0;
  R->calls[R->ncalls++] = key;
  return 1;
}

tt_status_t tt_region_capture_run(tt_engine_t *e, const char *what, tt_strbuf_t *out_text, tt_tier1_exe_t **out_exe,
                                  int *out_nout) {
  tt_region_t *R = &e->region;
  *out_exe = NULL;
  *out_nout = 0;
  R->capture.active = 0;
  tt_repeat_reset(&e->repeat);
  R->chunk_limit = R->chunk_ops;
  int nflag = R->nchecks > 0;
  int nout = R->npending + nflag;
  if (!R->g || nout == 0) { /* nothing to compute on the device (the graph only views its arguments) */
    if (R->g && tt_graph_num_nodes(R->g)) reset(e);
    return TT_OK_STATUS;
  }
  tt_status_t s = add_outputs(e, NULL, 0, nflag);
  if (!s && out_text) s = tt_exec_emit_text(e, R->g, out_text);
  /* Donation: a storage the graph reads and writes (a parameter, an
   * optimizer's state, a running statistic) gets its new value in the
   * buffer it was read from; the launch consumes the old buffer, so the
   * update needs no second copy on the device. */
  for (int r = 0; !s && r < R->npending; r++) {
    int i = tt_region_param_of_pending(R, r);
    if (i >= 0) s = tt_graph_alias_output(R->g, r, i);
  }
  tt_pjrt_buffer_t *small[64];
  tt_pjrt_buffer_t **bufs = nout <= 64 ? small : tt_malloc(sizeof(*bufs) * (size_t)nout);
  if (!s && !bufs) s = tt_status_make(TT_OUT_OF_MEMORY, "out of host memory running a region");
  tt_tier1_exe_t *exe = NULL;
  if (!s) s = tt_launchq_drain(e);
  if (!s) {
    tt_cache_key_t key = tt_exec_key(e, R->g);
    TT_PROF_BEGIN(TT_PROF_FIND);
    s = tt_exec_find_executable(e, R->g, &key, what, &exe);
    TT_PROF_END(TT_PROF_FIND);
  }
  if (!s) s = tt_exec_launch(e, exe, R->binds, R->nparams, nout, what, bufs);
  if (s) poison_pending(e);
  else s = land(e, s, 0, bufs, nout, nflag);
  finish_run(e, bufs, small);
  if (s) {
    if (exe) tt_tier1_release(e->tier1, exe);
    return s;
  }
  *out_exe = exe;
  *out_nout = nout;
  return TT_OK_STATUS;
}

void tt_region_set_repeat_detection(tt_engine_t *e, int enabled) { e->region.repeat_detection = enabled; }
void tt_region_set_chunk_ops(tt_engine_t *e, int n) { e->region.chunk_ops = e->region.chunk_limit = n > 0 ? n : 0; }
int tt_region_chunk_ops(tt_engine_t *e) { return e->region.chunk_ops; }

const tt_region_stats_t *tt_region_stats(tt_engine_t *e) { return &e->region.stats; }

void tt_region_shutdown(tt_engine_t *e) {
  tt_region_t *R = &e->region;
  tt_status_free(tt_region_flush(e, "shutdown"));
  reset(e);
  tt_graph_destroy(R->g);
  R->g = NULL;
  tt_free(R->binds);
  tt_free(R->pending);
  tt_free(R->checks);
  R->binds = NULL;
  R->pending = NULL;
  R->checks = NULL;
  R->cap_params = R->cap_pending = R->cap_checks = 0;
  tt_async_errors_shutdown(e);
}
