/* The op table: the family tables flattened once into ids, names checked
 * unique, lookup by binary search over the sorted names; each row's size
 * companion gets an id after all the rows. */
#include "ops/registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/families.h"

static const tt_op_def_t *const *families(void) {
  static const tt_op_def_t *const list[] = {
#define TT_FAMILY(name) tt_ops_##name,
#include "ops/families.def"
#undef TT_FAMILY
      NULL,
  };
  return list;
}

#define MAX_OPS 2048
#define MAX_COMPANIONS 32
/* The flat table and its names in sorted order, built once (pthread_once:
 * engines on several threads may look ops up at once) and read-only after. */
static const tt_op_def_t *flat[MAX_OPS];
static int by_name[MAX_OPS]; /* ids of the rows, sorted by name */
static int nflat, nnamed;
static tt_op_def_t companions[MAX_COMPANIONS]; /* {op's name, its size lowering} */
static int companion_of[MAX_OPS];               /* row id -> companion id, or -1 */
static pthread_once_t built = PTHREAD_ONCE_INIT;

static int cmp_ids(const void *a, const void *b) {
  return strcmp(flat[*(const int *)a]->name, flat[*(const int *)b]->name);
}

/* A table that cannot be indexed is a build mistake: it stops the process
 * at load, naming the row, rather than shadowing one lowering with another. */
static void fail(const char *what, const char *name) {
  fprintf(stderr, "torchtpu: op registry: %s: %s (csrc/ops/registry.c)\n", what, name);
  abort();
}

static void build(void) {
  nflat = 0;
  for (const tt_op_def_t *const *f = families(); *f; f++)
    for (const tt_op_def_t *d = *f; d->name; d++) {
      if (nflat == MAX_OPS) fail("more ops than MAX_OPS; raise it", d->name);
      if (!d->fn) fail("an op without a lowering", d->name);
      if (d->flags & ~(TT_OPF_INPLACE | TT_OPF_UNIFORM_WRITE | TT_OPF_COMPLEX | TT_OPF_INDEX_MASKS | TT_OPF_UNORDERED |
                       TT_OPF_UNORDERED_CHECK)) fail("an unknown flag", d->name);
      if ((unsigned)d->layout > TT_LAYOUT_COPY) fail("an unknown result layout", d->name);
      if (d->complex && (d->flags & TT_OPF_COMPLEX)) fail("both a complex lowering and TT_OPF_COMPLEX", d->name);
      int unordered = d->flags & (TT_OPF_UNORDERED | TT_OPF_UNORDERED_CHECK);
      if (unordered == (TT_OPF_UNORDERED | TT_OPF_UNORDERED_CHECK)) fail("both unordered flags", d->name);
      if ((d->complex || (d->flags & TT_OPF_COMPLEX)) && unordered) fail("a complex rule and an unordered flag", d->name);
      by_name[nflat] = nflat;
      flat[nflat++] = d;
    }
  nnamed = nflat;
  qsort(by_name, (size_t)nnamed, sizeof by_name[0], cmp_ids);
  int ncomp = 0;
  for (int id = 0; id < nnamed; id++) {
    companion_of[id] = -1;
    if (!flat[id]->size) continue;
    if (ncomp == MAX_COMPANIONS || nflat == MAX_OPS) fail("more size companions than MAX_COMPANIONS; raise it", flat[id]->name);
    /* reads what its op reads: its op's complex rule when that is "as is" */
    companions[ncomp] = (tt_op_def_t){.name = flat[id]->name, .fn = flat[id]->size, .flags = flat[id]->flags &
                                     (TT_OPF_COMPLEX | TT_OPF_UNORDERED | TT_OPF_UNORDERED_CHECK)};
    companion_of[id] = nflat;
    flat[nflat++] = &companions[ncomp++];
  }
  for (int i = 1; i < nnamed; i++)
    if (!strcmp(flat[by_name[i]]->name, flat[by_name[i - 1]]->name)) fail("an op registered twice", flat[by_name[i]]->name);
}

int tt_ops_count(void) {
  pthread_once(&built, build);
  return nflat;
}

int tt_ops_named_count(void) {
  pthread_once(&built, build);
  return nnamed;
}

int tt_ops_size_companion(int id) {
  pthread_once(&built, build);
  return id >= 0 && id < nnamed ? companion_of[id] : -1;
}

const tt_op_def_t *tt_ops_get(int id) {
  pthread_once(&built, build);
  return id >= 0 && id < nflat ? flat[id] : NULL;
}

int tt_ops_find(const char *name) {
  pthread_once(&built, build);
  int lo = 0, hi = nnamed - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, c = strcmp(name, flat[by_name[mid]]->name);
    if (c == 0) return by_name[mid];
    if (c < 0) hi = mid - 1;
    else lo = mid + 1;
  }
  return -1;
}
