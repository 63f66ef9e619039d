/* A ring of completion events of recent launches, with their executables. */
#include "exec/inflight.h"

#include "exec/engine.h"

#define DEPTH TT_INFLIGHT_DEPTH

static tt_status_t wait_oldest(tt_engine_t *e) {
  tt_inflight_t *F = &e->inflight;
  tt_pjrt_event_t *ev = F->events[F->head];
  tt_tier1_exe_t *exe = F->exes[F->head];
  F->events[F->head] = NULL;
  F->exes[F->head] = NULL;
  F->head = (F->head + 1) % DEPTH;
  F->count--;
  tt_status_t s = tt_pjrt_event_wait(e->rt, ev);
  tt_tier1_release(e->tier1, exe); /* after the wait: the launch is over */
  tt_retired_collect(e);           /* buffers only this launch could still hold */
  return s;
}

static uint64_t done_before(const tt_inflight_t *F) { return F->pushed - F->count; }

/* The oldest launches before `mark` that are done leave the ring without
 * waiting (their retired buffers are destroyed); returns the first error
 * among them. */
static tt_status_t leave_done(tt_engine_t *e, uint64_t mark) {
  tt_inflight_t *F = &e->inflight;
  tt_status_t first = TT_OK_STATUS;
  while (F->count && done_before(F) < mark) {
    int ready = 0;
    tt_status_t s = tt_pjrt_event_is_ready(e->rt, F->events[F->head], &ready);
    if (!s && !ready) break;
    tt_status_free(s); /* a failed query: the wait below reports the launch's own error */
    s = wait_oldest(e); /* done: returns at once */
    if (!first) first = s;
    else tt_status_free(s);
  }
  return first;
}

tt_status_t tt_inflight_push(tt_engine_t *e, tt_pjrt_buffer_t *buf, tt_tier1_exe_t *exe) {
  tt_inflight_t *F = &e->inflight;
  /* Only while buffers wait for launches to end: the ring then stays short. */
  tt_status_t s = e->retired.count ? leave_done(e, UINT64_MAX) : TT_OK_STATUS;
  if (F->count == DEPTH) {
    tt_status_t w = wait_oldest(e);
    if (!s) s = w;
    else tt_status_free(w);
  }
  tt_pjrt_event_t *ev;
  tt_status_t err = tt_pjrt_buffer_ready_event(e->rt, buf, &ev);
  if (err) {
    tt_status_free(s);
    return err;
  }
  tt_tier1_retain(e->tier1, exe);
  F->events[(F->head + F->count) % DEPTH] = ev;
  F->exes[(F->head + F->count) % DEPTH] = exe;
  F->count++;
  F->pushed++;
  return s;
}

tt_status_t tt_inflight_wait_all(tt_engine_t *e) {
  tt_inflight_t *F = &e->inflight;
  tt_status_t first = TT_OK_STATUS;
  while (F->count) {
    tt_status_t s = wait_oldest(e);
    if (!first) first = s;
    else tt_status_free(s);
  }
  return first;
}

uint64_t tt_inflight_mark(const tt_engine_t *e) { return e->inflight.pushed; }

tt_status_t tt_inflight_wait_mark(tt_engine_t *e, uint64_t mark) {
  tt_inflight_t *F = &e->inflight;
  tt_status_t first = TT_OK_STATUS;
  while (F->count && done_before(F) < mark) {
    tt_status_t s = wait_oldest(e);
    if (!first) first = s;
    else tt_status_free(s);
  }
  return first;
}

tt_status_t tt_inflight_poll_mark(tt_engine_t *e, uint64_t mark, int *out_done) {
  tt_status_t first = leave_done(e, mark);
  *out_done = done_before(&e->inflight) >= mark;
  return first;
}
