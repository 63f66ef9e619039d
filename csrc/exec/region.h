/* The open region: ops lowered but not yet run, as one graph. Strict and
 * Debug modes close it after every op; DeferAndFuse keeps it open until a
 * value is needed on the host (materialization), the region grows too large,
 * or the repeated-ops heuristic finds a repeat boundary, then runs it as one
 * executable. Only storages that are still alive become outputs (liveness);
 * in-place writes are applied in program order inside the graph.
 * The mode is the engine's (exec/mode.h); switching it flushes the region.
 * State: tt_region_t, one per engine (exec/engine.h). Thread safety: none;
 * the engine's owner serializes calls (api/engine_lock.h). */
#ifndef TT_EXEC_REGION_H
#define TT_EXEC_REGION_H

#include "exec/stats.h"
#include "exec/storage.h"
#include "exec/async_errors.h"
#include "exec/run.h"
#include "base/env.h"
#include "base/strbuf.h"
#include "exec/engine_type.h"
#include "ir/graph.h"


#define TT_REGION_MAX_CALLS 16
#define TT_REGION_MISS_SLOTS 32

/* A capture (exec/plan.h): while active, the region is one compiled graph
 * being recorded: no op closes it (whatever the mode), and anything that
 * forces it to run (a host copy, a mode switch, Debug's checks, a resize)
 * abandons the capture: `failed` is set with the cause, the region runs as
 * it would have, and recording goes on as the mode says. */
typedef struct tt_region_capture_s {
  int active;
  int failed;
  int bake; /* offsets of views into storages the graph made are constants (exec/lower_env.c) */
  char why[200];
  uint64_t first_serial; /* storages with a serial from here on were made by the graph */
} tt_region_capture_t;

/* One engine's open region (a field of tt_engine_t). */
typedef struct tt_region_s {
  tt_graph_t *g;
  uint64_t gen; /* storages compare their `gen` with this */
  tt_binding_t *binds;
  int nparams, cap_params;
  tt_storage_t **pending; /* live storages written in the region, in first-write order */
  int npending, cap_pending;
  tt_index_check_t *checks; /* of the ops in the region, in program order */
  int nchecks, cap_checks;
  uint64_t nops;
  /* Rollback point of the op being lowered. */
  int op_nodes, op_params, op_checks;
  int repeat_detection;
  int chunk_ops;   /* DeferAndFuse's first chunk, in ops (0: no chunks) */
  int chunk_limit; /* ops the open region may reach: chunk_ops, doubled after each chunk cut */
  tt_region_capture_t capture;
  /* Whole programs called in the region (replayed plans deferred by
   * exec/plan_defer.c), by key. While there are any, Strict keeps the region
   * open as DeferAndFuse does, so a compiled step's programs and the eager
   * ops between them run as one program at the next materialization. */
  uint64_t calls[TT_REGION_MAX_CALLS];
  int ncalls;
  /* The last plan launched on its own (exec/plan_defer.h): set to 1 when an
   * op or another call follows it before the region next flushes, i.e.
   * before a sync: such a plan is worth deferring, a lone one (inference
   * called in a loop that reads each result) is not. */
  int *follow_mark;
  /* How often a region calling program `key` missed the executable cache
   * (a new fused program to compile), for the programs seen lately: a call
   * whose fused regions keep changing (eager work on new shapes between
   * graphs) stops being deferred (exec/plan_defer.h); a hit clears its count. */
  uint64_t miss_keys[TT_REGION_MISS_SLOTS];
  int miss_counts[TT_REGION_MISS_SLOTS];
  tt_region_stats_t stats;
} tt_region_t;

/* The state of a new engine's region (nothing allocated until first use). */
void tt_region_init(tt_region_t *r, const tt_env_t *env);

/* The region graph; builds append to it. */
tt_graph_t *tt_region_graph(tt_engine_t *e);
/* The current value of a storage's flat base in the region: its pending
 * node, or a parameter bound to its buffer (added once). */
tt_val_t tt_region_base(tt_engine_t *e, tt_storage_t *s);
/* A parameter of the region with the given binding; storages are retained
 * until the region runs. */
