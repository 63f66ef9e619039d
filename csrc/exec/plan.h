/* Plans: a compiled graph (torch.compile's FX graphs) captured once as one
 * executable and replayed with no per-op work.
 *
 * Capture. The graph's first call runs its ops through the normal op path
 * on real tensors, between tt_plan_capture_begin and tt_plan_capture_end,
 * into one open region that no op closes (exec/region.h). Anything that
 * would force the region to run before the end (a copy to or from the host,
 * .item(), a CPU-fallback op, a mode switch, Debug's checks, a resize)
 * abandons the capture: the region runs as the eager mode says and the
 * rest of the call goes on op by op, so the first call's results are right
 * either way. At the end the region runs once as one executable, and the
 * plan records, from the region and the graph's argument and output tensors:
 * - each argument's signature: dtype, sizes, strides, offset, math bits, its
 *   storage's dtype and length, and which earlier argument (if any) shares
 *   its storage;
 * - where each program parameter's buffer comes from: an argument's
 *   storage, a constant (a storage that existed before the graph, retained;
 *   a device scalar; host bytes), a fresh random draw (so replays draw new
 *   numbers from the generator as eager would, in the same order), or zeros
 *   (a storage the graph made and read before writing);
 * - where each program result goes: a new storage per call, back into an
 *   argument's or a constant's storage (a write), or nowhere (a live
 *   intermediate nothing returns);
 * - each graph output: a view (dtype, sizes, strides, offset) of a result's
 *   new storage or of an argument's storage;
 * - the index checks of the graph's ops (exec/async_errors.h).
 * The plan holds its executable: tier-1 eviction does not touch it. The
 * executable comes from the cache tiers under the region's key, so another
 * process finds the same program in tier 2/3.
 *
 * Replay. tt_plan_run checks every argument against its signature (a
 * mismatch is an error naming the argument and both signatures: the program
 * would compute something else), runs the open region first (so pending
 * writes to the arguments' storages come before), binds the buffers,
 * launches asynchronously, and returns the outputs' storages.
 *
 * Thread safety: as the engine (the embedding's lock); a finished plan is
 * read-only, so any thread holding the lock may replay it. */
#ifndef TT_EXEC_PLAN_H
#define TT_EXEC_PLAN_H

#include <stddef.h>

#include "base/status.h"
#include "exec/engine_type.h"
#include "exec/plan_types.h"
#include "exec/storage.h"
#include "ops/args.h"


/* Runs the open region, then starts capturing (error if a capture is open).
 * bake: the offsets of views into storages the graph makes are constants
 * of its program (a slice at a known offset is a static slice, not a
 * padded copy and a dynamic slice); pass 0 when plans of the graph differ
 * in such offsets (one plan per value of an integer argument: y[n] of a y
 * the graph made) and should share one program. Python numbers stay
 * runtime arguments either way (ops/lower.h tt_l_scalar). */
tt_status_t tt_plan_capture_begin(tt_engine_t *e, int bake);
/* Drops an open or abandoned capture (the graph raised): ops recorded stay
 * in the region, which runs as the mode says. */
void tt_plan_capture_abort(tt_engine_t *e);
/* 1 while a capture is open (not abandoned). */
int tt_plan_capturing(const tt_engine_t *e);
/* Abandons an open capture with the cause (e.g. a CPU-fallback op, a
 * torch.tpu.Generator argument); no-op when none is open. */
void tt_plan_capture_fail(tt_engine_t *e, const char *why);

/* Ends the capture given the graph's arguments and outputs (tensor refs; a
 * non-tpu one has storage NULL). A captured graph: *out_plan (the caller
 * releases it), its results landed in the outputs' storages. An abandoned
 * one: *out_plan NULL and the cause in why (the results are right: the
 * graph ran as eager). An error status only for a failed launch or
 * compile, as a flush would give. `name` names the graph in messages. */
tt_status_t tt_plan_capture_end(tt_engine_t *e, const tt_tensor_ref_t *args, int nargs, const tt_tensor_ref_t *outs,
                                int nouts, const char *name, tt_plan_t **out_plan, char *why, size_t why_len);

/* Replays p on args (nargs of them). out_storages (tt_plan_num_outputs
 * slots) receive a reference to each output's storage: new storages for
 * results (the same one for outputs viewing the same result), the
 * argument's storage for an argument view. */
tt_status_t tt_plan_run(tt_engine_t *e, tt_plan_t *p, const tt_tensor_ref_t *args, int nargs,
                        tt_storage_t **out_storages);

/* The check tt_plan_run starts with: OK when args match the signatures,
 * else the mismatch error (nothing runs). */
tt_status_t tt_plan_check_args(const tt_plan_t *p, const tt_tensor_ref_t *args, int nargs);

int tt_plan_num_args(const tt_plan_t *p);
int tt_plan_num_outputs(const tt_plan_t *p);
const tt_plan_out_t *tt_plan_output(const tt_plan_t *p, int k);
/* Program parameters and results, for tests and stats. */
int tt_plan_num_params(const tt_plan_t *p);
int tt_plan_num_results(const tt_plan_t *p);
/* Releases the executable and the retained constants (engine lock held). */
void tt_plan_release(tt_plan_t *p);

#endif
