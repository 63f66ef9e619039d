/* Tests of the compile cache's directory tiers: the entry format (truncation,
 * corruption, foreign entries), atomic writes under concurrent writers
 * (fork), and end to end with the real plugin: a second process compiles
 * nothing, bad entries are counted, ignored and rewritten, tier 3 hits are
 * promoted to tier 2. TORCH_TPU_PJRT_PLUGIN names the plugin. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/call.h"
#include "test_engine.h"
#include "base/alloc.h"
#include "cache/entry.h"
#include "cache/store.h"
#include "cache/sweep.h"
#include "check.h"
#include "ops/registry.h"

static tt_cache_entry_id_t make_id(uint64_t seed) {
  tt_cache_entry_id_t id = {{0x1111 + seed, 0x2222 + seed, 0x3333 + seed}, 0x4444, 0x5555};
  return id;
}

/* header + payload in one buffer; caller frees. */
static unsigned char *encode(const tt_cache_entry_id_t *id, const unsigned char *payload, size_t n, size_t *out_n) {
  unsigned char *buf = malloc(TT_CACHE_ENTRY_HEADER_SIZE + n);
  tt_cache_entry_header(id, payload, n, buf);
  memcpy(buf + TT_CACHE_ENTRY_HEADER_SIZE, payload, n);
  *out_n = TT_CACHE_ENTRY_HEADER_SIZE + n;
  return buf;
}

static void test_entry_format(void) {
  unsigned char payload[100];
  for (int i = 0; i < 100; i++) payload[i] = (unsigned char)(i * 7 + 3);
  tt_cache_entry_id_t id = make_id(0);
  size_t n, pn;
  unsigned char *e = encode(&id, payload, sizeof payload, &n);
  CHECK(tt_cache_entry_check(e, n, &id, &pn) == TT_ENTRY_OK && pn == sizeof payload);

  /* Every prefix is a cut-off write. */
  int all_truncated = 1;
  for (size_t k = 0; k < n; k++) all_truncated &= tt_cache_entry_check(e, k, &id, &pn) == TT_ENTRY_TRUNCATED;
  CHECK(all_truncated);
  /* Trailing bytes: not what the header says. */
  unsigned char *longer = malloc(n + 1);
  memcpy(longer, e, n);
  longer[n] = 0;
  CHECK(tt_cache_entry_check(longer, n + 1, &id, &pn) == TT_ENTRY_CORRUPT);
  free(longer);

  /* Any single flipped bit anywhere is detected; in the payload and the
   * checksummed header fields it is called corrupt. */
  int never_ok = 1, payload_corrupt = 1;
  for (size_t k = 0; k < n; k++) {
    for (int bit = 0; bit < 8; bit += 3) {
      e[k] ^= (unsigned char)(1u << bit);
      tt_cache_entry_check_t c = tt_cache_entry_check(e, n, &id, &pn);
      never_ok &= c != TT_ENTRY_OK;
      if (k >= 16 && k < 56) payload_corrupt &= c == TT_ENTRY_CORRUPT;
      if (k >= 64) payload_corrupt &= c == TT_ENTRY_CORRUPT;
      e[k] ^= (unsigned char)(1u << bit);
    }
  }
  CHECK(never_ok);
  CHECK(payload_corrupt);
  CHECK(tt_cache_entry_check(e, n, &id, &pn) == TT_ENTRY_OK);

  /* Intact entries that are not ours to use. */
  tt_cache_entry_id_t other_plugin = id, other_module = id, other_key = id;
  other_plugin.plugin ^= 1;
  other_module.module ^= 1;
  other_key.key.dims ^= 1;
  CHECK(tt_cache_entry_check(e, n, &other_plugin, &pn) == TT_ENTRY_FOREIGN);
  CHECK(tt_cache_entry_check(e, n, &other_module, &pn) == TT_ENTRY_FOREIGN);
  CHECK(tt_cache_entry_check(e, n, &other_key, &pn) == TT_ENTRY_CORRUPT);
  /* Another format version (re-checksummed, as a future writer would). */
  e[8] = 99;
  CHECK(tt_cache_entry_check(e, n, &id, &pn) == TT_ENTRY_FOREIGN);
  /* Not ours at all. */
  const char junk[] = "#!/bin/sh\necho this is not a cache entry at all, not even close\n";
  CHECK(tt_cache_entry_check(junk, sizeof junk, &id, &pn) == TT_ENTRY_CORRUPT);
  /* An empty payload is a valid entry. */
  size_t n0;
  unsigned char *e0 = encode(&id, payload, 0, &n0);
  CHECK(tt_cache_entry_check(e0, n0, &id, &pn) == TT_ENTRY_OK && pn == 0);
  free(e0);
  free(e);
}

