"""The CPU fallback for ops with no TPU lowering (torch.tpu.set_cpu_fallback):
results, in-place and out= mutations and aliasing copied back; warn once and
count per op; the errors when it is off, and for sparse, quantized and
complex tensors. Custom ops with only a CPU kernel stand for unlowered ATen
ops, so the tests keep testing the fallback as lowerings are added."""
import os
import subprocess
import sys
import warnings

import pytest
import torch

import torchtpu._kernels

_lib = torch.library.Library("tt_fallback_test", "DEF")
_lib.define("scale(Tensor x, float a) -> Tensor")
_lib.define("scale_(Tensor(a!) x, float a) -> Tensor(a!)")
_lib.define("scale.out(Tensor x, float a, *, Tensor(a!) out) -> Tensor(a!)")
_lib.define("split2.out(Tensor x, *, Tensor(a!) lo, Tensor(b!) hi) -> (Tensor(a!), Tensor(b!))")
_lib.define("diag_view(Tensor(a) x) -> Tensor(a)")
_lib.define("fill_then_sum(Tensor(a!) x, Tensor y) -> Tensor")
_lib.define("stats(Tensor x) -> (Tensor, int, Tensor[])")
_lib.define("zeros_on(Tensor x, *, Device device) -> Tensor")
_lib.impl("scale", lambda x, a: x * a, "CPU")
_lib.impl("scale_", lambda x, a: x.mul_(a), "CPU")
_lib.impl("scale.out", lambda x, a, *, out: torch.mul(x, a, out=out), "CPU")
_lib.impl("split2.out", lambda x, *, lo, hi: (torch.clamp(x, max=0, out=lo), torch.clamp(x, min=0, out=hi)), "CPU")
_lib.impl("diag_view", lambda x: x.diagonal(), "CPU")
_lib.impl("fill_then_sum", lambda x, y: y.sum() + 0 * x.fill_(7).sum(), "CPU")
_lib.impl("stats", lambda x: (x.sum(), x.numel(), [x.max(), x.min()]), "CPU")
_lib.impl("zeros_on", lambda x, *, device: torch.zeros(x.shape, device=device) + x, "CPU")
ops = torch.ops.tt_fallback_test


@pytest.fixture
def fallback():
    torch.tpu.set_cpu_fallback(True)
    torch.tpu.reset_fallback_counts()
    yield
    torch.tpu.set_cpu_fallback(False)
    torch.tpu.reset_fallback_counts()


def _x(*shape):
    return torch.arange(float(torch.Size(shape).numel())).reshape(shape) - 3


def test_off_by_default_error_names_op_and_how_to_enable():
    assert torch.tpu.get_cpu_fallback() is False
    with pytest.raises(NotImplementedError) as e:
        ops.scale(_x(3).to("tpu"), 2.0)
    msg = str(e.value)
    assert "operator 'tt_fallback_test::scale.default' is not implemented for TPU yet" in msg
    assert "TORCH_TPU_CPU_FALLBACK=1" in msg and "torch.tpu.set_cpu_fallback(True)" in msg
    assert "issue tracker" in msg
    assert torch.tpu.fallback_counts() == {}


def test_error_for_an_unlowered_aten_op_names_its_overload():
    unlowered = [n for n in ("_weight_norm_interface", "linalg_eig", "_to_sparse")
                 if n not in torchtpu._kernels.registered_ops()]
    assert unlowered, "all candidate ops are lowered now: pick others"
    x = torch.rand(4, 4).to("tpu")
    op = {"_weight_norm_interface": lambda: torch._weight_norm(x, x[:, :1], 0),
          "linalg_eig": lambda: torch.linalg.eig(x),
          "_to_sparse": lambda: x.to_sparse()}[unlowered[0]]
    with pytest.raises(NotImplementedError, match=rf"'aten::{unlowered[0]}\.\w+' is not implemented for TPU yet"):
        op()


