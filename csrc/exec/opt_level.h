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
 * false): measured here (bench/bench_small_programs.py), a small program
 * compiles in 0.59x the time (21.7 -> 12.7 ms), and up to 8192 elements a
 * column sum, exp and softmax run as fast; a column sum at 16384 elements
 * ran 1.7x slower, at 2M elements 8x, hence a bound; matrix products ran
 * 1.2-1.5x slower at every size, so a module with a dot_general or a
 * convolution is never small. Values differ from the fusion emitters' in
 * the last bit at most (erf, softmax, gelu in float32). The bound:
 * TORCH_TPU_SMALL_PROGRAM_ELEMENTS, default 8192 on platform "cpu", 0
 * (never) elsewhere (the option is XLA CPU's). It is part of the
 * compile-options key; whether a module is small is a function of its
 * text, which the key's module hash covers. */
#define TT_SMALL_PROGRAM_CPU_DEFAULT 8192
int64_t tt_small_program_bound_from_env(const tt_env_t *env, const char *platform);
/* Whether every tensor type in the module text has at most `bound` elements
 * (0: never small; a dynamic dimension is not small). */
int tt_module_is_small(const char *text, size_t len, int64_t bound);

#endif
