/* Launching executables. Both entry points enqueue and return; outputs are
 * untupled (one buffer per result) and become ready asynchronously. */
#include <string.h>

#include "base/alloc.h"
#include "pjrt/pjrt_internal.h"

/* Per-device list pointers live on the stack up to this many devices. */
#define STACK_DEVICES 16

static tt_status_t launch(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe, size_t num_devices,
                          tt_pjrt_buffer_t *const *args, size_t num_args, const char *what,
                          tt_pjrt_buffer_t **outs) {
  size_t num_outputs = exe->num_outputs;
  memset(outs, 0, num_devices * num_outputs * sizeof *outs);

  PJRT_Buffer *const *arg_stack[STACK_DEVICES];
  PJRT_Buffer **out_stack[STACK_DEVICES];
  PJRT_Buffer *const **arg_lists = arg_stack;
  PJRT_Buffer ***out_lists = out_stack;
  if (num_devices > STACK_DEVICES) {
    arg_lists = tt_malloc(num_devices * sizeof *arg_lists);
    out_lists = tt_malloc(num_devices * sizeof *out_lists);
    if (!arg_lists || !out_lists) {
      tt_free((void *)arg_lists);
      tt_free(out_lists);
      return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory");
    }
  }
  /* tt_pjrt_buffer_t* and PJRT_Buffer* are the same pointer, so the caller's
   * flat arrays serve directly as the plugin's per-device rows. */
  for (size_t d = 0; d < num_devices; d++) {
    arg_lists[d] = (PJRT_Buffer *const *)(const void *)(args + d * num_args);
    out_lists[d] = (PJRT_Buffer **)(void *)(outs + d * num_outputs);
  }

  PJRT_ExecuteOptions options; /* the plugin requires non-NULL options */
  memset(&options, 0, sizeof options);
  options.struct_size = TT_PJRT_SIZE(PJRT_ExecuteOptions, multi_slice_config);

  TT_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args, a, execute_device);
  a.executable = exe->exe;
  a.options = &options;
  a.argument_lists = arg_lists;
  a.num_devices = num_devices;
  a.num_args = num_args;
  a.output_lists = out_lists;
  tt_status_t status = tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(rt->plugin.api, LoadedExecutable_Execute, &a),
      what ? what : "PJRT_LoadedExecutable_Execute");
  if (num_devices > STACK_DEVICES) {
    tt_free((void *)arg_lists);
    tt_free(out_lists);
  }
  return status;
}

tt_status_t tt_pjrt_execute(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe,
                            tt_pjrt_buffer_t *const *args, size_t num_args, const char *what,
                            tt_pjrt_buffer_t **outs) {
  if (exe->num_replicas > 1)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "%s: executable has %d replicas; use tt_pjrt_execute_replicated",
                          what ? what : "execute", exe->num_replicas);
  return launch(rt, exe, 1, args, num_args, what, outs);
}

tt_status_t tt_pjrt_execute_replicated(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe,
                                       size_t num_devices, tt_pjrt_buffer_t *const *args,
                                       size_t num_args, const char *what, tt_pjrt_buffer_t **outs) {
  if (num_devices == 0 || num_devices != (size_t)exe->num_replicas ||
      num_devices > rt->num_devices)
    return tt_status_make(TT_INVALID_ARGUMENT,
                          "%s: %zu devices requested for an executable with %d replicas on a "
                          "client with %zu devices",
                          what ? what : "execute_replicated", num_devices, exe->num_replicas,
                          rt->num_devices);
  return launch(rt, exe, num_devices, args, num_args, what, outs);
}
