/* The repeated-ops heuristic: notices when the newest op fingerprints repeat
 * the block just before them (a stack of identical layers, a training loop),
 * so DeferAndFuse can close a region at the boundary and reuse one
 * executable per repeat instead of building one huge graph. */
#ifndef TT_EXEC_REPEAT_H
#define TT_EXEC_REPEAT_H

#include <stdint.h>

#define TT_REPEAT_WINDOW 512

/* One engine's history of op fingerprints (a field of tt_engine_t). */
typedef struct tt_repeat_s {
  uint64_t hist[TT_REPEAT_WINDOW];
  int len;         /* valid entries, newest last */
  int last_period; /* tried first: loops keep their period */
} tt_repeat_t;

/* Records an op; returns the period (>= 3) when the last `period` ops equal
 * the `period` before them, 0 otherwise. After a match the history restarts
 * from that boundary, so each following repeat is one region. */
int tt_repeat_observe(tt_repeat_t *r, uint64_t op_hash);
void tt_repeat_reset(tt_repeat_t *r);

#endif
