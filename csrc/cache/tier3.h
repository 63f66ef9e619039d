/* Tier 3 of the compile cache: a persistent directory that outlives processes
 * and jobs. On by default in a per-user cache directory
 * ($XDG_CACHE_HOME/torchtpu/compile, else ~/.cache/torchtpu/compile, created
 * 0700); TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=<dir> names another one, =off
 * (or 0/false/no) turns it off. It may be a remote file system mounted as a
 * directory: entries are written durably (fsync, then rename), and nothing
 * relies on file locks. */
#ifndef TT_CACHE_TIER3_H
#define TT_CACHE_TIER3_H

#include <stddef.h>

#include "base/env.h"
#include "cache/store.h"

/* *out_dir is NULL when the environment turns tier 3 off; an error when the
 * directory cannot be created or written (the engine then warns and runs
 * without it). */
tt_status_t tt_tier3_open_from_env(const tt_env_t *env, tt_cache_dir_t **out_dir);

/* Whether a TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT value means off. */
int tt_tier3_root_is_off(const char *root);

/* The per-user default directory, into buf. */
tt_status_t tt_tier3_default_root(const tt_env_t *env, char *buf, size_t size);

#endif
