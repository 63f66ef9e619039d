/* Tier 1: a chained hash table of refcounted executables on an LRU list. */
#include "cache/tier1.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

struct tt_tier1_exe_s {
  tt_cache_key_t key;
  tt_pjrt_executable_t *exe;
  int refs;                        /* the table's (while in it) + launches' */
  int in_table;
  void *tag;                       /* the inserter's (tiered compilation's record), or NULL */
  tt_tier1_exe_t *next;            /* hash chain */
  tt_tier1_exe_t *newer, *older;   /* LRU list, newest at head */
};

struct tt_tier1_s {
  pthread_mutex_t mu;
  tt_pjrt_runtime_t *rt;
  tt_tier1_exe_t **buckets;
  size_t nbuckets, count, max_entries, lingering;
  tt_tier1_exe_t *newest, *oldest;
  uint64_t evicted;
};

tt_status_t tt_tier1_create(tt_pjrt_runtime_t *rt, size_t max_entries, tt_tier1_t **out_cache) {
  tt_tier1_t *c = tt_calloc(1, sizeof(*c));
  if (c) c->buckets = tt_calloc(256, sizeof(*c->buckets));
  if (!c || !c->buckets) {
    tt_free(c);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory creating the compile cache");
  }
  c->nbuckets = 256;
  c->rt = rt;
  c->max_entries = max_entries;
  pthread_mutex_init(&c->mu, NULL);
  *out_cache = c;
  return TT_OK_STATUS;
}

size_t tt_tier1_max_entries_from_env(const tt_env_t *env) {
  return (size_t)tt_env_count(env, TT_ENV_TIER1_MAX_ENTRIES, TT_TIER1_DEFAULT_MAX_ENTRIES);
}

static void free_entry(tt_tier1_t *c, tt_tier1_exe_t *e) {
  tt_pjrt_executable_destroy(c->rt, e->exe);
  tt_free(e);
}

void tt_tier1_destroy(tt_tier1_t *c) {
  if (!c) return;
  for (tt_tier1_exe_t *e = c->newest, *next; e; e = next) {
    next = e->older;
    free_entry(c, e);
  }
  tt_free(c->buckets);
  pthread_mutex_destroy(&c->mu);
  tt_free(c);
}

static size_t bucket_of(const tt_tier1_t *c, const tt_cache_key_t *k) {
  uint64_t h = k->shapeless ^ (k->dims * 0x9e3779b97f4a7c15ULL) ^ (k->options << 1);
  h ^= h >> 29;
  return (size_t)h & (c->nbuckets - 1);
}

static int key_eq(const tt_cache_key_t *a, const tt_cache_key_t *b) {
  return a->shapeless == b->shapeless && a->dims == b->dims && a->options == b->options;
}

static tt_tier1_exe_t **find_link(tt_tier1_t *c, const tt_cache_key_t *k) {
  tt_tier1_exe_t **p = &c->buckets[bucket_of(c, k)];
  while (*p && !key_eq(&(*p)->key, k)) p = &(*p)->next;
  return p;
}

static void lru_unlink(tt_tier1_t *c, tt_tier1_exe_t *e) {
  if (e->newer) e->newer->older = e->older;
  else c->newest = e->older;
  if (e->older) e->older->newer = e->newer;
  else c->oldest = e->newer;
  e->newer = e->older = NULL;
}

static void lru_push(tt_tier1_t *c, tt_tier1_exe_t *e) {
  e->older = c->newest;
  e->newer = NULL;
  if (c->newest) c->newest->newer = e;
  c->newest = e;
  if (!c->oldest) c->oldest = e;
}

tt_tier1_exe_t *tt_tier1_lookup(tt_tier1_t *c, const tt_cache_key_t *k) {
  pthread_mutex_lock(&c->mu);
  tt_tier1_exe_t *e = *find_link(c, k);
  if (e) {
    e->refs++;
    if (c->newest != e) {
      lru_unlink(c, e);
      lru_push(c, e);
    }
  }
  pthread_mutex_unlock(&c->mu);
  return e;
}

static void grow(tt_tier1_t *c) {
  size_t n = c->nbuckets * 2;
  tt_tier1_exe_t **b = tt_calloc(n, sizeof(*b));
  if (!b) return; /* longer chains: still correct, slower */
  tt_tier1_exe_t **old = c->buckets;
  size_t oldn = c->nbuckets;
  c->buckets = b;
  c->nbuckets = n;
  for (size_t i = 0; i < oldn; i++)
    for (tt_tier1_exe_t *e = old[i], *next; e; e = next) {
      next = e->next;
      size_t j = bucket_of(c, &e->key);
      e->next = b[j];
      b[j] = e;
    }
  tt_free(old);
}