tt_val_t tt_region_param(tt_engine_t *e, const tt_type_t *type, tt_binding_t binding);
/* Makes node v (flat, the storage's dtype and numel) the storage's value. */
tt_status_t tt_region_write(tt_engine_t *e, tt_storage_t *s, tt_val_t v);

/* Marks the start of an op (for rollback and the heuristic). */
void tt_region_begin_op(tt_engine_t *e);
/* Undoes everything since the last begin_op (a failed lowering). */
void tt_region_rollback(tt_engine_t *e);
/* Ends an op whose inputs hash to op_hash: closes the region when the mode
 * says so. */
tt_status_t tt_region_end_op(tt_engine_t *e, uint64_t op_hash, const char *what);

/* Adds the index checks of the op being lowered (Strict, DeferAndFuse):
 * when the region runs, their flags are one extra output handed to
 * exec/async_errors, read at the next synchronization point. */
tt_status_t tt_region_add_checks(tt_engine_t *e, const tt_index_check_t *checks, int n);

/* Runs the open region, if any, and gives its live storages their buffers. */
tt_status_t tt_region_flush(tt_engine_t *e, const char *what);
/* The same with n extra outputs (not storages) whose buffers go to accept(),
 * which owns them; when accept fails, the region's results do not land: its
 * storages keep their old buffers (debug-mode bounds checks). */
tt_status_t tt_region_flush_checked(tt_engine_t *e, const char *what, const tt_val_t *extra, int n,
                                    tt_status_t (*accept)(void *ctx, tt_pjrt_buffer_t **bufs),
                                    void *ctx);
/* A storage died: it is no longer an output of the open region. */
void tt_region_forget(tt_engine_t *e, tt_storage_t *s);
int tt_region_is_pending(tt_engine_t *e, const tt_storage_t *s);

/* Before a call of whole program `key` is recorded into the region: 1 when
 * the region may take it (recorded), 0 when the region must run first: it
 * calls that program already (the next step of a loop begins) or holds
 * TT_REGION_MAX_CALLS calls. */
int tt_region_take_call(tt_engine_t *e, uint64_t key);

/* How many regions calling program `key` missed the executable cache. */
int tt_region_fused_misses(const tt_engine_t *e, uint64_t key);
/* Clears every program's count (fusion set on or off again). */
void tt_region_forget_fused_misses(tt_engine_t *e);

/* A region holding program calls failed to compile (status s, consumed):
 * compiled graphs launch on their own from then on, so the next steps run
 * as before fusion; returns s annotated with that. */
tt_status_t tt_region_fused_compile_failed(tt_engine_t *e, tt_status_t s);

/* Starts a capture on the open region, which must be empty (flush first). */
void tt_region_capture_begin(tt_engine_t *e, int bake);
/* Abandons the capture (if any) with the cause; the region stays open. */
void tt_region_capture_fail(tt_engine_t *e, const char *why);
/* Ends a live capture by running the region synchronously as one
 * executable: *out_exe is a new reference to it (the caller releases it with
 * tt_tier1_release), *out_nout the number of its outputs (the live pending
 * storages in their order, then the index-check flags when there are
 * checks). The storages get their buffers as a flush would give them. When
 * out_text is not NULL it receives the program's module text without its
 * input/output aliases (a function other programs can call), or stays empty
 * when the graph computes nothing. */
tt_status_t tt_region_capture_run(tt_engine_t *e, const char *what, tt_strbuf_t *out_text, tt_tier1_exe_t **out_exe,
                                  int *out_nout);
/* The parameter that reads pending storage r (a storage the region both
 * reads and writes: its output reuses that parameter's buffer, i.e. the
 * buffer is donated), or -1. The one donation rule of captures and plans. */
int tt_region_param_of_pending(const tt_region_t *R, int r);

void tt_region_set_repeat_detection(tt_engine_t *e, int enabled);
/* DeferAndFuse closes the region after n ops, then after 2n, 4n, ... more
 * (0: no chunks), so that the device runs one part of a step while the host
 * records the next. */
void tt_region_set_chunk_ops(tt_engine_t *e, int n);
int tt_region_chunk_ops(tt_engine_t *e);
const tt_region_stats_t *tt_region_stats(tt_engine_t *e);
/* Frees everything (at shutdown). */
void tt_region_shutdown(tt_engine_t *e);

#endif
