/* CPU's own words when it refuses complex values for an ordering op (lt,
 * clamp, max, sort, floor, ...): a dispatch refusal naming its kernel, or
 * the op's own NotImplementedError or RuntimeError, as measured on CPU
 * PyTorch 2.13. One table (ops/complex_refusal.c), read by the complex rule
 * (ops/complex_rules.c) for rows flagged TT_OPF_UNORDERED(_CHECK). */
#ifndef TT_OPS_COMPLEX_REFUSAL_H
#define TT_OPS_COMPLEX_REFUSAL_H

#include "ops/registry.h"

/* CPU's error for op row `def` given a complex value of dtype dt, or NULL
 * when the table has no row for the op (the caller then words it). */
tt_status_t tt_complex_refusal(const tt_op_def_t *def, tt_dtype_t dt);

#endif
