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
  return s;
}

tt_status_t tt_inflight_push(tt_engine_t *e, tt_pjrt_buffer_t *buf, tt_tier1_exe_t *exe) {
  tt_inflight_t *F = &e->inflight;
  tt_status_t s = F->count == DEPTH ? wait_oldest(e) : TT_OK_STATUS;
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
