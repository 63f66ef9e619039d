/* A size-class allocator of inaccessible address ranges (see vaddr.h). */
#include "base/vaddr.h"

#include <pthread.h>
#include <sys/mman.h>

#include "base/alloc.h"

/* Class k holds ranges of 64 << k bytes. Ranges of a class are reused by
 * the same class only: the waste is address space, never memory. */
#define MIN_SHIFT 6
#define NCLASSES 40
/* One reservation; larger ranges get their own. */
#define CHUNK (64ull << 30)

typedef struct {
  uint64_t *addrs;
  int n, cap;
} freelist_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static freelist_t freelists[NCLASSES];
static uint64_t chunk_next, chunk_end; /* bump range of the current reservation */
static uint64_t reserved, live;

static uint64_t reserve(uint64_t nbytes) {
  void *p = mmap(NULL, nbytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return 0;
  reserved += nbytes;
  return (uint64_t)(uintptr_t)p;
}

static int class_of(uint64_t nbytes) {
  int k = 0;
  while (k < NCLASSES - 1 && (1ull << (MIN_SHIFT + k)) < nbytes) k++;
  return k;
}

uint64_t tt_vaddr_alloc(uint64_t nbytes, uint64_t *out_capacity) {
  int k = class_of(nbytes);
  uint64_t cap = 1ull << (MIN_SHIFT + k);
  if (cap < nbytes) return 0; /* beyond the largest class */
  uint64_t a = 0;
  pthread_mutex_lock(&mu);
  freelist_t *f = &freelists[k];
  if (f->n) {
    a = f->addrs[--f->n];
  } else if (cap > CHUNK / 2) {
    a = reserve(cap);
  } else {
    if (chunk_end - chunk_next < cap) { /* the rest of the old chunk stays unused */
      chunk_next = reserve(CHUNK);
      chunk_end = chunk_next ? chunk_next + CHUNK : 0;
    }
    if (chunk_next) {
      a = chunk_next;
      chunk_next += cap;
    }
  }
  if (a) live++;
  pthread_mutex_unlock(&mu);
  *out_capacity = cap;
  return a;
}

void tt_vaddr_free(uint64_t addr, uint64_t capacity) {
  if (!addr) return;
  int k = class_of(capacity);
  pthread_mutex_lock(&mu);
  live--;
  if (capacity > CHUNK / 2) { /* its own reservation */
    munmap((void *)(uintptr_t)addr, capacity);
    reserved -= capacity;
  } else {
    freelist_t *f = &freelists[k];
    if (f->n == f->cap) {
      int c = f->cap ? f->cap * 2 : 64;
      uint64_t *q = tt_realloc(f->addrs, sizeof(uint64_t) * (size_t)c);
      if (!q) { /* out of host memory: leak the address range, not memory */
        pthread_mutex_unlock(&mu);
        return;
      }
      f->addrs = q;
      f->cap = c;
    }
    f->addrs[f->n++] = addr;
  }
  pthread_mutex_unlock(&mu);
}

uint64_t tt_vaddr_reserved_bytes(void) { return reserved; }
uint64_t tt_vaddr_live_ranges(void) { return live; }
