"""Ops real models reach that used to fail on "tpu": integer histc (the
grouped mixture-of-experts path of transformers), the weight-norm fused
kernels, nn.MultiheadAttention's and nn.TransformerEncoder's inference fast
paths, and group_norm on channels_last input. Each is compared with CPU."""
import copy
import itertools

import pytest
import torch

from conftest import to_cpu


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8])
def test_histc_integer_input_counts_like_cuda(dtype):
    # CPU refuses integer histc; CUDA's rule: the range truncated to integers,
    # the bins by integer arithmetic, counts in the input's dtype -- the same
    # counts CPU gives for the values as float64 over the truncated range.
    torch.manual_seed(0)
    low = 0 if dtype == torch.uint8 else -4
    x = torch.randint(low, 10, (3, 17)).to(dtype)
    for bins, lo, hi in ((8, 0, 7), (5, 0, 0), (3, 2.7, 6.2), (4, -3, 3), (10, 0, 9)):
        got = torch.histc(x.to("tpu"), bins=bins, min=lo, max=hi).cpu()
        want = torch.histc(x.double(), bins=bins, min=int(lo), max=int(hi)).to(dtype)
        assert got.dtype == dtype
        torch.testing.assert_close(got, want, rtol=0, atol=0, msg=str((bins, lo, hi)))
    same = torch.full((5,), 3, dtype=dtype)
    torch.testing.assert_close(torch.histc(same.to("tpu"), bins=3).cpu(), torch.tensor([0, 5, 0], dtype=dtype))
    assert torch.histc(torch.empty(0, dtype=dtype, device="tpu"), bins=4).cpu().tolist() == [0, 0, 0, 0]


def test_histc_moe_expert_counts():
    # transformers' grouped MoE: tokens per expert from the routed indices
    idx = torch.tensor([[0, 3], [3, 1], [2, 3], [0, 0]])
    got = torch.histc(idx.to("tpu"), bins=4, min=0, max=3).cpu()
    torch.testing.assert_close(got, torch.bincount(idx.flatten(), minlength=4), rtol=0, atol=0)


def _grads(module, x):
    out = module(x)
    out.pow(2).sum().backward()
    return out, [p.grad for p in module.parameters()], x.grad


