/* Directory-backed entry store: atomic writes by temp file + rename, reads
 * that validate. */
#include "cache/store.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "cache/sweep.h"

/* A writer renames its temp file right after writing it; an hour-old one is
 * a crashed writer's. */
#define STALE_TMP_SECONDS 3600.0

struct tt_cache_dir_s {
  char *path;
  tt_cache_dir_options_t opts;
  /* Threading: puts come from any thread (the compile pool's workers write
   * tier 3 concurrently). sweep_mu orders each put's count against sweeps, so
   * a sweep's directory total never overwrites the bytes of a put renamed
   * after its listing (which left the directory over its limit for good). */
  pthread_mutex_t sweep_mu;
  uint64_t known_bytes; /* entries' size at the last sweep + this process's puts since; under sweep_mu */
  int swept;            /* a first sweep ran; under sweep_mu */
  atomic_uint_fast64_t sweeps, evicted, stale_temps_removed;
};

static atomic_uint_fast64_t g_seq;

static tt_status_t mkdirs(const char *path, mode_t mode) {
  char buf[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof buf) return tt_status_make(TT_INVALID_ARGUMENT, "cache directory path '%s' is empty or too long", path);
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (buf[i] != '/' && buf[i] != '\0') continue;
    char c = buf[i];
    buf[i] = '\0';
    if (mkdir(buf, mode) && errno != EEXIST)
      return tt_status_make(TT_INVALID_ARGUMENT, "cannot create cache directory '%s': %s", buf, strerror(errno));
    buf[i] = c;
  }
  struct stat st;
  if (stat(path, &st) || !S_ISDIR(st.st_mode))
    return tt_status_make(TT_INVALID_ARGUMENT, "cache path '%s' is not a directory", path);
  if (access(path, W_OK | X_OK))
    return tt_status_make(TT_INVALID_ARGUMENT, "cache directory '%s' is not writable: %s", path, strerror(errno));
  return TT_OK_STATUS;
}

tt_status_t tt_cache_dir_open(const char *path, const tt_cache_dir_options_t *options,
                              tt_cache_dir_t **out_dir) {
  *out_dir = NULL;
  TT_RETURN_IF_ERROR(mkdirs(path, options->private_dir ? 0700 : 0777));
  tt_cache_dir_t *d = tt_calloc(1, sizeof *d);
  char *p = tt_malloc(strlen(path) + 1);
  if (!d || !p) {
    tt_free(d);
    tt_free(p);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory opening cache directory '%s'", path);
  }
  strcpy(p, path);
  d->path = p;
  d->opts = *options;
  pthread_mutex_init(&d->sweep_mu, NULL);
  *out_dir = d;
  return TT_OK_STATUS;
}

void tt_cache_dir_close(tt_cache_dir_t *d) {
  if (!d) return;
  pthread_mutex_destroy(&d->sweep_mu);
  tt_free(d->path);
  tt_free(d);
}

const char *tt_cache_dir_path(const tt_cache_dir_t *d) { return d->path; }

tt_cache_dir_stats_t tt_cache_dir_stats(const tt_cache_dir_t *d) {
  tt_cache_dir_stats_t s = {atomic_load(&d->sweeps), atomic_load(&d->evicted), atomic_load(&d->stale_temps_removed)};
  return s;
}

/* Sweeps when due (see tt_cache_dir_put). Sweep failures only cost space.
 * Under sweep_mu, known_bytes never falls below what this process has put in
 * the directory: a put renamed before a sweep's listing is in its total, one
 * renamed after it adds its bytes after the total is stored. */
static void maybe_sweep(tt_cache_dir_t *d, size_t bytes) {
  pthread_mutex_lock(&d->sweep_mu);
  d->known_bytes += bytes;
  int first = !d->swept;
  d->swept = 1;
  if (first || (d->opts.max_bytes && d->known_bytes > d->opts.max_bytes)) {
    tt_cache_sweep_result_t r;
    tt_status_t s = tt_cache_sweep(d->path, d->opts.max_bytes, d->opts.max_bytes / 4 * 3, STALE_TMP_SECONDS, &r);
    if (s) {
      tt_status_free(s);
    } else {
      d->known_bytes = r.bytes;
      atomic_fetch_add(&d->sweeps, 1);
      atomic_fetch_add(&d->evicted, r.evicted);
      atomic_fetch_add(&d->stale_temps_removed, r.stale_temps_removed);
    }
  }
  pthread_mutex_unlock(&d->sweep_mu);
}

