/* What a region parameter a lowering adds is bound to when its program
 * launches: a storage's buffer, a device scalar, or host bytes. The engine
 * binds them (exec/run.h). */
#ifndef TT_OPS_BINDING_H
#define TT_OPS_BINDING_H

#include <stdint.h>

#include "base/dtype.h"
#include "ops/args.h"

typedef enum tt_bind_kind_e {
  TT_BIND_STORAGE, /* the storage's current buffer */
  TT_BIND_SCALAR,  /* a cached device scalar */
  TT_BIND_HOST,    /* host bytes uploaded for this launch (e.g. RNG state) */
} tt_bind_kind_t;

typedef struct tt_binding_s {
  tt_bind_kind_t kind;
  tt_storage_t *storage; /* borrowed */
  tt_dtype_t dtype;
  uint64_t bits;         /* scalar bits */
  uint64_t host[2];      /* TT_BIND_HOST payload: a ui64[2] */
} tt_binding_t;

#endif
