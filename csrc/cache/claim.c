/* Compile claims in a host-local cache directory: the first process to miss a
 * key compiles it, the others of the host wait for its entry. */
#include "cache/claim.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void claim_path(const tt_cache_dir_t *d, const tt_cache_key_t *key, char *buf, size_t n) {
  char name[64];
  tt_cache_dir_entry_name(key, name, sizeof name);
  snprintf(buf, n, "%s/%s.claim", tt_cache_dir_path(d), name);
}

tt_cache_claim_t tt_cache_claim(tt_cache_dir_t *d, const tt_cache_key_t *key) {
  char path[4400];
  claim_path(d, key, path, sizeof path);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno == EEXIST ? TT_CLAIM_BUSY : TT_CLAIM_UNAVAILABLE;
  char text[32];
  int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
  /* An empty claim (a writer that died between open and write) reads as a
   * dead owner: it is taken over, never waited on forever. */
  int ok = write(fd, text, (size_t)n) == n;
  close(fd);
  if (!ok) {
    unlink(path);
    return TT_CLAIM_UNAVAILABLE;
  }
  return TT_CLAIM_OWNED;
}

void tt_cache_claim_release(tt_cache_dir_t *d, const tt_cache_key_t *key) {
  char path[4400];
  claim_path(d, key, path, sizeof path);
  unlink(path);
}

int tt_cache_claim_held(tt_cache_dir_t *d, const tt_cache_key_t *key) {
  char path[4400];
  claim_path(d, key, path, sizeof path);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  long pid = 0;
  int got = fscanf(f, "%ld", &pid);
  fclose(f);
  /* The directory is host-local (tier 2), so the pid names a process of this
   * host: kill(pid, 0) tells whether it still lives. */
  if (got == 1 && pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM)) return 1;
  /* Owner gone without releasing (killed while compiling): remove its claim
   * so that one of the waiters takes over. */
  unlink(path);
  return 0;
}
