/* Replica groups for StableHLO collectives: every subgroup of a split, as
 * the one program all ranks run must name them (a reduction over (4, 0, 1, 3)
 * in a world of 8 also lists (5, 2, 6, 7)), and the source/target pairs of a
 * collective_permute. Pure data and text; knows nothing of devices.
 *
 * Thread safety: a tt_dist_groups_t is a plain value; functions taking const
 * pointers may run concurrently on the same groups. */
#ifndef TT_DIST_REPLICA_GROUPS_H
#define TT_DIST_REPLICA_GROUPS_H

#include <stdint.h>

#include "base/status.h"
#include "base/strbuf.h"

typedef struct tt_dist_groups_s {
  int world;      /* number of replicas (ranks) */
  int num_groups;
  int group_size; /* StableHLO's replica_groups is a rectangle: every group has this many */
  int *ranks;     /* owned, [num_groups][group_size]; a group's order is its rank order */
} tt_dist_groups_t;

/* The complete split from the subgroups known so far (new_group gives one,
 * split_group gives all): `num_known` groups, group i being
 * ranks[offset_i .. offset_i + sizes[i]) with offsets the running sum of sizes.
 * Ranks named by no known group are cut, in ascending order, into further
 * groups of the same size. Errors (VALUE_ERROR, naming the group and rank): a
 * rank outside [0, world), a rank in two groups, groups of different sizes,
 * and leftovers that do not fill whole groups (StableHLO cannot express an
 * uneven split in one collective). */
tt_status_t tt_dist_groups_resolve(int world, int num_known, const int *sizes, const int *ranks,
                                   tt_dist_groups_t *out);
/* MPI-style split: rank r joins group colors[r] (groups ordered by color),
 * ordered inside by (keys[r], r); keys may be NULL (rank order). A negative
 * color leaves the rank out of every named group; such ranks are completed
 * as in tt_dist_groups_resolve. */
tt_status_t tt_dist_groups_from_colors(int world, const int *colors, const int *keys,
                                       tt_dist_groups_t *out);
/* One group of the whole world in rank order (the default process group). */
tt_status_t tt_dist_groups_world(int world, tt_dist_groups_t *out);
void tt_dist_groups_free(tt_dist_groups_t *g);

/* The group holding `rank`, and its position there; -1 if none. */
int tt_dist_groups_find(const tt_dist_groups_t *g, int rank, int *out_pos);
/* dense<[[4, 0, 1, 3], [5, 2, 6, 7]]> : tensor<2x4xi64> */
void tt_dist_groups_format(const tt_dist_groups_t *g, tt_strbuf_t *sb);

/* Source/target pairs of a collective_permute, global ranks. */
typedef struct tt_dist_pairs_s {
  int world;
  int num_pairs;
  int *pairs; /* owned, [num_pairs][2] = {source, target} */
} tt_dist_pairs_t;

/* Checks and copies global pairs (send/recv, batch_isend_irecv): in range,
 * each source sends once and each target receives once (the spec's C2, C3). */
tt_status_t tt_dist_pairs_make(int world, int num_pairs, const int *pairs, tt_dist_pairs_t *out);
/* Pairs given by group position ({i, j}: the group's i-th rank sends to its
 * j-th), applied in every group of `g` (so one program serves all groups). */
tt_status_t tt_dist_pairs_in_groups(const tt_dist_groups_t *g, int num_pairs, const int *local,
                                    tt_dist_pairs_t *out);
void tt_dist_pairs_free(tt_dist_pairs_t *p);
/* dense<[[0, 1], [1, 2]]> : tensor<2x2xi64> (tensor<0x2xi64> when empty) */
void tt_dist_pairs_format(const tt_dist_pairs_t *p, tt_strbuf_t *sb);

#endif
