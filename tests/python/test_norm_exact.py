"""Normalization of constant groups and of values far from zero.

CPU's layer norm (Welford moments) gives a constant row exactly 0; the
lowering took the mean as sum(x) * (1/n), which is an ulp or more off the
value, and x - mean was then amplified by rsqrt(var + eps) (about 316): a
constant row normalized to about -1e-5 and a row of 1000s to 0.01 (graph
fuzzer dynamic 3:145, 4:10). Group/instance/batch norm and var/std shared
the moments and the error."""
import pytest
import torch
import torch.nn.functional as F

import torchtpu  # noqa: F401

VALUES = [0.1, 0.3, 1.7, -2.1, 3.14159, 1000.0]


def const_rows(n):
    return torch.tensor(VALUES).repeat_interleave(n).reshape(len(VALUES), n)


@pytest.mark.parametrize("n", [3, 7, 13, 100, 1000, 4097])
def test_layer_norm_of_a_constant_row_is_exactly_zero(n):
    x = const_rows(n)
    y, mean, rstd = torch.ops.aten.native_layer_norm(x.to("tpu"), (n,), None, None, 1e-5)
    assert y.cpu().abs().max().item() == 0.0
    assert torch.equal(mean.cpu().flatten(), torch.tensor(VALUES))
    assert torch.allclose(rstd.cpu(), torch.full_like(rstd.cpu(), 1e-5 ** -0.5))


def test_layer_norm_of_a_constant_row_compiled_with_weight():
    x = const_rows(13)
    w, b = torch.randn(13), torch.randn(13)
    f = torch.compile(lambda x, w, b: F.layer_norm(x * 2, (13,), w, b), backend="tpu")
    y = f(x.to("tpu"), w.to("tpu"), b.to("tpu")).cpu()
    assert torch.equal(y, b.expand_as(y)), (y - b).abs().max()


def test_group_instance_batch_norm_of_constant_groups_are_exactly_zero():
    x = const_rows(21).reshape(2, 3, 21)
    for name, f in [("group_norm", lambda x: F.group_norm(x, 3)),
                    ("instance_norm", F.instance_norm),
                    ("batch_norm", lambda x: F.batch_norm(x.reshape(1, 6, 21), None, None, training=True))]:
        assert f(x.to("tpu")).cpu().abs().max().item() == 0.0, name


def test_var_and_std_of_a_constant_row_are_exactly_zero():
    x = const_rows(97).to("tpu")
    assert x.var(1).cpu().abs().max().item() == 0.0
    assert x.std(1, correction=0).cpu().abs().max().item() == 0.0


def test_a_nan_in_an_otherwise_constant_row_still_gives_nan_everywhere():
    x = torch.full((2, 9), 1.5)
    x[0, 4] = float("nan")
    y = F.layer_norm(x.to("tpu"), (9,)).cpu()
    assert y[0].isnan().all() and y[1].abs().max().item() == 0.0


def test_rows_far_from_zero_keep_their_digits():
    torch.manual_seed(0)
    x = 1000 + torch.randn(8, 64) * 0.01
    ref = F.layer_norm(x.double(), (64,))
    y, _, rstd = torch.ops.aten.native_layer_norm(x.to("tpu"), (64,), None, None, 1e-5)
    ref_rstd = torch.ops.aten.native_layer_norm(x.double(), (64,), None, None, 1e-5)[2]
    # sum(x) * (1/n) left the mean ~1e-4 off: errors of 1e-2 in y, 5e-3 in rstd
    assert (y.cpu().double() - ref).abs().max().item() < 4e-3
    assert (rstd.cpu().double() - ref_rstd).abs().max().item() < 1e-4


def test_layer_norm_backward_of_a_sum_on_constant_rows():
    # the gradient is exactly 0 (CPU's own kernel leaves about 3e-5 here);
    # with mean(ones) taken as sum * (1/41) = 0.99999994 it was 1.9e-5
    x = const_rows(41).to("tpu").requires_grad_()
    F.layer_norm(x, (41,)).sum().backward()
    assert x.grad.cpu().abs().max().item() == 0.0