/* Drops the table's reference of the oldest entry; destroyed now unless a
 * launch still holds it (then by the launch's release). Called locked. */
static void evict_oldest(tt_tier1_t *c) {
  tt_tier1_exe_t *e = c->oldest;
  tt_tier1_exe_t **p = find_link(c, &e->key);
  *p = e->next;
  lru_unlink(c, e);
  e->in_table = 0;
  c->count--;
  c->evicted++;
  if (--e->refs == 0) free_entry(c, e);
  else c->lingering++;
}

tt_tier1_exe_t *tt_tier1_insert(tt_tier1_t *c, const tt_cache_key_t *k, tt_pjrt_executable_t *exe) {
  return tt_tier1_insert_as(c, k, exe, NULL);
}

tt_tier1_exe_t *tt_tier1_insert_as(tt_tier1_t *c, const tt_cache_key_t *k, tt_pjrt_executable_t *exe, void *tag) {
  tt_tier1_exe_t *fresh = tt_calloc(1, sizeof(*fresh));
  pthread_mutex_lock(&c->mu);
  tt_tier1_exe_t **p = find_link(c, k);
  tt_tier1_exe_t *e = *p;
  if (e) { /* another compile of the key won */
    tt_pjrt_executable_destroy(c->rt, exe);
    tt_free(fresh);
    e->refs++;
  } else if (!fresh) { /* no memory for an entry */
    pthread_mutex_unlock(&c->mu);
    tt_pjrt_executable_destroy(c->rt, exe);
    return NULL;
  } else {
    e = fresh;
    e->key = *k;
    e->exe = exe;
    e->refs = 2; /* the table's and the caller's */
    e->in_table = 1;
    e->tag = tag;
    *p = e;
    lru_push(c, e);
    c->count++;
    if (c->count > c->nbuckets) grow(c);
    while (c->max_entries && c->count > c->max_entries && c->oldest != e) evict_oldest(c);
  }
  pthread_mutex_unlock(&c->mu);
  return e;
}

int tt_tier1_replace(tt_tier1_t *c, const tt_cache_key_t *k, tt_pjrt_executable_t *exe) {
  pthread_mutex_lock(&c->mu);
  tt_tier1_exe_t **p = find_link(c, k);
  tt_tier1_exe_t *old = *p;
  if (old) { /* out of the table; destroyed now or by the last launch's release */
    *p = old->next;
    lru_unlink(c, old);
    old->in_table = 0;
    c->count--;
    if (--old->refs == 0) free_entry(c, old);
    else c->lingering++;
  }
  pthread_mutex_unlock(&c->mu);
  tt_tier1_exe_t *e = tt_tier1_insert_as(c, k, exe, NULL);
  tt_tier1_release(c, e);
  return e != NULL;
}

void *tt_tier1_tag(const tt_tier1_exe_t *e) { return e->tag; }

void tt_tier1_retain(tt_tier1_t *c, tt_tier1_exe_t *e) {
  pthread_mutex_lock(&c->mu);
  e->refs++;
  pthread_mutex_unlock(&c->mu);
}

void tt_tier1_release(tt_tier1_t *c, tt_tier1_exe_t *e) {
  if (!e) return;
  pthread_mutex_lock(&c->mu);
  if (--e->refs == 0) {
    c->lingering--;
    free_entry(c, e);
  }
  pthread_mutex_unlock(&c->mu);
}

tt_pjrt_executable_t *tt_tier1_executable(const tt_tier1_exe_t *e) { return e->exe; }

size_t tt_tier1_size(tt_tier1_t *c) {
  pthread_mutex_lock(&c->mu);
  size_t n = c->count;
  pthread_mutex_unlock(&c->mu);
  return n;
}

uint64_t tt_tier1_evicted(tt_tier1_t *c) {
  pthread_mutex_lock(&c->mu);
  uint64_t n = c->evicted;
  pthread_mutex_unlock(&c->mu);
  return n;
}

size_t tt_tier1_lingering(tt_tier1_t *c) {
  pthread_mutex_lock(&c->mu);
  size_t n = c->lingering;
  pthread_mutex_unlock(&c->mu);
  return n;
}
