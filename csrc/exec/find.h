/* Finds the executable of a closed graph: compile-cache tier 1 (process
 * memory), tier 2 (host), tier 3 (persistent), else compiles it; then stores
 * it in every enabled tier that lacked it.
 * Thread safety: tt_exec_find_cached and tt_exec_find_executable are called
 * by one thread at a time (the binding's lock) and count into the context's
 * stats; tt_exec_find_uncached may run on any thread (the compile pool) and
 * counts into the stats it is given. */
#ifndef TT_EXEC_FIND_H
#define TT_EXEC_FIND_H

#include "exec/engine_type.h"
#include "exec/stats.h"
#include "cache/tier1.h"
#include "pjrt/runtime.h"
#include "base/strbuf.h"
#include "cache/entry.h"
#include "ir/graph.h"

/* A new reference to key's tier-1 executable (counted as a hit), or NULL. */
tt_tier1_exe_t *tt_exec_find_cached(tt_engine_t *e, const tt_cache_key_t *key);
/* The module text of g for the engine's platform (no cache identity). */
tt_status_t tt_exec_emit_text(tt_engine_t *e, const tt_graph_t *g, tt_strbuf_t *out_text);
/* The module text of g and the identity of its directory entries. */
tt_status_t tt_exec_emit(tt_engine_t *e, tt_graph_t *g, const tt_cache_key_t *key, tt_strbuf_t *out_text,
                         tt_cache_entry_id_t *out_id);
/* Everything after a tier-1 miss: tiers 2/3, a peer process's compile
 * (cache/claim.h), else compiling `text`; a fresh executable is written back
 * to tiers 2/3. *out_exe is owned by the caller (insert it in tier 1).
 * dump_text: append the module text to a compile error. fast_ok: a compile
 * may be the quick first tier (exec/tiered.h; not written back), and
 * *out_fast says whether it was. */
tt_status_t tt_exec_find_uncached(tt_engine_t *e, const tt_cache_entry_id_t *id, const tt_strbuf_t *text,
                                  const char *what, int dump_text, int fast_ok, tt_cache_stats_t *stats,
                                  tt_pjrt_executable_t **out_exe, int *out_fast);
/* The whole chain, on the calling thread: a new reference (release it with
 * tt_tier1_release). */
tt_status_t tt_exec_find_executable(tt_engine_t *e, tt_graph_t *g, const tt_cache_key_t *key, const char *what,
                                    tt_tier1_exe_t **out_exe);
/* Tests: compiles whose `what` contains this text fail (NULL: none); the
 * string must outlive its use. */
void tt_exec_set_compile_fault(tt_engine_t *e, const char *what_contains);
/* Tests: while set, compiles that ask for XLA CPU's classic emitters fail as
 * a plugin without the option refuses them (exec/find.c). */
void tt_exec_set_refuse_classic(tt_engine_t *e, int refuse);
/* While set, tt_exec_find_uncached stops waiting for a peer's compile and
 * starts no compile (it fails as cancelled): the compile pool's shutdown. */
void tt_exec_find_cancel(tt_engine_t *e, int cancel);
/* Adds a worker's counters to the context's. */
void tt_exec_stats_add(tt_cache_stats_t *into, const tt_cache_stats_t *delta);

#endif