@pytest.mark.parametrize("api", ["hook", "parametrization"])
@pytest.mark.parametrize("dim", [0, 2])  # the fused kernels: first or last dim
def test_weight_norm_values_and_grads(api, dim):
    def make():
        torch.manual_seed(0)
        base = torch.nn.Conv1d(4, 3, 3)
        if api == "hook":
            return torch.nn.utils.weight_norm(base, dim=dim)
        return torch.nn.utils.parametrizations.weight_norm(base, dim=dim)

    cpu, tpu = make(), make().to("tpu")
    x = torch.randn(2, 4, 6, requires_grad=True)
    xt = x.detach().to("tpu").requires_grad_()
    out, grads, gx = _grads(cpu, x)
    out_t, grads_t, gx_t = _grads(tpu, xt)
    torch.testing.assert_close(to_cpu(out_t), out, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(to_cpu(gx_t), gx, rtol=1e-5, atol=1e-5)
    for a, b in zip(grads_t, grads):
        torch.testing.assert_close(to_cpu(a), b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_weight_norm_interface_and_backward(dtype):
    torch.manual_seed(1)
    v, g = torch.randn(5, 3, 4, dtype=dtype), torch.randn(5, 1, 1, dtype=dtype)
    w, norms = torch._weight_norm_interface(v, g, 0)
    wt, nt = torch._weight_norm_interface(v.to("tpu"), g.to("tpu"), 0)
    assert (wt.dtype, nt.dtype, nt.shape) == (w.dtype, norms.dtype, norms.shape)
    tol = dict(rtol=1.6e-2, atol=1e-2) if dtype == torch.bfloat16 else dict(rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(to_cpu(wt), w, **tol)
    torch.testing.assert_close(to_cpu(nt), norms, **tol)
    gw = torch.randn_like(v)
    ref = torch.ops.aten._weight_norm_interface_backward(gw, v, g, norms, 0)
    got = torch.ops.aten._weight_norm_interface_backward(gw.to("tpu"), v.to("tpu"), g.to("tpu"), norms.to("tpu"), 0)
    for a, b in zip(got, ref):
        assert a.dtype == b.dtype and a.shape == b.shape
        torch.testing.assert_close(to_cpu(a), b, **tol)
    with pytest.raises(RuntimeError, match="first or last dim"):
        torch._weight_norm_interface(v.to("tpu"), torch.randn(1, 3, 1, dtype=dtype, device="tpu"), 1)


def _assert_close_or_none(got, want, tag):
    if want is None:
        assert got is None, tag
        return
    torch.testing.assert_close(to_cpu(got), want, rtol=1e-4, atol=1e-5, equal_nan=True, msg=str(tag))


def test_multihead_attention_fast_path():
    _check_mha(True)  # the fast path: query, key and value the same tensor
    _check_mha(False)


def _check_mha(self_attention):
    torch.manual_seed(0)
    B, T, S, D, H = 2, 4, 5, 8, 2
    cpu = torch.nn.MultiheadAttention(D, H, batch_first=True).eval()
    tpu = copy.deepcopy(cpu).to("tpu")
    q = torch.randn(B, T, D)
    kv = q if self_attention else torch.randn(B, S, D)
    s = T if self_attention else S
    masks = [{}, {"key_padding_mask": torch.rand(B, s) > 0.6}, {"attn_mask": torch.rand(T, s) > 0.7},
             {"attn_mask": torch.randn(T, s)},
             {"key_padding_mask": torch.rand(B, s) > 0.7, "attn_mask": torch.rand(T, s) > 0.7}]
    qt = q.to("tpu")
    kvt = qt if self_attention else kv.to("tpu")
    for mk, need, avg in itertools.product(masks, (True, False), (True, False)):
        with torch.no_grad():
            want = cpu(q, kv, kv, need_weights=need, average_attn_weights=avg, **mk)
            got = tpu(qt, kvt, kvt, need_weights=need, average_attn_weights=avg, **{k: v.to("tpu") for k, v in mk.items()})
        tag = (list(mk), need, avg)
        _assert_close_or_none(got[0], want[0], tag)
        _assert_close_or_none(got[1], want[1], tag)


@pytest.mark.parametrize("norm_first,activation", [(False, "relu"), (True, "gelu"), (False, "gelu")])
def test_transformer_encoder_fast_path(norm_first, activation):
    torch.manual_seed(0)
    B, T, D, H = 2, 4, 8, 2
    layer = torch.nn.TransformerEncoderLayer(D, H, 16, batch_first=True, norm_first=norm_first, activation=activation)
    cpu = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    tpu = copy.deepcopy(cpu).to("tpu")
    x = torch.randn(B, T, D)
    pad = torch.tensor([[False] * T, [False, False, True, True]])
    for mk in ({}, {"mask": torch.rand(T, T) > 0.7}, {"src_key_padding_mask": pad}):
        with torch.no_grad():
            want = cpu(x, **mk)
            got = tpu(x.to("tpu"), **{k: v.to("tpu") for k, v in mk.items()})
        torch.testing.assert_close(to_cpu(got), want, rtol=1e-4, atol=1e-5, msg=str(list(mk)))


def test_transformer_encoder_nested_path_positions_kept():
    # enable_nested_tensor=True: CPU runs on a nested tensor and pads with
    # zeros; we have no nested tensors and run the dense path, which gives the
    # same values at every position the padding mask keeps.
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    cpu = torch.nn.TransformerEncoder(layer, 2).eval()
    tpu = copy.deepcopy(cpu).to("tpu")
    x = torch.randn(2, 4, 8)
    pad = torch.tensor([[False] * 4, [False, False, True, True]])
    with torch.no_grad():
        want = cpu(x, src_key_padding_mask=pad)
        got = to_cpu(tpu(x.to("tpu"), src_key_padding_mask=pad.to("tpu")))
    keep = ~pad
    torch.testing.assert_close(got[keep], want[keep], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_group_norm_memory_formats(dtype):
    for channels_last in (True, False):
        _check_group_norm(dtype, channels_last)


def _check_group_norm(dtype, channels_last):
    torch.manual_seed(0)
    cpu = torch.nn.GroupNorm(2, 4).to(dtype)
    with torch.no_grad():
        cpu.weight.uniform_(0.5, 1.5)
        cpu.bias.uniform_(-0.5, 0.5)
    tpu = copy.deepcopy(cpu).to("tpu")
    x = torch.randn(2, 4, 3, 5, dtype=dtype)
    if channels_last:
        x = x.to(memory_format=torch.channels_last)
    x.requires_grad_()
    xt = x.detach().to("tpu")
    if channels_last:
        xt = xt.to(memory_format=torch.channels_last)
        assert xt.is_contiguous(memory_format=torch.channels_last) and not xt.is_contiguous()
    xt.requires_grad_()
    out, grads, gx = _grads(cpu, x)
    out_t, grads_t, gx_t = _grads(tpu, xt)
    tol = dict(rtol=1.6e-2, atol=2e-2) if dtype == torch.bfloat16 else dict(rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(to_cpu(out_t), out, **tol)
    torch.testing.assert_close(to_cpu(gx_t), gx, **tol)
    for a, b in zip(grads_t, grads):
        torch.testing.assert_close(to_cpu(a), b, **tol)
    o, m, r = torch.native_group_norm(x.detach(), cpu.weight.detach(), cpu.bias.detach(), 2, 4, 15, 2, 1e-5)
    ot, mt, rt = torch.native_group_norm(xt.detach(), tpu.weight.detach(), tpu.bias.detach(), 2, 4, 15, 2, 1e-5)
    for a, b in ((ot, o), (mt, m), (rt, r)):
        assert a.dtype == b.dtype and a.shape == b.shape
        torch.testing.assert_close(to_cpu(a), b, **tol)
