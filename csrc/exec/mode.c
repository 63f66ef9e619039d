/* Eager mode names, environment selection and the context's current mode. */
#include "exec/mode.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec/engine.h"

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

tt_eager_mode_t tt_eager_mode_from_env(const tt_env_t *env) {
  if (tt_env_flag(env, TT_ENV_DEFER_AND_FUSE, 0)) return TT_MODE_DEFER_AND_FUSE;
  if (tt_env_flag(env, TT_ENV_LAUNCH_BLOCKING, 0)) return TT_MODE_DEBUG;
  return TT_MODE_STRICT;
}

tt_status_t tt_set_eager_mode(tt_engine_t *e, tt_eager_mode_t mode) {
  if (mode != TT_MODE_STRICT && mode != TT_MODE_DEBUG && mode != TT_MODE_DEFER_AND_FUSE)
    return tt_status_make(TT_VALUE_ERROR, "unknown eager mode %d", (int)mode);
  /* Work deferred under the old mode runs first (a materialization point);
   * the mode switches even when that work fails (its error is returned), so
   * a context that restores a mode after an error does restore it. */
  tt_status_t s = tt_region_flush(e, "switching the eager mode");
  e->mode = mode;
  tt_repeat_reset(&e->repeat);
  if (s) return s;
  /* Flags of launches already done; waiting here would be a new sync. */
  return tt_async_errors_check(e, 0);
}

tt_eager_mode_t tt_get_eager_mode(const tt_engine_t *e) { return e->mode; }