static char g_tmp[256];

static void entry_path(const char *dir, const tt_cache_key_t *k, char *buf, size_t n) {
  char name[64];
  tt_cache_dir_entry_name(k, name, sizeof name);
  snprintf(buf, n, "%s/%s", dir, name);
}

static void test_store(void) {
  char dir[300];
  snprintf(dir, sizeof dir, "%s/store/a/b", g_tmp); /* parents are created */
  tt_cache_dir_options_t o = {.private_dir = 1, .durable = 1};
  tt_cache_dir_t *d = NULL;
  if (!CHECK_OK(tt_cache_dir_open(dir, &o, &d))) return;
  struct stat st;
  CHECK(!stat(dir, &st) && (st.st_mode & 0777) == 0700);
  tt_cache_entry_id_t id = make_id(1);
  void *data;
  size_t n, pn;
  tt_cache_entry_check_t chk;
  tt_cache_dir_get(d, &id, &data, &n, &pn, &chk);
  CHECK(data == NULL); /* missing */
  unsigned char payload[3000], header[TT_CACHE_ENTRY_HEADER_SIZE];
  for (int i = 0; i < 3000; i++) payload[i] = (unsigned char)i;
  tt_cache_entry_header(&id, payload, sizeof payload, header);
  CHECK_OK(tt_cache_dir_put(d, &id.key, header, sizeof header, payload, sizeof payload));
  tt_cache_dir_get(d, &id, &data, &n, &pn, &chk);
  CHECK(data && chk == TT_ENTRY_OK && pn == sizeof payload &&
        !memcmp((char *)data + TT_CACHE_ENTRY_HEADER_SIZE, payload, pn));
  tt_free(data);
  /* Truncate the file as a crash in a non-atomic writer would: detected. */
  char path[400];
  entry_path(dir, &id.key, path, sizeof path);
  CHECK(truncate(path, 1000) == 0);
  tt_cache_dir_get(d, &id, &data, &n, &pn, &chk);
  CHECK(data && chk == TT_ENTRY_TRUNCATED);
  tt_free(data);
  /* Rewriting replaces it. */
  CHECK_OK(tt_cache_dir_put(d, &id.key, header, sizeof header, payload, sizeof payload));
  tt_cache_dir_get(d, &id, &data, &n, &pn, &chk);
  CHECK(data && chk == TT_ENTRY_OK);
  tt_free(data);
  tt_cache_dir_close(d);
  /* A path that cannot be a directory is refused, not crashed on. */
  char bad[420];
  snprintf(bad, sizeof bad, "%s/x", path);
  CHECK_ERR(tt_cache_dir_open(bad, &o, &d), TT_INVALID_ARGUMENT);
}

/* Many processes write one key at once, each with its own (valid) payload,
 * while reading it back: every read is a whole, valid entry. */
