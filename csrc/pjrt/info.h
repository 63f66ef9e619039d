/* What a plugin says of itself and of its device memory: value types,
 * readable above the PJRT layer (the facade's runtime and memory reports). */
#ifndef TT_PJRT_INFO_H
#define TT_PJRT_INFO_H

#include <stddef.h>
#include <stdint.h>

typedef struct tt_pjrt_info_s {
  const char *plugin_path;      /* borrowed, valid while the runtime lives */
  const char *platform_name;    /* "cpu", "tpu", "cuda" */
  const char *platform_version;
  const char *device_kind;
  const char *xla_version;      /* plugin attribute, "" if not reported */
  int api_major, api_minor;     /* what the plugin reports */
  int num_devices;              /* addressable devices */
  uint64_t identity;            /* fingerprint of plugin path+platform+versions */
} tt_pjrt_info_t;

typedef struct tt_pjrt_memory_s {
  int64_t bytes_in_use, peak_bytes_in_use, bytes_limit, bytes_reserved, peak_bytes_reserved;
} tt_pjrt_memory_t;

#endif
