/* The repeated-ops heuristic: notices when the newest op fingerprints repeat
 * the block just before them (a stack of identical layers, a training loop),
 * so DeferAndFuse can close a region at the boundary and reuse one
 * executable per repeat instead of building one huge graph. */
#ifndef TT_EXEC_REPEAT_H
#define TT_EXEC_REPEAT_H

#include <stdint.h>

/* Records an op; returns the period (>= 3) when the last `period` ops equal
 * the `period` before them, 0 otherwise. After a match the history restarts
 * from that boundary, so each following repeat is one region. */
int tt_repeat_observe(uint64_t op_hash);
void tt_repeat_reset(void);

#endif
