/* Prefix scans along one dim, shared by the scan and sort-select families. */
#ifndef TT_OPS_SCAN_H
#define TT_OPS_SCAN_H

#include "ops/lower.h"

/* Inclusive prefix reduction (sum, max, min, ...) of x along dim: output i
 * folds inputs 0..i. Float max/min here do not propagate NaN. */
tt_val_t tt_op_scan(tt_graph_t *g, tt_reduce_t kind, tt_val_t x, int dim);

#endif