static void test_concurrent_writers(void) {
  char dir[300];
  snprintf(dir, sizeof dir, "%s/concurrent", g_tmp);
  tt_cache_dir_options_t o = {.private_dir = 0, .durable = 0};
  tt_cache_dir_t *d = NULL;
  if (!CHECK_OK(tt_cache_dir_open(dir, &o, &d))) return;
  enum { kWriters = 8, kRounds = 60 };
  tt_cache_entry_id_t id = make_id(2);
  pid_t pids[kWriters];
  for (int w = 0; w < kWriters; w++) {
    pids[w] = fork();
    if (pids[w] == 0) {
      int bad = 0;
      size_t size = 20000 + 1000 * (size_t)w; /* different sizes: a torn file could not pass */
      unsigned char *payload = malloc(size);
      for (size_t i = 0; i < size; i++) payload[i] = (unsigned char)(w * 31 + i);
      unsigned char header[TT_CACHE_ENTRY_HEADER_SIZE];
      tt_cache_entry_header(&id, payload, size, header);
      for (int r = 0; r < kRounds; r++) {
        tt_status_t s = tt_cache_dir_put(d, &id.key, header, sizeof header, payload, size);
        if (s) bad++, tt_status_free(s);
        void *data;
        size_t n, pn;
        tt_cache_entry_check_t chk;
        tt_cache_dir_get(d, &id, &data, &n, &pn, &chk);
        if (!data || chk != TT_ENTRY_OK) bad++;
        tt_free(data);
      }
      free(payload);
      _exit(bad ? 1 : 0);
    }
  }
  int all_ok = 1;
  for (int w = 0; w < kWriters; w++) {
    int status = 0;
    waitpid(pids[w], &status, 0);
    all_ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  CHECK(all_ok);
  /* One entry left, no temporary files. */
  int files = 0;
  DIR *dd = opendir(dir);
  for (struct dirent *e; dd && (e = readdir(dd));)
    if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))) files++;
  if (dd) closedir(dd);
  CHECK(files == 1);
  tt_cache_dir_close(d);
}

static int count_files(const char *dir, const char *suffix) {
  int files = 0;
  DIR *dd = opendir(dir);
  for (struct dirent *e; dd && (e = readdir(dd));) {
    size_t n = strlen(e->d_name), m = strlen(suffix);
    if (n >= m && !strcmp(e->d_name + n - m, suffix)) files++;
  }
  if (dd) closedir(dd);
  return files;
}

static void put_entry(tt_cache_dir_t *d, uint64_t seed, size_t size) {
  tt_cache_entry_id_t id = make_id(seed);
  unsigned char *payload = calloc(1, size);
  payload[0] = (unsigned char)seed;
  unsigned char header[TT_CACHE_ENTRY_HEADER_SIZE];
  tt_cache_entry_header(&id, payload, size, header);
  CHECK_OK(tt_cache_dir_put(d, &id.key, header, sizeof header, payload, size));
  free(payload);
}

static void set_age(const char *dir, const char *name, long seconds_ago) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  struct timespec t[2];
  clock_gettime(CLOCK_REALTIME, &t[0]);
  t[0].tv_sec -= seconds_ago;
  t[1] = t[0];
  CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
}

/* The size limit evicts least recently used entries (a hit refreshes one), and
 * temp files of crashed writers are removed while young ones stay. */
static void test_size_limit_and_sweep(void) {
  char dir[300];
  snprintf(dir, sizeof dir, "%s/limited", g_tmp);
  CHECK(tt_cache_parse_bytes("2G", 0) == (2ull << 30) && tt_cache_parse_bytes("512MiB", 0) == (512ull << 20) &&
        tt_cache_parse_bytes("1000", 0) == 1000 && tt_cache_parse_bytes("lots", 7) == 7 &&
        tt_cache_parse_bytes(NULL, 9) == 9);
  enum { kEntry = 10000 };
  size_t on_disk = kEntry + TT_CACHE_ENTRY_HEADER_SIZE;
  tt_cache_dir_options_t o = {.private_dir = 0, .durable = 0, .max_bytes = 5 * on_disk + on_disk / 2};
  tt_cache_dir_t *d = NULL;
  if (!CHECK_OK(tt_cache_dir_open(dir, &o, &d))) return;
  /* A crashed writer's leftovers: one stale, one young (a writer at work). */
  char stale[400], young[400];
  snprintf(stale, sizeof stale, "%s/.dead.ttx.1.2.3.tmp", dir);
  snprintf(young, sizeof young, "%s/.busy.ttx.1.2.3.tmp", dir);
  FILE *f = fopen(stale, "w");
  if (f) fclose(f);
  f = fopen(young, "w");
  if (f) fclose(f);
  set_age(dir, ".dead.ttx.1.2.3.tmp", 7200);
  for (uint64_t i = 0; i < 5; i++) {
    put_entry(d, 100 + i, kEntry);
    char name[64];
    tt_cache_entry_id_t id = make_id(100 + i);
    tt_cache_dir_entry_name(&id.key, name, sizeof name);
    set_age(dir, name, 1000 - (long)i * 100); /* entry 100 oldest */
  }
  CHECK(access(stale, F_OK) != 0 && access(young, F_OK) == 0); /* first put swept */
  CHECK(tt_cache_dir_stats(d).stale_temps_removed == 1);
  CHECK(count_files(dir, ".ttx") == 5);
  /* A hit on the oldest entry makes it the most recent. */
  tt_cache_entry_id_t first = make_id(100);
  void *data;
  size_t n, pn;
  tt_cache_entry_check_t chk;
  tt_cache_dir_get(d, &first, &data, &n, &pn, &chk);
  CHECK(data && chk == TT_ENTRY_OK);
  tt_free(data);
  /* Over the limit: evicted down to 3/4 of it, oldest first (101, 102). */
  put_entry(d, 105, kEntry);
  CHECK(tt_cache_dir_stats(d).evicted == 2);
  CHECK(count_files(dir, ".ttx") == 4);
  for (uint64_t i = 100; i <= 105; i++) {
    tt_cache_entry_id_t id = make_id(i);
    tt_cache_dir_get(d, &id, &data, &n, &pn, &chk);
    CHECK((data != NULL) == (i != 101 && i != 102));
    tt_free(data);
  }
  tt_cache_dir_close(d);
  /* No limit: nothing is evicted, however much is written. */
  tt_cache_sweep_result_t r;
  CHECK_OK(tt_cache_sweep(dir, 0, 0, 3600, &r));
  CHECK(r.entries == 4 && r.evicted == 0 && r.bytes == 4 * on_disk);
}

