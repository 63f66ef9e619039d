/* Device events: marks in the in-flight ring (exec/inflight.h). */
#include "api/events.h"

#include "exec/engine.h"
#include "exec/region.h"

tt_status_t tt_event_record(tt_engine_t *e, uint64_t *out_mark) {
  TT_RETURN_IF_ERROR(tt_region_flush(e, "Event.record"));
  *out_mark = tt_inflight_mark(e);
  return TT_OK_STATUS;
}

tt_status_t tt_event_query(tt_engine_t *e, uint64_t mark, int *out_done) {
  return tt_inflight_poll_mark(e, mark, out_done);
}

tt_status_t tt_event_synchronize(tt_engine_t *e, uint64_t mark) { return tt_inflight_wait_mark(e, mark); }
