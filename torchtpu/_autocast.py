"""torch.autocast(device_type="tpu"): kernels for the AutocastPrivateUse1
dispatch key, which PyTorch leaves empty for out-of-tree devices. The
policy is CUDA's (PyTorch's autocast op reference): matmul/conv-like ops
run in the autocast dtype, ops that need range or precision in float32,
multi-input ops at the widest input type; every other op falls through
unchanged. Glue only: each kernel casts its floating tpu arguments and
calls the op again below the autocast key."""
import torch

# run in the autocast dtype (bfloat16 by default on tpu)
LOWER = (
    "_convolution", "_convolution.deprecated", "conv1d", "conv1d.padding", "conv2d", "conv2d.padding",
    "conv3d", "conv3d.padding", "conv_tbc", "conv_transpose1d", "conv_transpose2d.input", "conv_transpose3d.input",
    "convolution", "prelu", "addmm", "addmv", "addr", "matmul", "einsum", "mm", "mv", "linalg_vecdot", "linear",
    "addbmm", "baddbmm", "bmm", "chain_matmul", "linalg_multi_dot", "_thnn_fused_lstm_cell",
    "_thnn_fused_gru_cell", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
    "scaled_dot_product_attention",
)
# run in float32
FP32 = (
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt",
    "sinh", "tan", "pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar", "softplus", "layer_norm",
    "native_layer_norm", "group_norm", "frobenius_norm.dim", "nuclear_norm", "nuclear_norm.dim",
    "cosine_similarity", "poisson_nll_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d",
    "hinge_embedding_loss", "kl_div", "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss",
    "margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss",
    "multi_margin_loss", "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp",
    "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d", "_upsample_nearest_exact1d",
    "_upsample_nearest_exact2d", "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d",
    "_upsample_bilinear2d_aa", "upsample_trilinear3d", "upsample_bicubic2d", "_upsample_bicubic2d_aa",
    # CUDA passes dtype=float32 to these when none is given: the same as float32 inputs
    "prod", "prod.dim_int", "softmax.int", "log_softmax.int", "cumprod", "cumsum", "linalg_vector_norm",
    "linalg_matrix_norm", "linalg_matrix_norm.str_ord", "sum", "sum.dim_IntList",
)
# run at the widest floating type among the inputs
PROMOTE = (
    "addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sampler", "index_put", "tensordot",
    "scatter_add", "stack", "cat",
)

_AUTOCAST = torch._C.DispatchKey.AutocastPrivateUse1
_EXCLUDE = torch._C.DispatchKeySet(_AUTOCAST)
_lib = None
_fallthrough_lib = None


def _eligible(t):
    return isinstance(t, torch.Tensor) and t.is_floating_point() and t.dtype != torch.float64 and t.device.type == "tpu"


def _cast(v, dtype):
    if _eligible(v):
        return v.to(dtype) if v.dtype != dtype else v
    if isinstance(v, (list, tuple)) and any(_eligible(x) for x in v):
        return type(v)(_cast(x, dtype) for x in v)
    return v


def _widest(args, kwargs):
    widest = None
    for v in list(args) + list(kwargs.values()):
        for t in (v if isinstance(v, (list, tuple)) else (v,)):
            if _eligible(t):
                widest = t.dtype if widest is None else torch.promote_types(widest, t.dtype)
    return widest


def _kernel(op, policy):
    def kernel(*args, **kwargs):
        if policy == "lower":
            dtype = torch.get_autocast_dtype("tpu")
        elif policy == "fp32":
            dtype = torch.float32
        else:
            dtype = _widest(args, kwargs)
        with torch._C._ExcludeDispatchKeyGuard(_EXCLUDE):
            if dtype is None:
                return op(*args, **kwargs)
            return op(*(_cast(a, dtype) for a in args), **{k: _cast(v, dtype) for k, v in kwargs.items()})

    return kernel


def _overload(name):
    packet, _, overload = name.partition(".")
    try:
        return getattr(getattr(torch.ops.aten, packet), overload or "default")
    except AttributeError:  # not in this PyTorch
        return None


def register():
    """Installs the kernels; bfloat16 is the default autocast dtype, as on TPUs."""
    global _lib, _fallthrough_lib
    torch.set_autocast_dtype("tpu", torch.bfloat16)
    _fallthrough_lib = torch.library.Library("_", "IMPL")
    try:
        _fallthrough_lib.fallback(torch.library.fallthrough_kernel, dispatch_key="AutocastPrivateUse1")
    except RuntimeError:  # a PyTorch that registers it itself
        pass
    _lib = torch.library.Library("aten", "IMPL")
    for names, policy in ((LOWER, "lower"), (FP32, "fp32"), (PROMOTE, "promote")):
        for name in names:
            op = _overload(name)
            # PyTorch's own kernel, where a later version has one, wins
            if op is not None and not torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "AutocastPrivateUse1"):
                _lib.impl(name, _kernel(op, policy), "AutocastPrivateUse1")
