"""Ops the OpInfo coverage report found wrong or missing in the index, shape
and conv families (the *_scatter view writers, gather/scatter index dtypes,
scatter_reduce/index_reduce, masked_scatter, index_fill/index_copy, take/put,
conv_transpose backward, integer conv), each against PyTorch on CPU, forward
and backward."""
import pytest
import torch

import torchtpu  # noqa: F401
from conftest import DTYPES_ALL, compare_grad, make


# ---- select/slice/diagonal/as_strided_scatter ---------------------------------

@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_select_scatter(dtype):
    compare_grad(lambda x, s: torch.select_scatter(x, s, 1, -2), make((3, 4, 2), dtype), make((3, 2), dtype, 1))


@pytest.mark.parametrize("args", [(0, None, None, 1), (1, 1, 5, 2), (1, -3, None, 1), (0, 2, 100, 1)])
def test_slice_scatter(args):
    dim, start, end, step = args
    x = make((4, 5), torch.float32)
    n = len(range(x.shape[dim])[slice(start, end, step)])
    shape = list(x.shape)
    shape[dim] = n
    compare_grad(lambda a, s: torch.slice_scatter(a, s, dim, start, end, step), x, make(shape, torch.float32, 1))


@pytest.mark.parametrize("args", [(0, 0, 1), (1, 0, 1), (-2, 1, 2), (2, 2, 0)])
def test_diagonal_scatter(args):
    off, d1, d2 = args
    x = make((3, 4, 5), torch.float32)
    shape = x.diagonal(off, d1, d2).shape
    compare_grad(lambda a, s: torch.diagonal_scatter(a, s, off, d1, d2), x, make(shape, torch.float32, 1))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_as_strided_scatter(dtype):
    compare_grad(lambda x, s: torch.as_strided_scatter(x, s, (2, 3), (1, 4), 1), make((4, 5), dtype), make((2, 3), dtype, 1))


def test_as_strided_scatter_of_a_view_indexes_its_storage():
    # size/stride/offset count from self's storage, not from the view.
    base = make((6, 5), torch.float32)
    src = make((2, 2), torch.float32, 1)
    c = torch.as_strided_scatter(base[1:5, 1:4], src, (2, 2), (5, 1), 0)
    t = torch.as_strided_scatter(base.to("tpu")[1:5, 1:4], src.to("tpu"), (2, 2), (5, 1), 0)
    torch.testing.assert_close(t.cpu(), c)


def test_scatter_view_errors_match_cpu():
    x = torch.zeros(3, 4)
    for fn, s in [(lambda a, b: torch.select_scatter(a, b, 0, 5), torch.zeros(4)),
                  (lambda a, b: torch.slice_scatter(a, b, 1, 0, 2), torch.zeros(3, 3)),
                  (lambda a, b: torch.as_strided_scatter(a, b, (4, 4), (4, 1)), torch.zeros(4, 4))]:
        with pytest.raises(Exception) as ec:
            fn(x, s)
        with pytest.raises(type(ec.value)):
            fn(x.to("tpu"), s.to("tpu")).cpu()


# ---- gather/scatter index dtypes ----------------------------------------------

@pytest.mark.parametrize("idt", [torch.int32, torch.int64])
def test_gather_scatter_int32_index(idt):
    x, src = make((3, 5), torch.float32), make((3, 3), torch.float32, 1)
    idx = torch.tensor([[0, 4, 2], [1, 3, 0], [4, 0, 1]], dtype=idt)  # no repeats in a row: scatter is deterministic
    compare_grad(lambda a: torch.gather(a, 1, idx.to(a.device)), x)
    compare_grad(lambda a, s: torch.scatter(a, 1, idx.to(a.device), s), x, src)
    compare_grad(lambda a, s: torch.scatter_add(a, 0, idx.to(a.device) % 3, s), x, src)


