/* Tier 3 policy: the persistent directory, a per-user cache directory by
 * default (as inductor's and JAX's are), or the one the environment names. */
#include "cache/tier3.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cache/sweep.h"

/* A persistent directory shared by jobs: generous, but bounded. */
#define TIER3_DEFAULT_MAX_BYTES (20ull << 30)

#define DEFAULT_DIR_CONTEXT                                                                       \
  "tier-3 compilation cache (default per-user directory; TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=<dir> " \
  "moves it, =off turns it off)"

int tt_tier3_root_is_off(const char *root) {
  return !strcmp(root, "0") || !strcasecmp(root, "off") || !strcasecmp(root, "false") || !strcasecmp(root, "no");
}

/* $XDG_CACHE_HOME/torchtpu/compile (an absolute XDG_CACHE_HOME only, as the
 * XDG spec asks), else <home>/.cache/torchtpu/compile with <home> from HOME or
 * the password database. */
tt_status_t tt_tier3_default_root(const tt_env_t *env, char *buf, size_t size) {
  const char *xdg = tt_env_text(env, TT_ENV_XDG_CACHE_HOME);
  int n;
  if (xdg && xdg[0] == '/') {
    n = snprintf(buf, size, "%s/torchtpu/compile", xdg);
  } else {
    const char *home = tt_env_text(env, TT_ENV_HOME);
    struct passwd pw, *found = NULL;
    char pwbuf[4096];
    if (!home || home[0] != '/') {
      if (!getpwuid_r(getuid(), &pw, pwbuf, sizeof pwbuf, &found) && found && found->pw_dir &&
          found->pw_dir[0] == '/')
        home = found->pw_dir;
      else
        return tt_status_make(TT_INVALID_ARGUMENT, "no home directory (HOME unset and uid %lu has no passwd entry)",
                              (unsigned long)getuid());
    }
    n = snprintf(buf, size, "%s/.cache/torchtpu/compile", home);
  }
  if (n < 0 || (size_t)n >= size) return tt_status_make(TT_INVALID_ARGUMENT, "default cache path is too long");
  return TT_OK_STATUS;
}

tt_status_t tt_tier3_open_from_env(const tt_env_t *env, tt_cache_dir_t **out_dir) {
  *out_dir = NULL;
  const char *root = tt_env_text(env, TT_ENV_TIER3_ROOT);
  if (root && tt_tier3_root_is_off(root)) return TT_OK_STATUS;
  char path[4096];
  if (!root) {
    tt_status_t s = tt_tier3_default_root(env, path, sizeof path);
    if (s) return tt_status_annotate(s, DEFAULT_DIR_CONTEXT);
  } else {
    snprintf(path, sizeof path, "%s", root);
  }
  tt_cache_dir_options_t o = {
      /* The per-user default is created private, as tier 2 is; a root the
       * user names may be a directory shared by jobs: the umask decides. */
      .private_dir = !root,
      .durable = 1,
      .max_bytes = tt_cache_parse_bytes(tt_env_text(env, TT_ENV_TIER3_MAX_BYTES), TIER3_DEFAULT_MAX_BYTES)};
  tt_status_t s = tt_cache_dir_open(path, &o, out_dir);
  if (!s) return TT_OK_STATUS;
  return root ? tt_status_annotate(s, "tier-3 compilation cache (TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT)")
              : tt_status_annotate(s, DEFAULT_DIR_CONTEXT);
}
