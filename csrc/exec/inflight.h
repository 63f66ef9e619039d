/* Work in flight: one completion event per launch, so that synchronize waits
 * for everything launched before it. The queue is bounded: when it is full,
 * the oldest launch is waited for (in practice long done), which also bounds
 * how far the host runs ahead of the device.
 * Thread safety: none; called with the binding's lock (the GIL) held. */
#ifndef TT_EXEC_INFLIGHT_H
#define TT_EXEC_INFLIGHT_H

#include "pjrt/runtime.h"

/* Records the launch that defines buf. An error returned is that of an older
 * launch, surfaced here as CUDA surfaces asynchronous errors at a later call. */
tt_status_t tt_inflight_push(tt_pjrt_buffer_t *buf);
/* Waits for every recorded launch; returns the first error. */
tt_status_t tt_inflight_wait_all(void);

#endif
