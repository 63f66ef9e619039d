/* The open region: parameters, pending storages, flushing and rollback. */
#include "exec/region.h"

#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "api/mode.h"
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
#define MAX_PARAMS 4096

typedef struct region_s {
  tt_graph_t *g;
  uint64_t gen; /* storages compare their `gen` with this */
  tt_binding_t *binds;
  int nparams, cap_params;
  tt_storage_t **pending; /* live storages written in the region, in first-write order */
  int npending, cap_pending;
  tt_index_check_t *checks; /* of the ops in the region, in program order */
  int nchecks, cap_checks;
  uint64_t nops;
  /* Rollback point of the op being lowered. */
  int op_nodes, op_params, op_checks;
  int repeat_detection;
  int chunk_ops;   /* DeferAndFuse's first chunk, in ops (0: no chunks) */
  int chunk_limit; /* ops the open region may reach: chunk_ops, doubled after each chunk cut */
  tt_region_stats_t stats;
} region_t;

/* DeferAndFuse's chunks: the first region of a step closes after
 * DEFAULT_CHUNK_OPS ops and each next chunk may be twice as long, so the
 * device starts on the step early while the host records the rest, and a
 * long step still fuses into a few (log2) executables. Cuts count ops since
 * the last cut, so they fall at the same places every step. Measured on the
 * 2-core CPU plugin (bench/bench_modes.py, interleaved): CNN step
 * DeferAndFuse/Strict 0.95x without chunks, 1.3-1.4x with; the transformer
 * step (already cut by a repeat) unchanged at ~1.55x. */
#define DEFAULT_CHUNK_OPS 16

static region_t R = {.gen = 1, .repeat_detection = 1, .chunk_ops = DEFAULT_CHUNK_OPS, .chunk_limit = DEFAULT_CHUNK_OPS};

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

tt_graph_t *tt_region_graph(void) {
  if (!R.g) {
    tt_status_t s = tt_graph_create(&R.g);
    if (s) { /* builders on a NULL graph would crash: keep the status for the caller */
      tt_status_free(s);
      return NULL;
    }
    const char *env = getenv("TORCH_TPU_DETECT_REPEATED_OPS");
    if (env && (!strcmp(env, "0") || !strcmp(env, "off"))) R.repeat_detection = 0;
    const char *ch = getenv("TORCH_TPU_DEFER_CHUNK_OPS");
    if (ch) R.chunk_ops = R.chunk_limit = atoi(ch) > 0 ? atoi(ch) : 0;
  }
  return R.g;
}

int tt_region_is_pending(const tt_storage_t *s) { return s->gen == R.gen && s->pending >= 0; }

static void claim(tt_storage_t *s) {
  if (s->gen != R.gen) {
    s->gen = R.gen;
    s->pending = -1;
    s->param = -1;
  }
}

tt_val_t tt_region_param(const tt_type_t *type, tt_binding_t b) {
  if (!grow((void **)&R.binds, &R.cap_params, R.nparams + 1, sizeof(tt_binding_t)))
    return tt_graph_fail(R.g, TT_OUT_OF_MEMORY, "out of host memory adding a parameter");
  tt_val_t v = tt_b_param(R.g, type);
  if (v < 0) return -1;
  if (b.kind == TT_BIND_STORAGE) tt_storage_retain(b.storage);
  R.binds[R.nparams++] = b;
  return v;
}

tt_val_t tt_region_base(tt_storage_t *s) {
  claim(s);
  if (s->pending >= 0) return s->pending;
  if (s->param >= 0) return s->param;
  if (s->poisoned)
    return tt_graph_fail(R.g, TT_INTERNAL,
                         "this tensor's value was never computed: the deferred computation that "
                         "produced it failed earlier");
  tt_type_t t = tt_type_make(s->dtype, 1, &s->numel);
  tt_binding_t b = {.kind = TT_BIND_STORAGE, .storage = s};
  s->param = tt_region_param(&t, b);
  return s->param;
}

tt_status_t tt_region_write(tt_storage_t *s, tt_val_t v) {
  claim(s);
  if (s->pending < 0) {
    if (!grow((void **)&R.pending, &R.cap_pending, R.npending + 1, sizeof(tt_storage_t *)))
      return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory recording a write");
    R.pending[R.npending++] = s;
  }
  s->pending = v;
  return TT_OK_STATUS;
}

