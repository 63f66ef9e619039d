/* Launches waiting for their executables: with asynchronous compilation
 * (exec/compile_pool.h), a closed region whose executable is not in tier 1
 * is queued here with its parameters and output storages while the host
 * goes on recording; launches leave the queue in program order, each when
 * its executable is ready (checked at every region close, without waiting),
 * when the queue is full, or at a drain (any point that reads or replaces a
 * buffer outside a launch: host copies, synchronize, resize, a mode switch;
 * tt_region_flush drains). A queued launch binds its parameters when it
 * runs, which sees the same buffers as at its close because everything that
 * changes a buffer is a later launch of this queue or waits for the drain.
 * A failed launch (its compile's error, same text as a synchronous compile)
 * fails every launch queued after it, since they may read its results: their
 * storages are poisoned and the error is returned by the drain or close that
 * ran it.
 * Thread safety: none; the host thread (the binding's lock). */
#ifndef TT_EXEC_LAUNCH_QUEUE_H
#define TT_EXEC_LAUNCH_QUEUE_H

#include "exec/storage.h"
#include "cache/tier1.h"
#include "exec/async_errors.h"
#include "exec/compile_pool.h"
#include "exec/engine_type.h"
#include "exec/run.h"

typedef struct tt_launch_s {
  tt_tier1_exe_t *exe;     /* ready executable (a reference), or */
  tt_compile_job_t *job;   /* its compile (a reference) */
  tt_binding_t *binds;     /* storages retained */
  int nparams;
  tt_storage_t **outs;     /* output storages in output order (retained) */
  int nouts;
  tt_index_check_t *checks; /* when nchecks > 0, their flags are one more output */
  int nchecks;
  char *what;
  int fused;               /* the region held deferred program calls (exec/plan_defer.h) */
  unsigned char *donated;  /* per output: it aliases a donated parameter (exec/retired.h), or NULL: none */
} tt_launch_t;

#define TT_LAUNCHQ_DEPTH 64

/* One engine's queue (a field of tt_engine_t): a ring, oldest at head. */
typedef struct tt_launchq_s {
  tt_launch_t q[TT_LAUNCHQ_DEPTH];
  int head, count;
} tt_launchq_t;

/* Queues a launch (taking ownership of its arrays, which come from
 * tt_malloc), then runs the ready ones at the head; waits for the head when
 * the queue is full. An error is that of a launch that ran (see above). */
tt_status_t tt_launchq_push(tt_engine_t *e, tt_launch_t *l);
/* Runs every queued launch, waiting for their compiles. */
tt_status_t tt_launchq_drain(tt_engine_t *e);
int tt_launchq_length(tt_engine_t *e);

#endif
