"""Matmul family, convolution, pooling and attention on "tpu" against CPU."""
import pytest
import torch
import torch.nn.functional as F

import torchtpu  # noqa: F401
from conftest import DTYPES_FLOAT, compare, to_cpu, to_tpu




def check(fn, *args, grad=True, atol=None, rtol=None):
    """fn on CPU and on "tpu": values, then gradients of the floating inputs
    for a random output cotangent (backward(w): needs no reduction op)."""
    cpu = [a.detach().clone().requires_grad_(grad and a.is_floating_point()) for a in args]
    tpu = [to_tpu(a) for a in cpu]
    exp, act = fn(*cpu), fn(*tpu)
    tol = {} if atol is None else {"atol": atol, "rtol": rtol}
    torch.testing.assert_close(to_cpu(act), exp, equal_nan=True, **tol)
    if not grad:
        return
    w = torch.randn(exp.shape, dtype=exp.dtype)
    exp.backward(w)
    act.backward(w.to("tpu"))
    for c, t in zip(cpu, tpu):
        if c.requires_grad:
            assert t.grad is not None, "no gradient on tpu"
            torch.testing.assert_close(t.grad.cpu(), c.grad, equal_nan=True, **tol)


def rand(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.randn(*shape).to(dtype)
    return torch.randint(-5, 6, shape, dtype=dtype)


# bf16/f16 products are rounded once from an f32 accumulation on both sides,
# but a 1-ulp difference in an input-rounded intermediate can show: loosen a bit.
def tol(dtype):
    return {} if dtype == torch.float32 else {"atol": 2e-2, "rtol": 2e-2}


# ---------------------------------------------------------------- matmul

@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_mm_bmm_dot_mv(dtype):
    a, b = rand(3, 5, dtype=dtype), rand(5, 4, dtype=dtype)
    check(torch.mm, a, b, **tol(dtype))
    check(torch.bmm, rand(2, 3, 5, dtype=dtype), rand(2, 5, 4, dtype=dtype), **tol(dtype))
    check(torch.dot, rand(7, dtype=dtype), rand(7, dtype=dtype), **tol(dtype))
    check(torch.mv, a, rand(5, dtype=dtype), **tol(dtype))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_mm_int(dtype):
    a, b = rand(3, 5, dtype=dtype), rand(5, 4, dtype=dtype)
    check(torch.mm, a, b, grad=False)
    check(torch.matmul, rand(2, 3, 5, dtype=dtype), b, grad=False)
    check(torch.dot, rand(6, dtype=dtype), rand(6, dtype=dtype), grad=False)
    check(lambda s, x, y: torch.addmm(s, x, y, beta=2, alpha=3), rand(3, 4, dtype=dtype), a, b, grad=False)


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_addmm_family(dtype):
    m1, m2 = rand(3, 5, dtype=dtype), rand(5, 4, dtype=dtype)
    check(lambda s, x, y: torch.addmm(s, x, y, beta=0.5, alpha=2.0), rand(3, 4, dtype=dtype), m1, m2, **tol(dtype))
    check(lambda s, x, y: torch.baddbmm(s, x, y, beta=-1.0, alpha=0.5), rand(2, 3, 4, dtype=dtype),
          rand(2, 3, 5, dtype=dtype), rand(2, 5, 4, dtype=dtype), **tol(dtype))
    check(lambda s, x, y: torch.addbmm(s, x, y, alpha=2.0), rand(3, 4, dtype=dtype),
          rand(2, 3, 5, dtype=dtype), rand(2, 5, 4, dtype=dtype), **tol(dtype))
    check(lambda s, x, y: torch.addmv(s, x, y, beta=2.0), rand(3, dtype=dtype), m1, rand(5, dtype=dtype), **tol(dtype))


def test_addmm_beta_zero_ignores_nan():
    s = torch.full((3, 4), float("nan"))
    check(lambda s, x, y: torch.addmm(s, x, y, beta=0), s, rand(3, 5), rand(5, 4), grad=False)


def test_addmm_inplace():
    s, m1, m2 = rand(3, 4), rand(3, 5), rand(5, 4)
    t = s.to("tpu")
    t.addmm_(m1.to("tpu"), m2.to("tpu"), alpha=2)
    torch.testing.assert_close(t.cpu(), s.clone().addmm_(m1, m2, alpha=2))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_addmm_broadcast_bias_grad(dtype):
    check(lambda s, x, y: torch.addmm(s, x, y), rand(4, dtype=dtype), rand(3, 5, dtype=dtype),
          rand(5, 4, dtype=dtype), **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
@pytest.mark.parametrize("shapes", [
    ((5,), (5,)), (((5,), (5, 3))), ((4, 5), (5,)), ((4, 5), (5, 3)),
    ((2, 4, 5), (5, 3)), ((2, 4, 5), (5,)), ((5,), (2, 5, 3)),
    ((2, 1, 4, 5), (3, 5, 2)),
])
def test_matmul(dtype, shapes):
    check(torch.matmul, rand(*shapes[0], dtype=dtype), rand(*shapes[1], dtype=dtype), **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_linear_no_bias(dtype):
    w = rand(3, 5, dtype=dtype)
    check(F.linear, rand(4, 5, dtype=dtype), w, **tol(dtype))
    check(F.linear, rand(2, 4, 5, dtype=dtype), w, **tol(dtype))


def test_linear_1d_input():
    check(F.linear, rand(5), rand(3, 5))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_linear_bias(dtype):
    w, b = rand(3, 5, dtype=dtype), rand(3, dtype=dtype)
    check(F.linear, rand(4, 5, dtype=dtype), w, b, **tol(dtype))
    check(F.linear, rand(2, 4, 5, dtype=dtype), w, b, **tol(dtype))


def test_nn_linear_forward_with_bias():
    lin = torch.nn.Linear(5, 3)
    x = torch.randn(2, 4, 5)
    lt = torch.nn.Linear(5, 3).to("tpu")
    lt.load_state_dict(lin.state_dict())
    torch.testing.assert_close(lt(x.to("tpu")).cpu(), lin(x))


def test_matmul_broadcast_forward():
    check(torch.matmul, rand(2, 1, 4, 5), rand(3, 5, 2), grad=False)


def test_matmul_errors():
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        torch.mm(torch.randn(2, 3).to("tpu"), torch.randn(4, 2).to("tpu"))
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.mm(torch.randn(2, 3).to("tpu"), torch.randn(3, 2, dtype=torch.bfloat16).to("tpu"))
    with pytest.raises(RuntimeError, match=r"Expected size for first two dimensions of batch2 tensor to be: \[2, 3\]"):
        torch.bmm(torch.randn(2, 2, 3).to("tpu"), torch.randn(3, 3, 2).to("tpu"))
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        torch.dot(torch.randn(2, 3).to("tpu"), torch.randn(3).to("tpu"))


def test_matmul_empty():
    check(torch.mm, rand(3, 0), rand(0, 4), grad=False)
    check(torch.mm, rand(0, 3), rand(3, 4), grad=False)


# ----------------------------------------------------------- convolution

@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_conv2d(dtype):
    x, w, b = rand(2, 4, 7, 6, dtype=dtype), rand(6, 2, 3, 3, dtype=dtype), rand(6, dtype=dtype)
    check(lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(2, 0), dilation=(1, 2), groups=2), x, w, b,
          **tol(dtype))


def test_conv2d_variants():
    x = rand(2, 4, 7, 6)
    check(lambda x, w: F.conv2d(x, w, padding=1), x, rand(3, 4, 3, 3))
    check(lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=3), x, rand(6, 4, 1, 1), rand(6))  # pad > kernel
    check(lambda x, w: F.conv2d(x, w, padding="same", dilation=2), x, rand(3, 4, 3, 2))
    check(lambda x, w: F.conv2d(x, w, stride=3), rand(4, 8, 8), rand(3, 4, 2, 2))  # unbatched, uneven stride


def test_conv1d_and_3d():
    check(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, groups=2), rand(2, 4, 9), rand(6, 2, 3), rand(6))
    check(lambda x, w: F.conv3d(x, w, stride=2, padding=1), rand(1, 2, 5, 5, 5), rand(3, 2, 3, 3, 3))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_conv_transpose(dtype):
    check(lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2, dilation=2),
          rand(2, 4, 5, 4, dtype=dtype), rand(4, 3, 3, 3, dtype=dtype), rand(6, dtype=dtype), **tol(dtype))


