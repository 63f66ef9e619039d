/* The PJRT runtime seen by the rest of the core: one plugin, one client, one
 * device, buffers, executables. Everything PJRT-specific stays behind this.
 *
 * Thread safety: a tt_pjrt_runtime_t may be used from several threads at once
 * (PJRT clients are thread safe); loading and destroying are not concurrent
 * with anything else. */
#ifndef TT_PJRT_RUNTIME_H
#define TT_PJRT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/env.h"
#include "base/status.h"
#include "pjrt/info.h"

typedef struct tt_pjrt_runtime_s tt_pjrt_runtime_t;
typedef struct tt_pjrt_buffer_s tt_pjrt_buffer_t;         /* a device buffer */
typedef struct tt_pjrt_executable_s tt_pjrt_executable_t; /* a loaded executable */
typedef struct tt_pjrt_event_s tt_pjrt_event_t;           /* completion of a buffer's producer */

typedef struct tt_pjrt_options_s {
  /* Number of CPU devices to create on the CPU plugin (cpu_device_count);
   * 0 means 1. Ignored by other plugins. */
  int cpu_device_count;
  /* PJRT_Client_Create options as text, "name=value,..." (pjrt/client_options.h;
   * the engine passes TORCH_TPU_PJRT_CLIENT_OPTIONS), or NULL. */
  const char *client_options;
} tt_pjrt_options_t;


/* dlopens `path`, checks the API version and struct sizes, initializes the
 * plugin and creates a client. Errors name the path and both API versions. */
tt_status_t tt_pjrt_runtime_create(const char *path, const tt_pjrt_options_t *options,
                                   tt_pjrt_runtime_t **out_runtime);
void tt_pjrt_runtime_destroy(tt_pjrt_runtime_t *rt);
const tt_pjrt_info_t *tt_pjrt_runtime_info(const tt_pjrt_runtime_t *rt);
/* The StableHLO version the plugin's compiler emits natively (plugin attribute
 * stablehlo_current_version, {major, minor, patch}); returns 0 if not reported. */
int tt_pjrt_runtime_stablehlo_version(const tt_pjrt_runtime_t *rt, int64_t out_version[3]);

/* The plugin allocator's view of device 0 (PJRT_Device_MemoryStats); a field
 * the plugin does not report is -1. Returns 0 when the plugin has no memory
 * stats at all (XLA's CPU plugin answers UNIMPLEMENTED). */
int tt_pjrt_device_memory(tt_pjrt_runtime_t *rt, tt_pjrt_memory_t *out);

/* Copies host data (dense, row-major) to a new buffer on device `device`
 * (index into addressable devices; 0 normally). The host data may be reused
 * as soon as this returns. */
tt_status_t tt_pjrt_buffer_from_host(tt_pjrt_runtime_t *rt, const void *data, tt_dtype_t dtype,
                                     const int64_t *dims, int rank, int device,
                                     tt_pjrt_buffer_t **out_buffer);
/* Blocks until the buffer is ready, then copies its dense row-major contents
 * to dst, which must hold exactly `nbytes`. */
tt_status_t tt_pjrt_buffer_to_host(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf, void *dst,
                                   size_t nbytes);
/* Blocks until the buffer's defining computation finished; returns its error if any. */
tt_status_t tt_pjrt_buffer_await(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf);
/* The event that fires when the buffer's defining computation is done. It
 * stays valid after the buffer is destroyed; consume it with tt_pjrt_event_wait. */
tt_status_t tt_pjrt_buffer_ready_event(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf,
                                       tt_pjrt_event_t **out_event);
/* Whether the buffer's defining computation is done, without waiting. */
tt_status_t tt_pjrt_buffer_is_ready(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf, int *out_ready);
/* Whether the event has fired, without waiting (the event stays the caller's). */
tt_status_t tt_pjrt_event_is_ready(tt_pjrt_runtime_t *rt, tt_pjrt_event_t *event, int *out_ready);
/* Blocks until the event fires, destroys it, and returns the computation's error if any. */
tt_status_t tt_pjrt_event_wait(tt_pjrt_runtime_t *rt, tt_pjrt_event_t *event);
/* Bytes the buffer occupies on device (as reported by the plugin, or computed). */
size_t tt_pjrt_buffer_size(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf);
/* The device memory address of buf (PJRT_Buffer_UnsafePointer; waits for it
 * to be defined). For tests: a buffer updated in place (a donated input)
 * keeps its address. */
