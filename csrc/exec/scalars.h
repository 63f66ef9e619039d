/* Device-resident scalars passed to programs as arguments, so that a new
 * Python number does not mean a new program. A small cache keeps recent ones.
 * Thread safety: none; called with the binding's lock (the GIL) held. */
#ifndef TT_EXEC_SCALARS_H
#define TT_EXEC_SCALARS_H

#include <stdint.h>

#include "base/dtype.h"
#include "pjrt/runtime.h"

/* Borrowed buffer holding a rank-0 value of dtype; `bits` is the value in that
 * dtype's representation (see tt_scalar_bits). */
tt_status_t tt_scalars_get(tt_dtype_t dtype, uint64_t bits, tt_pjrt_buffer_t **out_buf);
/* Encodes a number as host bytes of dtype into out (8 bytes max). */
uint64_t tt_scalar_bits(tt_dtype_t dtype, double f, int64_t i, int is_float);
/* Destroys scalars evicted during the previous launch's binding; called when
 * a launch starts binding. */
void tt_scalars_release_evicted(void);
void tt_scalars_clear(void);

#endif
