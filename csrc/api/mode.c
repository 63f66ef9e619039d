/* Eager mode names, environment selection and the context's current mode. */
#include "api/mode.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/context.h"
#include "exec/async_errors.h"
#include "exec/region.h"
#include "exec/repeat.h"

static const char *const kNames[] = {"strict", "debug", "defer_and_fuse"};

const char *tt_eager_mode_name(tt_eager_mode_t mode) {
  return (unsigned)mode < sizeof kNames / sizeof kNames[0] ? kNames[mode] : "unknown";
}

tt_status_t tt_eager_mode_parse(const char *name, tt_eager_mode_t *out_mode) {
  for (unsigned i = 0; i < sizeof kNames / sizeof kNames[0]; i++) {
    if (!strcasecmp(name, kNames[i])) {
      *out_mode = (tt_eager_mode_t)i;
      return TT_OK_STATUS;
    }
  }
  return tt_status_make(TT_VALUE_ERROR, "unknown eager mode '%s'; expected one of 'strict', 'debug', 'defer_and_fuse'", name);
}

static int env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") && strcasecmp(v, "false") && strcasecmp(v, "off");
}

tt_eager_mode_t tt_eager_mode_from_env(void) {
  if (env_on("TORCH_TPU_DEFER_AND_FUSE")) return TT_MODE_DEFER_AND_FUSE;
  if (env_on("TORCH_TPU_LAUNCH_BLOCKING")) return TT_MODE_DEBUG;
  return TT_MODE_STRICT;
}

tt_status_t tt_set_eager_mode(tt_eager_mode_t mode) {
  tt_ctx_t *c = tt_ctx();
  if (!c) return tt_status_make(TT_UNAVAILABLE, "torchtpu is not initialized");
  if (mode != TT_MODE_STRICT && mode != TT_MODE_DEBUG && mode != TT_MODE_DEFER_AND_FUSE)
    return tt_status_make(TT_VALUE_ERROR, "unknown eager mode %d", (int)mode);
  /* Work deferred under the old mode runs first (a materialization point). */
  TT_RETURN_IF_ERROR(tt_region_flush("switching the eager mode"));
  c->mode = mode;
  tt_repeat_reset();
  /* Flags of launches already done; waiting here would be a new sync. */
  return tt_async_errors_check(0);
}

tt_eager_mode_t tt_get_eager_mode(void) {
  tt_ctx_t *c = tt_ctx();
  return c ? c->mode : TT_MODE_STRICT;
}
