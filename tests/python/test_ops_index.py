"""Shape-copying ops (cat, stack, pad, flip, roll, repeat, tril/triu) and
indexing ops (index, index_put, index_select, index_add, gather, scatter,
embedding, sort/topk, nonzero, masked_select) against PyTorch on CPU."""
import pytest
import torch
import torch.nn.functional as F

import torchtpu  # noqa: F401
from conftest import DTYPES_ALL, DTYPES_FLOAT, compare, compare_grad, make


# ---- shape ops ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_cat_dtypes(dtype):
    compare(lambda a, b: torch.cat([a, b], 1), make((2, 3), dtype), make((2, 2), dtype, 1))


def test_cat_promotion_and_legacy_empty():
    a, b = make((2, 3), torch.int32), make((1, 3), torch.float32)
    compare(lambda a, b, e: torch.cat([a, e, b], 0), a, b, torch.empty(0))
    compare(lambda a: torch.cat([a, a, a], -1), make((2, 1, 2), torch.bfloat16))


def test_cat_errors():
    a, b = torch.zeros(2, 3, device="tpu"), torch.zeros(2, 4, device="tpu")
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        torch.cat([a, b], 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.cat([a, a], 2)


def test_cat_stack_grad():
    compare_grad(lambda a, b: torch.cat([a, b], 0), make((2, 3), torch.float32), make((1, 3), torch.float32, 1))
    compare_grad(lambda a, b: torch.stack([a, b], 1), make((2, 3), torch.float32), make((2, 3), torch.float32, 1))


@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_pad_flip_roll(dtype):
    x = make((3, 4), dtype)
    compare(lambda x: F.pad(x, (1, 2, -1, 1), value=1), x)
    compare(lambda x: x.flip(0, -1), x)
    compare(lambda x: x.roll((1, -3), (0, 1)), x)
    compare(lambda x: x.roll(5), x)


def test_pad_flip_roll_grad():
    x = make((3, 4), torch.float32)
    compare_grad(lambda x: F.pad(x, (2, -1, 0, 1)), x)
    compare_grad(lambda x: x.flip(1), x)
    compare_grad(lambda x: x.roll(1, 0), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_repeat(dtype):
    x = make((2, 3), dtype)
    compare(lambda x: x.repeat(2, 1, 2), x)
    compare(lambda x: x.repeat(1, 0), x)


@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_tril_triu(dtype):
    x = make((2, 3, 4), dtype)
    compare(lambda x: x.tril(), x)
    compare(lambda x: x.triu(1), x)
    compare(lambda x: x.tril(-1), x)
    compare(lambda x: x.clone().triu_(-1), x)


def test_tril_grad():
    compare_grad(lambda x: x.tril(1), make((3, 4), torch.float32))


# ---- advanced indexing -------------------------------------------------------

IDX = torch.tensor([0, 2, -1])
IDX2 = torch.tensor([1, 1, 4])


@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_index_dtypes(dtype):
    x = make((4, 5, 6), dtype)
    compare(lambda x, i: x[i], x, IDX)
    compare(lambda x, i, j: x[:, i, j], x, IDX, IDX2)
    compare(lambda x, i, j: x[i, :, j], x, IDX, IDX2)


def test_index_broadcast_and_grad():
    x = make((4, 5, 6), torch.float32)
    compare(lambda x, i, j: x[i[:, None], j], x, IDX, IDX2)
    compare_grad(lambda x: x[:, IDX.to(x.device)], x)
    compare_grad(lambda x: x[IDX.to(x.device), :, IDX2.to(x.device)], x)


def test_index_bool_mask():
    x = make((4, 5), torch.float32)
    m = x > 0
    compare(lambda x, m: x[m], x, m)
    compare(lambda x, m: x[:, m[0]], x, m)
    compare(lambda x, m: torch.masked_select(x, m[0]), x, m)
    compare(lambda m: torch.nonzero(m), m)
    compare(lambda m: torch.nonzero(m[0, :0]), m)
    with pytest.raises(IndexError, match="does not match the shape of the indexed tensor"):
        x.to("tpu")[m.to("tpu")[:3]]


@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_index_put(dtype):
    x, v = make((4, 5), dtype), make((3, 5), dtype, 1)

    def setitem(x, i, v):
        y = x.clone()
        y[i] = v
        return y

    compare(setitem, x, IDX, v)
    compare(lambda x, i, v: x.index_put((i,), v, accumulate=True), x, torch.tensor([1, 1, 3]), v)
    compare(lambda x, m: x.masked_fill(m, 0) if False else setitem(x, m, x[0, 0]), x, make((4, 5), torch.bool, 2))


def test_index_put_2d_and_errors():
    x = make((4, 5, 6), torch.float32)

    def setitem(x, i, j, v):
        y = x.clone()
        y[:, i, j] = v
        return y

    compare(setitem, x, IDX, IDX2, make((4, 3), torch.float32, 1))
    with pytest.raises(RuntimeError, match="shape mismatch"):
        setitem(x.to("tpu"), IDX.to("tpu"), IDX2.to("tpu"), torch.zeros(4, 2, device="tpu"))


# ---- dim-wise indexing -------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_index_select_gather(dtype):
    x = make((4, 5), dtype)
    i = torch.tensor([3, 0, 0, 2])
    g = torch.randint(0, 4, (3, 5), generator=torch.Generator().manual_seed(2))
    compare(lambda x, i: x.index_select(0, i), x, i)
    compare(lambda x, i: x.index_select(1, i), x, i)
    compare(lambda x, g: x.gather(0, g), x, g)


def test_index_select_gather_grad():
    x = make((4, 5), torch.float32)
    compare_grad(lambda x: x.index_select(0, torch.tensor([3, 0, 0]).to(x.device)), x)
    g = torch.tensor([[0, 1, 1, 3, 3], [0, 0, 0, 0, 2]])
    compare_grad(lambda x: x.gather(0, g.to(x.device)), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_scatter(dtype):
    x, src = make((3, 5), dtype), make((2, 5), dtype, 1)
    idx = torch.tensor([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
    uniq = torch.tensor([[0, 1, 2, 0, 1], [2, 0, 1, 1, 2]])
    compare(lambda x, s, u: x.scatter(0, u, s), x, src, uniq)
    compare(lambda x, u: x.scatter(0, u, 7), x, uniq)
    compare(lambda x, s, i: x.scatter_add(0, i, s), x, src, idx)
    compare(lambda x, s, i: x.clone().scatter_(1, i[:, :3], s, reduce="multiply"), x, src, idx)
    compare(lambda x, s, i: x.index_add(0, i, s, alpha=2), x, src, torch.tensor([1, 1]))


def test_scatter_grad():
    idx = torch.tensor([[0, 1, 2, 0, 1]])
    compare_grad(lambda x, s: x.scatter(0, idx.to(x.device), s), make((3, 5), torch.float32), make((1, 5), torch.float32, 1))
    compare_grad(lambda x, s: x.scatter_add(0, idx.to(x.device), s), make((3, 5), torch.float32), make((1, 5), torch.float32, 1))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_embedding(dtype):
    w = make((6, 3), dtype)
    i = torch.tensor([[0, 2, 2], [5, 1, 2]])
    compare(lambda w: F.embedding(i.to(w.device), w), w)
    compare_grad(lambda w: F.embedding(i.to(w.device), w, padding_idx=2), w.float())
    compare_grad(lambda w: F.embedding(i.to(w.device), w, scale_grad_by_freq=True), w.float())


# ---- sorting ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_sort(dtype):
    x = make((4, 6), dtype)
    compare(lambda x: torch.sort(x, dim=1, stable=True), x)
    compare(lambda x: torch.sort(x, dim=0, descending=True, stable=True), x)
    compare(lambda x: torch.argsort(x, dim=1, stable=True), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32])
def test_topk(dtype):
    x = torch.randperm(24, generator=torch.Generator().manual_seed(4)).reshape(4, 6).to(dtype)
    compare(lambda x: torch.topk(x, 3), x)
    compare(lambda x: torch.topk(x, 2, dim=0, largest=False), x)


def test_sort_nan_and_grad():
    x = torch.tensor([3.0, float("nan"), -1.0, 2.0])
    compare(lambda x: torch.sort(x, stable=True), x)
    compare(lambda x: torch.topk(x, 2), x)
    compare_grad(lambda x: torch.sort(x, dim=1, stable=True)[0], make((3, 4), torch.float32))
    compare_grad(lambda x: torch.topk(x, 2)[0], make((3, 4), torch.float32))


@pytest.mark.parametrize("op", ["take", "put_"])
@pytest.mark.parametrize("bad", [5, -6])
def test_take_and_put_out_of_range_raise_cpus_index_error(op, bad):
    """take and put_ index self's elements flat: CPU's IndexError names the
    index and the element count, not a dimension (ops/checks.c TT_CHECK_FLAT)."""
    x = torch.arange(5.0)
    i = torch.tensor([0, bad])

    def run(x, i):
        return torch.take(x, i) if op == "take" else x.clone().put_(i, torch.ones(2, device=x.device))

    with pytest.raises(IndexError) as cpu:
        run(x, i)
    with pytest.raises(IndexError) as tpu:
        run(x.to("tpu"), i.to("tpu")).cpu()
    assert str(cpu.value) in str(tpu.value), (str(cpu.value), str(tpu.value))
