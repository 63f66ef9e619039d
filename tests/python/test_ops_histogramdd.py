"""histogramdd on tpu vs CPU: bin counts (edges from the data or a range,
degenerate ranges widened), bin tensors (also unsorted, searched as CPU
searches them), weights, density, empty input, points on the edges, and
CPU's errors (including a data range that is not finite)."""
import pytest
import torch

from conftest import to_tpu


def _check(x, bins, **kw):
    expected = torch.histogramdd(x, bins=bins, **kw)
    got = torch.histogramdd(to_tpu(x), bins=to_tpu(bins), **{k: to_tpu(v) for k, v in kw.items()})
    torch.testing.assert_close(got.hist.cpu(), expected.hist, equal_nan=True)
    assert len(got.bin_edges) == len(expected.bin_edges)
    for a, b in zip(got.bin_edges, expected.bin_edges):
        torch.testing.assert_close(a.cpu(), b, rtol=0, atol=0)


def _rand(shape, seed):
    return torch.rand(shape, generator=torch.Generator().manual_seed(seed)) * 18 - 9


@pytest.mark.parametrize("shape", [(5, 5), (4, 5, 3), (6, 1, 2), (5, 0, 3)])
@pytest.mark.parametrize("weighted,density", [(False, False), (True, False), (True, True)])
def test_bin_counts_and_tensors(shape, weighted, density):
    x = _rand(shape, 0)
    n = shape[-1]
    counts = [2, 3, 2, 3, 2][:n]
    w = _rand(shape[:-1], 1) if weighted else None
    _check(x, counts, weight=w, density=density)
    _check(x, [_rand(c + 1, 2 + c).sort().values for c in counts], weight=w, density=density)
    _check(x, [_rand(c + 1, 7 + c) for c in counts], weight=w, density=density)  # unsorted edges, as OpInfo makes them


def test_range_edges_and_degenerate():
    x = torch.rand(50, 2, generator=torch.Generator().manual_seed(3))
    _check(x, [4, 3], range=[0.2, 0.8, 0.0, 0.5])
    _check(x.double(), [4, 3], range=[0.2, 0.8, 0.3, 0.3])
    _check(torch.ones(4, 2), [3, 2])  # every point equal: range widened by 0.5
    pts = torch.tensor([[0.0, 0.0], [1.0, 1.0], [0.5, 0.25], [0.25, 1.0]])
    _check(pts, [4, 4])  # points on edges, the rightmost edge included
    _check(torch.zeros(0, 2), [2, 3], density=True)


def test_errors_as_cpu():
    x = torch.randn(5, 2, device="tpu")
    with pytest.raises(RuntimeError, match="The size of bins must be equal to the innermost dimension"):
        torch.histogramdd(x, bins=[2])
    with pytest.raises(RuntimeError, match=r"bins must be > 0, but got 0 for dimension 1"):
        torch.histogramdd(x, bins=[2, 0])
    with pytest.raises(RuntimeError, match="range should have 4 elements, but got 2"):
        torch.histogramdd(x, bins=[2, 2], range=[0.0, 1.0])
    with pytest.raises(RuntimeError, match="min should not exceed max, but got min 2 max 1 for dimension 1"):
        torch.histogramdd(x, bins=[2, 2], range=[0.0, 1.0, 2.0, 1.0])
    with pytest.raises(RuntimeError, match=r"dimension 1's range \[inf, inf\] is not finite"):
        torch.histogramdd(torch.tensor([[1.0, float("inf")]], device="tpu"), bins=[2, 2])
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Half'"):
        torch.histogramdd(x.half(), bins=[2, 2])
    with pytest.raises(RuntimeError, match="input tensor should have at least 2 dimensions"):
        torch.histogramdd(x[:, 0], bins=[2])
    e = torch.tensor([0.0, 1.0], device="tpu")
    with pytest.raises(RuntimeError, match="expected 2 sequences of bin edges for a 2-dimensional histogram but got 1"):
        torch.histogramdd(x, bins=[e])
    with pytest.raises(RuntimeError, match="bins for dimension 1 with dtype double"):
        torch.histogramdd(x, bins=[e, e.double()])
    with pytest.raises(RuntimeError, match="weight with shape \\[4\\]"):
        torch.histogramdd(x, bins=[2, 2], weight=torch.ones(4, device="tpu"))
    with pytest.raises(RuntimeError, match=r"but got input\(float\), and weight\(double\)"):
        torch.histogramdd(x, bins=[2, 2], weight=torch.ones(5, device="tpu").double())