def test_conv_transpose1d():
    check(lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3, padding=2), rand(2, 4, 6), rand(4, 3, 4), rand(3))


def test_nn_conv2d_module():
    conv = torch.nn.Conv2d(3, 4, 3, padding=1)
    ct = torch.nn.Conv2d(3, 4, 3, padding=1).to("tpu")
    ct.load_state_dict(conv.state_dict())
    x = torch.randn(2, 3, 6, 6)
    xt = x.to("tpu").requires_grad_()
    x.requires_grad_()
    y, yt = conv(x), ct(xt)
    torch.testing.assert_close(yt.cpu(), y.detach())
    g = torch.randn(y.shape)
    y.backward(g)
    yt.backward(g.to("tpu"))
    torch.testing.assert_close(xt.grad.cpu(), x.grad)
    torch.testing.assert_close(ct.weight.grad.cpu(), conv.weight.grad)
    torch.testing.assert_close(ct.bias.grad.cpu(), conv.bias.grad)


def test_conv_errors():
    with pytest.raises(RuntimeError, match="channels"):
        F.conv2d(torch.randn(1, 3, 5, 5).to("tpu"), torch.randn(2, 4, 3, 3).to("tpu"))
    with pytest.raises(RuntimeError):
        F.conv2d(torch.randn(1, 3, 2, 2).to("tpu"), torch.randn(2, 3, 3, 3).to("tpu"))


