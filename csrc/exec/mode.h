/* Eager execution modes: how each op is launched (strict, debug,
 * defer-and-fuse; see exec/region.h). The mode lives in the context.
 * Thread safety: none; set and read with the binding's lock (the GIL) held. */
#ifndef TT_EXEC_MODE_H
#define TT_EXEC_MODE_H

#include "base/env.h"
#include "base/status.h"
#include "exec/engine_type.h"

typedef enum tt_eager_mode_e {
  TT_MODE_STRICT = 0,     /* one op at a time, asynchronous (default) */
  TT_MODE_DEBUG,          /* one op at a time, waits for each, checks indices */
  TT_MODE_DEFER_AND_FUSE, /* ops recorded in one region, fused at materialization */
} tt_eager_mode_t;

/* "strict", "debug", "defer_and_fuse". */
const char *tt_eager_mode_name(tt_eager_mode_t mode);
/* Parses a name (case-insensitive); an unknown name is a ValueError. */
tt_status_t tt_eager_mode_parse(const char *name, tt_eager_mode_t *out_mode);
/* The mode chosen by the environment: TORCH_TPU_DEFER_AND_FUSE=1 selects
 * defer-and-fuse, else TORCH_TPU_LAUNCH_BLOCKING=1 selects debug, else strict. */
tt_eager_mode_t tt_eager_mode_from_env(const tt_env_t *env);
/* Sets the context's mode, after running any deferred work. */
tt_status_t tt_set_eager_mode(tt_engine_t *e, tt_eager_mode_t mode);
tt_eager_mode_t tt_get_eager_mode(const tt_engine_t *e);

#endif
