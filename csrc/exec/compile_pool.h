/* Asynchronous compilation: a small pool of threads that finds executables
 * after a tier-1 miss (tiers 2/3, a peer's claim, else XLA's compile) while
 * the host goes on lowering and recording the ops that follow. A job is
 * collected on the host when its launch needs the executable; the first
 * collection inserts it in tier 1. Concurrent misses of one key share one
 * job (tt_compile_job_find), so a key compiles once.
 * TORCH_TPU_ASYNC_COMPILE=0 turns it off (every compile on the calling
 * thread, as in Debug mode). Each engine has its own pool (tt_compile_pool_t,
 * a field of tt_engine_t), started at its first job; tt_compile_pool_shutdown
 * (called by the engine's destroy and by the embedding at exit) joins its
 * threads, so none is left compiling when the plugin unloads.
 * Thread safety: the tt_compile_job_* functions and shutdown are called by
 * the engine's owner, one call at a time; the pool's own state (queue, job
 * references and results) is under its mutex, shared with its threads. */
#ifndef TT_EXEC_COMPILE_POOL_H
#define TT_EXEC_COMPILE_POOL_H

#include <pthread.h>
#include <stdint.h>

#include "exec/engine_type.h"
#include "base/strbuf.h"
#include "cache/entry.h"
#include "cache/tier1.h"

typedef struct tt_compile_job_s tt_compile_job_t;

#define TT_COMPILE_MAX_THREADS 4

typedef struct tt_compile_pool_s {
  pthread_mutex_t mu;
  pthread_cond_t work_cv, done_cv;
  tt_compile_job_t *queue_head, *queue_tail; /* under mu */
  pthread_t threads[TT_COMPILE_MAX_THREADS];
  int nthreads, stopping; /* under mu */
  int forced;             /* tt_compile_pool_set_enabled: -1 (the environment's), 0, 1 */
  uint64_t started;
  tt_compile_job_t *live; /* the owner's list of uncollected jobs */
  tt_engine_t *engine;
} tt_compile_pool_t;

void tt_compile_pool_init(tt_compile_pool_t *p, tt_engine_t *e);

/* Whether misses compile in the background: TORCH_TPU_ASYNC_COMPILE (on
 * unless "0", "off" or "false"), unless overridden by set_enabled. */
int tt_compile_pool_enabled(tt_engine_t *e);
/* Tests and benchmarks: 1/0 forces it on or off, -1 returns to the environment. */
void tt_compile_pool_set_enabled(tt_engine_t *e, int enabled);

/* Queues a job for id's executable; takes ownership of *text (emptied).
 * *out_job is the caller's reference. */
tt_status_t tt_compile_job_start(tt_engine_t *e, const tt_cache_entry_id_t *id, tt_strbuf_t *text,
                                 const char *what, tt_compile_job_t **out_job);
/* A job for a hot quick executable's optimized compile (exec/tiered.h):
 * never compiled quickly, collected by tt_compile_job_take. */
tt_status_t tt_compile_job_start_upgrade(tt_engine_t *e, const tt_cache_entry_id_t *id, tt_strbuf_t *text,
                                         const char *what, tt_compile_job_t **out_job);
/* A finished job's executable (the caller's now) and its counters added to
 * the engine's; NULL when it failed, is not finished, or a launch's miss
 * already collected it into tier 1. */
tt_pjrt_executable_t *tt_compile_job_take(tt_compile_job_t *j);
/* A new reference to the uncollected job of key, or NULL. */
tt_compile_job_t *tt_compile_job_find(tt_engine_t *e, const tt_cache_key_t *key);
/* Finished (without waiting)? */
int tt_compile_job_done(tt_compile_job_t *j);
/* Waits for the job; then a new tier-1 reference to its executable, or the
 * job's error (the same text for every caller). The first call inserts the
 * executable in tier 1 and adds the job's counters to the context's. */
tt_status_t tt_compile_job_result(tt_compile_job_t *j, tt_tier1_exe_t **out_exe);
void tt_compile_job_release(tt_compile_job_t *j);

/* Waits for the job being compiled, cancels queued ones and joins the
 * threads; a later start creates them again. */
void tt_compile_pool_shutdown(tt_engine_t *e);
/* Jobs started in the background so far (for cache_stats). */
uint64_t tt_compile_pool_started(tt_engine_t *e);

#endif
