/* Device-resident scalars passed to programs as arguments, so that a new
 * Python number does not mean a new program. A small cache keeps recent ones.
 * State: tt_scalars_t, one per engine. Thread safety: none; the engine's owner
 * serializes calls. */
#ifndef TT_EXEC_SCALARS_H
#define TT_EXEC_SCALARS_H

#include <stdint.h>

#include "base/dtype.h"
#include "exec/engine_type.h"
#include "pjrt/runtime.h"

#define TT_SCALAR_SLOTS 256

typedef struct tt_scalar_slot_s {
  tt_dtype_t dtype;
  uint64_t bits;
  tt_pjrt_buffer_t *buf;
} tt_scalar_slot_t;

/* One engine's direct-mapped cache keyed by (dtype, bits) (a field of
 * tt_engine_t). An evicted scalar may already be bound as an argument of the
 * program being launched (two scalars of one launch sharing a slot), so
 * evicted buffers are kept until the next launch starts binding: by then
 * PJRT holds its own reference for the program that used them. */
typedef struct tt_scalars_s {
  tt_scalar_slot_t slots[TT_SCALAR_SLOTS];
  tt_pjrt_buffer_t **evicted;
  size_t nevicted, cap_evicted;
} tt_scalars_t;

/* Borrowed buffer holding a rank-0 value of dtype; `bits` is the value in that
 * dtype's representation (see tt_scalar_bits). */
tt_status_t tt_scalars_get(tt_engine_t *e, tt_dtype_t dtype, uint64_t bits, tt_pjrt_buffer_t **out_buf);
/* Destroys scalars evicted during the previous launch's binding; called when
 * a launch starts binding. */
void tt_scalars_release_evicted(tt_engine_t *e);
void tt_scalars_clear(tt_engine_t *e);

#endif
