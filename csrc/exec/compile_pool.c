/* The compile pool: worker threads, the job queue, and job collection. */
#include "exec/compile_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/blocking.h"
#include "exec/engine.h"
#include "exec/find.h"
#include "exec/tiered.h"

/* XLA's CPU compile is mostly single-threaded per module; more threads than
 * cores would only steal time from the host and the device. */
#define MAX_THREADS TT_COMPILE_MAX_THREADS

struct tt_compile_job_s {
  int refs; /* host references + 1 while queued or compiling (under mu) */
  tt_engine_t *engine;
  tt_cache_entry_id_t id;
  tt_strbuf_t text;
  char *what;
  int dump_text;
  int fast_ok; /* the compile may be the quick first tier (exec/tiered.h) */
  /* Set by the worker, read by the host after done (under mu). */
  int done;
  tt_pjrt_executable_t *exe;
  tt_code_t code;
  char *message;
  tt_cache_stats_t stats;
  int fast; /* the executable was compiled quickly */
  /* Host only. */
  int collected;
  tt_tier1_exe_t *entry;      /* after a successful collection (one reference) */
  tt_compile_job_t *next;     /* queue */
  tt_compile_job_t *live_next; /* host list of uncollected jobs */
};

void tt_compile_pool_init(tt_compile_pool_t *p, tt_engine_t *e) {
  memset(p, 0, sizeof *p);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->work_cv, NULL);
  pthread_cond_init(&p->done_cv, NULL);
  p->forced = -1;
  p->engine = e;
}

int tt_compile_pool_enabled(tt_engine_t *e) {
  if (e->pool.forced >= 0) return e->pool.forced;
  return tt_env_flag(&e->env, TT_ENV_ASYNC_COMPILE, 1);
}

void tt_compile_pool_set_enabled(tt_engine_t *e, int enabled) { e->pool.forced = enabled < 0 ? -1 : !!enabled; }

uint64_t tt_compile_pool_started(tt_engine_t *e) { return e->pool.started; }

static void job_free(tt_compile_job_t *j) {
  if (j->exe) tt_pjrt_executable_destroy(j->engine->rt, j->exe);
  if (j->entry) tt_tier1_release(j->engine->tier1, j->entry);
  tt_strbuf_free(&j->text);
  tt_free(j->what);
  free(j->message);
  tt_free(j);
}

static void unref_locked(tt_compile_job_t *j, int *out_free) { *out_free = --j->refs == 0; }

static void finish_locked(tt_compile_pool_t *P, tt_compile_job_t *j, tt_status_t s) {
  if (s) {
    j->code = tt_status_code(s);
    j->message = strdup(tt_status_message(s));
    tt_status_free(s);
  }
  j->done = 1;
  pthread_cond_broadcast(&P->done_cv);
}

static void *worker(void *arg) {
  tt_compile_pool_t *P = arg;
  pthread_mutex_lock(&P->mu);
  for (;;) {
    while (!P->stopping && !P->queue_head) pthread_cond_wait(&P->work_cv, &P->mu);
    if (P->stopping) break;
    tt_compile_job_t *j = P->queue_head;
    P->queue_head = j->next;
    if (!P->queue_head) P->queue_tail = NULL;
    pthread_mutex_unlock(&P->mu);
    tt_pjrt_executable_t *exe = NULL;
    int fast = 0;
    tt_status_t s = tt_exec_find_uncached(j->engine, &j->id, &j->text, j->what, j->dump_text, j->fast_ok, &j->stats,
                                          &exe, &fast);
    pthread_mutex_lock(&P->mu);
    j->exe = exe;
    j->fast = fast;
    finish_locked(P, j, s);
    int f;
    unref_locked(j, &f);
    if (f) job_free(j);
  }
  pthread_mutex_unlock(&P->mu);
  return NULL;
}

/* TORCH_TPU_COMPILE_THREADS, else one per core up to MAX_THREADS: while
 * compiles are outstanding the host mostly waits for them. */
