/* Compiled graphs: capture and replay of plans, for the binding. */
#include "api/compiled.h"

#include "exec/engine.h"
#include "exec/find.h"
#include "exec/launch_queue.h"
#include "exec/plan.h"
#include "exec/region.h"

tt_status_t tt_compiled_capture_begin(tt_engine_t *e, int bake) { return tt_plan_capture_begin(e, bake); }

void tt_compiled_capture_abort(tt_engine_t *e) { tt_plan_capture_abort(e); }

void tt_compiled_capture_refuse(tt_engine_t *e, const char *why) {
  if (tt_plan_capturing(e)) tt_plan_capture_fail(e, why);
}

tt_status_t tt_compiled_capture_end(tt_engine_t *e, const tt_tensor_ref_t *args, int nargs,
                                    const tt_tensor_ref_t *outs, int nouts, const char *name, tt_plan_t **out_plan,
                                    char *why, size_t why_len) {
  return tt_plan_capture_end(e, args, nargs, outs, nouts, name, out_plan, why, why_len);
}

tt_status_t tt_compiled_run(tt_engine_t *e, tt_plan_t *p, const tt_tensor_ref_t *args, int nargs,
                            tt_storage_t **out_storages) {
  return tt_plan_run(e, p, args, nargs, out_storages);
}

tt_status_t tt_compiled_check(const tt_plan_t *p, const tt_tensor_ref_t *args, int nargs) {
  return tt_plan_check_args(p, args, nargs);
}

tt_plan_stats_t tt_compiled_stats(const tt_engine_t *e) { return e->plans; }

tt_status_t tt_compiled_set_fusion(tt_engine_t *e, int on, int *out_old) {
  *out_old = e->fuse_plans;
  TT_RETURN_IF_ERROR(tt_region_flush(e, "a change of compiled-graph fusion"));
  e->fuse_plans = on != 0;
  tt_region_forget_fused_misses(e); /* a fresh start for every program */
  return TT_OK_STATUS;
}

void tt_compiled_set_compile_fault(tt_engine_t *e, const char *what_contains) {
  tt_exec_set_compile_fault(e, what_contains);
}

tt_status_t tt_compiled_device_address(tt_engine_t *e, tt_storage_t *s, uint64_t *out_address) {
  *out_address = 0;
  TT_RETURN_IF_ERROR(tt_region_flush(e, "a device address"));
  TT_RETURN_IF_ERROR(tt_launchq_drain(e));
  if (!s->buf) return TT_OK_STATUS;
  TT_RETURN_IF_ERROR(tt_pjrt_buffer_await(e->rt, s->buf));
  return tt_pjrt_buffer_address(e->rt, s->buf, out_address);
}

int tt_compiled_num_args(const tt_plan_t *p) { return tt_plan_num_args(p); }
int tt_compiled_num_outputs(const tt_plan_t *p) { return tt_plan_num_outputs(p); }
const tt_plan_out_t *tt_compiled_output(const tt_plan_t *p, int k) { return tt_plan_output(p, k); }
int tt_compiled_num_results(const tt_plan_t *p) { return tt_plan_num_results(p); }
void tt_compiled_release(tt_plan_t *p) { tt_plan_release(p); }
