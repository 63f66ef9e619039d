/* Runs a closed graph: keys it, finds or compiles its executable, binds its
 * parameters and launches it asynchronously (strict eager). */
#ifndef TT_EXEC_RUN_H
#define TT_EXEC_RUN_H

#include <stdint.h>

#include "exec/storage.h"
#include "cache/tier1.h"
#include "exec/engine_type.h"
#include "ir/graph.h"
#include "ops/binding.h"


/* outs has tt_graph_num_outputs(g) slots; the caller owns the buffers.
 * Finds or compiles the executable on the calling thread. */
tt_status_t tt_exec_run(tt_engine_t *e, tt_graph_t *g, const tt_binding_t *binds, const char *what,
                        tt_pjrt_buffer_t **outs);
/* The cache key of a closed graph (counted as a request). */
tt_cache_key_t tt_exec_key(tt_engine_t *e, tt_graph_t *g);
/* Binds np parameters and launches exe asynchronously into outs (nout
 * slots); the launch holds a reference to exe until its completion event is
 * waited for (exec/inflight.h). In Debug mode, waits for the launch. */
tt_status_t tt_exec_launch(tt_engine_t *e, tt_tier1_exe_t *exe, const tt_binding_t *binds, int np, int nout, const char *what,
                           tt_pjrt_buffer_t **outs);

#endif
