/* Skinny collectives: one small StableHLO module per collective, identical on
 * every rank (all_reduce, all_gather, reduce_scatter, all_to_all,
 * collective_permute; broadcast as an all_reduce). This builds module text only; running it is pjrt's.
 *
 * Thread safety: pure functions of their arguments. */
#ifndef TT_DIST_COLLECTIVE_H
#define TT_DIST_COLLECTIVE_H

#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "dist/replica_groups.h"

#define TT_DIST_MAX_RANK 8

typedef enum tt_dist_kind_e {
  TT_DIST_ALL_REDUCE = 0,
  TT_DIST_ALL_GATHER,
  TT_DIST_REDUCE_SCATTER,
  TT_DIST_ALL_TO_ALL,
  TT_DIST_PERMUTE,
  TT_DIST_BROADCAST, /* from each group's `root` position: an all_reduce of the root's data */
  TT_DIST_KIND_COUNT
} tt_dist_kind_t;

/* torch.distributed.ReduceOp's values, in its order. */
typedef enum tt_dist_op_e {
  TT_DIST_SUM = 0,
  TT_DIST_AVG,
  TT_DIST_PRODUCT,
  TT_DIST_MIN,
  TT_DIST_MAX,
  TT_DIST_BAND,
  TT_DIST_BOR,
  TT_DIST_BXOR,
  TT_DIST_PREMUL_SUM,
  TT_DIST_OP_COUNT
} tt_dist_op_t;

/* How replica_groups are read (the spec's process-group modes). With one
 * partition all three name the same processes; CROSS_REPLICA emits no
 * channel_handle, the others channel_handle = 1 (DEVICE_TO_DEVICE), GLOBAL_IDS
 * adds use_global_device_ids. all_to_all and collective_permute read a
 * positive channel id as cross_partition, so they always use CROSS_REPLICA. */
typedef enum tt_dist_channel_e {
  TT_DIST_CROSS_REPLICA = 0,
  TT_DIST_CHANNEL,
  TT_DIST_GLOBAL_IDS,
} tt_dist_channel_t;

typedef struct tt_dist_collective_s {
  tt_dist_kind_t kind;
  tt_dist_op_t op;       /* all_reduce and reduce_scatter */
  tt_dtype_t dtype;
  int rank;              /* one rank's operand */
  int64_t dims[TT_DIST_MAX_RANK];
  int dim;               /* all_gather_dim, scatter_dimension, split_dimension */
  int concat_dim;        /* all_to_all */
  int root;              /* BROADCAST: the source's position in its group */
  const tt_dist_groups_t *groups; /* all kinds but PERMUTE */
  const tt_dist_pairs_t *pairs;   /* PERMUTE */
  tt_dist_channel_t channel;
} tt_dist_collective_t;

const char *tt_dist_kind_name(tt_dist_kind_t kind); /* "all_reduce" ... */
const char *tt_dist_op_name(tt_dist_op_t op);       /* "SUM" ... as ReduceOp spells them */
/* The reverse lookups; -1 for a name that is none of them. */
int tt_dist_kind_from_name(const char *name);
int tt_dist_op_from_name(const char *name);

/* Number of ranks (replicas) the program runs on. */
int tt_dist_collective_world(const tt_dist_collective_t *c);
/* Operands each rank passes: 1, or 2 for PREMUL_SUM (x and a 0-d factor of
 * x's dtype: the result is the group's sum of x * factor). */
int tt_dist_collective_num_args(const tt_dist_collective_t *c);
/* Checks the collective (dims, dtype against op, groups) and gives one rank's
 * result shape. Errors name the collective, the op, the dtype and the shape. */
tt_status_t tt_dist_collective_check(const tt_dist_collective_t *c, int64_t *out_dims,
                                     int *out_rank);
/* Appends the whole module (entry @main, mhlo.num_replicas = world). */
tt_status_t tt_dist_collective_emit(const tt_dist_collective_t *c, tt_strbuf_t *sb);

#endif
