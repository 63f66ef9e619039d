/* A window of recent op fingerprints, checked for an immediate repeat. */
#include "exec/repeat.h"

#define WINDOW TT_REPEAT_WINDOW
#define MIN_PERIOD 3
#define MAX_PERIOD 256


void tt_repeat_reset(tt_repeat_t *r) { r->len = 0; r->last_period = 0; }

static int repeats(const tt_repeat_t *r, int p) {
  if (2 * p > r->len) return 0;
  for (int i = 0; i < p; i++)
    if (r->hist[r->len - 1 - i] != r->hist[r->len - 1 - p - i]) return 0;
  return 1;
}

int tt_repeat_observe(tt_repeat_t *r, uint64_t h) {
  if (r->len == WINDOW) { /* keep the newest half */
    for (int i = 0; i < WINDOW / 2; i++) r->hist[i] = r->hist[i + WINDOW / 2];
    r->len = WINDOW / 2;
  }
  r->hist[r->len++] = h;
  int found = 0;
  if (r->last_period && repeats(r, r->last_period)) {
    found = r->last_period;
  } else {
    for (int p = MIN_PERIOD; p <= MAX_PERIOD && 2 * p <= r->len && !found; p++)
      if (r->hist[r->len - 1 - p] == h && repeats(r, p)) found = p;
  }
  if (!found) return 0;
  r->last_period = found;
  /* Keep one period as the reference for the next repeat. */
  for (int i = 0; i < found; i++) r->hist[i] = r->hist[r->len - found + i];
  r->len = found;
  return found;
}