# --------------------------------------------------------------- pooling

MAXPOOL_CASES = [
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2), ceil_mode=True),
]


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
@pytest.mark.parametrize("kw", MAXPOOL_CASES)
def test_max_pool2d(dtype, kw):
    x = rand(2, 3, 7, 6, dtype=dtype)
    # Overlapping windows: CPU adds gradients in bf16/f16 one by one, we add
    # in f32 and round once; the values themselves are exact.
    check(lambda x: F.max_pool2d(x, **kw), x, **tol(dtype))
    _, ic = F.max_pool2d(x, return_indices=True, **kw)
    _, it = F.max_pool2d(x.to("tpu"), return_indices=True, **kw)
    torch.testing.assert_close(it.cpu(), ic)


def test_max_pool_ties_nan_unbatched():
    x = torch.zeros(3, 5, 5)
    x[0, 1, 1] = float("nan")
    check(lambda x: F.max_pool2d(x, 2, 1), x)  # overlapping windows: gradients add up
    pool = torch.nn.MaxPool2d(2)
    check(pool, torch.randn(1, 2, 4, 4))


AVGPOOL_CASES = [
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True),
    dict(kernel_size=2, divisor_override=3),
]


@pytest.mark.parametrize("kw", AVGPOOL_CASES)
def test_avg_pool2d(kw):
    check(lambda x: F.avg_pool2d(x, **kw), rand(2, 3, 7, 6))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_avg_pool2d_half(dtype):
    check(torch.nn.AvgPool2d(3, 2, 1), rand(2, 3, 7, 6, dtype=dtype), **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
@pytest.mark.parametrize("size", [(3, 4), (5, 2), (7, 6)])
def test_adaptive_avg_pool2d(dtype, size):
    check(torch.nn.AdaptiveAvgPool2d(size), rand(2, 3, 7, 6, dtype=dtype), **tol(dtype))


def test_adaptive_avg_pool2d_unbatched():
    check(lambda x: F.adaptive_avg_pool2d(x, (3, 4)), rand(3, 10, 9))


def test_pool_errors():
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.max_pool2d(torch.randn(1, 1, 5, 5).to("tpu"), 2, padding=2)
    with pytest.raises(RuntimeError, match="too small"):
        F.avg_pool2d(torch.randn(1, 1, 2, 2).to("tpu"), 3)


# ------------------------------------------------------------- attention
# The math path of scaled_dot_product_attention is matmuls (this family)


def test_sdp_choice_is_math():
    q = torch.randn(1, 2, 3, 4).to("tpu")
    assert torch._fused_sdp_choice(q, q, q) == int(torch.nn.attention.SDPBackend.MATH.value)


def test_attention_matmuls():
    # The two products of the math path, with its scale, forward and backward.
    q, k, v = rand(2, 2, 4, 8), rand(2, 2, 5, 8), rand(2, 2, 5, 8)
    check(lambda q, k: (q @ k.transpose(-2, -1)) * 8 ** -0.5, q, k)
    check(lambda a, v: a @ v, rand(2, 2, 4, 5), v)


@pytest.mark.parametrize("causal", [False, True])
def test_sdpa(causal):
    q, k, v = rand(2, 2, 4, 8), rand(2, 2, 4, 8), rand(2, 2, 4, 8)
    check(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=causal), q, k, v)


def test_sdpa_float_mask():
    q, k, v = rand(2, 2, 4, 8), rand(2, 2, 5, 8), rand(2, 2, 5, 8)
    mask = torch.randn(4, 5)
    check(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask.to(q.device)), q, k, v)


def test_transformer_encoder_layer():
    layer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True).train()
    lt = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True).to("tpu").train()
    lt.load_state_dict(layer.state_dict())
    x = torch.randn(2, 5, 8)
    check(lambda x: layer(x) if x.device.type == "cpu" else lt(x), x)
