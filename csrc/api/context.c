/* Creation and teardown of the process-wide context. */
#include "api/context.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "exec/inflight.h"
#include "exec/region.h"
#include "exec/scalars.h"

static tt_ctx_t *g_ctx;

tt_ctx_t *tt_ctx(void) { return g_ctx; }

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
  if (!s) s = tt_tier1_create(&c->tier1);
  if (s) {
    if (c->rt) tt_pjrt_runtime_destroy(c->rt);
    tt_free(c);
    return s;
  }
  const tt_pjrt_info_t *info = tt_pjrt_runtime_info(c->rt);
  c->options_key = tt_hash_str(tt_hash_u64(TT_HASH_SEED, info->identity), "replicas=1;partitions=1;" TT_VERSION);
  c->rng_seed = 67280421310721ULL; /* PyTorch's default seed */
  g_ctx = c;
  /* Eager mode at start: TORCH_TPU_LAUNCH_BLOCKING=1 selects Debug,
   * TORCH_TPU_DEFER_AND_FUSE=1 DeferAndFuse, Strict otherwise. */
  const char *blocking = getenv("TORCH_TPU_LAUNCH_BLOCKING"), *defer = getenv("TORCH_TPU_DEFER_AND_FUSE");
  if (blocking && strcmp(blocking, "0") && *blocking) tt_status_free(tt_region_set_mode(TT_MODE_DEBUG));
  else if (defer && strcmp(defer, "0") && *defer) tt_status_free(tt_region_set_mode(TT_MODE_DEFER_AND_FUSE));
  return TT_OK_STATUS;
}

void tt_shutdown(void) {
  tt_ctx_t *c = g_ctx;
  if (!c) return;
  tt_region_shutdown();
  tt_status_free(tt_inflight_wait_all());
  tt_scalars_clear();
  tt_tier1_destroy(c->tier1, c->rt);
  tt_pjrt_runtime_destroy(c->rt);
  tt_free(c);
  g_ctx = NULL;
}