/* Threads of one process (the compile pool's workers) put distinct entries
 * into one limited directory at once: when they are done, the directory is
 * within its limit. A sweep's total stored over a put renamed after its
 * listing once lost that put's bytes, and the directory stayed over. */
enum { kThreadedWriters = 6, kThreadedPuts = 150, kThreadedEntry = 500 };
typedef struct {
  tt_cache_dir_t *d;
  int w;
} threaded_put_t;

static void *threaded_puts(void *arg) {
  threaded_put_t *t = arg;
  for (int i = 0; i < kThreadedPuts; i++) put_entry(t->d, 1000 + (uint64_t)(t->w * kThreadedPuts + i), kThreadedEntry);
  return NULL;
}

static void test_threaded_puts_stay_within_limit(void) {
  size_t on_disk = kThreadedEntry + TT_CACHE_ENTRY_HEADER_SIZE;
  for (int round = 0; round < 6; round++) {
    char dir[300];
    snprintf(dir, sizeof dir, "%s/threaded%d", g_tmp, round);
    tt_cache_dir_options_t o = {.private_dir = 0, .durable = 0, .max_bytes = 60 * on_disk + on_disk / 2};
    tt_cache_dir_t *d = NULL;
    if (!CHECK_OK(tt_cache_dir_open(dir, &o, &d))) return;
    pthread_t th[kThreadedWriters];
    threaded_put_t args[kThreadedWriters];
    for (int w = 0; w < kThreadedWriters; w++) {
      args[w] = (threaded_put_t){d, w};
      pthread_create(&th[w], NULL, threaded_puts, &args[w]);
    }
    for (int w = 0; w < kThreadedWriters; w++) pthread_join(th[w], NULL);
    tt_cache_sweep_result_t r;
    CHECK_OK(tt_cache_sweep(dir, 0, 0, 3600, &r)); /* a listing only: no limit */
    CHECK(r.bytes <= o.max_bytes);
    if (r.bytes > o.max_bytes) {
      fprintf(stderr, "  round %d: %llu bytes in %llu entries, limit %llu\n", round, (unsigned long long)r.bytes,
              (unsigned long long)r.entries, (unsigned long long)o.max_bytes);
      tt_cache_dir_close(d);
      return;
    }
    tt_cache_dir_close(d);
  }
}

/* ---- end to end, one fresh process per run ---------------------------------- */