static int thread_count(const tt_env_t *env) {
  long n = (long)tt_env_count(env, TT_ENV_COMPILE_THREADS, 0);
  if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* Called locked. */
static tt_status_t ensure_threads(tt_compile_pool_t *P) {
  int want = thread_count(&P->engine->env);
  while (P->nthreads < want) {
    if (pthread_create(&P->threads[P->nthreads], NULL, worker, P)) break;
    P->nthreads++;
  }
  return P->nthreads ? TT_OK_STATUS
                  : tt_status_make(TT_UNAVAILABLE, "cannot start a compile thread; set TORCH_TPU_ASYNC_COMPILE=0");
}

static tt_status_t job_start(tt_engine_t *e, const tt_cache_entry_id_t *id, tt_strbuf_t *text, const char *what,
                             int upgrade, tt_compile_job_t **out_job);

tt_status_t tt_compile_job_start(tt_engine_t *e, const tt_cache_entry_id_t *id, tt_strbuf_t *text,
                                 const char *what, tt_compile_job_t **out_job) {
  return job_start(e, id, text, what, 0, out_job);
}

tt_status_t tt_compile_job_start_upgrade(tt_engine_t *e, const tt_cache_entry_id_t *id, tt_strbuf_t *text,
                                         const char *what, tt_compile_job_t **out_job) {
  return job_start(e, id, text, what, 1, out_job);
}

static tt_status_t job_start(tt_engine_t *e, const tt_cache_entry_id_t *id, tt_strbuf_t *text, const char *what,
                             int upgrade, tt_compile_job_t **out_job) {
  tt_compile_job_t *j = tt_calloc(1, sizeof(*j));
  size_t wn = strlen(what) + 1;
  char *w = tt_malloc(wn);
  if (!j || !w) {
    tt_free(j);
    tt_free(w);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory queueing the compile of %s", what);
  }
  memcpy(w, what, wn);
  j->engine = e;
  j->id = *id;
  j->text = *text;
  tt_strbuf_init(text);
  j->what = w;
  j->dump_text = tt_env_flag(&e->env, TT_ENV_DUMP_HLO_ON_ERROR, 0);
  j->fast_ok = !upgrade && tt_tiered_threshold(e) > 0; /* an upgrade is the optimized compile */
  j->refs = 3; /* the caller's, the queue's and the live list's */
  tt_compile_pool_t *P = &e->pool;
  pthread_mutex_lock(&P->mu);
  tt_status_t s = ensure_threads(P);
  if (!s) {
    if (P->queue_tail) P->queue_tail->next = j;
    else P->queue_head = j;
    P->queue_tail = j;
    P->started++;
    pthread_cond_signal(&P->work_cv);
  }
  pthread_mutex_unlock(&P->mu);
  if (s) {
    job_free(j);
    return s;
  }
  j->live_next = P->live;
  P->live = j;
  *out_job = j;
  return TT_OK_STATUS;
}

static int key_eq(const tt_cache_key_t *a, const tt_cache_key_t *b) {
  return a->shapeless == b->shapeless && a->dims == b->dims && a->options == b->options;
}

tt_compile_job_t *tt_compile_job_find(tt_engine_t *e, const tt_cache_key_t *key) {
  tt_compile_pool_t *P = &e->pool;
  for (tt_compile_job_t *j = P->live; j; j = j->live_next)
    if (key_eq(&j->id.key, key)) {
      pthread_mutex_lock(&P->mu);
      j->refs++;
      pthread_mutex_unlock(&P->mu);
      return j;
    }
  return NULL;
}

int tt_compile_job_done(tt_compile_job_t *j) {
  tt_compile_pool_t *P = &j->engine->pool;
  pthread_mutex_lock(&P->mu);
  int d = j->done;
  pthread_mutex_unlock(&P->mu);
  return d;
}

static void unlist(tt_compile_pool_t *P, tt_compile_job_t *j) {
  for (tt_compile_job_t **p = &P->live; *p; p = &(*p)->live_next)
    if (*p == j) {
      *p = j->live_next;
      tt_compile_job_release(j); /* the live list's reference */
      return;
    }
}

tt_status_t tt_compile_job_result(tt_compile_job_t *j, tt_tier1_exe_t **out_exe) {
  tt_compile_pool_t *P = &j->engine->pool;
  void *token = tt_blocking_begin(); /* waiting for a compile thread */
  pthread_mutex_lock(&P->mu);
  while (!j->done) pthread_cond_wait(&P->done_cv, &P->mu);
  pthread_mutex_unlock(&P->mu);
  tt_blocking_end(token);
  tt_engine_t *c = j->engine;
  if (!j->collected) {
    j->collected = 1;
    tt_exec_stats_add(&c->stats, &j->stats);
    if (j->exe) {
      /* the job's reference; a quick one keeps its text for its upgrade */
      tt_tiered_rec_t *rec = j->fast ? tt_tiered_add(c, &j->id, &j->text, j->what) : NULL;
      j->entry = tt_tier1_insert_as(c->tier1, &j->id.key, j->exe, rec);
      j->exe = NULL;
      c->stats.executables = tt_tier1_size(c->tier1);
      c->stats.tier1_evicted = tt_tier1_evicted(c->tier1);
      if (!j->entry && !j->message) {
        j->code = TT_OUT_OF_MEMORY;
        j->message = strdup("out of host memory caching an executable");
      }
    }
    unlist(P, j);
  }
  if (j->entry) {
    tt_tier1_retain(c->tier1, j->entry);
    *out_exe = j->entry;
    return TT_OK_STATUS;
  }
  return tt_status_make(j->message ? j->code : TT_INTERNAL, "%s",
                        j->message ? j->message : "a compile job was cancelled at shutdown");
}

tt_pjrt_executable_t *tt_compile_job_take(tt_compile_job_t *j) {
  tt_compile_pool_t *P = &j->engine->pool;
  pthread_mutex_lock(&P->mu);
  int done = j->done;
  pthread_mutex_unlock(&P->mu);
  if (!done || j->collected) return NULL; /* a launch's miss joined it and put it in tier 1 */
  j->collected = 1;
  /* its compile (or load) time and writes count; a hit or miss it is not:
   * the program was found in tier 1 all along */
  tt_cache_stats_t d = j->stats;
  d.hits = d.misses = d.tier2_hits = d.tier3_hits = 0;
  tt_exec_stats_add(&j->engine->stats, &d);
  tt_pjrt_executable_t *exe = j->exe;
  j->exe = NULL;
  unlist(P, j);
  return exe;
}

void tt_compile_job_release(tt_compile_job_t *j) {
  if (!j) return;
  tt_compile_pool_t *P = &j->engine->pool;
  pthread_mutex_lock(&P->mu);
  int f;
  unref_locked(j, &f);
  pthread_mutex_unlock(&P->mu);
  if (f) job_free(j);
}

void tt_compile_pool_shutdown(tt_engine_t *e) {
  tt_compile_pool_t *P = &e->pool;
  pthread_mutex_lock(&P->mu);
  if (!P->nthreads) {
    pthread_mutex_unlock(&P->mu);
    return;
  }
  P->stopping = 1;
  tt_exec_find_cancel(e, 1); /* a worker waiting for another process's compile returns */
  pthread_cond_broadcast(&P->work_cv);
  pthread_mutex_unlock(&P->mu);
  for (int i = 0; i < P->nthreads; i++) pthread_join(P->threads[i], NULL);
  tt_exec_find_cancel(e, 0);
  pthread_mutex_lock(&P->mu);
  /* Queued jobs never started: their launches fail with a clear error. */
  for (tt_compile_job_t *j = P->queue_head, *next; j; j = next) {
    next = j->next;
    finish_locked(P, j, tt_status_make(TT_UNAVAILABLE, "compiling %s: cancelled, torchtpu is shutting down", j->what));
    int f;
    unref_locked(j, &f);
    if (f) job_free(j);
  }
  P->queue_head = P->queue_tail = NULL;
  P->nthreads = 0;
  P->stopping = 0;
  pthread_mutex_unlock(&P->mu);
}