def test_gather_scatter_empty_index_any_dtype():
    x = make((5,), torch.float32)
    idx = torch.zeros(2, 0, dtype=torch.uint8)  # CPU skips all checks on an empty index
    torch.testing.assert_close(torch.gather(x.to("tpu"), 0, idx.to("tpu")).cpu(), torch.gather(x, 0, idx))
    x2, i2 = make((3, 4), torch.float32), torch.zeros(3, 0, dtype=torch.int16)
    torch.testing.assert_close(torch.scatter(x2.to("tpu"), 1, i2.to("tpu"), 1.5).cpu(), torch.scatter(x2, 1, i2, 1.5))


def test_gather_rejects_int16_index_like_cpu():
    x, idx = torch.zeros(3, 4), torch.zeros(3, 2, dtype=torch.int16)
    with pytest.raises(RuntimeError, match="int32/int64"):
        torch.gather(x, 1, idx)
    with pytest.raises(RuntimeError, match="int32/int64"):
        torch.gather(x.to("tpu"), 1, idx.to("tpu")).cpu()


# ---- convolution ----------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(stride=2, output_padding=(0, 2), dilation=3),
                                dict(stride=1, output_padding=1, dilation=2, padding=1),
                                dict(stride=(2, 1), output_padding=(1, 0), groups=2)])
def test_conv_transpose2d_output_padding_backward(kw):
    # output_padding >= stride (allowed below the dilation) once gave x's
    # gradient one row too many.
    x, w, b = make((2, 2, 4, 4), torch.float32), make((2, 2, 3, 3), torch.float32, 1), make((2 * kw.get("groups", 1),), torch.float32, 2)
    compare_grad(lambda x, w, b: torch.nn.functional.conv_transpose2d(x, w, b, **kw), x, w, b)


def test_conv_transpose3d_output_padding_backward():
    x, w = make((1, 2, 3, 3, 3), torch.float32), make((2, 1, 2, 2, 2), torch.float32, 1)
    compare_grad(lambda x, w: torch.nn.functional.conv_transpose3d(x, w, stride=1, output_padding=1, dilation=2), x, w)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8])
def test_conv_integer(dtype):
    x, w, b = make((2, 4, 5, 6), dtype), make((4, 2, 3, 3), dtype, 1), make((4,), dtype, 2)
    compare_grad(lambda x, w, b: torch.nn.functional.conv2d(x, w, b, stride=2, padding=1, groups=2), x, w, b)
    compare_grad(lambda x, w: torch.nn.functional.conv1d(x, w, stride=3), make((1, 2, 9), dtype), make((3, 2, 2), dtype, 1))
    x, w = make((1, 2, 9), dtype), make((3, 2, 2), dtype, 1)
    if dtype == torch.int64:
        compare_grad(lambda x, w: torch.nn.functional.conv1d(x, w, dilation=2), x, w)
    else:  # CPU dilates only int64 (and floats)
        with pytest.raises(NotImplementedError):
            torch.nn.functional.conv1d(x, w, dilation=2)
        with pytest.raises(NotImplementedError):
            torch.nn.functional.conv1d(x.to("tpu"), w.to("tpu"), dilation=2).cpu()


def test_conv_transpose_int64_and_refusals_like_cpu():
    x, w = make((1, 2, 4, 4), torch.int64), make((2, 3, 3, 3), torch.int64, 1)
    compare_grad(lambda x, w: torch.nn.functional.conv_transpose2d(x, w, stride=2), x, w)
    for dt, fn in [(torch.int32, torch.nn.functional.conv_transpose2d), (torch.bool, torch.nn.functional.conv2d)]:
        a, b = x.to(dt), (w if fn is torch.nn.functional.conv_transpose2d else w.transpose(0, 1)).to(dt)
        with pytest.raises(NotImplementedError):
            fn(a, b)
        with pytest.raises(NotImplementedError):
            fn(a.to("tpu"), b.to("tpu")).cpu()


# ---- scatter_reduce, index_reduce ------------------------------------------------

@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_scatter_reduce_two(reduce, include_self, dtype):
    x, src = make((4, 5), dtype), make((3, 5), dtype, 1)
    idx = torch.tensor([[0, 1, 0, 3, 3], [0, 2, 0, 3, 1], [3, 2, 0, 3, 0]])  # repeats: several values meet
    compare_grad(lambda a, s: torch.scatter_reduce(a, 0, idx.to(a.device), s, reduce, include_self=include_self), x, src)


