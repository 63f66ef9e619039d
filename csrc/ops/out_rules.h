/* The out= dtype rule of each ATen out overload, as CPU PyTorch applies it
 * before anything is written: TensorIterator ops cast their result into out
 * (canCast), most other kernels require out's dtype to equal the result's,
 * each with its own message. One table (ops/out_rules.c), read by
 * tt_call_check_out (api/call.h) and the core's own out= lowerings. */
#ifndef TT_OPS_OUT_RULES_H
#define TT_OPS_OUT_RULES_H

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

/* 1 when CPU's out overload `name` computes in out's dtype where its dtype=
 * argument is None (reductions' infer_dtype_from_optional: sum(float, 0,
 * out=long) sums the truncated values). */
int tt_op_out_dtype_from_out(const char *name);
/* CPU's check of an explicit dtype= against out's dtype where out overload
 * `name` makes one (those above, nansum, mean): NULL, or CPU's error. */
tt_status_t tt_op_check_out_dtype_arg(const char *name, tt_dtype_t dtype, tt_dtype_t out);

#endif
