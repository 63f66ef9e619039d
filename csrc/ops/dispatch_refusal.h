/* CPU PyTorch's refusal of a dtype its kernel was not compiled for: an
 * AT_DISPATCH switch with no case for the dtype raises NotImplementedError
 * "\"<kernel>\" not implemented for '<Dtype>'" (Dtype as c10 spells it:
 * Bool, Half, BFloat16, Long, ComplexFloat). Lowerings that refuse a dtype
 * as CPU does build that error here, so its class and words cannot drift. */
#ifndef TT_OPS_DISPATCH_REFUSAL_H
#define TT_OPS_DISPATCH_REFUSAL_H

#include "ops/lower.h"

/* The error, the kernel's name given printf-style ("%s_cpu", name). */
tt_status_t tt_op_refuse_dtype(tt_dtype_t dt, const char *kernel_fmt, ...) TT_PRINTF(2, 3);
/* The error for a type the core has no dtype for, by c10's name
 * ("ComplexHalf": a float16 tensor's type beside a complex number). */
tt_status_t tt_op_refuse_type_named(const char *type_name, const char *kernel_fmt, ...) TT_PRINTF(2, 3);
/* The same error recorded on the lowering's graph (for helpers that report
 * through it); returns -1 like tt_l_fail. */
tt_val_t tt_l_refuse_dtype(tt_lower_t *L, tt_dtype_t dt, const char *kernel_fmt, ...) TT_PRINTF(3, 4);

/* The refusal of a TensorIterator kernel for its computation type dt: an
 * in-place form (L->inplace) whose self cannot hold dt first
 * gets TensorIterator's "result type Float can't be cast to the desired
 * output type Int" (RuntimeError), which CPU raises before choosing a kernel. */
tt_status_t tt_op_refuse_result_dtype(const tt_lower_t *L, tt_dtype_t dt, const char *kernel_fmt, ...) TT_PRINTF(3, 4);

#endif
