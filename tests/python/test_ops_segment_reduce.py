"""segment_reduce on tpu vs CPU: every reduction over lengths and offsets,
batched axes, empty segments with and without `initial`, NaNs, reduced
precision, float32 backward (ties, zeros and NaNs in prod), and CPU's errors
for inconsistent lengths (checked on the downloaded lengths, as CPU does)."""
import pytest
import torch

from conftest import to_tpu

REDS = ["sum", "mean", "max", "min", "prod"]


def _offsets(lengths):
    zeros = torch.zeros(lengths.shape[:-1] + (1,), dtype=lengths.dtype)
    return torch.cat((zeros, lengths), -1).cumsum(-1)


def _run(x, reduce, grad=False, **kw):
    xc = x.detach().clone().requires_grad_(grad)
    xt = to_tpu(x).requires_grad_(grad)
    yc = torch.segment_reduce(xc, reduce, **kw)
    yt = torch.segment_reduce(xt, reduce, **{k: to_tpu(v) for k, v in kw.items()})
    torch.testing.assert_close(yt.detach().cpu(), yc.detach(), equal_nan=True)
    if grad:
        w = torch.randn(yc.shape, generator=torch.Generator().manual_seed(1))
        yc.backward(w)
        yt.backward(w.to("tpu"))
        torch.testing.assert_close(xt.grad.cpu(), xc.grad, equal_nan=True)


@pytest.mark.parametrize("reduce", REDS)
@pytest.mark.parametrize("mode,initial", [("lengths", None), ("lengths", 2.0), ("offsets", None)])
def test_forward_backward(reduce, mode, initial):
    cases = [
        (torch.randn(5, 4), 0, torch.tensor([0, 1, 2, 2])),
        (torch.randn(3, 5, 2), 1, torch.tensor([[2, 3, 0], [0, 5, 0], [4, 0, 1]])),
    ]
    for x, axis, lengths in cases:
        seg = {"lengths": lengths} if mode == "lengths" else {"offsets": _offsets(lengths)}
        _run(x, reduce, grad=True, axis=axis, initial=initial, **seg)


@pytest.mark.parametrize("reduce", REDS)
def test_ties_zeros_nans(reduce):
    x = torch.tensor([1.0, 2.0, 2.0, 0.0, 5.0, 0.0, 0.0, 3.0, float("nan"), 4.0, 0.0, float("nan")])
    lengths = torch.tensor([3, 2, 3, 2, 2])
    _run(x, reduce, grad=True, lengths=lengths)
    _run(x, reduce, grad=True, lengths=lengths, initial=2.0)


@pytest.mark.parametrize("reduce", REDS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_reduced_precision_in_order(reduce, dtype):
    # CPU accumulates in the data type, element by element: so must we
    x = (torch.randn(300, generator=torch.Generator().manual_seed(3)) * 10).to(dtype)
    _run(x, reduce, lengths=torch.tensor([290, 0, 7, 3]))


def test_unsafe_lengths_not_covering_data():
    x = torch.randn(7, 3, 3)
    _run(x, "sum", lengths=torch.tensor([1, 2, 0, 3]), unsafe=True)
    _run(x, "mean", lengths=torch.tensor([1, 2, 0, 3]), unsafe=True, initial=1.0)


def test_out_and_empty():
    x = torch.randn(5)
    out = torch.empty(3, device="tpu")
    r = torch.ops.aten.segment_reduce.out(to_tpu(x), "sum", lengths=torch.tensor([2, 0, 3], device="tpu"), out=out)
    assert r is out
    torch.testing.assert_close(out.cpu(), torch.segment_reduce(x, "sum", lengths=torch.tensor([2, 0, 3])))
    _run(torch.ones(0), "mean", lengths=torch.tensor([0, 0]))
    _run(x, "sum", offsets=torch.tensor([0]))


def test_errors_as_cpu():
    x = torch.randn(5, device="tpu")
    t = lambda v: torch.tensor(v, device="tpu")
    with pytest.raises(RuntimeError, match=r"Expected all rows of lengths along axis to sum"):
        torch.segment_reduce(x, "sum", lengths=t([2, 2]))
    with pytest.raises(RuntimeError, match="lengths contains negative value!"):
        torch.segment_reduce(x, "sum", lengths=t([2, 4, -1]))
    with pytest.raises(RuntimeError, match="Expected segment_length >= 0"):
        torch.segment_reduce(x, "sum", lengths=t([2, 4, -1]), unsafe=True)
    with pytest.raises(RuntimeError, match="Expected segment_length >= 0"):
        torch.segment_reduce(x, "sum", offsets=t([0, 3, 2]))
    # raised by the downloaded-check companion, named after the op the user called
    with pytest.raises(RuntimeError, match="^aten::segment_reduce: reduce argument must be either sum, prod, mean, amax or amin, got foo"):
        torch.segment_reduce(x, "foo", lengths=t([5]))
    with pytest.raises(RuntimeError, match="Either lengths or offsets must be defined"):
        torch.segment_reduce(x, "sum")
    with pytest.raises(RuntimeError, match="Expected axis to be the last dimension of lengths but got 0"):
        torch.segment_reduce(torch.randn(2, 5, device="tpu"), "sum", lengths=t([[2, 3], [1, 4]]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        torch.segment_reduce(x.int(), "sum", lengths=t([5]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.segment_reduce(x, "sum", lengths=t([5]), axis=1)
