/* Each op family file exports a NULL-terminated table; registry.c lists them. */
#ifndef TT_OPS_FAMILIES_H
#define TT_OPS_FAMILIES_H

#include "ops/registry.h"

extern const tt_op_def_t tt_ops_elementwise[];
extern const tt_op_def_t tt_ops_reduction[];
extern const tt_op_def_t tt_ops_shape[];
extern const tt_op_def_t tt_ops_factory[];
extern const tt_op_def_t tt_ops_linalg[];
extern const tt_op_def_t tt_ops_nn[];
extern const tt_op_def_t tt_ops_index[];
extern const tt_op_def_t tt_ops_random[];
extern const tt_op_def_t tt_ops_copy[];
extern const tt_op_def_t tt_ops_activation[];
extern const tt_op_def_t tt_ops_norm[];
extern const tt_op_def_t tt_ops_loss[];
extern const tt_op_def_t tt_ops_conv[];
extern const tt_op_def_t tt_ops_pool[];
extern const tt_op_def_t tt_ops_foreach[];
extern const tt_op_def_t tt_ops_sort_select[];
extern const tt_op_def_t tt_ops_scan[];
extern const tt_op_def_t tt_ops_search[];
extern const tt_op_def_t tt_ops_distance[];
extern const tt_op_def_t tt_ops_histogram[];
extern const tt_op_def_t tt_ops_renorm[];
extern const tt_op_def_t tt_ops_nonzero_static[];
extern const tt_op_def_t tt_ops_linalg_chol[];
extern const tt_op_def_t tt_ops_linalg_small[];
extern const tt_op_def_t tt_ops_linalg_qr[];
extern const tt_op_def_t tt_ops_linalg_eig[];
extern const tt_op_def_t tt_ops_linalg_svd[];
extern const tt_op_def_t tt_ops_linalg_lstsq[];
extern const tt_op_def_t tt_ops_linalg_lu[];
extern const tt_op_def_t tt_ops_linalg_ldl[];
extern const tt_op_def_t tt_ops_upsample[];
extern const tt_op_def_t tt_ops_pad[];
extern const tt_op_def_t tt_ops_pool_adaptive[];
extern const tt_op_def_t tt_ops_pool3d[];
extern const tt_op_def_t tt_ops_fused_optim[];
extern const tt_op_def_t tt_ops_amp[];
extern const tt_op_def_t tt_ops_rnn_cells[];
extern const tt_op_def_t tt_ops_shift[];
extern const tt_op_def_t tt_ops_foreign[];
extern const tt_op_def_t tt_ops_weight_norm[];
extern const tt_op_def_t tt_ops_im2col[];
extern const tt_op_def_t tt_ops_prelu[];
extern const tt_op_def_t tt_ops_channel_shuffle[];
extern const tt_op_def_t tt_ops_group_norm[];
extern const tt_op_def_t tt_ops_loss_margin[];
extern const tt_op_def_t tt_ops_special_gamma[];
extern const tt_op_def_t tt_ops_special_bessel[];
extern const tt_op_def_t tt_ops_special_misc[];
extern const tt_op_def_t tt_ops_special_poly[];
extern const tt_op_def_t tt_ops_special_bessel2[];
extern const tt_op_def_t tt_ops_special_igamma[];
extern const tt_op_def_t tt_ops_grid_sample[];
extern const tt_op_def_t tt_ops_ctc_loss[];
extern const tt_op_def_t tt_ops_unique[];
extern const tt_op_def_t tt_ops_bincount[];
extern const tt_op_def_t tt_ops_repeat_interleave[];
extern const tt_op_def_t tt_ops_embedding_bag[];
extern const tt_op_def_t tt_ops_random_dist[];
extern const tt_op_def_t tt_ops_multinomial[];
extern const tt_op_def_t tt_ops_rrelu[];
extern const tt_op_def_t tt_ops_fractional_pool[];
extern const tt_op_def_t tt_ops_complex[];
extern const tt_op_def_t tt_ops_fft[];
extern const tt_op_def_t tt_ops_tri_indices[];
extern const tt_op_def_t tt_ops_gcd[];
extern const tt_op_def_t tt_ops_segment_reduce[];
extern const tt_op_def_t tt_ops_histogramdd[];

#endif
