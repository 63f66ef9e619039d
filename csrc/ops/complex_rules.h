/* The complex-dtype rule: which ops may see complex64/complex128 values, and
 * the complex lowerings that replace an op's real one. */
#ifndef TT_OPS_COMPLEX_RULES_H
#define TT_OPS_COMPLEX_RULES_H

#include "ops/registry.h"

/* An op whose real lowering is known to be right on complex values. */
#define TT_COMPLEX_AS_IS ((tt_lower_fn)0)

typedef struct tt_complex_rule_s {
  const char *name; /* op name as in the op tables */
  tt_lower_fn fn;   /* the complex lowering, or TT_COMPLEX_AS_IS */
} tt_complex_rule_t;

/* Complex lowerings, by family (NULL-terminated). */
extern const tt_complex_rule_t tt_complex_elementwise[];
extern const tt_complex_rule_t tt_complex_fft[];

/* Decides how op `id` runs on these arguments: OK with *out_fn = the
 * lowering to use (def->fn when no argument, dtype or number is complex).
 * An op not checked on complex values is refused (NotImplementedError),
 * or refused as PyTorch's CPU refuses it (RuntimeError) for ordering ops. */
tt_status_t tt_complex_route(int id, const tt_op_def_t *def, const tt_arg_t *args, int nargs,
                             tt_lower_fn *out_fn);

#endif
