/* Runs a closed graph: keys it, finds or compiles its executable, binds its
 * parameters and launches it asynchronously (strict eager). */
#ifndef TT_EXEC_RUN_H
#define TT_EXEC_RUN_H

#include <stdint.h>

#include "api/storage.h"
#include "ir/graph.h"

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

/* outs has tt_graph_num_outputs(g) slots; the caller owns the buffers. */
tt_status_t tt_exec_run(tt_graph_t *g, const tt_binding_t *binds, const char *what,
                        tt_pjrt_buffer_t **outs);

#endif
