"""Decompositions of PyTorch's fused inference fast paths into ops the core
lowers: nn.MultiheadAttention and nn.TransformerEncoderLayer call
`_native_multi_head_attention` and `_transformer_encoder_layer_fwd` in eval
mode under no_grad on "cpu", "cuda" and the PrivateUse1 device. PyTorch gives
them CPU and CUDA kernels only, so without these a model in eval mode raised
NotImplementedError. Each is written from the ops its CPU kernel runs, in the
same order: in-projection (one matmul when query, key and value are the same
tensor), q scaled by 1/sqrt(head dim) after its bias, masked softmax
(boolean masks mark what is left out; float masks are added), the attention
weights averaged over heads when asked, the out-projection."""
import math

import torch

aten = torch.ops.aten
_lib = None


def _in_projection(query, key, value, embed_dim, qkv_weight, qkv_bias):
    if query is key and key is value:
        q, k, v = torch.nn.functional.linear(query, qkv_weight, qkv_bias).chunk(3, dim=-1)
        return q, k, v
    w_q, w_k, w_v = qkv_weight.split(embed_dim)
    b_q, b_k, b_v = qkv_bias.split(embed_dim)
    lin = torch.nn.functional.linear
    return lin(query, w_q, b_q), lin(key, w_k, b_k), lin(value, w_v, b_v)


def _heads(x, num_head):
    b, t, d = x.shape
    return x.reshape(b, t, num_head, d // num_head).transpose(1, 2)


def _apply_mask(scores, mask, mask_type):
    if mask is None:
        return scores
    b, _, _, s = scores.shape
    if mask_type == 1 or (mask_type is None and mask.dim() == 2 and mask.shape == (b, s) and mask.shape != scores.shape[-2:]):
        mask = mask.reshape(b, 1, 1, s)  # a key padding mask [B, S]
    elif mask.dim() == 3:
        mask = mask.reshape(b, -1, *mask.shape[-2:])
    if mask.dtype == torch.bool:
        return scores.masked_fill(mask, float("-inf"))
    return scores + mask.to(scores.dtype)


def _native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias, proj_weight,
                                 proj_bias, mask=None, need_weights=True, average_attn_weights=True, mask_type=None):
    if query.dim() != 3 or query.shape[-1] != embed_dim:
        raise RuntimeError(f"expected query of shape [B, T, {embed_dim}], got {list(query.shape)}")
    if embed_dim % num_head != 0:
        raise RuntimeError(f"embed_dim ({embed_dim}) must be divisible by num_head ({num_head})")
    q, k, v = _in_projection(query, key, value, embed_dim, qkv_weight, qkv_bias)
    q = _heads(q, num_head) / math.sqrt(embed_dim // num_head)
    k, v = _heads(k, num_head), _heads(v, num_head)
    weights = torch.softmax(_apply_mask(q @ k.transpose(-2, -1), mask, mask_type), dim=-1)
    ctx = (weights @ v).transpose(1, 2).reshape(query.shape[0], query.shape[1], embed_dim)
    out = torch.nn.functional.linear(ctx, proj_weight, proj_bias)
    if not need_weights:
        return out, None  # an undefined tensor, as CPU's kernel returns
    if average_attn_weights:
        weights = weights.sum(dim=1) / num_head
    return out, weights


def _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias,
                                   use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2,
                                   norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None,
                                   mask_type=None):
    f = torch.nn.functional
    x = src
    if norm_first:
        x = f.layer_norm(x, (embed_dim,), norm_weight_1, norm_bias_1, eps)
    x = _native_multi_head_attention(x, x, x, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias,
                                     mask, False, True, mask_type)[0] + src
    if not norm_first:
        x = f.layer_norm(x, (embed_dim,), norm_weight_1, norm_bias_1, eps)
    residual = x
    if norm_first:
        x = f.layer_norm(x, (embed_dim,), norm_weight_2, norm_bias_2, eps)
    h = f.linear(x, ffn_weight_1, ffn_bias_1)
    h = f.gelu(h) if use_gelu else f.relu(h)
    x = f.linear(h, ffn_weight_2, ffn_bias_2) + residual
    if not norm_first:
        x = f.layer_norm(x, (embed_dim,), norm_weight_2, norm_bias_2, eps)
    return x


def _nested_tensor_from_mask_left_aligned(t, mask):
    """There are no nested tensors on "tpu". TransformerEncoder asks this
    before turning a padded batch into a nested one; False sends it down its
    dense path (as `enable_nested_tensor=False` does), so the positions the
    padding mask leaves out hold the dense path's values instead of the
    nested path's zeros; every other position is the same."""
    return False


def install():
    global _lib
    _lib = torch.library.Library("aten", "IMPL")
    _lib.impl("_native_multi_head_attention", _native_multi_head_attention, "PrivateUse1")
    _lib.impl("_transformer_encoder_layer_fwd", _transformer_encoder_layer_fwd, "PrivateUse1")
    _lib.impl("_nested_tensor_from_mask_left_aligned", _nested_tensor_from_mask_left_aligned, "PrivateUse1")
