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

#include <stddef.h>
#include <stdint.h>

#include "base/env.h"

#define TT_OPT_LEVEL_MAX 3

/* The level for a plugin of platform `platform` ("cpu", "tpu", "cuda"):
 * the environment's, else the platform's default; -1 is the plugin's own.
 * A value above TT_OPT_LEVEL_MAX warns and is ignored. */
int tt_opt_level_from_env(const tt_env_t *env, const char *platform);

/* Small programs on XLA's CPU plugin compile with its classic (elemental IR)
 * emitters instead of its fusion emitters (xla_cpu_use_fusion_emitters =
 * false): measured here, programs over a few thousand elements compile
 * ~35% faster (a small elementwise program 21 -> 14 ms), and up to 16384
 * elements run as fast; at 65536 elements a column sum or a softmax runs
 * 15-30% slower, larger ones up to 8x, hence a bound. Values differ from the
 * fusion emitters' in the last bit at most (erf, softmax, gelu in float32).
 * The bound: TORCH_TPU_SMALL_PROGRAM_ELEMENTS, default 16384 on platform
 * "cpu", 0 (never) elsewhere (the option is XLA CPU's). It is part of the
 * compile-options key; whether a module is small is a function of its text,
 * which the key's module hash covers. */
#define TT_SMALL_PROGRAM_CPU_DEFAULT 16384
int64_t tt_small_program_bound_from_env(const tt_env_t *env, const char *platform);
/* Whether every tensor type in the module text has at most `bound` elements
 * (0: never small; a dynamic dimension is not small). */
int tt_module_is_small(const char *text, size_t len, int64_t bound);

#endif