void tt_region_forget(tt_storage_t *s) {
  if (!tt_region_is_pending(s)) return;
  for (int i = 0; i < R.npending; i++) {
    if (R.pending[i] != s) continue;
    memmove(&R.pending[i], &R.pending[i + 1], sizeof(tt_storage_t *) * (size_t)(R.npending - i - 1));
    R.npending--;
    break;
  }
  s->pending = -1;
}

/* Drops the region's contents; the storages it touched forget it. */
static void reset(void) {
  for (int i = 0; i < R.nparams; i++)
    if (R.binds[i].kind == TT_BIND_STORAGE) tt_storage_release(R.binds[i].storage);
  R.nparams = 0;
  R.npending = 0;
  R.nchecks = 0;
  R.nops = 0;
  if (R.g) tt_graph_reset(R.g);
  R.gen++;
}

void tt_region_begin_op(void) {
  R.op_nodes = R.g ? tt_graph_num_nodes(R.g) : 0;
  R.op_params = R.nparams;
  R.op_checks = R.nchecks;
}

tt_status_t tt_region_add_checks(const tt_index_check_t *checks, int n) {
  if (!grow((void **)&R.checks, &R.cap_checks, R.nchecks + n, sizeof(tt_index_check_t)))
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory recording index checks");
  memcpy(&R.checks[R.nchecks], checks, sizeof(tt_index_check_t) * (size_t)n);
  R.nchecks += n;
  return TT_OK_STATUS;
}

void tt_region_rollback(void) {
  for (int i = R.op_params; i < R.nparams; i++)
    if (R.binds[i].kind == TT_BIND_STORAGE) {
      tt_storage_t *s = R.binds[i].storage;
      if (s->gen == R.gen) s->param = -1;
      tt_storage_release(s);
    }
  R.nparams = R.op_params;
  R.nchecks = R.op_checks;
  if (R.g) tt_graph_truncate(R.g, R.op_nodes);
}

static void poison_pending(void) {
  for (int i = 0; i < R.npending; i++) R.pending[i]->poisoned = 1;
}

/* The region's index checks as one output: their flags side by side. */
static tt_val_t checks_output(void) {
  tt_val_t small[64];
  tt_val_t *parts = R.nchecks <= 64 ? small : tt_malloc(sizeof(tt_val_t) * (size_t)R.nchecks);
  if (!parts) return tt_graph_fail(R.g, TT_OUT_OF_MEMORY, "out of host memory collecting index checks");
  for (int i = 0; i < R.nchecks; i++) parts[i] = R.checks[i].flag;
  tt_val_t v = R.nchecks == 1 ? parts[0] : tt_b_concat(R.g, R.nchecks, parts, 0);
  if (parts != small) tt_free(parts);
  return v;
}

/* Gives the region's live storages their new buffers (or poisons them when
 * the launch failed); hands the index-check flags to exec/async_errors. */
static tt_status_t land(tt_status_t s, int ran, tt_pjrt_buffer_t **bufs, int nout, int nflag) {
  if (s && ran) { /* vetoed: nothing lands, the storages keep their buffers */
    for (int i = 0; i < R.npending; i++) tt_pjrt_buffer_destroy(tt_ctx()->rt, bufs[i]);
    if (nflag) tt_pjrt_buffer_destroy(tt_ctx()->rt, bufs[nout - 1]);
  } else if (s) {
    poison_pending();
  } else {
    for (int i = 0; i < R.npending; i++) {
      R.pending[i]->poisoned = 0;
      tt_storage_set_buffer(R.pending[i], bufs[i]);
    }
    if (nflag) s = tt_async_errors_push(bufs[nout - 1], R.checks, R.nchecks);
  }
  return s;
}

/* The region as a queued launch (exec/launch_queue.h), holding references to
 * its storages and to its executable or compile job. */
