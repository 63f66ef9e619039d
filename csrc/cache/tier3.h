/* Tier 3 of the compile cache: a persistent directory that outlives processes
 * and jobs, TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=<dir> (off when unset). It
 * may be a remote file system mounted as a directory: entries are written
 * durably (fsync, then rename), and nothing relies on file locks. */
#ifndef TT_CACHE_TIER3_H
#define TT_CACHE_TIER3_H

#include "base/env.h"
#include "cache/store.h"

/* *out_dir is NULL when the environment leaves tier 3 off. */
tt_status_t tt_tier3_open_from_env(const tt_env_t *env, tt_cache_dir_t **out_dir);

#endif
