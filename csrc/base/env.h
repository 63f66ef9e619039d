/* The environment variables the core reads, declared once (name, kind,
 * default, meaning) and read once: an engine takes a snapshot when it is
 * created (tt_env_read) and every part of the core reads its values from that
 * snapshot, never from getenv. README's table lists the same variables
 * (tests/python/test_env.py checks both ways). */
#ifndef TT_BASE_ENV_H
#define TT_BASE_ENV_H

#include <stdint.h>

typedef enum tt_env_id_e {
  TT_ENV_PJRT_PLUGIN,
  TT_ENV_PJRT_CLIENT_OPTIONS,
  TT_ENV_TPU_LIBRARY_PATH,
  TT_ENV_DEFER_AND_FUSE,
  TT_ENV_LAUNCH_BLOCKING,
  TT_ENV_DETECT_REPEATED_OPS,
  TT_ENV_DEFER_CHUNK_OPS,
  TT_ENV_DUMP_HLO_ON_ERROR,
  TT_ENV_DUMP_MODULES_TO,
  TT_ENV_CPU_FALLBACK,
  TT_ENV_EAGER_BUCKETS,
  TT_ENV_EAGER_BUCKET_MIN,
  TT_ENV_FUSE_COMPILED_CALLS,
  TT_ENV_TIER1_MAX_ENTRIES,
  TT_ENV_TIER2,
  TT_ENV_TIER2_DIR,
  TT_ENV_TIER2_MAX_BYTES,
  TT_ENV_TIER3_ROOT,
  TT_ENV_TIER3_MAX_BYTES,
  TT_ENV_ASYNC_COMPILE,
  TT_ENV_COMPILE_THREADS,
  TT_ENV_TIERED_COMPILE,
  TT_ENV_XLA_OPT_LEVEL,
  TT_ENV_SMALL_PROGRAM_ELEMENTS,
  TT_ENV_WORLD_SIZE,
  TT_ENV_XDG_CACHE_HOME,
  TT_ENV_HOME,
  TT_ENV_COUNT
} tt_env_id_t;

typedef enum tt_env_kind_e {
  TT_ENV_FLAG,  /* on: set and not 0/false/no/off; off: unset, empty or one of those */
  TT_ENV_COUNT_VALUE, /* a non-negative integer */
  TT_ENV_BYTES, /* a size: 512M, 20G, ... (cache/sweep.h) */
  TT_ENV_TEXT,  /* a path or a name */
} tt_env_kind_t;

typedef struct tt_env_decl_s {
  const char *name;
  tt_env_kind_t kind;
  const char *dflt; /* the default, in words */
  const char *doc;  /* what it does */
} tt_env_decl_t;

/* The declaration of id (NULL past TT_ENV_COUNT). */
const tt_env_decl_t *tt_env_decl(int id);

/* One reading of the environment: each declared variable's text, or NULL
 * when unset or empty. Owned; freed by tt_env_free. */
typedef struct tt_env_s {
  char *text[TT_ENV_COUNT];
} tt_env_t;

void tt_env_read(tt_env_t *env);
void tt_env_free(tt_env_t *env);

const char *tt_env_text(const tt_env_t *env, tt_env_id_t id);
/* A flag's value; dflt when unset or empty. */
int tt_env_flag(const tt_env_t *env, tt_env_id_t id, int dflt);
/* A count's value; dflt when unset, empty or not a non-negative integer (a
 * warning names the variable then). */
int64_t tt_env_count(const tt_env_t *env, tt_env_id_t id, int64_t dflt);

#endif
