/* The op table: the family tables flattened once into ids, names checked
 * unique, lookup by binary search over the sorted names. */
#include "ops/registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/families.h"

static const tt_op_def_t *const *families(void) {
  /* one family per line, NULL-terminated: merges of new families stay trivial */
  static const tt_op_def_t *const list[] = {
      tt_ops_elementwise,
      tt_ops_reduction,
      tt_ops_shape,
      tt_ops_factory,
      tt_ops_linalg,
      tt_ops_nn,
      tt_ops_index,
      tt_ops_random,
      tt_ops_copy,
      tt_ops_activation,
      tt_ops_norm,
      tt_ops_loss,
      tt_ops_conv,
      tt_ops_pool,
      tt_ops_foreach,
      tt_ops_sort_select,
      tt_ops_scan,
      tt_ops_search,
      tt_ops_distance,
      tt_ops_histogram,
      tt_ops_renorm,
      tt_ops_nonzero_static,
      tt_ops_linalg_chol,
      tt_ops_linalg_small,
      tt_ops_linalg_qr,
      tt_ops_linalg_eig,
      tt_ops_linalg_svd,
      tt_ops_linalg_lstsq,
      tt_ops_linalg_lu,
      tt_ops_linalg_ldl,
      tt_ops_upsample,
      tt_ops_pad,
      tt_ops_pool_adaptive,
      tt_ops_pool3d,
      tt_ops_im2col,
      tt_ops_prelu,
      tt_ops_channel_shuffle,
      tt_ops_group_norm,
      tt_ops_loss_margin,
      tt_ops_special_gamma,
      tt_ops_special_bessel,
      tt_ops_special_misc,
      tt_ops_special_poly,
      tt_ops_special_bessel2,
      tt_ops_special_igamma,
      tt_ops_grid_sample,
      tt_ops_ctc_loss,
      tt_ops_unique,
      tt_ops_bincount,
      tt_ops_repeat_interleave,
      tt_ops_embedding_bag,
      tt_ops_random_dist,
      tt_ops_multinomial,
      tt_ops_rrelu,
      tt_ops_fractional_pool,
      tt_ops_complex,
      tt_ops_fft,
      tt_ops_tri_indices,
      tt_ops_gcd,
      tt_ops_segment_reduce,
      tt_ops_histogramdd,
      tt_ops_fused_optim,
      tt_ops_amp,
      tt_ops_rnn_cells,
      tt_ops_shift,
      tt_ops_foreign,
      tt_ops_weight_norm,
      NULL,
  };
  return list;
}

#define MAX_OPS 2048
/* The flat table and its names in sorted order, built once (pthread_once:
 * engines on several threads may look ops up at once) and read-only after. */
static const tt_op_def_t *flat[MAX_OPS];
static int by_name[MAX_OPS]; /* ids, sorted by name */
static int nflat;
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
      by_name[nflat] = nflat;
      flat[nflat++] = d;
    }
  qsort(by_name, (size_t)nflat, sizeof by_name[0], cmp_ids);
  for (int i = 1; i < nflat; i++)
    if (!strcmp(flat[by_name[i]]->name, flat[by_name[i - 1]]->name)) fail("an op registered twice", flat[by_name[i]]->name);
}

int tt_ops_count(void) {
  pthread_once(&built, build);
  return nflat;
}

const tt_op_def_t *tt_ops_get(int id) {
  pthread_once(&built, build);
  return id >= 0 && id < nflat ? flat[id] : NULL;
}

int tt_ops_find(const char *name) {
  pthread_once(&built, build);
  int lo = 0, hi = nflat - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, c = strcmp(name, flat[by_name[mid]]->name);
    if (c == 0) return by_name[mid];
    if (c < 0) hi = mid - 1;
    else lo = mid + 1;
  }
  return -1;
}
