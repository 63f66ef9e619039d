"""Neural-network ops compared with CPU, forward and backward: upsampling
(every mode), reflection/replication padding, adaptive and 3-D pools,
im2col/col2im, prelu, channel_shuffle, batch-norm variants, group-norm backward."""
import pytest
import torch
import torch.nn.functional as F
from conftest import compare, compare_grad, make


@pytest.mark.parametrize("mode,shape,kw", [
    ("nearest", (2, 3, 5), {"size": 8}),
    ("nearest", (1, 2, 4, 5), {"scale_factor": 1.7}),
    ("nearest", (1, 2, 3, 4, 5), {"size": (2, 6, 7)}),
    ("nearest-exact", (2, 3, 5), {"size": 3}),
    ("nearest-exact", (1, 2, 4, 5), {"scale_factor": 2.3}),
    ("nearest-exact", (1, 1, 3, 4, 2), {"size": (5, 3, 4)}),
    ("linear", (2, 3, 5), {"size": 9, "align_corners": False}),
    ("linear", (2, 3, 5), {"size": 3, "align_corners": True}),
    ("bilinear", (1, 2, 4, 5), {"size": (7, 3), "align_corners": False}),
    ("bilinear", (1, 2, 4, 5), {"scale_factor": 1.5, "align_corners": True}),
    ("bilinear", (1, 2, 6, 5), {"scale_factor": 0.6, "align_corners": False}),
    ("bicubic", (1, 2, 4, 5), {"size": (7, 3), "align_corners": False}),
    ("bicubic", (1, 2, 4, 5), {"size": (6, 8), "align_corners": True}),
    ("trilinear", (1, 2, 3, 4, 5), {"size": (5, 3, 6), "align_corners": False}),
    ("trilinear", (1, 1, 3, 4, 2), {"scale_factor": 2.0, "align_corners": True}),
    ("area", (2, 3, 7), {"size": 3}),
    ("area", (1, 2, 7, 5), {"size": (3, 4)}),
    ("area", (1, 2, 5, 7, 4), {"size": (2, 3, 3)}),
])
def test_interpolate(mode, shape, kw):
    compare_grad(lambda t: F.interpolate(t, mode=mode, **kw), make(shape, torch.float32))


@pytest.mark.parametrize("kw", [{"size": (3, 9), "align_corners": False}, {"size": (7, 2), "align_corners": True},
                                {"scale_factor": 0.4, "align_corners": False}])
def test_interpolate_antialias(kw):
    compare_grad(lambda t: F.interpolate(t, mode="bilinear", antialias=True, **kw), make((1, 2, 8, 6), torch.float32))


def test_nearest_keeps_inf_and_uint8():
    x = make((1, 1, 3, 4), torch.float32)
    x[0, 0, 1, 2] = float("inf")
    compare(lambda t: F.interpolate(t, scale_factor=2.5, mode="nearest"), x)
    compare(lambda t: F.interpolate(t, size=(5, 5), mode="nearest-exact"), torch.arange(12, dtype=torch.uint8).reshape(1, 1, 3, 4))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_interpolate_reduced(dtype):
    x = make((1, 2, 4, 5), dtype)
    compare(lambda t: F.interpolate(t, size=(7, 3), mode="nearest"), x)
    compare(lambda t: F.interpolate(t, size=(7, 3), mode="bilinear"), x, atol=2e-2, rtol=2e-2)


def test_interpolate_int_rejected():
    with pytest.raises(RuntimeError, match="not implemented"):
        F.interpolate(torch.ones(1, 1, 2, 2, dtype=torch.int32, device="tpu"), size=(3, 3), mode="bilinear")


@pytest.mark.parametrize("mode,pad,shape", [
    ("reflect", (2, 1), (2, 3, 5)),
    ("reflect", (1, 2, 3, 0), (1, 2, 4, 5)),
    ("reflect", (1, 1, 2, 0, 1, 2), (1, 2, 3, 4, 5)),
    ("replicate", (3, 1), (2, 3, 5)),
    ("replicate", (1, 2, 0, 3), (2, 4, 5)),
    ("replicate", (1, 0, 2, 1, 1, 2), (1, 1, 3, 4, 5)),
    ("replicate", (-1, 2, 1, -2), (1, 2, 4, 5)),
])
def test_pad_modes(mode, pad, shape):
    compare_grad(lambda t: F.pad(t, pad, mode=mode), make(shape, torch.float32))


def test_pad_int_and_errors():
    compare(lambda t: F.pad(t, (2, 2), mode="reflect"), make((2, 3, 4), torch.int64))
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        F.pad(torch.ones(1, 2, 3, device="tpu"), (3, 0), mode="reflect")


@pytest.mark.parametrize("fn,shape,out", [
    (F.adaptive_max_pool1d, (2, 3, 7), 3),
    (F.adaptive_max_pool2d, (2, 3, 7, 5), (3, 4)),
    (F.adaptive_max_pool2d, (3, 6, 6), (4, 2)),
    (F.adaptive_max_pool3d, (1, 2, 5, 4, 3), (2, 3, 2)),
])
def test_adaptive_max_pool(fn, shape, out):
    compare_grad(lambda t: fn(t, out), make(shape, torch.float32))
    compare(lambda t: fn(t, out, return_indices=True)[1], make(shape, torch.float32))


def test_adaptive_max_pool_ties_and_nan():
    x = torch.zeros(1, 1, 4, 4)
    x[0, 0, 1, 1] = float("nan")
    compare(lambda t: F.adaptive_max_pool2d(t, 2, return_indices=True), x)