static tt_status_t make_launch(tt_launch_t *l, tt_tier1_exe_t *exe, tt_compile_job_t *job, const char *what) {
  memset(l, 0, sizeof *l);
  size_t wn = strlen(what) + 1;
  l->binds = tt_malloc(sizeof(tt_binding_t) * (size_t)(R.nparams ? R.nparams : 1));
  l->outs = tt_malloc(sizeof(tt_storage_t *) * (size_t)(R.npending ? R.npending : 1));
  l->checks = R.nchecks ? tt_malloc(sizeof(tt_index_check_t) * (size_t)R.nchecks) : NULL;
  l->what = tt_malloc(wn);
  if (!l->binds || !l->outs || (R.nchecks && !l->checks) || !l->what) {
    tt_free(l->binds);
    tt_free(l->outs);
    tt_free(l->checks);
    tt_free(l->what);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory queueing %s", what);
  }
  memcpy(l->binds, R.binds, sizeof(tt_binding_t) * (size_t)R.nparams);
  for (int i = 0; i < R.nparams; i++)
    if (l->binds[i].kind == TT_BIND_STORAGE) tt_storage_retain(l->binds[i].storage);
  l->nparams = R.nparams;
  memcpy(l->outs, R.pending, sizeof(tt_storage_t *) * (size_t)R.npending);
  for (int i = 0; i < R.npending; i++) tt_storage_retain(l->outs[i]);
  l->nouts = R.npending;
  if (R.nchecks) memcpy(l->checks, R.checks, sizeof(tt_index_check_t) * (size_t)R.nchecks);
  l->nchecks = R.nchecks;
  memcpy(l->what, what, wn);
  l->exe = exe;
  l->job = job;
  return TT_OK_STATUS;
}

/* Closes the region with asynchronous compilation: launches it now when its
 * executable is in tier 1 and nothing is queued before it; otherwise queues
 * it behind its compile (joining one of the same key under way). */
static tt_status_t close_async(const char *what, tt_pjrt_buffer_t **bufs, int nout, int nflag) {
  tt_ctx_t *c = tt_ctx();
  tt_cache_key_t key = tt_exec_key(R.g);
  TT_PROF_BEGIN(TT_PROF_FIND);
  tt_tier1_exe_t *exe = tt_exec_find_cached(c, &key);
  TT_PROF_END(TT_PROF_FIND);
  if (exe && !tt_launchq_length()) {
    tt_status_t s = tt_exec_launch(exe, R.binds, R.nparams, nout, what, bufs);
    tt_tier1_release(c->tier1, exe);
    return land(s, 0, bufs, nout, nflag);
  }
  tt_compile_job_t *job = NULL;
  tt_status_t s = TT_OK_STATUS;
  if (!exe) {
    job = tt_compile_job_find(&key);
    if (job) {
      c->stats.compile_joins++;
    } else {
      tt_strbuf_t text;
      tt_cache_entry_id_t id;
      s = tt_exec_emit(c, R.g, &key, &text, &id);
      if (!s) {
        s = tt_compile_job_start(c, &id, &text, what, &job);
        tt_strbuf_free(&text);
      }
      if (!s) c->stats.async_compiles++;
    }
  }
  tt_launch_t l;
  if (!s) s = make_launch(&l, exe, job, what);
  if (s) {
    tt_tier1_release(c->tier1, exe);
    tt_compile_job_release(job);
    poison_pending();
    return s;
  }
  return tt_launchq_push(&l);
}

static tt_status_t flush(const char *what, const tt_val_t *extra, int nextra,
                         tt_status_t (*accept)(void *, tt_pjrt_buffer_t **), void *ctx, int drain) {
  /* A region whose results all died still runs for its index checks (an
   * out-of-range index raises as on CUDA, whether or not the result is used). */
  int nflag = R.nchecks > 0;
  R.chunk_limit = R.chunk_ops; /* every cut starts the chunks over (a chunk cut then doubles it) */
  if (!R.g || R.npending + nextra + nflag == 0) {
    if (R.g && tt_graph_num_nodes(R.g)) reset(); /* everything it computed died */
    return drain ? tt_launchq_drain() : TT_OK_STATUS;
  }
  int nout = R.npending + nextra + nflag;
  tt_status_t s = TT_OK_STATUS;
  for (int i = 0; !s && i < R.npending; i++) s = tt_graph_add_output(R.g, R.pending[i]->pending);
  for (int i = 0; !s && i < nextra; i++) s = tt_graph_add_output(R.g, extra[i]);
  if (!s && nflag) s = tt_graph_add_output(R.g, checks_output());
  tt_pjrt_buffer_t *small[64];
  tt_pjrt_buffer_t **bufs = nout <= 64 ? small : tt_malloc(sizeof(*bufs) * (size_t)nout);
  if (!s && !bufs) s = tt_status_make(TT_OUT_OF_MEMORY, "out of host memory running a region");
  /* Extra outputs (Debug's checks) and Debug itself run synchronously, after
   * everything queued. */
  int sync = nextra || tt_get_eager_mode() == TT_MODE_DEBUG || !tt_compile_pool_enabled();
  if (s) {
    poison_pending();
  } else if (sync) {
    int ran = 0;
    s = tt_launchq_drain();
    if (!s) {
      TT_PROF_BEGIN(TT_PROF_FLUSH);
      s = tt_exec_run(R.g, R.binds, what, bufs);
      TT_PROF_END(TT_PROF_FLUSH);
      ran = !s;
    }
    if (!s && nextra) s = accept(ctx, bufs + R.npending);
    s = land(s, ran, bufs, nout, nflag);
  } else {
    TT_PROF_BEGIN(TT_PROF_FLUSH);
    s = close_async(what, bufs, nout, nflag);
    if (!s && drain) s = tt_launchq_drain();
    TT_PROF_END(TT_PROF_FLUSH);
  }
  R.stats.flushes++;
  R.stats.last_nodes = (uint64_t)tt_graph_num_nodes(R.g);
  R.stats.last_outputs = (uint64_t)R.npending;
  R.stats.last_ops = R.nops;
  if (bufs && bufs != small) tt_free(bufs);
  reset();
  return s;
}

