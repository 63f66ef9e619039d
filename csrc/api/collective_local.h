/* Running one skinny collective program across the N devices of a single
 * process (XLA's CPU plugin with cpu_device_count = N): how the StableHLO
 * collective lowering is verified without a multi-process runtime.
 *
 * Thread safety: tt_collective_run_local uses only `rt` (thread safe) and its
 * arguments; tt_collective_selftest makes a private client, so it never
 * touches the engine's. */
#ifndef TT_API_COLLECTIVE_LOCAL_H
#define TT_API_COLLECTIVE_LOCAL_H

#include <stddef.h>

#include "base/status.h"
#include "dist/collective.h"
#include "pjrt/runtime.h"

/* Compiles `c` for its world of W replicas and runs it once on devices
 * 0..W-1 of `rt` (which must have at least W). inputs[r]: rank r's operand,
 * dense row-major of c->dims; factors[r]: rank r's PREMUL_SUM factor (one
 * element of c->dtype), else factors may be NULL. outputs[r] receives rank r's
 * result: out_nbytes bytes, exactly the result's size. */
tt_status_t tt_collective_run_local(tt_pjrt_runtime_t *rt, const tt_dist_collective_t *c,
                                    const void *const *inputs, const void *const *factors,
                                    void *const *outputs, size_t out_nbytes);

/* The same on a client of its own: loads `plugin`, creates a client with
 * cpu_device_count = W, runs, destroys the client. */
tt_status_t tt_collective_selftest(const char *plugin, const tt_dist_collective_t *c,
                                   const void *const *inputs, const void *const *factors,
                                   void *const *outputs, size_t out_nbytes);

/* The result's size in bytes for one rank (after tt_dist_collective_check). */
tt_status_t tt_collective_result_nbytes(const tt_dist_collective_t *c, size_t *out_nbytes);

#endif
