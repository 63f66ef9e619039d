/* A ring of completion events of recent launches. */
#include "exec/inflight.h"

#include "api/context.h"

#define DEPTH 256

static tt_pjrt_event_t *ring[DEPTH];
static unsigned head, count; /* oldest at head */

static tt_status_t wait_oldest(void) {
  tt_pjrt_event_t *ev = ring[head];
  ring[head] = NULL;
  head = (head + 1) % DEPTH;
  count--;
  return tt_pjrt_event_wait(tt_ctx()->rt, ev);
}

tt_status_t tt_inflight_push(tt_pjrt_buffer_t *buf) {
  tt_status_t s = count == DEPTH ? wait_oldest() : TT_OK_STATUS;
  tt_pjrt_event_t *ev;
  tt_status_t e = tt_pjrt_buffer_ready_event(tt_ctx()->rt, buf, &ev);
  if (e) {
    tt_status_free(s);
    return e;
  }
  ring[(head + count) % DEPTH] = ev;
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
