/* Work in flight: one completion event per launch, so that synchronize waits
 * for everything launched before it. The queue is bounded: when it is full,
 * the oldest launch is waited for (in practice long done), which also bounds
 * how far the host runs ahead of the device. Each entry holds a reference to
 * the launch's executable, so tier 1 never destroys one still running.
 * Thread safety: none; the engine's owner serializes calls. */
#ifndef TT_EXEC_INFLIGHT_H
#define TT_EXEC_INFLIGHT_H

#include "cache/tier1.h"
#include "exec/engine_type.h"
#include "pjrt/runtime.h"

#define TT_INFLIGHT_DEPTH 256

/* One engine's ring (a field of tt_engine_t), oldest at head. */
typedef struct tt_inflight_s {
  tt_pjrt_event_t *events[TT_INFLIGHT_DEPTH];
  tt_tier1_exe_t *exes[TT_INFLIGHT_DEPTH];
  unsigned head, count;
  uint64_t pushed; /* launches recorded so far: launch k (from 0) is done once pushed - count > k */
} tt_inflight_t;

/* Records the launch of exe that defines buf (exe is retained until the
 * launch is waited for). An error returned is that of an older launch,
 * surfaced here as CUDA surfaces asynchronous errors at a later call. */
tt_status_t tt_inflight_push(tt_engine_t *e, tt_pjrt_buffer_t *buf, tt_tier1_exe_t *exe);
/* Waits for every recorded launch; returns the first error. */
tt_status_t tt_inflight_wait_all(tt_engine_t *e);
/* A mark after every launch recorded so far (torch.tpu.Event.record). */
uint64_t tt_inflight_mark(const tt_engine_t *e);
/* Waits for the launches before `mark` only (later ones keep running);
 * returns the first error among them. */
tt_status_t tt_inflight_wait_mark(tt_engine_t *e, uint64_t mark);
/* Whether every launch before `mark` is done, without waiting: the done
 * ones at the oldest end of the ring leave it (their errors returned). */
tt_status_t tt_inflight_poll_mark(tt_engine_t *e, uint64_t mark, int *out_done);

#endif
