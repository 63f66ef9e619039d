/* Tier 3 policy: the persistent directory named by the environment. */
#include "cache/tier3.h"

#include <stdlib.h>

#include "cache/sweep.h"

/* A persistent directory shared by jobs: generous, but bounded. */
#define TIER3_DEFAULT_MAX_BYTES (20ull << 30)

tt_status_t tt_tier3_open_from_env(const tt_env_t *env, tt_cache_dir_t **out_dir) {
  *out_dir = NULL;
  const char *root = tt_env_text(env, TT_ENV_TIER3_ROOT);
  if (!root) return TT_OK_STATUS;
  tt_cache_dir_options_t o = {
      .private_dir = 0,
      .durable = 1,
      .max_bytes = tt_cache_parse_bytes(tt_env_text(env, TT_ENV_TIER3_MAX_BYTES), TIER3_DEFAULT_MAX_BYTES)};
  tt_status_t s = tt_cache_dir_open(root, &o, out_dir);
  return s ? tt_status_annotate(s, "tier-3 compilation cache (TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT)") : TT_OK_STATUS;
}
