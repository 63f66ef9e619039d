/* The facade's out= step: everything CPU PyTorch checks and decides before
 * it writes an out overload's result into its out tensor. The binding calls
 * it once per output after the functional op has run; it then resizes out
 * (Tensor.resize_: the storage grows in place, so views of out's storage see
 * the write, as on CPU) when told to, and copies the result in. Pure: no
 * engine state. */
#ifndef TT_API_OUT_WRITE_H
#define TT_API_OUT_WRITE_H

#include <stddef.h>

#include "ops/args.h"
#include "ops/out_write.h"

/* Output k of out overload `name` ("add.out", "max.dim_max"): the result has
 * dtype `result` and sizes res[0..res_rank); ins are the call's tensor
 * inputs. Checks, in CPU's order: the out= dtype rule (ops/out_rules.h),
 * then the partial-overlap refusal against each input. On success *resize
 * is resize_output's rule (ops/out_write.h), CPU's warning text in warn for
 * TT_OUT_RESIZE_WARN. */
tt_status_t tt_call_check_out_write(const char *name, int k, const tt_tensor_ref_t *out, tt_dtype_t result,
                                    const int64_t *res, int res_rank, const tt_tensor_ref_t *ins, int nins,
                                    tt_out_resize_t *resize, char *warn, size_t cap);

/* The checks of the input's dtype CPU makes first of all for out overload
 * `name` (nansum.out of a complex input; mean.dtype_out's canCast(self,
 * out), ops/out_rules.h): NULL, or CPU's error. The functions below make
 * them first too. */
tt_status_t tt_call_check_out_input(const char *name, tt_dtype_t in, tt_dtype_t out);

/* The dtype rule alone: `in` is the first tensor input's dtype
 * (TT_DTYPE_INVALID when none) and in_numel its element count (-1 when
 * none); an input that runs no kernel is not refused (ops/out_rules.h). */
tt_status_t tt_call_check_out_dtype(const char *name, int k, tt_dtype_t result, tt_dtype_t out, tt_dtype_t in,
                                    int64_t in_numel);
/* The same before the functional op runs, its result dtype from PyTorch's
 * meta kernel (TT_DTYPE_INVALID where that raised: out's dtype is then
 * checked only by the overloads CPU checks it first for, amax/amin/any/all,
 * and the call raises its own error otherwise). Where the meta kernel's
 * dtype is not CPU's, the glue takes result_type(first input, argument
 * tt_call_out_result_with(name)) instead (NULL: the meta's is CPU's). */
tt_status_t tt_call_check_out_dtype_first(const char *name, int k, tt_dtype_t result, tt_dtype_t out, tt_dtype_t in,
                                          int64_t in_numel);
const char *tt_call_out_result_with(const char *name);
/* Where the meta kernel raised for a binary op (floor_divide of a complex
 * operand: PyTorch's meta refuses it, CPU's iterator first checks the cast
 * into out), out's dtype against `operands`, result_type(self, other), for
 * the overloads CPU checks it for (tt_complex_binary_out): NULL, or CPU's
 * error. */
tt_status_t tt_call_check_out_operands(const char *name, tt_dtype_t operands, tt_dtype_t out);
/* The rule for a complex32 result the meta kernel gave (ops/out_rules.h:
 * tt_op_check_out_complex32), after a complex operand's own refusal
 * (maximum's); operands 1: the operands' type where the meta kernel raised,
 * as tt_call_check_out_operands takes it. */
tt_status_t tt_call_check_out_complex32(const char *name, int k, tt_dtype_t out, int operands);
/* The overload whose out= rule applies where argument *arg is a 0-dim
 * tensor, or NULL (ops/out_rules.h, tt_op_out_rule_if_0dim). */
const char *tt_call_out_rule_if_0dim(const char *name, int *arg);

/* The out= reductions that read their input in out's type (any/all,
 * std/var: ops/out_rules.h): 1 when overload `name` is one; then, before
 * the functional op runs, the dtype its input is converted to
 * (TT_DTYPE_INVALID: as it is) or CPU's error. The conversion is CPU's
 * (the core's _tt_iterator_cast). */
int tt_call_out_input_from_out(const char *name);
tt_status_t tt_call_out_input_dtype(const char *name, tt_dtype_t in, int64_t in_numel, int64_t res_numel, tt_dtype_t out,
                                    tt_dtype_t *convert);

/* The core op computing out overload `name` into out's dtype, or NULL
 * (ops/out_rules.h, tt_op_out_into). */
const char *tt_call_out_into(const char *name, tt_dtype_t in, tt_dtype_t out, tt_dtype_t default_float);

#endif
