/* Choosing which PJRT plugin to load when the user did not say. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/env.h"
#include "pjrt/pjrt_internal.h"

/* A TPU VM exposes its chips as /dev/accel* (older) or through VFIO (newer). */
static int tpu_present(void) {
  return access("/dev/accel0", F_OK) == 0 || access("/dev/vfio/0", F_OK) == 0;
}

tt_status_t tt_pjrt_discover_plugin(const tt_env_t *env, const char *fallback, char **out_path) {
  *out_path = NULL;
  const char *path = tt_env_text(env, TT_ENV_PJRT_PLUGIN);
  /* libtpu's own variable; only worth it when a TPU is there to drive. */
  if (!path && tpu_present()) path = tt_env_text(env, TT_ENV_TPU_LIBRARY_PATH);
  if (!path && fallback && fallback[0]) path = fallback;
  if (!path)
    return tt_status_make(TT_UNAVAILABLE,
                          "no PJRT plugin found: set TORCH_TPU_PJRT_PLUGIN to the path of a "
                          "PJRT plugin .so");
  *out_path = tt_strdup(path);
  return *out_path ? TT_OK_STATUS : tt_status_make(TT_OUT_OF_MEMORY, "out of host memory");
}
