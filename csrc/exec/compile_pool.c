/* The compile pool: worker threads, the job queue, and job collection. */
#include "exec/compile_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/blocking.h"
#include "exec/find.h"

/* XLA's CPU compile is mostly single-threaded per module; more threads than
 * cores would only steal time from the host and the device. */
#define MAX_THREADS 4

struct tt_compile_job_s {
  int refs; /* host references + 1 while queued or compiling (under mu) */
  tt_ctx_t *ctx;
  tt_cache_entry_id_t id;
  tt_strbuf_t text;
  char *what;
  int dump_text;
  /* Set by the worker, read by the host after done (under mu). */
  int done;
  tt_pjrt_executable_t *exe;
  tt_code_t code;
  char *message;
  tt_cache_stats_t stats;
  /* Host only. */
  int collected;
  tt_tier1_exe_t *entry;      /* after a successful collection (one reference) */
  tt_compile_job_t *next;     /* queue */
  tt_compile_job_t *live_next; /* host list of uncollected jobs */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER, done_cv = PTHREAD_COND_INITIALIZER;
static tt_compile_job_t *queue_head, *queue_tail;
static pthread_t threads[MAX_THREADS];
static int nthreads, stopping, hooks_installed;
static int forced = -1;
static uint64_t started;
static tt_compile_job_t *live; /* host thread only */

int tt_compile_pool_enabled(void) {
  if (forced >= 0) return forced;
  const char *v = getenv("TORCH_TPU_ASYNC_COMPILE");
  return !(v && (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "false")));
}

void tt_compile_pool_set_enabled(int enabled) { forced = enabled < 0 ? -1 : !!enabled; }

uint64_t tt_compile_pool_started(void) { return started; }

static void job_free(tt_compile_job_t *j) {
  if (j->exe) tt_pjrt_executable_destroy(j->ctx->rt, j->exe);
  if (j->entry) tt_tier1_release(j->ctx->tier1, j->entry);
  tt_strbuf_free(&j->text);
  tt_free(j->what);
  free(j->message);
  tt_free(j);
}

static void unref_locked(tt_compile_job_t *j, int *out_free) { *out_free = --j->refs == 0; }

static void finish_locked(tt_compile_job_t *j, tt_status_t s) {
  if (s) {
    j->code = tt_status_code(s);
    j->message = strdup(tt_status_message(s));
    tt_status_free(s);
  }
  j->done = 1;
  pthread_cond_broadcast(&done_cv);
}

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  for (;;) {
    while (!stopping && !queue_head) pthread_cond_wait(&work_cv, &mu);
    if (stopping) break;
    tt_compile_job_t *j = queue_head;
    queue_head = j->next;
    if (!queue_head) queue_tail = NULL;
    pthread_mutex_unlock(&mu);
    tt_pjrt_executable_t *exe = NULL;
    tt_status_t s = tt_exec_find_uncached(j->ctx, &j->id, &j->text, j->what, j->dump_text, &j->stats, &exe);
    pthread_mutex_lock(&mu);
    j->exe = exe;
    finish_locked(j, s);
    int f;
    unref_locked(j, &f);
    if (f) job_free(j);
  }
  pthread_mutex_unlock(&mu);
  return NULL;
}

/* A forked child has none of the parent's threads: start afresh. */
static void after_fork_child(void) {
  pthread_mutex_init(&mu, NULL);
  pthread_cond_init(&work_cv, NULL);
  pthread_cond_init(&done_cv, NULL);
  queue_head = queue_tail = NULL;
  nthreads = 0;
  stopping = 0;
  live = NULL;
}

static void at_exit(void) { tt_compile_pool_shutdown(); }

/* TORCH_TPU_COMPILE_THREADS, else one per core up to MAX_THREADS: while
 * compiles are outstanding the host mostly waits for them. */
