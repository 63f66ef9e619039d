/* CPU's TensorIterator checks an op's operands before its kernel dispatches
 * on their dtype: where the core refuses a dtype (TT_NOT_IMPLEMENTED: a
 * kernel's dispatch refusal or ours), the error those checks raise is CPU's
 * first one and replaces the refusal. Asked only on the refusal path, so a
 * call that lowers pays nothing. The embedding marks which ops the checks
 * apply to, from its framework's schemas (api/call.h). */
#ifndef TT_API_ITERATOR_FIRST_H
#define TT_API_ITERATOR_FIRST_H

#include "exec/engine.h"
#include "ops/args.h"

/* A pointwise op (functional form; or a row of TensorIterator's layout,
 * TT_LAYOUT_ITERATOR): its tensors broadcast, else infer_size's
 * size error ("The size of tensor a (3) must match the size of tensor b (2)
 * at non-singleton dimension 1", the rightmost mismatch). NULL when that
 * check passes, the op is not pointwise or `refusal` is no dtype refusal. */
tt_status_t tt_iterator_broadcast_first(const tt_engine_t *e, int op_id, const tt_arg_t *args, int nargs,
                                        tt_status_t refusal);

/* An in-place binary op, self.op_(other), or another in-place pointwise op
 * (lerp_, addcdiv_): for a dtype refusal, self has no elements sharing
 * memory (a size > 1 dim of stride 0: CPU's internal-overlap error); self and each tensor operand in turn broadcast (the
 * size error), the broadcast shape is self's ("output with shape [3] doesn't
 * match the broadcast shape [2, 3]"), then, for a binary op's refusal of
 * complex values, a complex result cannot be cast into a real self ("result
 * type ComplexFloat can't be cast to the desired output type Short"). The
 * shape check replaces any failure of such an op (refusal or not), the cast
 * check only a dtype refusal. NULL when none applies. */
tt_status_t tt_iterator_inplace_first(const tt_engine_t *e, int op_id, const tt_arg_t *args, int nargs,
                                      tt_status_t refusal);

#endif
