/* Tier 2 of the compile cache: a machine-local store shared by the processes
 * of one host (a directory in /dev/shm, private to the user). On by default
 * when WORLD_SIZE > 1 (several ranks on one host compile the same programs);
 * TORCH_TPU_TIER2_COMPILATION_CACHE=1/0 forces it on or off, and
 * TORCH_TPU_TIER2_COMPILATION_CACHE_DIR moves it. */
#ifndef TT_CACHE_TIER2_H
#define TT_CACHE_TIER2_H

#include "base/env.h"
#include "cache/store.h"

/* *out_dir is NULL when the environment leaves tier 2 off. */
tt_status_t tt_tier2_open_from_env(const tt_env_t *env, tt_cache_dir_t **out_dir);

#endif
