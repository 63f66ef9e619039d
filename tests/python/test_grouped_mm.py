"""aten::_grouped_mm (csrc/ops/grouped_mm.c) against PyTorch on CPU: the four
operand layouts (2d x 3d, 3d x 2d, 2d x 2d grouped by offs, 3d x 3d), empty
groups and rows past offs[-1] (zeros here; CPU leaves them uninitialized, so
only the rows a group covers are compared), float32/bfloat16/float16,
gradients; torch.compile(backend="tpu") of a float32 function (PyTorch's
meta accepts bfloat16 only: torchtpu/_fake_kernels.py answers for tpu
tensors, CPU's tracing is unchanged) captured into one plan; and a tiny
mixture-of-experts causal LM (transformers sends tpu tensors to
torch._grouped_mm for every dtype) compiled with dynamic=True against CPU
eager at several lengths."""
import pytest
import torch

DTYPES = [torch.float32, torch.bfloat16, torch.float16]
TOL = {torch.float32: dict(rtol=1.3e-6, atol=1e-5), torch.bfloat16: dict(rtol=1.6e-2, atol=1e-5),
       torch.float16: dict(rtol=1e-3, atol=1e-5)}


def _i32(*v):
    return torch.tensor(v, dtype=torch.int32)


@pytest.fixture(autouse=True)
def _no_fallback():
    was = torch.tpu.get_cpu_fallback()
    torch.tpu.set_cpu_fallback(False)
    yield
    torch.tpu.set_cpu_fallback(was)


# (name, mat_a shape, mat_b shape, offs, rows of the result a group covers: (dim, end) or None)
# Sizes keep CPU's 16-byte stride alignment (its kernel refuses others; ours does not).
CASES = [
    ("2d_3d", (12, 16), (4, 16, 8), _i32(3, 3, 7, 9), (0, 9)),  # an empty group, rows 9.. uncovered
    ("2d_3d_full", (12, 16), (3, 16, 8), _i32(0, 5, 12), None),  # an empty first group
    # offsets that go back (CPU: an empty group, then a group that rewrites rows 2..5): the last group wins
    ("2d_3d_unsorted", (12, 16), (3, 16, 8), _i32(6, 2, 9), (0, 9)),
    ("3d_2d", (3, 5, 16), (16, 24), _i32(8, 8, 16), (1, 16)),  # an empty group, columns 16.. uncovered
    ("2d_2d", (8, 24), (24, 8), _i32(8, 8, 16), None),  # an empty group: zeros, as CPU's mm over k=0; k 16.. in none
    ("2d_2d_unsorted", (8, 24), (24, 8), _i32(16, 8, 24), None),  # each group its own range: k 8..15 in two
    ("3d_3d", (3, 8, 16), (3, 16, 8), None, None),
]


def _args(case, dtype, seed=0):
    _, sa, sb, offs, _ = case
    g = torch.Generator().manual_seed(seed)
    return torch.randn(sa, generator=g).to(dtype), torch.randn(sb, generator=g).to(dtype), offs


def _covered(t, cover):
    return t if cover is None else t.narrow(cover[0], 0, cover[1])


def _on(dev, *ts):
    return [None if t is None else t.to(dev) for t in ts]


def test_the_native_kernel_is_registered():
    assert torch._C._dispatch_has_kernel_for_dispatch_key("aten::_grouped_mm", "PrivateUse1")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_match_cpu(case, dtype):
    a, b, offs = _args(case, dtype)
    want = torch._grouped_mm(a, b, offs)
    got = torch._grouped_mm(*_on("tpu", a, b, offs))
    assert got.dtype == want.dtype and got.shape == want.shape
    got = got.cpu()
    cover = case[4]
    torch.testing.assert_close(_covered(got, cover), _covered(want, cover), **TOL[dtype])
    if cover is not None:  # what no group covers is zeros
        rest = got.narrow(cover[0], cover[1], got.shape[cover[0]] - cover[1])
        assert rest.numel() and not rest.any()


def test_transposed_weights_and_keyword_offs():
    """transformers passes weight.transpose(-2, -1) (a strided view) and offs= by name."""
    g = torch.Generator().manual_seed(3)
    a, w = torch.randn(10, 16, generator=g), torch.randn(3, 8, 16, generator=g)
    offs = _i32(4, 4, 10)
    want = torch.nn.functional.grouped_mm(a, w.transpose(-2, -1), offs=offs)
    got = torch.nn.functional.grouped_mm(a.to("tpu"), w.to("tpu").transpose(-2, -1), offs=offs.to("tpu"))
    torch.testing.assert_close(got.cpu(), want, **TOL[torch.float32])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_cpu(case):
    a, b, offs = _args(case, torch.float32, seed=1)
    res = {}
    for dev in ("cpu", "tpu"):
        x, y = (t.detach().to(dev).requires_grad_() for t in (a, b))
        out = torch._grouped_mm(x, y, None if offs is None else offs.to(dev))
        grad = torch.randn(out.shape, generator=torch.Generator().manual_seed(2))
        if case[4] is not None:  # CPU's values past the groups are garbage: no gradient flows from them
            d, n = case[4]
            grad.narrow(d, n, grad.shape[d] - n).zero_()
        out.backward(grad.to(dev))
        res[dev] = (x.grad.cpu(), y.grad.cpu())
    (ga_c, gb_c), (ga_t, gb_t) = res["cpu"], res["tpu"]
    if case[0] in ("2d_3d", "2d_3d_unsorted"):  # CPU's d(mat_a) rows past offs[-1] are uninitialized; ours are zeros
        ga_c, ga_t = ga_c[:9], ga_t[:9]
        assert not res["tpu"][0][9:].any()
    if case[0] == "3d_2d":
        gb_c, gb_t = gb_c[:, :16], gb_t[:, :16]
    if case[0] == "2d_2d":  # the contraction indices past offs[-1] are in no group
        ga_c, ga_t, gb_c, gb_t = ga_c[:, :16], ga_t[:, :16], gb_c[:16], gb_t[:16]
        assert not res["tpu"][0][:, 16:].any() and not res["tpu"][1][16:].any()
    torch.testing.assert_close(ga_t, ga_c, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gb_t, gb_c, rtol=1e-5, atol=1e-5)


