/* One collective program, N devices, one process: upload, execute, download. */
#include "api/collective_local.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"

static tt_status_t oom(void) { return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory"); }

tt_status_t tt_collective_result_nbytes(const tt_dist_collective_t *c, size_t *out_nbytes) {
  int64_t rd[TT_DIST_MAX_RANK];
  int rr = 0;
  TT_RETURN_IF_ERROR(tt_dist_collective_check(c, rd, &rr));
  size_t n = tt_dtype_size(c->dtype);
  for (int i = 0; i < rr; i++) n *= (size_t)rd[i];
  *out_nbytes = n;
  return TT_OK_STATUS;
}

/* Uploads every rank's arguments: args[r * nargs + a] on the device that
 * runs replica r. */
static tt_status_t upload_all(tt_pjrt_runtime_t *rt, const tt_dist_collective_t *c, int world,
                              int nargs, const void *const *inputs, const void *const *factors,
                              const int *devices, tt_pjrt_buffer_t **args) {
  for (int r = 0; r < world; r++) {
    TT_RETURN_IF_ERROR(tt_pjrt_buffer_from_host(rt, inputs[r], c->dtype, c->dims, c->rank,
                                                devices[r], &args[(size_t)r * nargs]));
    if (nargs == 2) {
      if (!factors || !factors[r])
        return tt_status_make(TT_INVALID_ARGUMENT,
                              "%s with ReduceOp.PREMUL_SUM: rank %d has no factor",
                              tt_dist_kind_name(c->kind), r);
      TT_RETURN_IF_ERROR(tt_pjrt_buffer_from_host(rt, factors[r], c->dtype, NULL, 0, devices[r],
                                                  &args[(size_t)r * nargs + 1]));
    }
  }
  return TT_OK_STATUS;
}

static tt_status_t run_compiled(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe,
                                const tt_dist_collective_t *c, int world,
                                const void *const *inputs, const void *const *factors,
                                void *const *outputs, size_t out_nbytes) {
  int nargs = tt_dist_collective_num_args(c);
  if (tt_pjrt_executable_num_outputs(exe) != 1)
    return tt_status_make(TT_INTERNAL, "%s program has %zu outputs, expected 1",
                          tt_dist_kind_name(c->kind), tt_pjrt_executable_num_outputs(exe));
  tt_pjrt_buffer_t **args = tt_calloc((size_t)world * nargs, sizeof *args);
  tt_pjrt_buffer_t **outs = tt_calloc((size_t)world, sizeof *outs);
  int *devices = tt_calloc((size_t)world, sizeof *devices);
  tt_status_t status = (!args || !outs || !devices) ? oom() : TT_OK_STATUS;
  if (!status) status = tt_pjrt_executable_replica_devices(rt, exe, devices, (size_t)world);
  if (!status) status = upload_all(rt, c, world, nargs, inputs, factors, devices, args);
  if (!status)
    status = tt_pjrt_execute_replicated(rt, exe, (size_t)world, args, (size_t)nargs,
                                        tt_dist_kind_name(c->kind), outs);
  for (int r = 0; r < world && !status; r++) {
    status = tt_pjrt_buffer_to_host(rt, outs[r], outputs[r], out_nbytes);
    if (status) status = tt_status_annotate(status, "reading rank %d's result", r);
  }
  for (int i = 0; outs && i < world; i++) tt_pjrt_buffer_destroy(rt, outs[i]);
  for (int i = 0; args && i < world * nargs; i++) tt_pjrt_buffer_destroy(rt, args[i]);
  tt_free(args);
  tt_free(outs);
  tt_free(devices);
  return status;
}

tt_status_t tt_collective_run_local(tt_pjrt_runtime_t *rt, const tt_dist_collective_t *c,
                                    const void *const *inputs, const void *const *factors,
                                    void *const *outputs, size_t out_nbytes) {
  size_t need = 0;
  TT_RETURN_IF_ERROR(tt_collective_result_nbytes(c, &need));
  int world = tt_dist_collective_world(c);
  if (need != out_nbytes)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: result takes %zu bytes per rank, not %zu",
                          tt_dist_kind_name(c->kind), need, out_nbytes);
  int have = tt_pjrt_runtime_info(rt)->num_devices;
  if (world > have)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "%s over %d ranks needs %d devices; the client has %d (create it with "
                          "cpu_device_count >= %d)",
                          tt_dist_kind_name(c->kind), world, world, have, world);
  tt_strbuf_t sb;
  tt_strbuf_init(&sb);
  tt_status_t status = tt_dist_collective_emit(c, &sb);
  tt_pjrt_executable_t *exe = NULL;
  if (!status) status = tt_pjrt_compile(rt, sb.data, sb.len, world, tt_dist_kind_name(c->kind), &exe);
  if (!status) status = run_compiled(rt, exe, c, world, inputs, factors, outputs, out_nbytes);
  tt_pjrt_executable_destroy(rt, exe);
  tt_strbuf_free(&sb);
  return status;
}

tt_status_t tt_collective_selftest(const char *plugin, const tt_dist_collective_t *c,
                                   const void *const *inputs, const void *const *factors,
                                   void *const *outputs, size_t out_nbytes) {
  size_t need = 0;
  TT_RETURN_IF_ERROR(tt_collective_result_nbytes(c, &need)); /* before paying for a client */
  tt_pjrt_options_t opts = {.cpu_device_count = tt_dist_collective_world(c)};
  tt_pjrt_runtime_t *rt = NULL;
  TT_RETURN_IF_ERROR(tt_pjrt_runtime_create(plugin, &opts, &rt));
  tt_status_t status = tt_collective_run_local(rt, c, inputs, factors, outputs, out_nbytes);
  tt_pjrt_runtime_destroy(rt);
  return status;
}
