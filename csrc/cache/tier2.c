/* Tier 2 policy: whether it is on, and its host-local directory. */
#include "cache/tier2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/sweep.h"

/* /dev/shm is memory: a modest default limit. */
#define TIER2_DEFAULT_MAX_BYTES (2ull << 30)

static int enabled(const tt_env_t *env) {
  return tt_env_flag(env, TT_ENV_TIER2, tt_env_count(env, TT_ENV_WORLD_SIZE, 1) > 1);
}

tt_status_t tt_tier2_open_from_env(const tt_env_t *env, tt_cache_dir_t **out_dir) {
  *out_dir = NULL;
  if (!enabled(env)) return TT_OK_STATUS;
  char path[4096];
  const char *dir = tt_env_text(env, TT_ENV_TIER2_DIR);
  if (dir) {
    snprintf(path, sizeof path, "%s", dir);
  } else {
    /* /dev/shm is memory-backed and host-local; one directory per user so
     * that no user loads another's files. */
    struct stat st;
    const char *base = !stat("/dev/shm", &st) && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof path, "%s/torchtpu-cache-%lu", base, (unsigned long)getuid());
  }
  tt_cache_dir_options_t o = {
      .private_dir = 1,
      .durable = 0,
      .max_bytes = tt_cache_parse_bytes(tt_env_text(env, TT_ENV_TIER2_MAX_BYTES), TIER2_DEFAULT_MAX_BYTES)};
  tt_status_t s = tt_cache_dir_open(path, &o, out_dir);
  return s ? tt_status_annotate(s, "tier-2 compilation cache") : TT_OK_STATUS;
}
