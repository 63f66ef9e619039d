/* torch.autocast(device_type="tpu")'s policy: CUDA's (PyTorch's autocast op
 * reference), one class per ATen op name (functional overloads; composite
 * ops such as linear, conv2d and layer_norm included, which have no row in
 * the registry because PyTorch decomposes them before they reach us; their
 * autocast kernel sits above the decomposition). The glue installs one
 * AutocastPrivateUse1 kernel per name from this table (torchtpu/_autocast.py). */
#include "ops/autocast_policy.h"

#include <stddef.h>

static const tt_autocast_row_t rows[] = {
    /* run in the autocast dtype (bfloat16 by default on tpu) */
    {"_convolution", TT_AUTOCAST_LOWER}, {"_convolution.deprecated", TT_AUTOCAST_LOWER},
    {"conv1d", TT_AUTOCAST_LOWER}, {"conv1d.padding", TT_AUTOCAST_LOWER}, {"conv2d", TT_AUTOCAST_LOWER},
    {"conv2d.padding", TT_AUTOCAST_LOWER}, {"conv3d", TT_AUTOCAST_LOWER}, {"conv3d.padding", TT_AUTOCAST_LOWER},
    {"conv_tbc", TT_AUTOCAST_LOWER}, {"conv_transpose1d", TT_AUTOCAST_LOWER},
    {"conv_transpose2d.input", TT_AUTOCAST_LOWER}, {"conv_transpose3d.input", TT_AUTOCAST_LOWER},
    {"convolution", TT_AUTOCAST_LOWER}, {"prelu", TT_AUTOCAST_LOWER}, {"addmm", TT_AUTOCAST_LOWER},
    {"addmv", TT_AUTOCAST_LOWER}, {"addr", TT_AUTOCAST_LOWER}, {"matmul", TT_AUTOCAST_LOWER},
    {"einsum", TT_AUTOCAST_LOWER}, {"mm", TT_AUTOCAST_LOWER}, {"mv", TT_AUTOCAST_LOWER},
    {"linalg_vecdot", TT_AUTOCAST_LOWER}, {"linear", TT_AUTOCAST_LOWER}, {"addbmm", TT_AUTOCAST_LOWER},
    {"baddbmm", TT_AUTOCAST_LOWER}, {"bmm", TT_AUTOCAST_LOWER}, {"chain_matmul", TT_AUTOCAST_LOWER},
    {"linalg_multi_dot", TT_AUTOCAST_LOWER}, {"_thnn_fused_lstm_cell", TT_AUTOCAST_LOWER},
    {"_thnn_fused_gru_cell", TT_AUTOCAST_LOWER}, {"lstm_cell", TT_AUTOCAST_LOWER}, {"gru_cell", TT_AUTOCAST_LOWER},
    {"rnn_tanh_cell", TT_AUTOCAST_LOWER}, {"rnn_relu_cell", TT_AUTOCAST_LOWER},
    {"scaled_dot_product_attention", TT_AUTOCAST_LOWER},
    /* run in float32 (ops that need range or precision) */
    {"acos", TT_AUTOCAST_FP32}, {"asin", TT_AUTOCAST_FP32}, {"cosh", TT_AUTOCAST_FP32},
    {"erfinv", TT_AUTOCAST_FP32}, {"exp", TT_AUTOCAST_FP32}, {"expm1", TT_AUTOCAST_FP32}, {"log", TT_AUTOCAST_FP32},
    {"log10", TT_AUTOCAST_FP32}, {"log2", TT_AUTOCAST_FP32}, {"log1p", TT_AUTOCAST_FP32},
    {"reciprocal", TT_AUTOCAST_FP32}, {"rsqrt", TT_AUTOCAST_FP32}, {"sinh", TT_AUTOCAST_FP32},
    {"tan", TT_AUTOCAST_FP32}, {"pow.Tensor_Scalar", TT_AUTOCAST_FP32}, {"pow.Tensor_Tensor", TT_AUTOCAST_FP32},
    {"pow.Scalar", TT_AUTOCAST_FP32}, {"softplus", TT_AUTOCAST_FP32}, {"layer_norm", TT_AUTOCAST_FP32},
    {"native_layer_norm", TT_AUTOCAST_FP32}, {"group_norm", TT_AUTOCAST_FP32},
    {"frobenius_norm.dim", TT_AUTOCAST_FP32}, {"nuclear_norm", TT_AUTOCAST_FP32},
    {"nuclear_norm.dim", TT_AUTOCAST_FP32}, {"cosine_similarity", TT_AUTOCAST_FP32},
    {"poisson_nll_loss", TT_AUTOCAST_FP32}, {"cosine_embedding_loss", TT_AUTOCAST_FP32},
    {"nll_loss", TT_AUTOCAST_FP32}, {"nll_loss2d", TT_AUTOCAST_FP32}, {"hinge_embedding_loss", TT_AUTOCAST_FP32},
    {"kl_div", TT_AUTOCAST_FP32}, {"l1_loss", TT_AUTOCAST_FP32}, {"smooth_l1_loss", TT_AUTOCAST_FP32},
    {"huber_loss", TT_AUTOCAST_FP32}, {"mse_loss", TT_AUTOCAST_FP32}, {"margin_ranking_loss", TT_AUTOCAST_FP32},
    {"multilabel_margin_loss", TT_AUTOCAST_FP32}, {"soft_margin_loss", TT_AUTOCAST_FP32},
    {"triplet_margin_loss", TT_AUTOCAST_FP32}, {"multi_margin_loss", TT_AUTOCAST_FP32},
    {"binary_cross_entropy_with_logits", TT_AUTOCAST_FP32}, {"dist", TT_AUTOCAST_FP32}, {"pdist", TT_AUTOCAST_FP32},
    {"cdist", TT_AUTOCAST_FP32}, {"renorm", TT_AUTOCAST_FP32}, {"logsumexp", TT_AUTOCAST_FP32},
    {"upsample_nearest1d", TT_AUTOCAST_FP32}, {"upsample_nearest2d", TT_AUTOCAST_FP32},
    {"upsample_nearest3d", TT_AUTOCAST_FP32}, {"_upsample_nearest_exact1d", TT_AUTOCAST_FP32},
    {"_upsample_nearest_exact2d", TT_AUTOCAST_FP32}, {"_upsample_nearest_exact3d", TT_AUTOCAST_FP32},
    {"upsample_linear1d", TT_AUTOCAST_FP32}, {"upsample_bilinear2d", TT_AUTOCAST_FP32},
    {"_upsample_bilinear2d_aa", TT_AUTOCAST_FP32}, {"upsample_trilinear3d", TT_AUTOCAST_FP32},
    {"upsample_bicubic2d", TT_AUTOCAST_FP32}, {"_upsample_bicubic2d_aa", TT_AUTOCAST_FP32},
    /* CUDA passes dtype=float32 to these when none is given: the same as float32 inputs */
    {"prod", TT_AUTOCAST_FP32}, {"prod.dim_int", TT_AUTOCAST_FP32}, {"softmax.int", TT_AUTOCAST_FP32},
    {"log_softmax.int", TT_AUTOCAST_FP32}, {"cumprod", TT_AUTOCAST_FP32}, {"cumsum", TT_AUTOCAST_FP32},
    {"linalg_vector_norm", TT_AUTOCAST_FP32}, {"linalg_matrix_norm", TT_AUTOCAST_FP32},
    {"linalg_matrix_norm.str_ord", TT_AUTOCAST_FP32}, {"sum", TT_AUTOCAST_FP32},
    {"sum.dim_IntList", TT_AUTOCAST_FP32},
    /* run at the widest floating type among the inputs */
    {"addcdiv", TT_AUTOCAST_PROMOTE}, {"addcmul", TT_AUTOCAST_PROMOTE}, {"atan2", TT_AUTOCAST_PROMOTE},
    {"bilinear", TT_AUTOCAST_PROMOTE}, {"cross", TT_AUTOCAST_PROMOTE}, {"dot", TT_AUTOCAST_PROMOTE},
    {"vdot", TT_AUTOCAST_PROMOTE}, {"grid_sampler", TT_AUTOCAST_PROMOTE}, {"index_put", TT_AUTOCAST_PROMOTE},
    {"tensordot", TT_AUTOCAST_PROMOTE}, {"scatter_add", TT_AUTOCAST_PROMOTE}, {"stack", TT_AUTOCAST_PROMOTE},
    {"cat", TT_AUTOCAST_PROMOTE},
};

int tt_autocast_count(void) { return (int)(sizeof rows / sizeof rows[0]); }

const tt_autocast_row_t *tt_autocast_row(int i) { return i >= 0 && i < tt_autocast_count() ? &rows[i] : NULL; }

const char *tt_autocast_class_name(tt_autocast_class_t c) {
  switch (c) {
    case TT_AUTOCAST_LOWER: return "lower";
    case TT_AUTOCAST_FP32: return "fp32";
    case TT_AUTOCAST_PROMOTE: return "promote";
  }
  return "?";
}
