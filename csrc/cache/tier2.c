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

static int enabled(void) {
  const char *v = getenv("TORCH_TPU_TIER2_COMPILATION_CACHE");
  if (v && *v) return strcmp(v, "0") && strcmp(v, "false") && strcmp(v, "off");
  const char *ws = getenv("WORLD_SIZE");
  return ws && atoi(ws) > 1;
}

tt_status_t tt_tier2_open_from_env(tt_cache_dir_t **out_dir) {
  *out_dir = NULL;
  if (!enabled()) return TT_OK_STATUS;
  char path[4096];
  const char *dir = getenv("TORCH_TPU_TIER2_COMPILATION_CACHE_DIR");
  if (dir && *dir) {
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
      .max_bytes = tt_cache_parse_bytes(getenv("TORCH_TPU_TIER2_COMPILATION_CACHE_MAX_BYTES"), TIER2_DEFAULT_MAX_BYTES)};
  tt_status_t s = tt_cache_dir_open(path, &o, out_dir);
  return s ? tt_status_annotate(s, "tier-2 compilation cache") : TT_OK_STATUS;
}
