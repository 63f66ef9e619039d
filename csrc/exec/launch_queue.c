/* The queue of launches waiting for asynchronous compiles. */
#include "exec/launch_queue.h"

#include <string.h>

#include "exec/engine.h"
#include "exec/region.h"
#include "base/alloc.h"

/* Launches held at most: each keeps its input storages alive. */
#define DEPTH TT_LAUNCHQ_DEPTH

int tt_launchq_length(tt_engine_t *e) { return e->launchq.count; }

static void free_launch(tt_engine_t *e, tt_launch_t *l) {
  for (int i = 0; i < l->nparams; i++)
    if (l->binds[i].kind == TT_BIND_STORAGE) tt_storage_release(l->binds[i].storage);
  for (int i = 0; i < l->nouts; i++) tt_storage_release(l->outs[i]);
  if (l->exe) tt_tier1_release(e->tier1, l->exe);
  tt_compile_job_release(l->job);
  tt_free(l->binds);
  tt_free(l->outs);
  tt_free(l->checks);
  tt_free(l->what);
  tt_free(l->donated);
  memset(l, 0, sizeof *l);
}

/* As exec/region.c's poison_pending: a fused step's storages that had a
 * value keep it. */
static void poison(tt_launch_t *l) {
  for (int i = 0; i < l->nouts; i++)
    if (!l->fused || !l->outs[i]->buf) l->outs[i]->poisoned = 1;
}

static tt_status_t run_one(tt_engine_t *e, tt_launch_t *l) {
  tt_status_t s = TT_OK_STATUS;
  if (!l->exe) s = tt_compile_job_result(l->job, &l->exe);
  if (s && l->fused) s = tt_region_fused_compile_failed(e, s);
  int nout = l->nouts + (l->nchecks > 0);
  tt_pjrt_buffer_t *small[64];
  tt_pjrt_buffer_t **bufs = nout <= 64 ? small : tt_malloc(sizeof(*bufs) * (size_t)nout);
  if (!s && !bufs) s = tt_status_make(TT_OUT_OF_MEMORY, "out of host memory running a region");
  if (!s) s = tt_exec_launch(e, l->exe, l->binds, l->nparams, nout, l->what, bufs);
  if (s) {
    poison(l);
  } else {
    for (int i = 0; i < l->nouts; i++) {
      l->outs[i]->poisoned = 0;
      /* a donated buffer is destroyed once the launch is done: destroying
       * it now would wait for the program */
      if (l->donated && l->donated[i]) tt_storage_set_buffer_donated(l->outs[i], bufs[i]);
      else tt_storage_set_buffer(l->outs[i], bufs[i]);
    }
    if (l->nchecks) s = tt_async_errors_push(e, bufs[nout - 1], l->checks, l->nchecks);
  }
  if (bufs && bufs != small) tt_free(bufs);
  return s;
}

/* Runs the head; on failure every later launch fails too. */
static tt_status_t pop_head(tt_engine_t *e) {
  tt_launchq_t *Q = &e->launchq;
  tt_launch_t *l = &Q->q[Q->head];
  tt_status_t s = run_one(e, l);
  free_launch(e, l);
  Q->head = (Q->head + 1) % DEPTH;
  Q->count--;
  if (s) {
    while (Q->count) {
      tt_launch_t *m = &Q->q[Q->head];
      poison(m);
      free_launch(e, m);
      Q->head = (Q->head + 1) % DEPTH;
      Q->count--;
    }
  }
  return s;
}

static int head_ready(tt_engine_t *e) {
  tt_launchq_t *Q = &e->launchq;
  tt_launch_t *l = &Q->q[Q->head];
  return l->exe || tt_compile_job_done(l->job);
}

tt_status_t tt_launchq_push(tt_engine_t *e, tt_launch_t *l) {
  tt_launchq_t *Q = &e->launchq;
  tt_status_t s = TT_OK_STATUS;
  if (Q->count == DEPTH) s = pop_head(e);
  if (s) { /* the new launch may read what failed */
    poison(l);
    free_launch(e, l);
    return s;
  }
  Q->q[(Q->head + Q->count) % DEPTH] = *l;
  Q->count++;
  while (Q->count && head_ready(e)) TT_RETURN_IF_ERROR(pop_head(e));
  return TT_OK_STATUS;
}

tt_status_t tt_launchq_drain(tt_engine_t *e) {
  tt_launchq_t *Q = &e->launchq;
  while (Q->count) TT_RETURN_IF_ERROR(pop_head(e));
  return TT_OK_STATUS;
}
