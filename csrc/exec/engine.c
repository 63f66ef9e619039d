/* Creation and teardown of an engine. */
#include "exec/engine.h"

#include <stdio.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "exec/opt_level.h"
#include "ops/bucket.h"

/* A cache tier that cannot be opened is left off with a warning: the
 * engine still runs correctly, only compiles more. */
static void open_tier(tt_status_t (*open_fn)(const tt_env_t *, tt_cache_dir_t **), const tt_env_t *env,
                      tt_cache_dir_t **out_dir) {
  tt_status_t s = open_fn(env, out_dir);
  if (!s) return;
  fprintf(stderr, "torchtpu: warning: %s; continuing without it\n", tt_status_message(s));
  tt_status_free(s);
  *out_dir = NULL;
}

tt_status_t tt_engine_create(const char *fallback_plugin, tt_engine_t **out_engine) {
  tt_engine_t *e = tt_calloc(1, sizeof(*e));
  if (!e) return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory creating the engine");
  tt_env_read(&e->env);
  char *path = NULL;
  tt_status_t ds = tt_pjrt_discover_plugin(&e->env, fallback_plugin, &path);
  if (ds) {
    tt_env_free(&e->env);
    tt_free(e);
    return ds;
  }
  tt_pjrt_options_t opts = {.cpu_device_count = 1,
                           .client_options = tt_env_text(&e->env, TT_ENV_PJRT_CLIENT_OPTIONS)};
  tt_status_t s = tt_pjrt_runtime_create(path, &opts, &e->rt);
  tt_free(path);
  if (!s) s = tt_tier1_create(e->rt, tt_tier1_max_entries_from_env(&e->env), &e->tier1);
  if (s) {
    if (e->rt) tt_pjrt_runtime_destroy(e->rt);
    tt_env_free(&e->env);
    tt_free(e);
    return s;
  }
  const tt_pjrt_info_t *info = tt_pjrt_runtime_info(e->rt);
  e->opt_level = tt_opt_level_from_env(&e->env, info->platform_name);
  e->options_key = tt_hash_str(tt_hash_u64(TT_HASH_SEED, info->identity), "replicas=1;partitions=1;" TT_VERSION);
  if (e->opt_level >= 0) e->options_key = tt_hash_u64(e->options_key, (uint64_t)e->opt_level); /* exec/opt_level.h */
  e->small_program = tt_small_program_bound_from_env(&e->env, info->platform_name);
  if (e->small_program > 0) e->options_key = tt_hash_str(tt_hash_u64(e->options_key, (uint64_t)e->small_program), "small");
  e->options_key_exact = tt_hash_str(e->options_key, "xla_allow_excess_precision=false");
  e->rng_seed = 67280421310721ULL; /* PyTorch's default seed */
  e->mode = tt_eager_mode_from_env(&e->env);
  e->default_float = TT_F32;
  e->matmul_precision = TT_PREC_HIGHEST;
  e->eager_buckets = tt_env_flag(&e->env, TT_ENV_EAGER_BUCKETS, 0);
  e->eager_bucket_min = tt_env_count(&e->env, TT_ENV_EAGER_BUCKET_MIN, TT_BUCKET_MIN_DEFAULT);
  e->fuse_plans = tt_env_flag(&e->env, TT_ENV_FUSE_COMPILED_CALLS, 1);
  e->fallback.enabled = tt_env_flag(&e->env, TT_ENV_CPU_FALLBACK, 0); /* off by default, as in TorchTPU */
  tt_region_init(&e->region, &e->env);
  tt_compile_pool_init(&e->pool, e);
  e->tiered.forced = -1;
  open_tier(tt_tier2_open_from_env, &e->env, &e->tier2);
  open_tier(tt_tier3_open_from_env, &e->env, &e->tier3);
  *out_engine = e;
  return TT_OK_STATUS;
}

void tt_engine_set_allow_excess_precision(tt_engine_t *e, int allowed) { e->exact_precision = !allowed; }

uint64_t tt_engine_options_key(const tt_engine_t *e) { return e->exact_precision ? e->options_key_exact : e->options_key; }

void tt_engine_destroy(tt_engine_t *e) {
  if (!e) return;
  tt_region_shutdown(e); /* runs queued launches: no compile job is left but cancelled ones */
  tt_status_free(tt_inflight_wait_all(e));
  tt_retired_clear(e);
  tt_compile_pool_shutdown(e);
  tt_tiered_clear(e);
  pthread_mutex_destroy(&e->pool.mu);
  pthread_cond_destroy(&e->pool.work_cv);
  pthread_cond_destroy(&e->pool.done_cv);
  tt_scalars_clear(e);
  tt_fallback_reset(&e->fallback);
  tt_free(e->call_scratch);
  tt_free(e->pointwise_ops);
  tt_free(e->inplace_iterator_ops);
  tt_tier1_destroy(e->tier1);
  tt_cache_dir_close(e->tier2);
  tt_cache_dir_close(e->tier3);
  tt_pjrt_runtime_destroy(e->rt);
  tt_env_free(&e->env);
  tt_free(e);
}
