/* The out= dtype rule of each ATen out overload, as CPU PyTorch applies it
 * before anything is written: TensorIterator ops cast their result into out
 * (canCast), most other kernels require out's dtype to equal the result's,
 * each with its own message. One table (ops/out_rules.c), read by
 * tt_call_check_out (api/call.h) and the core's own out= lowerings. */
#ifndef TT_OPS_OUT_RULES_H
#define TT_OPS_OUT_RULES_H

#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"

/* caffe2::TypeMeta's name of dt, as structured kernels and some checks
 * print it ("short int", "c10::Half"). */
const char *tt_op_typemeta_name(tt_dtype_t dt);

/* PyTorch's canCast: no complex -> non-complex, no float -> integral, no
 * non-bool -> bool. */
int tt_op_can_cast(tt_dtype_t from, tt_dtype_t to);

/* The rule of out overload `name` ("argmax.out", "max.dim_max"; a bare
 * packet name matches that packet's table rows) for its output number k
 * (0 for single-output ops) whose functional result has dtype `result`,
 * written into an out tensor of dtype `out`: NULL, or CPU's error. */
tt_status_t tt_op_check_out(const char *name, int k, tt_dtype_t result, tt_dtype_t out);

/* Where PyTorch's meta kernel, which the glue asks for the result dtype
 * before the functional op runs, is not CPU's meta function:
 * - 1 when CPU checks out's dtype before the dims (amax/amin: the input's
 *   dtype; any/all: bool or uint8; logsumexp: floating or complex), so it is checked even where the meta
 *   kernel raises (a dim out of range); the result is then the input's;
 * - 1 when an input of in_numel elements (and dtype `in`) runs no kernel, so
 *   out's dtype is not refused (nansum of an empty real input);
 * - the name of the argument whose result_type with the first input is
 *   CPU's result dtype (pow.Tensor_Scalar_out: "exponent"; PyTorch's Python
 *   meta makes a bool base int64), or NULL: the meta kernel's dtype. */
int tt_op_out_dtype_before_dims(const char *name);
/* 1 where CPU checks an empty input's (in_numel 0) reduced dim before out
 * number k's dtype (max.dim_max, min.dim_min, median.dim_values: their
 * IndexError first): the rule is then left to the call and the check after
 * it (tt_call_check_out_write). */
int tt_op_out_empty_first(const char *name, int k, int64_t in_numel);
int tt_op_out_unchecked_if_empty(const char *name, tt_dtype_t in, int64_t in_numel);
const char *tt_op_out_result_with(const char *name);
/* The rule for a complex32 (ComplexHalf) result, a type the core has no
 * dtype for (a float16 tensor beside a complex number): TensorIterator's
 * canCast into out (dtype `out`) for the overloads it rules; NULL, or CPU's
 * error ('result type ComplexHalf can't be cast to the desired output type
 * Half'). Other rules leave it to the call. */
tt_status_t tt_op_check_out_complex32(const char *name, int k, tt_dtype_t out);

/* CPU's first check of out overload `name`, where it makes one: the input's
 * dtype `in` casts into out's (mean.dtype_out: canCast(self, out)); NULL,
 * or CPU's error. Made before the dtype rule and before a dtype= argument
 * is compared with out's. */
tt_status_t tt_op_check_out_input(const char *name, tt_dtype_t in, tt_dtype_t out);

/* The overload whose rule applies to out overload `name` where its argument
 * number *arg is a 0-dim tensor (lerp.Tensor_out with a 0-dim weight:
 * lerp.Scalar_out's canCast), or NULL where the rule is always its own. */
const char *tt_op_out_rule_if_0dim(const char *name, int *arg);

/* 1 when CPU's out overload `name` computes in out's dtype where its dtype=
 * argument is None (reductions' infer_dtype_from_optional: sum(float, 0,
 * out=long) sums the truncated values); 2 when it does so only for a
 * floating or complex input and out (mean); else 0. */
int tt_op_out_dtype_from_out(const char *name);
/* CPU's check of an explicit dtype= against out's dtype where out overload
 * `name` (input dtype `in`) makes one: phase 0 the checks its meta function
 * makes before the dims (mean's refusal of an integral dtype=, nansum's
 * dtype= of a floating input against out's), phase 1 set_output's after
 * them (the ops above, mean; sum's for an integral nansum input): NULL, or
 * CPU's error. */
tt_status_t tt_op_check_out_dtype_arg(const char *name, tt_dtype_t dtype, tt_dtype_t out, tt_dtype_t in, int phase);
/* The overload whose rules apply to out overload `name` for an input of
 * dtype `in` (nansum.out of an integral or bool input: sum.IntList_out's,
 * as nansum_out calls sum_out), else name. */
const char *tt_op_out_rule_for_input(const char *name, tt_dtype_t in);

/* CPU's reductions whose iterator reads the input in out's type
 * (make_reduction's input type is out's) where the functional op has no
 * dtype= argument to say so: any/all and std/var (sum, prod, mean and
 * nansum get out's dtype as their dtype=, tt_op_out_dtype_from_out).
 * 1 when out overload `name` is one: the glue then asks the next function. */
int tt_op_out_input_from_out(const char *name);
/* The dtype such an overload converts its input (of dtype `in`, in_numel
 * elements) to before reducing it into out (dtype `out`; the result has
 * res_numel elements): *convert is out's dtype, or TT_DTYPE_INVALID where
 * CPU reads the input as it is. Not converted: an input of out's type or
 * an empty one; any/all of a single element (allany_impl tests it directly),
 * of a bool input or into a bool out (their nonzero test is that
 * conversion); std/var of a
 * non-floating input or out, or of a one-element result in a float32,
 * float64 or complex out, which CPU's all-reduce computes from the input itself (it
 * has no Half/BFloat16 case: CPU's error, returned here). */
tt_status_t tt_op_out_input_dtype(const char *name, tt_dtype_t in, int64_t in_numel, int64_t res_numel, tt_dtype_t out,
                                  tt_dtype_t *convert);

/* The "lower into out's dtype" rule: the core op (its name) that computes out
 * overload `name` into an out of dtype `out` as CPU's kernel does, where
 * that kernel runs part of the op in out's type (logsumexp.out sums and
 * takes the log there): used for a floating out of another type than the
 * functional result (that of a real input `in`, or default_float for an
 * integral one) and for a complex `in` into a floating out (whose real
 * parts CPU's kernel reduces there), called with the functional's arguments and out's dtype
 * last. NULL where the functional result cast into out is CPU's answer. With
 * `in` TT_DTYPE_INVALID: whether the overload has such an op at all. */
const char *tt_op_out_into(const char *name, tt_dtype_t in, tt_dtype_t out, tt_dtype_t default_float);

#endif