void tt_cache_dir_entry_name(const tt_cache_key_t *key, char *buf, size_t n) {
  char k[64];
  tt_cache_key_format(key, k, sizeof k);
  snprintf(buf, n, "%s.ttx", k);
}

/* Reads a whole file; NULL when missing or unreadable (a miss either way). */
static void *read_file(const char *path, size_t *out_n) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  void *buf = NULL;
  if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size >= 0 && (uint64_t)st.st_size < (1ull << 34)) {
    size_t want = (size_t)st.st_size, got = 0;
    buf = tt_malloc(want ? want : 1);
    while (buf && got < want) {
      ssize_t r = read(fd, (char *)buf + got, want - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break; /* shorter than stat said: validation calls it truncated */
      got += (size_t)r;
    }
    *out_n = got;
  }
  close(fd);
  return buf;
}

void tt_cache_dir_get(tt_cache_dir_t *d, const tt_cache_entry_id_t *id, void **out_entry,
                      size_t *out_entry_size, size_t *out_payload_size, tt_cache_entry_check_t *out_check) {
  char name[64], path[4200];
  tt_cache_dir_entry_name(&id->key, name, sizeof name);
  snprintf(path, sizeof path, "%s/%s", d->path, name);
  size_t n = 0;
  void *data = read_file(path, &n);
  *out_entry = data;
  *out_entry_size = n;
  *out_payload_size = 0;
  *out_check = data ? tt_cache_entry_check(data, n, id, out_payload_size) : TT_ENTRY_OK;
  /* Refresh the time of a valid entry: eviction is least recently used first.
   * A read-only directory just keeps its old times. */
  if (data && *out_check == TT_ENTRY_OK) (void)utimensat(AT_FDCWD, path, NULL, 0);
}

static int write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return 0;
    p += w;
    n -= (size_t)w;
  }
  return 1;
}

/* A temp name no other writer uses, even another host on a shared mount:
 * pid and a counter, salted with the clock and the host name. */
static void temp_name(const char *dir, const char *name, char *buf, size_t n) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  uint64_t salt = tt_hash_u64(tt_hash_str(TT_HASH_SEED, host), (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
  snprintf(buf, n, "%s/.%s.%ld.%llu.%016llx.tmp", dir, name, (long)getpid(),
           (unsigned long long)atomic_fetch_add(&g_seq, 1), (unsigned long long)salt);
}

tt_status_t tt_cache_dir_put(tt_cache_dir_t *d, const tt_cache_key_t *key, const void *header,
                             size_t header_size, const void *payload, size_t payload_size) {
  char name[64], path[4200], tmp[4400];
  tt_cache_dir_entry_name(key, name, sizeof name);
  snprintf(path, sizeof path, "%s/%s", d->path, name);
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 4; attempt++) {
    temp_name(d->path, name, tmp, sizeof tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, d->opts.private_dir ? 0600 : 0644);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return tt_status_make(TT_UNAVAILABLE, "cache: cannot create '%s': %s", tmp, strerror(errno));
  int ok = write_all(fd, header, header_size) && write_all(fd, payload, payload_size);
  int err = errno;
  if (ok && d->opts.durable && fsync(fd)) ok = 0, err = errno;
  if (close(fd) && ok) ok = 0, err = errno;
  if (ok && rename(tmp, path)) ok = 0, err = errno;
  if (!ok) {
    unlink(tmp);
    return tt_status_make(TT_UNAVAILABLE, "cache: cannot write entry '%s': %s", path, strerror(err));
  }
  maybe_sweep(d, header_size + payload_size);
  return TT_OK_STATUS;
}