/* Any cut but a repeat boundary (a materialization, a large region, a mode
 * switch) restarts the repeat history: each step of a loop then starts from
 * the same state, so the heuristic cuts it at the same places every step and
 * its executables are reused, whatever ran before (a period learned from an
 * earlier workload used to cut at shifting places and compile every step). */
tt_status_t tt_region_flush(const char *what) {
  tt_repeat_reset();
  return flush(what, NULL, 0, NULL, NULL, 1);
}

tt_status_t tt_region_flush_checked(const char *what, const tt_val_t *extra, int n,
                                    tt_status_t (*accept)(void *ctx, tt_pjrt_buffer_t **bufs),
                                    void *ctx) {
  R.nops++;
  tt_repeat_reset();
  return flush(what, extra, n, accept, ctx, 1);
}

tt_status_t tt_region_end_op(uint64_t op_hash, const char *what) {
  R.nops++;
  /* Strict and Debug: one op per region. Strict does not drain the launch
   * queue, so an op whose executable is compiling does not stop the host
   * from lowering the next ones (exec/launch_queue.h). */
  if (tt_get_eager_mode() != TT_MODE_DEFER_AND_FUSE) {
    tt_repeat_reset();
    return flush(what, NULL, 0, NULL, NULL, 0);
  }
  if (R.repeat_detection && tt_repeat_observe(op_hash)) {
    R.stats.repeat_cuts++;
    return flush("a repeated op sequence (DeferAndFuse)", NULL, 0, NULL, NULL, 0);
  }
  int limit = R.chunk_limit;
  if (limit > 0 && R.nops >= (uint64_t)limit) {
    R.stats.chunk_cuts++;
    tt_status_t s = flush("a chunk of ops (DeferAndFuse)", NULL, 0, NULL, NULL, 0);
    R.chunk_limit = limit < (1 << 29) ? 2 * limit : limit;
    return s;
  }
  if (tt_graph_num_nodes(R.g) > MAX_NODES || R.nparams > MAX_PARAMS) {
    tt_repeat_reset();
    return flush("a large deferred region (DeferAndFuse)", NULL, 0, NULL, NULL, 0);
  }
  return TT_OK_STATUS;
}

void tt_region_set_repeat_detection(int enabled) { R.repeat_detection = enabled; }
void tt_region_set_chunk_ops(int n) {
  tt_region_graph(); /* reads the environment once: a later first use must not undo this */
  R.chunk_ops = R.chunk_limit = n > 0 ? n : 0;
}
int tt_region_chunk_ops(void) {
  tt_region_graph();
  return R.chunk_ops;
}

const tt_region_stats_t *tt_region_stats(void) { return &R.stats; }

void tt_region_shutdown(void) {
  tt_status_free(tt_region_flush("shutdown"));
  reset();
  tt_graph_destroy(R.g);
  R.g = NULL;
  tt_free(R.binds);
  tt_free(R.pending);
  tt_free(R.checks);
  R.binds = NULL;
  R.pending = NULL;
  R.checks = NULL;
  R.cap_params = R.cap_pending = R.cap_checks = 0;
  tt_async_errors_shutdown();
}
