/* Tier 1: an open-addressing hash table of loaded executables. */
#include "cache/tier1.h"

#include <pthread.h>
#include <string.h>

#include "base/alloc.h"

typedef struct entry_s {
  tt_cache_key_t key;
  tt_pjrt_executable_t *exe; /* NULL = empty slot */
} entry_t;

struct tt_tier1_s {
  pthread_mutex_t mu;
  entry_t *slots;
  size_t cap, count;
};

tt_status_t tt_tier1_create(tt_tier1_t **out_cache) {
  tt_tier1_t *c = tt_calloc(1, sizeof(*c));
  if (!c) return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory creating the compile cache");
  c->cap = 256;
  c->slots = tt_calloc(c->cap, sizeof(entry_t));
  if (!c->slots) {
    tt_free(c);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory creating the compile cache");
  }
  pthread_mutex_init(&c->mu, NULL);
  *out_cache = c;
  return TT_OK_STATUS;
}

void tt_tier1_destroy(tt_tier1_t *c, tt_pjrt_runtime_t *rt) {
  if (!c) return;
  for (size_t i = 0; i < c->cap; i++)
    if (c->slots[i].exe) tt_pjrt_executable_destroy(rt, c->slots[i].exe);
  tt_free(c->slots);
  pthread_mutex_destroy(&c->mu);
  tt_free(c);
}

static int key_eq(const tt_cache_key_t *a, const tt_cache_key_t *b) {
  return a->shapeless == b->shapeless && a->dims == b->dims && a->options == b->options;
}

static size_t slot_of(const tt_tier1_t *c, const tt_cache_key_t *k) {
  uint64_t h = k->shapeless ^ (k->dims * 0x9e3779b97f4a7c15ULL) ^ (k->options << 1);
  size_t i = (size_t)h & (c->cap - 1);
  while (c->slots[i].exe && !key_eq(&c->slots[i].key, k)) i = (i + 1) & (c->cap - 1);
  return i;
}

tt_pjrt_executable_t *tt_tier1_lookup(tt_tier1_t *c, const tt_cache_key_t *k) {
  pthread_mutex_lock(&c->mu);
  tt_pjrt_executable_t *e = c->slots[slot_of(c, k)].exe;
  pthread_mutex_unlock(&c->mu);
  return e;
}

static void grow(tt_tier1_t *c) {
  entry_t *old = c->slots;
  size_t oldcap = c->cap;
  entry_t *slots = tt_calloc(oldcap * 2, sizeof(entry_t));
  if (!slots) return; /* stay at the current size; still correct, slower */
  c->slots = slots;
  c->cap = oldcap * 2;
  for (size_t i = 0; i < oldcap; i++)
    if (old[i].exe) c->slots[slot_of(c, &old[i].key)] = old[i];
  tt_free(old);
}

tt_pjrt_executable_t *tt_tier1_insert(tt_tier1_t *c, tt_pjrt_runtime_t *rt, const tt_cache_key_t *k,
                                      tt_pjrt_executable_t *exe) {
  pthread_mutex_lock(&c->mu);
  if ((c->count + 1) * 4 > c->cap * 3) grow(c);
  size_t i = slot_of(c, k);
  tt_pjrt_executable_t *result = exe;
  if (c->slots[i].exe) {
    result = c->slots[i].exe;
    tt_pjrt_executable_destroy(rt, exe);
  } else if ((c->count + 1) < c->cap) {
    c->slots[i].key = *k;
    c->slots[i].exe = exe;
    c->count++;
  }
  pthread_mutex_unlock(&c->mu);
  return result;
}

size_t tt_tier1_size(tt_tier1_t *c) {
  pthread_mutex_lock(&c->mu);
  size_t n = c->count;
  pthread_mutex_unlock(&c->mu);
  return n;
}
