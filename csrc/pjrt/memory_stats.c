/* PJRT_Device_MemoryStats: the plugin allocator's counters for device 0. */
#include <string.h>

#include "pjrt/pjrt_internal.h"

int tt_pjrt_device_memory(tt_pjrt_runtime_t *rt, tt_pjrt_memory_t *out) {
  out->bytes_in_use = out->peak_bytes_in_use = out->bytes_limit = -1;
  out->bytes_reserved = out->peak_bytes_reserved = -1;
  const PJRT_Api *api = rt->plugin.api;
  if (!api->fn[TT_PJRT_SLOT_Device_MemoryStats] || rt->num_devices == 0) return 0;
  TT_PJRT_ARGS(PJRT_Device_MemoryStats_Args, a, peak_pool_bytes_is_set);
  a.device = rt->devices[0];
  tt_status_t st = tt_pjrt_error_status(&rt->plugin, TT_PJRT_CALL(api, Device_MemoryStats, &a),
                                        "PJRT_Device_MemoryStats");
  if (st) {
    tt_status_free(st);
    return 0;
  }
  out->bytes_in_use = a.bytes_in_use;
  if (a.peak_bytes_in_use_is_set) out->peak_bytes_in_use = a.peak_bytes_in_use;
  if (a.bytes_limit_is_set) out->bytes_limit = a.bytes_limit;
  if (a.bytes_reserved_is_set) out->bytes_reserved = a.bytes_reserved;
  if (a.peak_bytes_reserved_is_set) out->peak_bytes_reserved = a.peak_bytes_reserved;
  return 1;
}