static int thread_count(void) {
  const char *v = getenv("TORCH_TPU_COMPILE_THREADS");
  long n = v && atoi(v) > 0 ? atoi(v) : sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* Called locked. */
static tt_status_t ensure_threads(void) {
  if (!hooks_installed) {
    hooks_installed = 1;
    pthread_atfork(NULL, NULL, after_fork_child);
    atexit(at_exit);
  }
  int want = thread_count();
  while (nthreads < want) {
    if (pthread_create(&threads[nthreads], NULL, worker, NULL)) break;
    nthreads++;
  }
  return nthreads ? TT_OK_STATUS
                  : tt_status_make(TT_UNAVAILABLE, "cannot start a compile thread; set TORCH_TPU_ASYNC_COMPILE=0");
}

tt_status_t tt_compile_job_start(tt_ctx_t *c, const tt_cache_entry_id_t *id, tt_strbuf_t *text,
                                 const char *what, tt_compile_job_t **out_job) {
  tt_compile_job_t *j = tt_calloc(1, sizeof(*j));
  size_t wn = strlen(what) + 1;
  char *w = tt_malloc(wn);
  if (!j || !w) {
    tt_free(j);
    tt_free(w);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory queueing the compile of %s", what);
  }
  memcpy(w, what, wn);
  j->ctx = c;
  j->id = *id;
  j->text = *text;
  tt_strbuf_init(text);
  j->what = w;
  j->dump_text = getenv("TORCH_TPU_DUMP_HLO_ON_ERROR") != NULL; /* read here: getenv is not for threads */
  j->refs = 3; /* the caller's, the queue's and the live list's */
  pthread_mutex_lock(&mu);
  tt_status_t s = ensure_threads();
  if (!s) {
    if (queue_tail) queue_tail->next = j;
    else queue_head = j;
    queue_tail = j;
    started++;
    pthread_cond_signal(&work_cv);
  }
  pthread_mutex_unlock(&mu);
  if (s) {
    job_free(j);
    return s;
  }
  j->live_next = live;
  live = j;
  *out_job = j;
  return TT_OK_STATUS;
}

static int key_eq(const tt_cache_key_t *a, const tt_cache_key_t *b) {
  return a->shapeless == b->shapeless && a->dims == b->dims && a->options == b->options;
}

tt_compile_job_t *tt_compile_job_find(const tt_cache_key_t *key) {
  for (tt_compile_job_t *j = live; j; j = j->live_next)
    if (key_eq(&j->id.key, key)) {
      pthread_mutex_lock(&mu);
      j->refs++;
      pthread_mutex_unlock(&mu);
      return j;
    }
  return NULL;
}

int tt_compile_job_done(tt_compile_job_t *j) {
  pthread_mutex_lock(&mu);
  int d = j->done;
  pthread_mutex_unlock(&mu);
  return d;
}

static void unlist(tt_compile_job_t *j) {
  for (tt_compile_job_t **p = &live; *p; p = &(*p)->live_next)
    if (*p == j) {
      *p = j->live_next;
      tt_compile_job_release(j); /* the live list's reference */
      return;
    }
}

tt_status_t tt_compile_job_result(tt_compile_job_t *j, tt_tier1_exe_t **out_exe) {
  void *token = tt_blocking_begin(); /* waiting for a compile thread */
  pthread_mutex_lock(&mu);
  while (!j->done) pthread_cond_wait(&done_cv, &mu);
  pthread_mutex_unlock(&mu);
  tt_blocking_end(token);
  tt_ctx_t *c = j->ctx;
  if (!j->collected) {
    j->collected = 1;
    tt_exec_stats_add(&c->stats, &j->stats);
    if (j->exe) {
      j->entry = tt_tier1_insert(c->tier1, &j->id.key, j->exe); /* the job's reference */
      j->exe = NULL;
      c->stats.executables = tt_tier1_size(c->tier1);
  c->stats.tier1_evicted = tt_tier1_evicted(c->tier1);
      if (!j->entry && !j->message) {
        j->code = TT_OUT_OF_MEMORY;
        j->message = strdup("out of host memory caching an executable");
      }
    }
    unlist(j);
  }
  if (j->entry) {
    tt_tier1_retain(c->tier1, j->entry);
    *out_exe = j->entry;
    return TT_OK_STATUS;
  }
  return tt_status_make(j->message ? j->code : TT_INTERNAL, "%s",
                        j->message ? j->message : "a compile job was cancelled at shutdown");
}

void tt_compile_job_release(tt_compile_job_t *j) {
  if (!j) return;
  pthread_mutex_lock(&mu);
  int f;
  unref_locked(j, &f);
  pthread_mutex_unlock(&mu);
  if (f) job_free(j);
}

void tt_compile_pool_shutdown(void) {
  pthread_mutex_lock(&mu);
  if (!nthreads) {
    pthread_mutex_unlock(&mu);
    return;
  }
  stopping = 1;
  tt_exec_find_cancel(1); /* a worker waiting for another process's compile returns */
  pthread_cond_broadcast(&work_cv);
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < nthreads; i++) pthread_join(threads[i], NULL);
  tt_exec_find_cancel(0);
  pthread_mutex_lock(&mu);
  /* Queued jobs never started: their launches fail with a clear error. */
  for (tt_compile_job_t *j = queue_head, *next; j; j = next) {
    next = j->next;
    finish_locked(j, tt_status_make(TT_UNAVAILABLE, "compiling %s: cancelled, torchtpu is shutting down", j->what));
    int f;
    unref_locked(j, &f);
    if (f) job_free(j);
  }
  queue_head = queue_tail = NULL;
  nthreads = 0;
  stopping = 0;
  pthread_mutex_unlock(&mu);
}
