/* A window of recent op fingerprints, checked for an immediate repeat. */
#include "exec/repeat.h"

#define WINDOW 512
#define MIN_PERIOD 3
#define MAX_PERIOD 256

static uint64_t hist[WINDOW];
static int len;        /* valid entries, newest last */
static int last_period; /* tried first: loops keep their period */

void tt_repeat_reset(void) { len = 0; last_period = 0; }

static int repeats(int p) {
  if (2 * p > len) return 0;
  for (int i = 0; i < p; i++)
    if (hist[len - 1 - i] != hist[len - 1 - p - i]) return 0;
  return 1;
}

int tt_repeat_observe(uint64_t h) {
  if (len == WINDOW) { /* keep the newest half */
    for (int i = 0; i < WINDOW / 2; i++) hist[i] = hist[i + WINDOW / 2];
    len = WINDOW / 2;
  }
  hist[len++] = h;
  int found = 0;
  if (last_period && repeats(last_period)) {
    found = last_period;
  } else {
    for (int p = MIN_PERIOD; p <= MAX_PERIOD && 2 * p <= len && !found; p++)
      if (hist[len - 1 - p] == h && repeats(p)) found = p;
  }
  if (!found) return 0;
  last_period = found;
  /* Keep one period as the reference for the next repeat. */
  for (int i = 0; i < found; i++) hist[i] = hist[len - found + i];
  len = found;
  return found;
}