def test_functional_result_warn_once_and_count(fallback):
    x = _x(2, 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r1 = ops.scale(x.to("tpu"), 2.0)
        r2 = ops.scale(x.to("tpu"), 3.0)
    assert r1.device.type == "tpu" and r2.device.type == "tpu"
    torch.testing.assert_close(r1.cpu(), x * 2)
    torch.testing.assert_close(r2.cpu(), x * 3)
    ours = [str(m.message) for m in w if "tt_fallback_test::scale.default" in str(m.message)]
    assert len(ours) == 1 and "running it on the CPU" in ours[0]
    assert torch.tpu.fallback_counts() == {"tt_fallback_test::scale.default": 2}


def test_reset_counts_warns_again(fallback):
    ops.scale(_x(2).to("tpu"), 2.0)
    torch.tpu.reset_fallback_counts()
    with pytest.warns(UserWarning, match="tt_fallback_test::scale.default"):
        ops.scale(_x(2).to("tpu"), 2.0)
    assert torch.tpu.fallback_counts() == {"tt_fallback_test::scale.default": 1}


def test_in_place_on_a_view_writes_through_the_base(fallback):
    base = _x(4, 4)
    d = base.to("tpu")
    col = d[:, 1]  # a strided view
    r = ops.scale_(col, 10.0)
    assert r is col and col.stride() == (4,)  # an in-place op returns its argument itself
    expect = base.clone()
    expect[:, 1] *= 10
    torch.testing.assert_close(d.cpu(), expect)
    torch.testing.assert_close(col.cpu(), expect[:, 1])


def test_out_variant_same_shape_and_resized(fallback):
    x = _x(2, 3)
    out = torch.zeros(2, 3).to("tpu")
    r = ops.scale(x.to("tpu"), 2.0, out=out)
    assert r is out
    torch.testing.assert_close(out.cpu(), x * 2)
    small = torch.zeros(0).to("tpu")  # out= of another shape is resized, as on CPU
    r = ops.scale(x.to("tpu"), 3.0, out=small)
    assert r is small and small.shape == (2, 3)
    torch.testing.assert_close(small.cpu(), x * 3)


def test_two_outs_that_alias_one_storage(fallback):
    x = _x(6)
    buf = torch.full((12,), 99.0).to("tpu")
    lo, hi = buf[:6], buf[6:]
    r = ops.split2(x.to("tpu"), lo=lo, hi=hi)
    assert r[0] is lo and r[1] is hi
    torch.testing.assert_close(buf.cpu(), torch.cat([x.clamp(max=0), x.clamp(min=0)]))


def test_mutated_argument_aliasing_another_argument(fallback):
    # y overlaps x's storage: the host copies must alias the same way, so the
    # op reads its own write, as on CPU (separate copies would not).
    base_cpu = _x(8)
    want = ops.fill_then_sum(base_cpu[2:6], base_cpu[0:4])
    base = _x(8).to("tpu")
    got = ops.fill_then_sum(base[2:6], base[0:4])
    torch.testing.assert_close(got.cpu(), want)
    torch.testing.assert_close(base.cpu(), base_cpu)


def test_view_result_aliases_its_input(fallback):
    d = _x(3, 3).to("tpu")
    v = ops.diag_view(d)
    assert v.device.type == "tpu"
    torch.testing.assert_close(v.cpu(), _x(3, 3).diagonal())
    v.fill_(-1.0)  # the result is a view: writing it writes d
    expect = _x(3, 3)
    expect.diagonal().fill_(-1.0)
    torch.testing.assert_close(d.cpu(), expect)


def test_mixed_returns_and_device_argument(fallback):
    s, n, (mx, mn) = ops.stats(_x(2, 2).to("tpu"))
    assert n == 4 and all(t.device.type == "tpu" for t in (s, mx, mn))
    assert (s.item(), mx.item(), mn.item()) == (-6.0, 0.0, -3.0)
    r = ops.zeros_on(_x(3).to("tpu"), device=torch.device("tpu"))  # device= becomes cpu on the host
    assert r.device.type == "tpu"
    torch.testing.assert_close(r.cpu(), _x(3))


_grad_lib = None


def _cpu_only_op():
    """An op with a CPU kernel and a derivative but no tpu lowering. Every
    ATen candidate we used (_weight_norm_interface, soft_margin_loss, ...)
    is lowered now, so the test defines its own, as an out-of-tree library
    would."""
    global _grad_lib
    if _grad_lib is None:
        _grad_lib = torch.library.Library("tt_fallback_grad_test", "DEF")
        _grad_lib.define("scaled_sin(Tensor x) -> Tensor")
        _grad_lib.impl("scaled_sin", lambda x: torch.sin(x) * 3, "CPU")

        class ScaledSin(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                with torch._C._AutoDispatchBelowAutograd():
                    return torch.ops.tt_fallback_grad_test.scaled_sin(x)

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * torch.cos(x) * 3

        _grad_lib.impl("scaled_sin", ScaledSin.apply, "Autograd")
    return torch.ops.tt_fallback_grad_test.scaled_sin


def test_op_forward_and_backward(fallback):
    f = _cpu_only_op()
    x = torch.rand(4, 5)
    xc = x.clone().requires_grad_()
    xt = x.to("tpu").requires_grad_()
    f(xc).sum().backward()
    yt = f(xt)
    assert yt.device.type == "tpu"
    yt.sum().backward()
    torch.testing.assert_close(yt.cpu(), f(x))
    torch.testing.assert_close(xt.grad.cpu(), xc.grad)
    assert any("scaled_sin" in k for k in torch.tpu.fallback_counts())


def test_env_var_turns_it_on():
    code = "import torch; print(torch.tpu.get_cpu_fallback())"
    env = dict(os.environ, TORCH_TPU_CPU_FALLBACK="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr


@pytest.mark.parametrize("on", [False, True])
def test_sparse_quantized_complex_are_refused_clearly(on):
    torch.tpu.set_cpu_fallback(on)
    try:
        with pytest.raises(NotImplementedError, match="sparse COO layout is not supported on TPU yet"):
            torch.eye(3).to_sparse().to("tpu")
        with pytest.raises(NotImplementedError, match="quantized dtype torch.quint8 is not supported on TPU yet"):
            torch.quantize_per_tensor(torch.rand(3), 0.1, 0, torch.quint8).to("tpu")
        with pytest.raises(NotImplementedError, match="dtype torch.complex32 is not supported on TPU yet"):
            torch.ones(3, dtype=torch.complex32).to("tpu")  # complex32 has no StableHLO element type
        with pytest.raises(NotImplementedError, match="not supported on TPU yet|not implemented for TPU yet"):
            torch.eye(3).to("tpu").to_sparse()
    finally:
        torch.tpu.set_cpu_fallback(False)
        torch.tpu.reset_fallback_counts()
