/* Asynchronous device-side index checks, the equivalent of CUDA's
 * device-side assert. Index-like ops compute a small flag inside their own
 * program (how many indices were out of range, and the first one). Debug mode
 * downloads it at the op and raises there. Strict and DeferAndFuse do not
 * wait: each launch's flags stay pending here, and the next host
 * synchronization point raises the error Debug mode would have raised,
 * noting that an earlier op raised it. A copy to the host (.cpu(), .item())
 * and synchronize() read the flags of every pending launch, waiting for
 * them: all were issued before the copy, as a synchronous cudaMemcpy waits
 * for earlier kernels (reading only those already done would make the
 * error's place depend on timing); a mode switch reads those already done.
 * The op's outputs keep what the clamped computation gave (gathers clamp,
 * scatters drop), as CUDA leaves garbage; later ops run normally. A program
 * with no index op costs nothing here.
 * State: tt_async_errors_t, one per engine. Thread safety: none; the engine's
 * owner serializes calls. */
#ifndef TT_EXEC_ASYNC_ERRORS_H
#define TT_EXEC_ASYNC_ERRORS_H

#include <stdint.h>

#include "exec/engine_type.h"
#include "ops/checks.h"
#include "ir/graph.h"
#include "pjrt/runtime.h"


/* Launches kept before the oldest is read at a push. The in-flight queue
 * (exec/inflight.h) keeps the host at most 256 launches ahead of the device,
 * so a launch this old is long done and reading it does not wait. */
#define TT_ASYNC_MAX_PENDING 1024

typedef struct tt_async_record_s {
  tt_pjrt_buffer_t *flags; /* i64[TT_CHECK_FLAG_LEN * n] */
  int n;
  tt_index_check_t *checks;
} tt_async_record_t;

/* One engine's pending checks (a field of tt_engine_t): a ring, oldest at
 * head, and an error found while reading an old launch at a push, kept for
 * the next synchronization point, where errors are raised. */
typedef struct tt_async_errors_s {
  tt_async_record_t ring[TT_ASYNC_MAX_PENDING];
  unsigned head, count;
  tt_status_t found;
} tt_async_errors_t;


/* Keeps the flags of one launch: `flags` (owned from here on) is an
 * i64[TT_CHECK_FLAG_LEN * n] buffer, checks[i] describing the i-th TT_CHECK_FLAG_LEN elements. */
tt_status_t tt_async_errors_push(tt_engine_t *e, tt_pjrt_buffer_t *flags, const tt_index_check_t *checks, int n);
/* At a synchronization point: reads the flags of finished launches (all of
 * them when all_done, i.e. after waiting for every launch) and returns the
 * error of the earliest failed check; those launches are forgotten. */
tt_status_t tt_async_errors_check(tt_engine_t *e, int all_done);
/* Launches whose flags are still unread. */
int tt_async_errors_pending(tt_engine_t *e);
/* Drops everything (at shutdown). */
void tt_async_errors_shutdown(tt_engine_t *e);

#endif
