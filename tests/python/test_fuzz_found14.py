"""Differences of the fourteenth fuzzing session (seeds 701-765), each checked against CPU.

In-place calls on an expanded (stride-0) self that CPU computes and tpu
refused with the internal-overlap error: conj_physical_ of a real self (a
no-op on CPU, before any check) and index_fill_ (CPU's deprecated fill
through every alias, with its warning)."""

import warnings

import pytest
import torch

from test_fuzz_found10 import _check  # CPU's dtype, shape and values, or its exception


def _inplace(op):
    """op applied to an expanded view of a clone of base (_check passes the
    same CPU arguments to both runs); the clone is returned, so the write
    through the aliases is compared."""
    def f(base, shape, *args):
        base = base.clone()
        op(base.expand(*shape), *args)
        return base
    return f


def _on_clone(view):
    """conj_physical_ of view(clone of base); the clone is returned."""
    def f(base):
        base = base.clone()
        view(base).conj_physical_()
        return base
    return f


@pytest.mark.parametrize("dt", [torch.int8, torch.int32, torch.bool, torch.float32, torch.float64])
def test_conj_physical_inplace_real_expanded(dt):
    # fuzz 701:134, 703:80: x.conj_physical_() of an expanded int8 (257,)
    # or int32 (2, 3, 4) self: CPU's conj_physical_ returns a real self
    # untouched before any check; tpu raised 'more than one element of the
    # written-to tensor refers to a single memory location'
    bad = []
    base = torch.tensor([[-5, 0, 3]]).to(dt)
    _check(bad, "expand", _on_clone(lambda b: b.expand(4, 3)), (base,))
    _check(bad, "result", lambda b: b.clone().expand(4, 3).conj_physical_(), (base,))
    _check(bad, "plain", _on_clone(lambda b: b), (base,))
    # an overlapping view that is not an expand (strides 1, 1)
    _check(bad, "as_strided", _on_clone(lambda b: b.as_strided((2, 3), (1, 1))), (torch.arange(6).to(dt),))
    assert not bad, "\n".join(bad)


def test_conj_physical_inplace_complex():
    # a complex self is conjugated in place; an expanded one is CPU's overlap error
    bad = []
    z = torch.tensor([[1 + 2j, -3j, 4]], dtype=torch.complex64)
    _check(bad, "plain", _on_clone(lambda b: b), (z,))
    _check(bad, "slice", _on_clone(lambda b: b[:, ::2]), (z,))
    _check(bad, "expand", _on_clone(lambda b: b.expand(2, 3)), (z,))
    assert not bad, "\n".join(bad)


@pytest.mark.filterwarnings("ignore:Use of index_fill_")
@pytest.mark.parametrize("dt", [torch.complex128, torch.float32, torch.int64, torch.bool])
def test_index_fill_inplace_expanded(dt):
    # fuzz 705:1104: x.index_fill_(1, [i, j], False) of a complex128 (2, 3)
    # expanded from (1, 3): CPU warns ('Use of index_fill_ on expanded
    # tensors is deprecated') and fills through every alias; tpu raised the
    # internal-overlap error
    bad = []
    g = torch.Generator().manual_seed(14)
    row = (torch.randn(1, 3, generator=g) * 4).to(dt)
    col = (torch.randn(3, 1, generator=g) * 4).to(dt)
    val = 0 if dt == torch.bool else -1.5 if dt.is_floating_point or dt.is_complex else -7
    for idx in ([0, 2], [2], [], [1, 1], [-1]):
        i = torch.tensor(idx, dtype=torch.long)
        # expanded along dim 0, filled along dim 1 (the fuzz call) and along dim 0
        _check(bad, f"row dim 1 {idx}", _inplace(lambda x, *a: x.index_fill_(*a)), (row, (2, 3), 1, i, val))
        _check(bad, f"row dim 0 {idx[:1]}", _inplace(lambda x, *a: x.index_fill_(*a)),
               (row, (2, 3), 0, i[:1] % 2, val))
        # expanded along dim 1, filled along dim 0 and along dim 1 (every alias)
        _check(bad, f"col dim 0 {idx}", _inplace(lambda x, *a: x.index_fill_(*a)),
               (col, (3, 4), 0, i, val))
        _check(bad, f"col dim 1 {idx}", _inplace(lambda x, *a: x.index_fill_(*a)),
               (col, (3, 4), 1, i, val))
    # a 0-dim tensor value, a 3-d self expanded along two dims
    _check(bad, "tensor value", _inplace(lambda x, *a: x.index_fill_(*a)),
           (row, (2, 3), 1, torch.tensor([1]), torch.tensor(val).to(dt)))
    b3 = (torch.randn(1, 4, 1, generator=g) * 4).to(dt)
    _check(bad, "3-d", _inplace(lambda x, *a: x.index_fill_(*a)), (b3, (2, 4, 3), 1, torch.tensor([3, 0]), val))
    assert not bad, "\n".join(bad)
    # an out-of-range index is still CPU's IndexError (tpu's raised at the
    # next synchronization, fuzz 713:42)
    for dev in ("cpu", "tpu"):
        with pytest.raises(IndexError, match="index 3"):
            _inplace(lambda x, *a: x.index_fill_(*a))(row.to(dev), (2, 3), 1, torch.tensor([3], device=dev), val).cpu()


def test_index_fill_inplace_expanded_warns():
    # CPU's deprecation warning, once per call
    for dev in ("cpu", "tpu"):
        b = torch.zeros(1, 3, device=dev)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            b.expand(2, 3).index_fill_(1, torch.tensor([1], device=dev), 2.0)
        msgs = [str(x.message) for x in w if "index_fill_" in str(x.message)]
        assert msgs and msgs[0].startswith("Use of index_fill_ on expanded tensors is deprecated"), (dev, msgs)
        assert b.cpu().tolist() == [[0.0, 2.0, 0.0]]


@pytest.mark.parametrize("op", ["tril_", "triu_"])
@pytest.mark.parametrize("dt", [torch.bool, torch.float32, torch.int64, torch.complex64])
def test_tril_triu_inplace_expanded(op, dt):
    # fuzz 709:462: tril_(-1) of a bool (3, 1) expanded from (1, 1): CPU's
    # kernel zeroes in place through each alias (False); tpu raised the
    # internal-overlap error. A rank-4 self expanded past its leading dim is
    # copied back on CPU, whose copy_ raises that error
    bad = []
    g = torch.Generator().manual_seed(1414)

    def base(*shape):
        return (torch.randn(*shape, generator=g) * 4 + 1).to(dt)

    cases = [((1, 1), (3, 1)), ((1, 4), (3, 4)), ((3, 1), (3, 4)), ((1, 3, 3), (2, 3, 3)), ((3, 1, 3), (3, 2, 3)),
             ((1, 1, 4), (2, 3, 4)), ((1, 2, 3, 3), (2, 2, 3, 3)), ((1, 1, 3, 3), (2, 2, 3, 3)), ((2, 1, 3), (2, 0, 3))]
    for bs, es in cases:
        for k in (-1, 0, 1, 2):
            _check(bad, f"{bs}->{es} k={k}", _inplace(lambda x, *a: getattr(x, op)(*a)), (base(*bs), es, k))
    assert not bad, "\n".join(bad)