tt_status_t tt_pjrt_buffer_address(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf, uint64_t *out_address);
void tt_pjrt_buffer_destroy(tt_pjrt_runtime_t *rt, tt_pjrt_buffer_t *buf);

/* Compiles StableHLO module text (entry @main) for num_replicas replicas
 * (1 normally). `what` names the op or region for error messages. */
tt_status_t tt_pjrt_compile(tt_pjrt_runtime_t *rt, const char *mlir, size_t len,
                            int num_replicas, const char *what,
                            tt_pjrt_executable_t **out_exe);
/* What a compile may be asked beyond the program. */
typedef struct tt_pjrt_compile_options_s {
  int num_replicas;
  /* Every rounding the program writes is kept: XLA's
   * xla_allow_excess_precision (true by default) set to false. */
  int exact_precision;
  /* A quick compile: XLA's xla_backend_optimization_level set to 0 (the
   * backend's cheapest code generation; the program's values are the same,
   * its speed lower). Tiered compilation's first tier (exec/tiered.h). */
  int fast;
  /* XLA's xla_backend_optimization_level for a compile that is not fast
   * (0-3); -1 leaves the plugin's default (3). */
  int opt_level;
  /* XLA CPU's classic emitters instead of its fusion emitters
   * (xla_cpu_use_fusion_emitters = false): cheaper compiles for small
   * programs (exec/opt_level.h). */
  int classic_emitters;
} tt_pjrt_compile_options_t;
tt_status_t tt_pjrt_compile_with(tt_pjrt_runtime_t *rt, const char *mlir, size_t len,
                                 const tt_pjrt_compile_options_t *o, const char *what,
                                 tt_pjrt_executable_t **out_exe);
size_t tt_pjrt_executable_num_outputs(const tt_pjrt_executable_t *exe);
void tt_pjrt_executable_destroy(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe);
/* Serialized form for the on-disk cache tiers; caller frees *out_data with tt_free. */
tt_status_t tt_pjrt_executable_serialize(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe,
                                         void **out_data, size_t *out_size);
tt_status_t tt_pjrt_executable_deserialize(tt_pjrt_runtime_t *rt, const void *data, size_t size,
                                           tt_pjrt_executable_t **out_exe);

/* Launches on one device asynchronously: returns once enqueued, with output
 * buffers whose contents become ready later. `outs` has num_outputs slots. */
tt_status_t tt_pjrt_execute(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe,
                            tt_pjrt_buffer_t *const *args, size_t num_args, const char *what,
                            tt_pjrt_buffer_t **outs);
/* Same for a program compiled with num_replicas = num_devices. Flattened,
 * row-major: args[d * num_args + a], outs[d * num_outputs + o]. */
tt_status_t tt_pjrt_execute_replicated(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe,
                                       size_t num_devices, tt_pjrt_buffer_t *const *args,
                                       size_t num_args, const char *what, tt_pjrt_buffer_t **outs);

/* out_devices[d] := the device (index into the addressable devices) whose
 * arguments go in row d of tt_pjrt_execute_replicated, i.e. where replica d's
 * inputs must be uploaded. out_devices has room for max_replicas entries. */
tt_status_t tt_pjrt_executable_replica_devices(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe,
                                               int *out_devices, size_t max_replicas);

/* Finds the default plugin path: TORCH_TPU_PJRT_PLUGIN, then libtpu when a
 * TPU is present (TPU_LIBRARY_PATH), both read from env, then `fallback` (the
 * packaged CPU plugin, passed in by the caller that knows where it is
 * installed). *out_path is owned by the caller. */
tt_status_t tt_pjrt_discover_plugin(const tt_env_t *env, const char *fallback, char **out_path);

#endif
