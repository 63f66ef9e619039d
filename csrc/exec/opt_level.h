/* XLA's backend optimization level for the engine's compiles: how much
 * compile time buys code speed. On XLA's CPU plugin level 1 compiles
 * small programs ~30% faster than XLA's default 3 (large ones 3-10%) with
 * code as fast (README "Compile time"), so it is the default there;
 * other plugins keep their own default (unmeasured: a TPU or GPU backend
 * may trade differently). TORCH_TPU_XLA_OPTIMIZATION_LEVEL=0..3 sets it for
 * every plugin. Tiered compilation's quick compiles use 0 whatever this
 * says. The level is part of the compile-options key, so executables of
 * another level are never loaded from tiers 2/3 in its place. */
#ifndef TT_EXEC_OPT_LEVEL_H
#define TT_EXEC_OPT_LEVEL_H

#include "base/env.h"

#define TT_OPT_LEVEL_MAX 3

/* The level for a plugin of platform `platform` ("cpu", "tpu", "cuda"):
 * the environment's, else the platform's default; -1 is the plugin's own.
 * A value above TT_OPT_LEVEL_MAX warns and is ignored. */
int tt_opt_level_from_env(const tt_env_t *env, const char *platform);

#endif
