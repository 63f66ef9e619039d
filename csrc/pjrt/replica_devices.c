/* Where each replica of a replicated executable runs: the device its
 * arguments must be uploaded to (the compiler's device assignment decides). */
#include <string.h>

#include "pjrt/pjrt_internal.h"

tt_status_t tt_pjrt_executable_replica_devices(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe,
                                               int *out_devices, size_t max_replicas) {
  TT_PJRT_ARGS(PJRT_LoadedExecutable_AddressableDevices_Args, a, num_addressable_devices);
  a.executable = exe->exe;
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(rt->plugin.api, LoadedExecutable_AddressableDevices, &a),
      "PJRT_LoadedExecutable_AddressableDevices"));
  if (a.num_addressable_devices != (size_t)exe->num_replicas || a.num_addressable_devices > max_replicas)
    return tt_status_make(TT_INTERNAL,
                          "executable with %d replicas runs on %zu addressable devices (room for "
                          "%zu); one process must hold every replica",
                          exe->num_replicas, a.num_addressable_devices, max_replicas);
  /* Execute's argument list d goes to the executable's d-th addressable device. */
  for (size_t d = 0; d < a.num_addressable_devices; d++) {
    out_devices[d] = -1;
    for (size_t k = 0; k < rt->num_devices; k++)
      if (rt->devices[k] == a.addressable_devices[d]) out_devices[d] = (int)k;
    if (out_devices[d] < 0)
      return tt_status_make(TT_INTERNAL,
                            "replica %zu of an executable runs on a device the client does not "
                            "list as addressable",
                            d);
  }
  return TT_OK_STATUS;
}
