/* Lowering of channel_shuffle: (N, g, C/g, ...) -> (N, C/g, g, ...) -> (N, C, ...). */
#include <stdio.h>
#include <string.h>

#include "ops/families.h"
#include "ops/nn_util.h"

/* channel_shuffle(self, groups) */
static tt_status_t lower_channel_shuffle(tt_lower_t *L) {
  int r = tt_l_arg_rank(L, 0);
  const int64_t *xs = tt_l_arg_sizes(L, 0);
  int64_t groups = tt_l_int(L, 1, 1);
  if (r < 3) return tt_status_make(TT_INVALID_ARGUMENT, "channel_shuffle expects input to have at least 3 dimensions, but got input with %d dimensions", r);
  if (groups <= 0) return tt_status_make(TT_INVALID_ARGUMENT, "Number of groups to divide channels in must be positive. Value of groups:%lld", (long long)groups);
  if (xs[1] % groups)
    return tt_status_make(TT_INVALID_ARGUMENT, "Number of channels must be divisible by groups. Got %lld channels and %lld groups.", (long long)xs[1],
                          (long long)groups);
  if (r + 1 > TT_MAX_RANK) return tt_status_make(TT_INVALID_ARGUMENT, "channel_shuffle: input of rank %d is too large", r);
  tt_graph_t *g = L->g;
  int64_t d[TT_MAX_RANK], perm[TT_MAX_RANK];
  d[0] = xs[0], d[1] = groups, d[2] = xs[1] / groups;
  for (int i = 2; i < r; i++) d[i + 1] = xs[i];
  for (int i = 0; i <= r; i++) perm[i] = i;
  perm[1] = 2, perm[2] = 1;
  tt_val_t y = tt_b_transpose(g, tt_b_reshape(g, tt_l_tensor(L, 0), r + 1, d), perm);
  tt_l_output(L, tt_b_reshape(g, y, r, xs));
  return NULL;
}

const tt_op_def_t tt_ops_channel_shuffle[] = {
    {"channel_shuffle", lower_channel_shuffle, 0},
    {"native_channel_shuffle", lower_channel_shuffle, 0},
    {NULL, NULL, 0},
};