def test_adaptive_avg_pool3d():
    compare_grad(lambda t: F.adaptive_avg_pool3d(t, (2, 3, 2)), make((2, 2, 5, 4, 3), torch.float32))


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": (3, 2, 2), "stride": (2, 1, 2), "padding": (1, 0, 1)},
                                {"kernel_size": 3, "stride": 2, "ceil_mode": True},
                                {"kernel_size": 2, "dilation": (1, 2, 1), "padding": 1}])
def test_max_pool3d(kw):
    x = make((1, 2, 5, 6, 5), torch.float32)
    compare_grad(lambda t: F.max_pool3d(t, **kw), x)
    compare(lambda t: F.max_pool3d(t, return_indices=True, **kw)[1], x)


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": (3, 2, 2), "stride": (2, 1, 2), "padding": (1, 0, 1)},
                                {"kernel_size": 3, "stride": 2, "ceil_mode": True, "count_include_pad": False, "padding": 1},
                                {"kernel_size": 2, "divisor_override": 3}])
def test_avg_pool3d(kw):
    compare_grad(lambda t: F.avg_pool3d(t, **kw), make((2, 5, 6, 5), torch.float32))


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": (2, 3), "dilation": (2, 1), "padding": 1, "stride": (1, 2)}])
def test_unfold_fold(kw):
    x = make((2, 3, 6, 7), torch.float32)
    compare_grad(lambda t: F.unfold(t, **kw), x)
    cols = F.unfold(x, **kw)
    compare_grad(lambda t: F.fold(t, (6, 7), **kw), cols)
    compare_grad(lambda t: F.fold(t, (6, 7), **kw), cols[0])


@pytest.mark.parametrize("wshape", [(1,), (3,)])
def test_prelu(wshape):
    compare_grad(F.prelu, make((2, 3, 4), torch.float32), make(wshape, torch.float32, seed=1))


def test_channel_shuffle():
    compare_grad(lambda t: F.channel_shuffle(t, 3), make((2, 6, 2, 3), torch.float32))
    compare(lambda t: F.channel_shuffle(t, 2), make((1, 4, 3), torch.int64))


def test_group_norm_backward():
    x, w, b = make((2, 6, 3, 2), torch.float32), make((6,), torch.float32, 1), make((6,), torch.float32, 2)
    compare_grad(lambda t, ww, bb: F.group_norm(t, 3, ww, bb), x, w, b)
    compare_grad(lambda t: F.group_norm(t, 2), x)


def test_batch_norm_variants():
    x, w, b = make((4, 3, 5), torch.float32), make((3,), torch.float32, 1), make((3,), torch.float32, 2)
    rm, rv = torch.zeros(3), torch.ones(3)
    rm_t, rv_t = rm.to("tpu"), rv.to("tpu")
    out_c = torch.ops.aten._native_batch_norm_legit(x, w, b, rm, rv, True, 0.1, 1e-5)
    out_t = torch.ops.aten._native_batch_norm_legit(x.to("tpu"), w.to("tpu"), b.to("tpu"), rm_t, rv_t, True, 0.1, 1e-5)
    for a, e in zip(out_t, out_c):
        torch.testing.assert_close(a.cpu(), e)
    torch.testing.assert_close(rm_t.cpu(), rm)
    torch.testing.assert_close(rv_t.cpu(), rv)
    compare(lambda t: torch.ops.aten._native_batch_norm_legit.no_stats(t, None, None, True, 0.1, 1e-5), x)
    rm, rv = torch.zeros(3), torch.ones(3)
    rm_t, rv_t = rm.to("tpu"), rv.to("tpu")
    out_c = torch.ops.aten._batch_norm_with_update(x, w, b, rm, rv, 0.1, 1e-5)
    out_t = torch.ops.aten._batch_norm_with_update(x.to("tpu"), w.to("tpu"), b.to("tpu"), rm_t, rv_t, 0.1, 1e-5)
    for a, e in zip(out_t[:3], out_c[:3]):
        torch.testing.assert_close(a.cpu(), e)
    torch.testing.assert_close(rv_t.cpu(), rv)
    compare_grad(lambda t, ww, bb: torch.ops.aten._batch_norm_with_update(t, ww, bb, torch.zeros(3, device=t.device),
                                                                         torch.ones(3, device=t.device), 0.1, 1e-5)[0], x, w, b)


@pytest.mark.parametrize("p,margin,weighted,reduction", [(1, 1.0, False, "mean"), (2, 0.5, True, "none"), (1, 2.0, True, "sum")])
def test_multi_margin_loss(p, margin, weighted, reduction):
    x = make((4, 5), torch.float32)
    y = torch.tensor([0, 4, 2, 2])
    w = make((5,), torch.float32, 1).abs() if weighted else None
    compare_grad(lambda t: F.multi_margin_loss(t, y.to(t.device), p=p, margin=margin,
                                               weight=None if w is None else w.to(t.device), reduction=reduction), x)
    compare_grad(lambda t: F.multi_margin_loss(t, y[1].to(t.device), reduction=reduction), x[0])


@pytest.mark.parametrize("reduction", ["mean", "none", "sum"])
def test_multilabel_margin_loss(reduction):
    x = make((3, 5), torch.float32)
    y = torch.tensor([[3, 0, -1, 1, 2], [1, 1, 4, 2, 0], [-1, 2, 3, 0, 0]])
    compare_grad(lambda t: F.multilabel_margin_loss(t, y.to(t.device), reduction=reduction), x)
    compare_grad(lambda t: F.multilabel_margin_loss(t, y[0].to(t.device), reduction=reduction), x[0])
