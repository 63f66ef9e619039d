/* CPU's own words when it refuses complex values for an ordering op (lt,
 * clamp, max, sort, floor, ...) or another op it defines for real values
 * only (isposinf, deg2rad): a dispatch refusal naming its kernel, or the
 * op's own NotImplementedError or RuntimeError, as measured on CPU PyTorch
 * 2.13. One table (ops/complex_refusal.c), read by the complex rule
 * (ops/complex_rules.c) for every row that has no complex lowering. */
#ifndef TT_OPS_COMPLEX_REFUSAL_H
#define TT_OPS_COMPLEX_REFUSAL_H

#include "ops/registry.h"

/* CPU's error for op row `def` given a complex value of dtype dt, or NULL
 * when the table has no row for the op (the caller then words it). A
 * binary kernel's refusal names its operands' common type instead (args 0
 * and 1, a Python float or complex taking default_float's precision). */
tt_status_t tt_complex_refusal(const tt_op_def_t *def, tt_dtype_t dt, const tt_arg_t *args, int nargs,
                               tt_dtype_t default_float);
/* 1 when that refusal is the op's own check, made before its iterator
 * broadcasts the operands (clamp's), 0 for a kernel's dispatch refusal or
 * no row. */
int tt_complex_refusal_before_shapes(const tt_op_def_t *def);

/* The op's own NotImplementedError for a complex input (clamp, floor,
 * hardtanh, ...: CPU's meta check) or RuntimeError for a complex operand
 * (maximum, fmax, heaviside: their meta functions') for out overload
 * `out_name` ("clamp.out"), which CPU raises before it looks at out's
 * dtype; NULL for a dispatch refusal (raised after that check) or no row. */
tt_status_t tt_complex_refusal_of_out(const char *out_name);
/* 1 when out overload `out_name` is a binary kernel's whose dispatch
 * refuses complex operands (floor_divide.out, logaddexp2.out; not a
 * comparison's): CPU's iterator checks its operands' common type casts into
 * out before that refusal. */
int tt_complex_binary_out(const char *out_name);

/* CPU's error for a complex input to a reduction (amax, max.dim, kthvalue,
 * median.dim, mode, aminmax, max(), ...) from the checks it makes before its
 * kernel's dispatch refuses the dtype: a dim out of range (IndexError), a
 * dim listed twice, kthvalue's k out of the slice, and for an empty input
 * its empty dims; NULL when the op has no such check or the checks pass. */
tt_status_t tt_complex_empty_dims_first(const tt_op_def_t *def, const tt_arg_t *args, int nargs);

/* CPU's error from an argument check its meta function makes before it
 * refuses a complex input (clamp without min and max), or NULL. */
tt_status_t tt_complex_args_first(const tt_op_def_t *def, const tt_arg_t *args, int nargs);

/* 1 where CPU returns before the kernel whose dispatch refuses complex
 * values, once the checks above passed, so the op's own lowering computes:
 * amax/amin/mode of an empty input (the result is empty: amax_out runs no
 * kernel when iter.numel() == 0; fuzz 331:712, 364:9: amin/amax over dim 1
 * of a complex (0, 3) is an empty complex tensor on CPU), kthvalue and mode
 * of a 0-dim input (values.copy_(self); fuzz 335:967, 367:279), median() and
 * nanmedian() of an empty input (a NaN: fuzz 332:938, 342:49, 353:910). */
int tt_complex_empty_result_computes(const tt_op_def_t *def, const tt_arg_t *args, int nargs);

/* nansum's refusal of a complex input (CPU's nansum_out; after the dims'
 * checks in the functional form, first in the out= form). */
#define TT_NANSUM_COMPLEX_MSG "nansum on CPU does not support complex inputs"

#endif
