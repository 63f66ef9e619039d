/* The clock of launch timing (exec/launch_timing.h). */
#include "exec/launch_timing.h"

#include <time.h>

uint64_t tt_launch_timing_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