def test_mean_of_ones_is_one():
    # XLA turned a division by the constant 41 into a product with 1/41
    x = torch.ones(3, 41).to("tpu")
    assert torch.equal(x.mean(1).cpu(), torch.ones(3))
    f = torch.compile(lambda x: x.mean(1), backend="tpu")
    assert torch.equal(f(x).cpu(), torch.ones(3))


# XLA CPU fuses a multiply into the subtraction of a max or mean taken from
# its own result (one FMA, the product unrounded): (a*b) - max(a*b) came out
# +-1e-8 where CPU gives exactly 0 (graph fuzzer dynamic 6:96).
def _product_runs(f):
    torch.manual_seed(1)
    a, b = torch.randn(64, 5, 33) * 4, torch.randn(64, 5, 33) * 4
    want = f(a, b)
    with torch.tpu.eager_mode("defer_and_fuse"):
        fused = f(a.to("tpu"), b.to("tpu")).cpu()
    compiled = torch.compile(f, backend="tpu")(a.to("tpu"), b.to("tpu")).cpu()
    return want, fused, compiled


def test_softmax_of_a_product_is_exactly_one_where_cpu_is():
    want, fused, compiled = _product_runs(lambda a, b: (torch.softmax(a * b, 1) == 1).sum())
    assert want.item() > 0
    assert fused.item() == want.item() and compiled.item() == want.item()  # 6 fewer before


def test_log_softmax_and_cross_entropy_of_a_product_never_exceed_their_bounds():
    want, fused, compiled = _product_runs(lambda a, b: (torch.log_softmax(a * b, 1) > 0).sum())
    assert want.item() == fused.item() == compiled.item() == 0
    ce = lambda a, b: (F.cross_entropy(a * b, torch.zeros(64, 33, dtype=torch.long, device=a.device),
                                       reduction="none") < 0).sum()
    assert [r.item() for r in _product_runs(ce)] == [0, 0, 0]


def test_logsumexp_of_a_product_is_never_below_its_max():
    want, fused, compiled = _product_runs(lambda a, b: (torch.logsumexp(a * b, 1) < (a * b).amax(1)).sum())
    assert want.item() == fused.item() == compiled.item() == 0  # 8 below before


def test_layer_norm_of_a_constant_product_row_is_exactly_zero_fused():
    a, b = torch.full((8, 16), 0.7), torch.full((8, 16), 0.3)
    f = lambda a, b: F.layer_norm(a * b, (16,)).abs().amax()
    with torch.tpu.eager_mode("defer_and_fuse"):
        assert f(a.to("tpu"), b.to("tpu")).item() == 0.0
    assert torch.compile(f, backend="tpu")(a.to("tpu"), b.to("tpu")).item() == 0.0  # 1.1e-6 before


def test_softmax_of_infinite_rows_stays_nan():
    x = torch.tensor([[-float("inf")] * 3, [float("inf"), 1.0, 2.0], [1.0, 2.0, float("nan")]])
    for f in (torch.softmax, torch.log_softmax):
        assert torch.equal(f(x.to("tpu"), 1).cpu().isnan(), f(x, 1).isnan())
    lse = torch.logsumexp(x.to("tpu"), 1).cpu()
    assert lse[0].item() == -float("inf") and lse[1].item() == float("inf") and lse[2].isnan()


def test_avg_pool_of_ones_is_one():
    # its divisor was folded to a constant and the division turned into a
    # product with 1/41: 0.99999994
    x = torch.ones(2, 3, 41)
    for f in (lambda x: F.avg_pool1d(x, 41), lambda x: F.avg_pool2d(x, (1, 41), divisor_override=41),
              lambda x: F.avg_pool1d(x, 41, stride=1, padding=20, count_include_pad=False)):
        assert torch.equal(f(x.to("tpu")).cpu(), f(x))
