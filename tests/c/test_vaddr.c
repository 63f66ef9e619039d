/* Tests of the host address allocator for storages (base/vaddr.h) and of
 * storage addresses: unique, aligned, reused after free, moved on growth,
 * never readable. Needs no plugin. */
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_engine.h"

#include "exec/storage.h"
#include "base/vaddr.h"
#include "check.h"

static void test_alloc_free(void) {
  enum { N = 300 };
  uint64_t a[N], cap[N];
  for (int i = 0; i < N; i++) {
    uint64_t n = 1 + (uint64_t)i * 37;
    a[i] = tt_vaddr_alloc(n, &cap[i]);
    CHECK(a[i] && a[i] % 64 == 0 && cap[i] >= n);
  }
  int overlap = 0;
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++)
      if (a[i] < a[j] + cap[j] && a[j] < a[i] + cap[i]) overlap++;
  CHECK(overlap == 0);
  CHECK(tt_vaddr_live_ranges() >= N);
  uint64_t reserved = tt_vaddr_reserved_bytes();
  /* A freed range is handed out again for the same size class. */
  uint64_t again_cap, freed = a[7];
  tt_vaddr_free(a[7], cap[7]);
  a[7] = tt_vaddr_alloc(cap[7], &again_cap);
  CHECK(a[7] == freed && again_cap == cap[7]);
  for (int i = 0; i < N; i++) tt_vaddr_free(a[i], cap[i]);
  CHECK(tt_vaddr_reserved_bytes() == reserved); /* small ranges keep their chunk */
  /* A huge range (past half a chunk) is its own reservation, returned at free. */
  uint64_t hc, h = tt_vaddr_alloc(100ull << 30, &hc);
  CHECK(h && hc >= (100ull << 30) && tt_vaddr_reserved_bytes() == reserved + hc);
  tt_vaddr_free(h, hc);
  CHECK(tt_vaddr_reserved_bytes() == reserved);
}

/* The addresses are reserved but inaccessible: mincore says nothing is
 * resident, and a read faults (checked in a child process). */
static void test_not_readable(void) {
  uint64_t cap, a = tt_vaddr_alloc(4096, &cap);
  long page = sysconf(_SC_PAGESIZE);
  unsigned char vec = 1;
  CHECK(mincore((void *)(uintptr_t)(a & ~(uint64_t)(page - 1)), (size_t)page, &vec) == 0 && (vec & 1) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    volatile unsigned char *p = (volatile unsigned char *)(uintptr_t)a;
    unsigned char v = *p;
    (void)v;
    _exit(0); /* read succeeded: the test fails */
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0)); /* SIGSEGV (or ASan's report) */
  tt_vaddr_free(a, cap);
}

static void test_storage_address(void) {
  tt_storage_t *s, *t;
  uint64_t a, b, c;
  if (!CHECK_OK(tt_storage_create(E, TT_F32, 10, NULL, &s))) return;
  if (!CHECK_OK(tt_storage_create(E, TT_F32, 10, NULL, &t))) return;
  CHECK_OK(tt_storage_address(s, &a));
  CHECK_OK(tt_storage_address(s, &b));
  CHECK_OK(tt_storage_address(t, &c));
  CHECK(a && a == b && c != a); /* stable while the size fits, distinct across storages */
  s->numel = 1000; /* grown (tt_storage_grow): the address moves, as realloc moves data */
  CHECK_OK(tt_storage_address(s, &b));
  CHECK(b && b != a && s->addr_capacity >= 4000);
  tt_storage_t *e;
  if (CHECK_OK(tt_storage_create(E, TT_F32, 0, NULL, &e))) {
    CHECK_OK(tt_storage_address(e, &a));
    CHECK(a == 0); /* an empty storage reports 0, as on CPU */
    tt_storage_release(e);
  }
  tt_storage_release(s);
  tt_storage_release(t);
}

int main(void) {
  test_alloc_free();
  test_not_readable();
  if (CHECK_OK(tt_init(NULL, &E))) {
    test_storage_address();
    tt_shutdown(E);
  }
  return check_summary();
}
