/* The complex-dtype rule: which lowering an op runs when an argument, a
 * dtype or a number is complex; each op's row holds its part of the rule
 * (ops/registry.h: TT_OPF_COMPLEX or a complex lowering). */
#ifndef TT_OPS_COMPLEX_RULES_H
#define TT_OPS_COMPLEX_RULES_H

#include "ops/registry.h"

/* OK with *out_fn = the lowering to use (def->fn when nothing is complex).
 * An op not checked on complex values is refused (NotImplementedError),
 * or refused as PyTorch's CPU refuses it (RuntimeError) for ordering ops;
 * default_float: the type of a Python float (its refusal names the type
 * its operands promote to). */
tt_status_t tt_complex_route(const tt_op_def_t *def, const tt_arg_t *args, int nargs, tt_dtype_t default_float,
                             tt_lower_fn *out_fn);

#endif
