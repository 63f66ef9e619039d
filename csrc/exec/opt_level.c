/* The engine's XLA optimization level (exec/opt_level.h). */
#include "exec/opt_level.h"

#include <stdio.h>
#include <string.h>

#define CPU_DEFAULT 1

int tt_opt_level_from_env(const tt_env_t *env, const char *platform) {
  int dflt = platform && strcmp(platform, "cpu") == 0 ? CPU_DEFAULT : -1;
  int64_t v = tt_env_count(env, TT_ENV_XLA_OPT_LEVEL, dflt);
  if (v > TT_OPT_LEVEL_MAX) {
    fprintf(stderr, "torchtpu: warning: TORCH_TPU_XLA_OPTIMIZATION_LEVEL=%lld is above %d; using the default\n",
            (long long)v, TT_OPT_LEVEL_MAX);
    return dflt;
  }
  return (int)v;
}
