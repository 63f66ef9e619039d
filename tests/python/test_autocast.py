"""torch.autocast(device_type="tpu"): CUDA's policy (matmul/conv in the
autocast dtype, bfloat16 by default; norms, losses, softmax, exp/log in
float32; cat/stack at the widest input), gradients in the parameters'
dtype, and a mixed-precision training step."""
import copy

import pytest
import torch
import torch.nn.functional as F


def test_default_dtype_is_bfloat16():
    assert torch.get_autocast_dtype("tpu") == torch.bfloat16


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_policy(dtype):
    x, w = torch.randn(4, 8, device="tpu"), torch.randn(6, 8, device="tpu")
    with torch.autocast("tpu", dtype=dtype):
        y = F.linear(x, w)
        assert y.dtype == dtype
        assert (x @ w.t()).dtype == dtype
        assert F.conv2d(torch.randn(1, 2, 5, 5, device="tpu"), torch.randn(3, 2, 3, 3, device="tpu")).dtype == dtype
        assert torch.softmax(y, -1).dtype == torch.float32
        assert F.layer_norm(y, (6,)).dtype == torch.float32
        assert F.cross_entropy(y, torch.tensor([0, 1, 2, 3], device="tpu")).dtype == torch.float32
        assert torch.cat([y, x[:, :6]]).dtype == torch.float32
        assert (y + 1).dtype == dtype  # not listed: unchanged
        assert F.linear(x.double(), w.double()).dtype == torch.float64  # float64 is not cast
    assert F.linear(x, w).dtype == torch.float32  # off again outside


def test_values_match_cpu_casts():
    """A linear under autocast computes what CPU computes on bf16 inputs."""
    x, w, b = torch.randn(4, 8), torch.randn(6, 8), torch.randn(6)
    with torch.autocast("tpu"):
        got = F.linear(x.to("tpu"), w.to("tpu"), b.to("tpu"))
    want = F.linear(x.bfloat16(), w.bfloat16(), b.bfloat16())
    torch.testing.assert_close(got.cpu(), want)


def test_mixed_precision_training_step():
    torch.manual_seed(0)
    base = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    x, y = torch.randn(32, 8), torch.randint(0, 4, (32,))
    losses = {}
    for amp in (False, True):
        m = copy.deepcopy(base).to("tpu")
        opt = torch.optim.AdamW(m.parameters(), lr=1e-2)
        for _ in range(10):
            opt.zero_grad()
            with torch.autocast("tpu", enabled=amp):
                loss = F.cross_entropy(m(x.to("tpu")), y.to("tpu"))
            loss.backward()
            assert all(p.grad.dtype == torch.float32 for p in m.parameters())
            opt.step()
        losses[amp] = loss.item()
    # it trains (from ln 4 = 1.386), and bf16 matmuls stay near the float32 run
    assert losses[True] < 1.3 and abs(losses[True] - losses[False]) < 0.05 * abs(losses[False]) + 0.02


def test_every_policy_row_has_its_kernel():
    """Each (op, class) of the core's table (csrc/ops/autocast_policy.c) that
    this PyTorch has got an AutocastPrivateUse1 kernel, of the right class."""
    from torchtpu import _C
    rows = _C.autocast_policy()
    assert len(rows) == len({n for n, _ in rows}) > 100
    classes = dict(rows)
    assert classes["mm"] == "lower" and classes["linear"] == "lower" and classes["layer_norm"] == "fp32"
    assert classes["cat"] == "promote"
    missing = []
    for name, _ in rows:
        packet, _, overload = name.partition(".")
        op = getattr(getattr(torch.ops.aten, packet, None), overload or "default", None)
        if op is not None and not torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "AutocastPrivateUse1"):
            missing.append(name)
    assert missing == []
