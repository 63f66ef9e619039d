/* Host transfers: a tensor view to host memory, host memory to a new storage
 * or into a tensor view. */
#ifndef TT_API_TRANSFER_H
#define TT_API_TRANSFER_H

#include <stddef.h>
#include <stdint.h>

#include "exec/engine_type.h"
#include "ops/args.h"

/* Materializes the view in `dtype` (converting on device) and copies it out
 * as dense row-major bytes. */
tt_status_t tt_tensor_to_host(tt_engine_t *e, const tt_tensor_ref_t *t, tt_dtype_t dtype, void *dst, size_t nbytes);
/* A new storage holding host data (dense row-major, numel elements). */
tt_status_t tt_storage_from_host(tt_engine_t *e, const void *data, tt_dtype_t dtype, int64_t numel,
                                 tt_storage_t **out_storage);
/* Writes dense row-major host data of dtype (numel elements: the view's, or
 * the whole storage's) into the view dst, as Tensor.copy_ from a CPU tensor.
 * Deferred readers of dst's old contents run first. When the data covers the
 * whole storage with its dtype, the uploaded buffer becomes the storage's (no
 * device copy); otherwise it is copied into the view on device (converting). */
tt_status_t tt_tensor_from_host(tt_engine_t *e, const tt_tensor_ref_t *dst, const void *data, tt_dtype_t dtype,
                                int64_t numel);

#endif