def test_scatter_reduce_integer_mean_floors_like_cpu():
    x = torch.tensor([-7, 5, 0, 1])
    idx, src = torch.tensor([0, 0, 1, 2]), torch.tensor([2, 1, 2, -1])
    c = torch.scatter_reduce(x, 0, idx, src, "mean")
    torch.testing.assert_close(torch.scatter_reduce(x.to("tpu"), 0, idx.to("tpu"), src.to("tpu"), "mean").cpu(), c)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    x, src = make((4, 3), torch.float32), make((4, 5), torch.float32, 1)
    idx = torch.tensor([0, 2, 0, 1, 0])
    compare_grad(lambda a, s: a.index_reduce(1, idx.to(a.device), s, reduce, include_self=include_self), x, src)


# ---- index_fill, index_copy, take, put, masked_scatter ----------------------------

@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_index_fill_index_copy(dtype):
    x, src = make((3, 4, 2), dtype), make((3, 2, 2), dtype, 1)
    idx = torch.tensor([3, -4])
    compare_grad(lambda a: a.index_fill(1, idx.to(a.device), 2), x)
    compare_grad(lambda a: a.index_fill(1, idx.to(a.device), torch.tensor(1).to(dtype).to(a.device)), x)
    compare_grad(lambda a, s: a.index_copy(1, torch.tensor([3, 0]).to(a.device), s), x, src)
    compare_grad(lambda a: a.clone().index_fill_(0, torch.tensor(1).to(a.device), 0), x)


@pytest.mark.parametrize("accumulate", [False, True])
def test_take_put(accumulate):
    x, src = make((3, 4), torch.float32), make((2, 2), torch.float32, 1)
    idx = torch.tensor([[0, -1], [5, 7]])
    compare_grad(lambda a: torch.take(a, idx.to(a.device)), x)
    compare_grad(lambda a, s: a.put(idx.to(a.device), s, accumulate), x, src)
    xi = make((3, 4), torch.int32)
    c = xi.clone().put_(idx, torch.tensor([1, 2, 3, 4], dtype=torch.int32), accumulate)
    t = xi.to("tpu").put_(idx.to("tpu"), torch.tensor([1, 2, 3, 4], dtype=torch.int32).to("tpu"), accumulate)
    torch.testing.assert_close(t.cpu(), c)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_masked_scatter(dtype):
    x, src = make((3, 4), dtype), make((14,), dtype, 1)
    mask = make((3, 4), torch.bool, 2)
    compare_grad(lambda a, s: a.masked_scatter(mask.to(a.device), s), x, src)
    row = make((4,), torch.bool, 3)  # broadcast over rows
    compare_grad(lambda a, s: a.masked_scatter(row.to(a.device), s), x, src)


@pytest.mark.parametrize("value", [True, False])
def test_masked_select_zero_dim(value):
    x, m = torch.tensor(1.5), torch.tensor(value)
    torch.testing.assert_close(torch.masked_select(x.to("tpu"), m.to("tpu")).cpu(), torch.masked_select(x, m))


def test_in_place_variants_write_through_views():
    outs = []
    for dev in ["cpu", "tpu"]:
        b = torch.arange(20.).reshape(4, 5).to(dev)
        v = b[:, 1:4]
        v.index_fill_(1, torch.tensor([0, 2]).to(dev), -1.)
        v.scatter_reduce_(0, torch.tensor([[0, 1, 0]]).to(dev), torch.full((1, 3), 9.).to(dev), "amax")
        b.t().masked_scatter_(torch.tensor([True, False, False, False]).to(dev), torch.arange(100., 120.).to(dev))
        b.put_(torch.tensor([19]).to(dev), torch.tensor([7.]).to(dev))
        b[2].index_copy_(0, torch.tensor([4]).to(dev), torch.tensor([-3.]).to(dev))
        outs.append(b.cpu())
    torch.testing.assert_close(outs[1], outs[0])
