/* Buffers retired behind the launches in flight.
 *
 * When a launch writes a storage's new value, the storage's old buffer is
 * replaced. If the launch took that buffer as a donated argument (XLA's
 * input/output alias), destroying it at once blocks the host until the
 * program is done: XLA's CPU plugin, for one, holds a donated buffer until
 * its asynchronous execution ends, and PJRT_Buffer_Destroy waits for that
 * hold. A compiled step that updates its parameters in place then ran no
 * faster than host + device time added up. So a donated old buffer
 * (tt_storage_set_buffer_donated, exec/storage.h) is retired instead -- any other
 * is destroyed at once, freeing its memory as early as before: tagged with
 * the launches recorded so far, and destroyed once they
 * are done -- found when the in-flight ring (exec/inflight.h) sees them done,
 * at the next launch (which polls the oldest launches without waiting), at a
 * wait, or at synchronize. With nothing in flight it is destroyed at once.
 * Device memory counters (exec/storage.c) count the buffer free when it is
 * retired; a donated buffer's memory already belongs to the new value.
 *
 * Threading: fields of the engine, under its owner's serialization. */
#ifndef TT_EXEC_RETIRED_H
#define TT_EXEC_RETIRED_H

#include <stddef.h>
#include <stdint.h>

#include "exec/engine_type.h"
#include "pjrt/runtime.h"

typedef struct tt_retired_s {
  tt_pjrt_buffer_t **bufs; /* a ring in retirement order, oldest at head */
  uint64_t *marks;         /* bufs[i] may be destroyed once the launches before marks[i] are done */
  size_t head, count, cap;
} tt_retired_t;

/* Destroys buf once every launch recorded so far is done (at once when none
 * is in flight, or when the ring cannot grow). */
void tt_retire_buffer(tt_engine_t *e, tt_pjrt_buffer_t *buf);
/* Destroys the retired buffers whose launches are done
 * (exec/inflight.c calls it whenever launches leave the ring). */
void tt_retired_collect(tt_engine_t *e);
/* Destroys every retired buffer (nothing is in flight) and frees the ring. */
void tt_retired_clear(tt_engine_t *e);

#endif