static void run_ops(void) {
  float a[6] = {1, 2, 3, 4, 5, 6}, out[6];
  tt_storage_t *sa = NULL;
  CHECK_OK(tt_storage_from_host(E, a, TT_F32, 6, &sa));
  tt_tensor_ref_t r;
  memset(&r, 0, sizeof r);
  r.storage = sa;
  r.dtype = TT_F32;
  r.view.rank = 2;
  r.view.sizes[0] = 2;
  r.view.sizes[1] = 3;
  r.view.strides[0] = 3;
  r.view.strides[1] = 1;
  tt_arg_t args[2];
  memset(args, 0, sizeof args);
  args[0].kind = TT_ARG_TENSOR;
  args[0].t = &r;
  args[1].kind = TT_ARG_TENSOR;
  args[1].t = &r;
  const char *ops[3] = {"add.Tensor", "mul.Tensor", "sub.Tensor"};
  for (int i = 0; i < 3; i++) {
    tt_call_result_t res;
    if (!CHECK_OK(tt_call(E, tt_ops_find(ops[i]), args, 2, &res))) continue;
    tt_tensor_ref_t ro = r;
    ro.storage = res.outs[0].storage;
    if (CHECK_OK(tt_tensor_to_host(E, &ro, TT_F32, out, sizeof out)))
      CHECK(out[5] == (i == 0 ? 12.f : i == 1 ? 36.f : 0.f)); /* a cached executable computes the right thing */
    tt_call_result_clear(&res);
  }
  tt_storage_release(sa);
}

typedef struct child_s {
  pid_t pid;
  int fd;
} child_t;

/* Starts run_ops in a child with the given tier settings. */
static child_t start_child(const char *tier2_dir, const char *tier3_root) {
  int fds[2];
  child_t ch = {-1, -1};
  if (pipe(fds)) return ch;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (tier2_dir) {
      setenv("TORCH_TPU_TIER2_COMPILATION_CACHE", "1", 1);
      setenv("TORCH_TPU_TIER2_COMPILATION_CACHE_DIR", tier2_dir, 1);
    } else {
      setenv("TORCH_TPU_TIER2_COMPILATION_CACHE", "0", 1);
    }
    if (tier3_root) setenv("TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT", tier3_root, 1);
    else setenv("TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT", "off", 1);
    if (!CHECK_OK(tt_init(NULL, &E))) _exit(2);
    run_ops();
    tt_cache_stats_t s = E->stats;
    tt_shutdown(E);
    if (write(fds[1], &s, sizeof s) != (ssize_t)sizeof s) _exit(3);
    exit(g_failed ? 1 : 0); /* exit, not _exit: the sanitizer build checks leaks */
  }
  close(fds[1]);
  ch.pid = pid;
  ch.fd = fds[0];
  return ch;
}

/* Waits for a child; returns its stats. */
static tt_cache_stats_t finish_child(child_t ch) {
  tt_cache_stats_t st;
  memset(&st, 0xff, sizeof st);
  if (ch.pid < 0) return st;
  ssize_t got = read(ch.fd, &st, sizeof st);
  close(ch.fd);
  int status = 0;
  waitpid(ch.pid, &status, 0);
  CHECK(got == (ssize_t)sizeof st && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return st;
}

static tt_cache_stats_t run_child(const char *tier2_dir, const char *tier3_root) {
  return finish_child(start_child(tier2_dir, tier3_root));
}

/* Writes "<name>.claim" files in dir for every entry of src, owned by pid. */
static int claim_all(const char *src, const char *dir, long pid) {
  mkdir(dir, 0700);
  DIR *dd = opendir(src);
  int n = 0;
  for (struct dirent *e; dd && (e = readdir(dd));) {
    if (e->d_name[0] == '.') continue;
    char path[700];
    snprintf(path, sizeof path, "%s/%s.claim", dir, e->d_name);
    FILE *f = fopen(path, "w");
    if (f) fprintf(f, "%ld\n", pid), fclose(f), n++;
  }
  if (dd) closedir(dd);
  return n;
}

/* Moves src's entries into dir (rename: whole files) and drops the claims. */
static void publish_all(const char *src, const char *dir) {
  DIR *dd = opendir(src);
  for (struct dirent *e; dd && (e = readdir(dd));) {
    if (e->d_name[0] == '.') continue;
    char from[700], to[700], claim[700];
    snprintf(from, sizeof from, "%s/%s", src, e->d_name);
    snprintf(to, sizeof to, "%s/%s", dir, e->d_name);
    snprintf(claim, sizeof claim, "%s/%s.claim", dir, e->d_name);
    CHECK(rename(from, to) == 0);
    unlink(claim);
  }
  if (dd) closedir(dd);
}

/* A process that misses a key another live process of the host is compiling
 * waits for that entry instead of compiling; a dead owner's claim is taken
 * over. The keys come from a first run in a directory of their own. */
static void test_compile_claims(void) {
  char keys[300], busy[300], dead[300];
  snprintf(keys, sizeof keys, "%s/claim_keys", g_tmp);
  snprintf(busy, sizeof busy, "%s/claim_busy", g_tmp);
  snprintf(dead, sizeof dead, "%s/claim_dead", g_tmp);
  tt_cache_stats_t first = run_child(keys, NULL);
  CHECK(first.misses >= 3 && first.compile_waits == 0);
  /* Live owner (this test process): the child waits until the entries land. */
  int n = claim_all(keys, busy, (long)getpid());
  CHECK(n == (int)first.misses);
  child_t ch = start_child(busy, NULL);
  usleep(300 * 1000);
  publish_all(keys, busy);
  tt_cache_stats_t waiter = finish_child(ch);
  CHECK(waiter.misses == 0 && waiter.compile_waits >= 1 && waiter.tier2_hits == (uint64_t)n);
  /* Dead owner: a reaped child's pid. The claims are taken over at once. */
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, NULL, 0);
  CHECK(claim_all(busy, dead, (long)gone) == n);
  tt_cache_stats_t heir = run_child(dead, NULL);
  CHECK(heir.misses == (uint64_t)n && heir.compile_waits == 0 && heir.tier2_writes == (uint64_t)n);
  CHECK(count_files(dead, ".claim") == 0 && count_files(dead, ".ttx") == n);
}

