/* Shared by the files of csrc/dist that write collective module text. */
#ifndef TT_DIST_COLLECTIVE_INTERNAL_H
#define TT_DIST_COLLECTIVE_INTERNAL_H

#include "dist/collective.h"

/* tensor<2x3xf32> (tensor<f32> for rank 0). */
void tt_dist_tensor_type(tt_strbuf_t *sb, const int64_t *dims, int rank, tt_dtype_t dt);
/* ({ ^bb0(%a, %b): %c = stablehlo.<comb>; return %c }) over tensor<dt>. */
void tt_dist_region(tt_strbuf_t *sb, const char *comb, tt_dtype_t dt);
/* , channel_handle = ... [, use_global_device_ids] (nothing for CROSS_REPLICA). */
void tt_dist_channel_attrs(tt_strbuf_t *sb, tt_dist_channel_t ch);

/* XLA's collective runtimes (CPU, GPU) accept as a reduction only add,
 * multiply, minimum, maximum, and and/or on i1 (as min/max): integer
 * and/or/xor and i1 xor need a local reduce after moving the data. */
int tt_dist_needs_local_reduce(const char *comb, tt_dtype_t dt);
/* %r from %x by moving every member's data to every rank (all_gather for
 * all_reduce, all_to_all for reduce_scatter) and reducing it there with
 * stablehlo.reduce, which takes any combiner. */
void tt_dist_emit_local_reduce(const tt_dist_collective_t *c, const char *comb,
                               const int64_t *rd, int rr, tt_strbuf_t *sb);
/* %r for BROADCAST: every rank but its group's root swaps its data's bits for
 * zeros (chosen by replica_id from a table in the program), then one integer
 * all_reduce sums the bits (XLA's CPU backend has no collective_broadcast). */
void tt_dist_emit_broadcast(const tt_dist_collective_t *c, tt_strbuf_t *sb);

#endif