def test_refusals_like_cpu():
    a, b, offs = torch.randn(4, 8, device="tpu"), torch.randn(2, 8, 8, device="tpu"), _i32(2, 4).to("tpu")
    with pytest.raises(RuntimeError, match="Float32, BFloat16 or Float16"):
        torch._grouped_mm(a.double(), b.double(), offs)
    with pytest.raises(RuntimeError, match="int32"):
        torch._grouped_mm(a, b, offs.long())
    with pytest.raises(RuntimeError, match="Bias not supported"):
        torch._grouped_mm(a, b, offs, bias=torch.zeros(2, 8, device="tpu"))
    with pytest.raises(RuntimeError, match="output dtype must match"):
        torch._grouped_mm(a, b, offs, out_dtype=torch.bfloat16)
    with pytest.raises(RuntimeError, match="matrix batch sizes"):
        torch._grouped_mm(a, b, _i32(1, 2, 4).to("tpu"))
    with pytest.raises(RuntimeError, match="offsets"):
        torch._grouped_mm(a, b)


def test_fake_kernel_answers_for_tpu_only():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        a, b, offs = torch.empty(6, 8, device="tpu"), torch.empty(3, 8, 4, device="tpu"), \
            torch.empty(3, dtype=torch.int32, device="tpu")
        out = torch._grouped_mm(a, b, offs=offs)
        assert out.shape == (6, 4) and out.dtype == torch.float32 and out.device.type == "tpu"
        assert out.is_contiguous()
        with pytest.raises(RuntimeError, match="BF16"):  # CPU tensors: PyTorch's meta, unchanged
            torch._grouped_mm(torch.empty(6, 8), torch.empty(3, 8, 4), offs=torch.empty(3, dtype=torch.int32))


def _moe_ffn(x, w_up, w_down, offs):
    h = torch.nn.functional.silu(torch._grouped_mm(x, w_up, offs=offs))
    return torch._grouped_mm(h, w_down.transpose(-2, -1), offs=offs)


def test_compiled_float32_matches_cpu_and_is_one_plan():
    torch._dynamo.reset()
    g = torch.Generator().manual_seed(4)
    x, w_up, w_down = torch.randn(12, 16, generator=g), torch.randn(4, 16, 32, generator=g), \
        torch.randn(4, 16, 32, generator=g)
    f = torch.compile(_moe_ffn, backend="tpu", fullgraph=True)
    before = torch.tpu.plan_stats()
    for offs in (_i32(3, 3, 8, 12), _i32(0, 6, 6, 12)):
        want = _moe_ffn(x, w_up, w_down, offs)
        got = f(*_on("tpu", x, w_up, w_down, offs))
        torch.testing.assert_close(got.cpu(), want, **TOL[torch.float32])
    after = torch.tpu.plan_stats()
    assert after["capture_failures"] == before["capture_failures"], (before, after)
    assert after["replays"] > before["replays"], (before, after)


def test_compiled_training_step_matches_cpu():
    torch._dynamo.reset()
    g = torch.Generator().manual_seed(5)
    x, w_up, w_down = torch.randn(12, 16, generator=g), torch.randn(4, 16, 32, generator=g), \
        torch.randn(4, 16, 32, generator=g)
    offs = _i32(3, 3, 8, 12)
    f = torch.compile(_moe_ffn, backend="tpu")
    grads = {}
    for dev, fn in (("cpu", _moe_ffn), ("tpu", f)):
        ws = [w.detach().to(dev).requires_grad_() for w in (w_up, w_down)]
        xs = x.detach().to(dev).requires_grad_()
        (fn(xs, *ws, offs.to(dev)) ** 2).sum().backward()
        grads[dev] = [t.grad.cpu() for t in (xs, *ws)]
    for got, want in zip(grads["tpu"], grads["cpu"]):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_tiny_moe_causal_lm_compiled_dynamic_matches_cpu():
    transformers = pytest.importorskip("transformers")
    cfg = transformers.Qwen2MoeConfig(vocab_size=128, hidden_size=32, intermediate_size=64,
                                      moe_intermediate_size=32, shared_expert_intermediate_size=32,
                                      num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                                      num_experts=4, num_experts_per_tok=2, max_position_embeddings=64,
                                      use_cache=False, pad_token_id=0)
    torch.manual_seed(0)
    ref = transformers.Qwen2MoeForCausalLM(cfg).eval()
    dev = transformers.Qwen2MoeForCausalLM(cfg).eval()
    dev.load_state_dict(ref.state_dict())
    torch._dynamo.reset()
    f = torch.compile(dev.to("tpu"), backend="tpu", dynamic=True)
    with torch.no_grad():
        for n in (5, 9, 6):
            ids = torch.randint(3, 128, (2, n), generator=torch.Generator().manual_seed(n))
            want = ref(input_ids=ids).logits
            got = f(input_ids=ids.to("tpu")).logits.cpu()
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4, msg=f"length {n}")
