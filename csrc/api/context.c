/* Creation and teardown of the process-wide context. */
#include "api/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/engine_lock.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "exec/compile_pool.h"
#include "exec/inflight.h"
#include "exec/region.h"
#include "exec/scalars.h"

static tt_ctx_t *g_ctx;

tt_ctx_t *tt_ctx(void) { return g_ctx; }

/* A cache tier that cannot be opened is left off with a warning: the
 * process still runs correctly, only compiles more. */
static void open_tier(tt_status_t (*open_fn)(tt_cache_dir_t **), tt_cache_dir_t **out_dir) {
  tt_status_t s = open_fn(out_dir);
  if (!s) return;
  fprintf(stderr, "torchtpu: warning: %s; continuing without it\n", tt_status_message(s));
  tt_status_free(s);
  *out_dir = NULL;
}

tt_status_t tt_init(const char *fallback_plugin) {
  if (g_ctx) return TT_OK_STATUS;
  char *path = NULL;
  TT_RETURN_IF_ERROR(tt_pjrt_discover_plugin(fallback_plugin, &path));
  tt_ctx_t *c = tt_calloc(1, sizeof(*c));
  if (!c) {
    tt_free(path);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory creating the context");
  }
  tt_pjrt_options_t opts = {1};
  tt_status_t s = tt_pjrt_runtime_create(path, &opts, &c->rt);
  tt_free(path);
  if (!s) s = tt_tier1_create(c->rt, tt_tier1_max_entries_from_env(), &c->tier1);
  if (s) {
    if (c->rt) tt_pjrt_runtime_destroy(c->rt);
    tt_free(c);
    return s;
  }
  const tt_pjrt_info_t *info = tt_pjrt_runtime_info(c->rt);
  c->options_key = tt_hash_str(tt_hash_u64(TT_HASH_SEED, info->identity), "replicas=1;partitions=1;" TT_VERSION);
  c->rng_seed = 67280421310721ULL; /* PyTorch's default seed */
  g_ctx = c;
  s = tt_set_eager_mode(tt_eager_mode_from_env());
  if (s) {
    tt_shutdown();
    return tt_status_annotate(s, "eager mode from the environment");
  }
  open_tier(tt_tier2_open_from_env, &c->tier2);
  open_tier(tt_tier3_open_from_env, &c->tier3);
  tt_engine_arm_fork_guard(); /* a child forked from now on must not touch the device */
  return TT_OK_STATUS;
}

void tt_shutdown(void) {
  tt_ctx_t *c = g_ctx;
  if (!c) return;
  tt_region_shutdown(); /* runs queued launches: no compile job is left but cancelled ones */
  tt_status_free(tt_inflight_wait_all());
  tt_compile_pool_shutdown();
  tt_scalars_clear();
  tt_tier1_destroy(c->tier1);
  tt_cache_dir_close(c->tier2);
  tt_cache_dir_close(c->tier3);
  tt_pjrt_runtime_destroy(c->rt);
  tt_free(c);
  g_ctx = NULL;
}
