/* The open region: ops lowered but not yet run, as one graph. Strict and
 * Debug modes close it after every op; DeferAndFuse keeps it open until a
 * value is needed on the host (materialization), the region grows too large,
 * or the repeated-ops heuristic finds a repeat boundary, then runs it as one
 * executable. Only storages that are still alive become outputs (liveness);
 * in-place writes are applied in program order inside the graph.
 * The mode is the context's (api/mode.h); switching it flushes the region.
 * Thread safety: none; the binding calls in with the GIL held. */
#ifndef TT_EXEC_REGION_H
#define TT_EXEC_REGION_H

#include "api/storage.h"
#include "exec/async_errors.h"
#include "exec/run.h"
#include "ir/graph.h"

typedef struct tt_region_stats_s {
  uint64_t flushes;      /* regions run */
  uint64_t last_nodes;   /* nodes in the last region run */
  uint64_t last_outputs; /* live outputs of the last region run */
  uint64_t last_ops;     /* ATen ops in the last region run */
  uint64_t repeat_cuts;  /* regions closed by the repeated-ops heuristic */
  uint64_t chunk_cuts;   /* regions closed after TORCH_TPU_DEFER_CHUNK_OPS ops */
} tt_region_stats_t;

/* The region graph; builds append to it. */
tt_graph_t *tt_region_graph(void);
/* The current value of a storage's flat base in the region: its pending
 * node, or a parameter bound to its buffer (added once). */
tt_val_t tt_region_base(tt_storage_t *s);
/* A parameter of the region with the given binding; storages are retained
 * until the region runs. */
tt_val_t tt_region_param(const tt_type_t *type, tt_binding_t binding);
/* Makes node v (flat, the storage's dtype and numel) the storage's value. */
tt_status_t tt_region_write(tt_storage_t *s, tt_val_t v);

/* Marks the start of an op (for rollback and the heuristic). */
void tt_region_begin_op(void);
/* Undoes everything since the last begin_op (a failed lowering). */
void tt_region_rollback(void);
/* Ends an op whose inputs hash to op_hash: closes the region when the mode
 * says so. */
tt_status_t tt_region_end_op(uint64_t op_hash, const char *what);

/* Adds the index checks of the op being lowered (Strict, DeferAndFuse):
 * when the region runs, their flags are one extra output handed to
 * exec/async_errors, read at the next synchronization point. */
tt_status_t tt_region_add_checks(const tt_index_check_t *checks, int n);

/* Runs the open region, if any, and gives its live storages their buffers. */
tt_status_t tt_region_flush(const char *what);
/* The same with n extra outputs (not storages) whose buffers go to accept(),
 * which owns them; when accept fails, the region's results do not land: its
 * storages keep their old buffers (debug-mode bounds checks). */
tt_status_t tt_region_flush_checked(const char *what, const tt_val_t *extra, int n,
                                    tt_status_t (*accept)(void *ctx, tt_pjrt_buffer_t **bufs),
                                    void *ctx);
/* A storage died: it is no longer an output of the open region. */
void tt_region_forget(tt_storage_t *s);
int tt_region_is_pending(const tt_storage_t *s);

void tt_region_set_repeat_detection(int enabled);
/* DeferAndFuse closes the region after n ops, then after 2n, 4n, ... more
 * (0: no chunks), so that the device runs one part of a step while the host
 * records the next. */
void tt_region_set_chunk_ops(int n);
int tt_region_chunk_ops(void);
const tt_region_stats_t *tt_region_stats(void);
/* Frees everything (at shutdown). */
void tt_region_shutdown(void);

#endif
