/* Deferred replay of plans (exec/plan.h): a compiled graph's replay
 * recorded into the open region as one call of its program (a foreign-module
 * call, ir/foreign.h) instead of a launch of its own. A compiled training
 * step's programs (forward, backward, optimizer step) and the eager ops
 * between them (autograd's seed gradient) then run as one program, launched
 * once, when a value is needed on the host (the loss's .item()) or the step
 * repeats (the same program called again closes the region before it).
 * While a region holds such calls, Strict keeps it open as DeferAndFuse
 * does (exec/region.h); Debug never defers.
 *
 * Not deferred (the plan launches on its own as before): graphs that
 * compute nothing, graphs whose fused regions missed the executable cache
 * TT_PLAN_MAX_FUSED_MISSES times in a row (each step would compile a new
 * program; a hit starts the count again),
 * programs whose text the splicer cannot read, and calls whose parameters
 * no longer have the captured types.
 *
 * Thread safety: as the engine (its owner's lock). */
#ifndef TT_EXEC_PLAN_DEFER_H
#define TT_EXEC_PLAN_DEFER_H

#include "base/status.h"
#include "base/strbuf.h"
#include "exec/engine_type.h"
#include "exec/plan.h"

#define TT_PLAN_MAX_FUSED_MISSES 8

/* Whether replays are deferred now (the engine's setting, never in Debug). */
int tt_plan_defer_enabled(const tt_engine_t *e);

/* At capture: interns the program text (from tt_region_capture_run) so that
 * replays can call it; leaves p launching on its own when it cannot. */
void tt_plan_defer_prepare(tt_engine_t *e, tt_plan_t *p, const tt_strbuf_t *text);

/* Records a replay of p on args (already checked) into the open region:
 * *out_deferred = 1 and out_storages filled as tt_plan_run fills them, or
 * *out_deferred = 0 with nothing recorded (the caller launches p). */
tt_status_t tt_plan_defer(tt_engine_t *e, tt_plan_t *p, const tt_tensor_ref_t *args, tt_storage_t **out_storages,
                          int *out_deferred);

#endif
