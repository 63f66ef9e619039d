/* Device events (torch.tpu.Event): a mark in the engine's one launch order.
 * Recording closes the open region (deferred work is launched, so the mark
 * is after it) and waits for nothing; synchronize waits for the launches
 * before the mark only; query asks without waiting. There is one in-order
 * queue per device, so waiting on an event from another "stream" is already
 * satisfied by launch order (PJRT orders each launch after the producers of
 * its inputs, and a write makes a new buffer, never reusing one still read).
 * Thread safety: callers hold the engine lock (api/engine_lock.h). */
#ifndef TT_API_EVENTS_H
#define TT_API_EVENTS_H

#include <stdint.h>

#include "base/status.h"
#include "exec/engine_type.h"

tt_status_t tt_event_record(tt_engine_t *e, uint64_t *out_mark);
/* *out_done: 1 once every launch before the mark has finished. An error is a
 * finished launch's. */
tt_status_t tt_event_query(tt_engine_t *e, uint64_t mark, int *out_done);
tt_status_t tt_event_synchronize(tt_engine_t *e, uint64_t mark);

#endif
