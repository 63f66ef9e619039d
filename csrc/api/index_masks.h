/* Boolean and byte masks in an index list, as PyTorch handles them
 * (ATen's expandTensors and index_put_'s masked_fill shortcut), for the ops
 * whose row has TT_OPF_INDEX_MASKS (index.Tensor, index_put,
 * _index_put_impl_). tt_call sends such a call here when its index list
 * holds a mask:
 * - index_put / _index_put_impl_ with one mask as the only index, a 0-dim
 *   value and accumulate=False run masked_fill (CPU's
 *   canDispatchToMaskedFill: `x[mask] = 3`), whose rules then apply (a byte
 *   mask is refused there, as on CPU);
 * - otherwise each mask becomes one long index per mask dimension: its
 *   nonzero count is read on the host (a synchronization point, as on CPU
 *   and CUDA), then its coordinates are computed on device.
 * A mask whose shape differs from the indexed dimensions raises CPU's
 * IndexError; a byte mask gives CPU's deprecation warning, and
 * _index_put_impl_ on an expanded tensor CPU's "expanded tensors" warning.
 * Thread safety: as tt_call (the caller holds the engine lock). */
#ifndef TT_API_INDEX_MASKS_H
#define TT_API_INDEX_MASKS_H

#include "api/call.h"
#include "ops/registry.h"

/* 1 when argument 1 of this call (an index list) holds a mask. */
int tt_index_has_masks(const tt_arg_t *args, int nargs);

/* The call of op op_id (def, a TT_OPF_INDEX_MASKS row) with its masks handled. */
tt_status_t tt_call_index_masks(tt_engine_t *e, int op_id, const tt_op_def_t *def, tt_arg_t *args, int nargs,
                                tt_call_result_t *out);

#endif
