/* Launch timing: the device time of the programs an engine launches, for
 * benchmarks that compare a step's wall time with the time its programs take.
 *
 * When on, every launch (eager op, DeferAndFuse region, compiled plan) waits
 * for its program before returning and adds the time from handing it to the
 * plugin until its results are ready. The host therefore never runs ahead of
 * the device while it is on: turn it on for a measuring round of its own, not
 * for the round whose wall time you report. The time includes the plugin's
 * own work to start a program (argument checks, dispatch) -- on XLA's CPU
 * plugin cheap programs run inline on the calling thread, so a per-thread
 * CPU split would count them as host time; this counts them as device time.
 * Transfers (uploads, downloads) are not launches and are not counted.
 *
 * Threading: a field of the engine (exec/engine.h), read and written under
 * its owner's serialization like every other field. */
#ifndef TT_EXEC_LAUNCH_TIMING_H
#define TT_EXEC_LAUNCH_TIMING_H

#include <stdint.h>

#include "exec/stats.h" /* tt_launch_timing_t */

/* A monotonic clock in nanoseconds. */
uint64_t tt_launch_timing_now(void);

#endif
