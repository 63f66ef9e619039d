/* A ring of completion events of recent launches, with their executables. */
#include "exec/inflight.h"

#include "api/context.h"

#define DEPTH 256

static tt_pjrt_event_t *ring[DEPTH];
static tt_tier1_exe_t *exes[DEPTH];
static unsigned head, count; /* oldest at head */

static tt_status_t wait_oldest(void) {
  tt_pjrt_event_t *ev = ring[head];
  tt_tier1_exe_t *exe = exes[head];
  ring[head] = NULL;
  exes[head] = NULL;
  head = (head + 1) % DEPTH;
  count--;
  tt_status_t s = tt_pjrt_event_wait(tt_ctx()->rt, ev);
  tt_tier1_release(tt_ctx()->tier1, exe); /* after the wait: the launch is over */
  return s;
}

tt_status_t tt_inflight_push(tt_pjrt_buffer_t *buf, tt_tier1_exe_t *exe) {
  tt_status_t s = count == DEPTH ? wait_oldest() : TT_OK_STATUS;
  tt_pjrt_event_t *ev;
  tt_status_t e = tt_pjrt_buffer_ready_event(tt_ctx()->rt, buf, &ev);
  if (e) {
    tt_status_free(s);
    return e;
  }
  tt_tier1_retain(tt_ctx()->tier1, exe);
  ring[(head + count) % DEPTH] = ev;
  exes[(head + count) % DEPTH] = exe;
  count++;
  return s;
}

tt_status_t tt_inflight_wait_all(void) {
  tt_status_t first = TT_OK_STATUS;
  while (count) {
    tt_status_t s = wait_oldest();
    if (!first) first = s;
    else tt_status_free(s);
  }
  return first;
}
