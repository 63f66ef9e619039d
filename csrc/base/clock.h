/* A monotonic clock for the engine's timings (compile and load seconds,
 * launch timing). */
#ifndef TT_BASE_CLOCK_H
#define TT_BASE_CLOCK_H

#include <stdint.h>

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t tt_monotonic_ns(void);

#endif