/* Damages every entry of a directory in turn: truncate, flip, replace. */
static int damage_all(const char *dir) {
  DIR *dd = opendir(dir);
  int n = 0;
  for (struct dirent *e; dd && (e = readdir(dd));) {
    if (e->d_name[0] == '.') continue;
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (n % 3 == 0) {
      if (truncate(path, 50)) continue;
    } else {
      FILE *f = fopen(path, n % 3 == 1 ? "r+b" : "wb");
      if (!f) continue;
      if (n % 3 == 1) fseek(f, 200, SEEK_SET), fputc(0x5a, f), fputc(0xa5, f);
      else fputs("not an entry", f);
      fclose(f);
    }
    n++;
  }
  if (dd) closedir(dd);
  return n;
}

static void test_end_to_end(void) {
  char t2[300], t3[300];
  snprintf(t2, sizeof t2, "%s/tier2", g_tmp);
  snprintf(t3, sizeof t3, "%s/tier3", g_tmp);
  tt_cache_stats_t cold = run_child(NULL, t3);
  CHECK(cold.misses >= 3 && cold.tier3_writes == cold.misses && cold.tier3_hits == 0);
  /* A second process compiles nothing. */
  tt_cache_stats_t warm = run_child(NULL, t3);
  CHECK(warm.misses == 0 && warm.tier3_hits == cold.misses && warm.corrupt_entries == 0);
  /* Tier 3 hits are promoted to tier 2; then tier 2 alone serves. */
  tt_cache_stats_t promote = run_child(t2, t3);
  CHECK(promote.misses == 0 && promote.tier3_hits == cold.misses && promote.tier2_writes == cold.misses);
  tt_cache_stats_t host = run_child(t2, NULL);
  CHECK(host.misses == 0 && host.tier2_hits == cold.misses);
  /* Damaged entries: counted, ignored (recompiled, right answers), rewritten. */
  int damaged = damage_all(t3);
  CHECK(damaged == (int)cold.misses);
  tt_cache_stats_t repair = run_child(NULL, t3);
  CHECK(repair.corrupt_entries == (uint64_t)damaged && repair.misses == (uint64_t)damaged &&
        repair.tier3_writes == (uint64_t)damaged);
  tt_cache_stats_t again = run_child(NULL, t3);
  CHECK(again.misses == 0 && again.corrupt_entries == 0 && again.tier3_hits == cold.misses);
}

int main(void) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/tt_test_cache_XXXXXX");
  if (!mkdtemp(g_tmp)) return 1;
  test_entry_format();
  test_store();
  test_concurrent_writers();
  test_size_limit_and_sweep();
  test_threaded_puts_stay_within_limit();
  test_end_to_end();
  test_compile_claims();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", g_tmp);
  return check_summary();
}
