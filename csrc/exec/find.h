/* Finds the executable of a closed graph: compile-cache tier 1 (process
 * memory), tier 2 (host), tier 3 (persistent), else compiles it; then stores
 * it in every enabled tier that lacked it. Counts into the context's stats.
 * Thread safety: one caller at a time (the binding's lock). */
#ifndef TT_EXEC_FIND_H
#define TT_EXEC_FIND_H

#include "api/context.h"
#include "ir/graph.h"

/* *out_exe is borrowed from tier 1. */
tt_status_t tt_exec_find_executable(tt_ctx_t *c, tt_graph_t *g, const tt_cache_key_t *key, const char *what,
                                    tt_pjrt_executable_t **out_exe);

#endif
