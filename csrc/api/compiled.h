/* Compiled graphs (torch.compile(backend="tpu")): the facade the binding
 * calls to capture a graph into one executable and replay it (the plan
 * itself: exec/plan.h). Thread safety: callers hold the engine lock
 * (api/engine_lock.h); a capture keeps it from begin to end or abort, so no
 * other thread's op lands in the captured region. */
#ifndef TT_API_COMPILED_H
#define TT_API_COMPILED_H

#include <stddef.h>

#include "exec/engine_type.h"
#include "exec/plan_types.h"
#include "exec/stats.h"
#include "ops/args.h"

tt_status_t tt_compiled_capture_begin(tt_engine_t *e, int bake);
void tt_compiled_capture_abort(tt_engine_t *e);
/* A CPU-fallback op or a torch.tpu.Generator argument inside an open
 * capture abandons it (`why` names it); no-op outside a capture. */
void tt_compiled_capture_refuse(tt_engine_t *e, const char *why);
tt_status_t tt_compiled_capture_end(tt_engine_t *e, const tt_tensor_ref_t *args, int nargs,
                                    const tt_tensor_ref_t *outs, int nouts, const char *name, tt_plan_t **out_plan,
                                    char *why, size_t why_len);
tt_status_t tt_compiled_run(tt_engine_t *e, tt_plan_t *p, const tt_tensor_ref_t *args, int nargs,
                            tt_storage_t **out_storages);
/* Whether args match what p was captured for (the mismatch error if not). */
tt_status_t tt_compiled_check(const tt_plan_t *p, const tt_tensor_ref_t *args, int nargs);
tt_plan_stats_t tt_compiled_stats(const tt_engine_t *e);
/* Whether graphs captured from now on replay into the open region
 * (exec/plan_defer.h; TORCH_TPU_FUSE_COMPILED_CALLS); *out_old the previous
 * setting. Runs the open region first. */
tt_status_t tt_compiled_set_fusion(tt_engine_t *e, int on, int *out_old);
/* Tests: compiles whose name contains what_contains fail (NULL: none); the
 * string must outlive the setting. */
void tt_compiled_set_compile_fault(tt_engine_t *e, const char *what_contains);
/* The device address of a storage's buffer, after the work pending on it
 * (0 for a never-written one): a storage a plan updates in place keeps it. */
tt_status_t tt_compiled_device_address(tt_engine_t *e, tt_storage_t *s, uint64_t *out_address);

/* A plan's argument count, its outputs (each a view of a result's new
 * storage or of an argument's), its result storages, and its release. */
int tt_compiled_num_args(const tt_plan_t *p);
int tt_compiled_num_outputs(const tt_plan_t *p);
const tt_plan_out_t *tt_compiled_output(const tt_plan_t *p, int k);
int tt_compiled_num_results(const tt_plan_t *p);
void tt_compiled_release(tt_plan_t *p);

#endif
