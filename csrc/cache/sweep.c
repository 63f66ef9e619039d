/* Keeps a cache directory within its size limit (least recently used
 * entries go first) and removes temporary files that crashed writers left. */
#include "cache/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"

typedef struct file_s {
  double mtime;
  uint64_t bytes;
  char name[256];
} file_t;

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static int by_age(const void *a, const void *b) {
  double x = ((const file_t *)a)->mtime, y = ((const file_t *)b)->mtime;
  return x < y ? -1 : x > y;
}

tt_status_t tt_cache_sweep(const char *dir, uint64_t max_bytes, uint64_t target_bytes, double stale_tmp_seconds,
                           tt_cache_sweep_result_t *out) {
  memset(out, 0, sizeof *out);
  DIR *dp = opendir(dir);
  if (!dp) return tt_status_make(TT_UNAVAILABLE, "cache: cannot list '%s' to enforce its size limit: %s", dir, strerror(errno));
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  double t_now = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
  file_t *files = NULL;
  size_t n = 0, cap = 0;
  tt_status_t s = TT_OK_STATUS;
  char path[4400];
  struct dirent *e;
  while ((e = readdir(dp))) {
    int entry = ends_with(e->d_name, ".ttx") && e->d_name[0] != '.';
    /* temp files, and compile claims (cache/claim.h) of owners long gone */
    int tmp = (e->d_name[0] == '.' && ends_with(e->d_name, ".tmp")) || ends_with(e->d_name, ".claim");
    if ((!entry && !tmp) || strlen(e->d_name) >= sizeof files[0].name) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode)) continue; /* gone meanwhile: another sweeper */
    double mtime = (double)st.st_mtim.tv_sec + 1e-9 * (double)st.st_mtim.tv_nsec;
    if (tmp) {
      /* A writer renames its temp file within seconds; one this old belongs to
       * a process that died mid-write. Young ones may be in use: kept. */
      if (t_now - mtime > stale_tmp_seconds && !unlink(path)) out->stale_temps_removed++;
      continue;
    }
    if (n == cap) {
      size_t ncap = cap ? 2 * cap : 64;
      file_t *nf = tt_realloc(files, ncap * sizeof *nf);
      if (!nf) {
        s = tt_status_make(TT_OUT_OF_MEMORY, "cache: out of host memory listing '%s'", dir);
        break;
      }
      files = nf;
      cap = ncap;
    }
    files[n].mtime = mtime;
    files[n].bytes = (uint64_t)st.st_size;
    strcpy(files[n].name, e->d_name);
    out->bytes += files[n].bytes;
    n++;
  }
  closedir(dp);
  out->entries = n;
  if (!s && max_bytes && out->bytes > max_bytes) {
    /* Oldest modification first: a hit refreshes an entry's time (see
     * tt_cache_dir_get), so this is least-recently-used order. Evicting down
     * to a target below the limit keeps sweeps rare. A reader that opened an
     * evicted file still reads it whole (POSIX unlink semantics); a later
     * reader sees a miss and recompiles. */
    qsort(files, n, sizeof *files, by_age);
    for (size_t i = 0; i < n && out->bytes > target_bytes; i++) {
      snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
      if (unlink(path) && errno != ENOENT) continue;
      out->bytes -= files[i].bytes;
      out->entries--;
      out->evicted++;
    }
  }
  tt_free(files);
  return s;
}

uint64_t tt_cache_parse_bytes(const char *text, uint64_t fallback) {
  if (!text || !*text) return fallback;
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || v < 0) return fallback;
  double scale = 1;
  switch (*end) {
    case 'k': case 'K': scale = 1024.0; end++; break;
    case 'm': case 'M': scale = 1024.0 * 1024; end++; break;
    case 'g': case 'G': scale = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
  }
  if (*end == 'i') end++;
  if (*end == 'B' || *end == 'b') end++;
  if (*end) return fallback;
  return (uint64_t)(v * scale);
}
