"""Differences of the fourteenth fuzzing session (seeds 701-765), each checked against CPU.

In-place calls on an expanded (stride-0) self that CPU computes and tpu
refused with the internal-overlap error: conj_physical_ of a real self (a
no-op on CPU, before any check), index_fill_ and index_put_ (CPU's
deprecated writes through every alias, with its warning), tril_/triu_
(CPU's kernel zeroes in place through each alias). An error in another
order than CPU's: add/sub with a bool alpha and a complex32 result."""

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


def test_conj_physical_inplace_expanded():
    # fuzz 701:134, 703:80, 711:1287: x.conj_physical_() of an expanded
    # int8 (257,), int32 (2, 3, 4) or float64 (4, 5) self: CPU's
    # conj_physical_ returns a real self untouched before any check; tpu
    # raised 'more than one element of the written-to tensor refers to a
    # single memory location'. A complex self is conjugated in place (an
    # expanded one is that error on CPU too)
    bad = []
    for dt in (torch.int8, torch.int32, torch.bool, torch.float32, torch.float64, torch.complex64):
        base = torch.tensor([[-5, 0, 3]]).to(dt)
        if dt.is_complex:
            base = base * (1 - 2j)
        _check(bad, f"{dt} expand", _on_clone(lambda b: b.expand(4, 3)), (base,))
        _check(bad, f"{dt} result", lambda b: b.clone().expand(4, 3).conj_physical_(), (base,))
        _check(bad, f"{dt} plain", _on_clone(lambda b: b), (base,))
        _check(bad, f"{dt} slice", _on_clone(lambda b: b[:, ::2]), (base,))
        # an overlapping view that is not an expand (strides 1, 1; a complex
        # one is conjugated once per alias on CPU, an overlap tpu refuses)
        if not dt.is_complex:
            _check(bad, f"{dt} as_strided", _on_clone(lambda b: b.as_strided((2, 3), (1, 1))),
                   (torch.arange(6).to(dt),))
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
        # an empty self never overlaps: no warning
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            torch.ones(2, 0, device=dev).index_fill_(0, torch.tensor([1], device=dev), 2.0).cpu()
        assert not [x for x in w if "expanded" in str(x.message)], dev


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


@pytest.mark.filterwarnings("ignore:Use of index_put_")
@pytest.mark.parametrize("dt", [torch.int16, torch.float32, torch.bool, torch.complex64])
def test_index_put_inplace_expanded(dt):
    # fuzz 714:695: x.index_put_((i,), 0-dim value) of an int16 (2, 3, 4)
    # expanded from (1, 3, 4): CPU warns and writes through every alias;
    # tpu raised the internal-overlap error. With accumulate each element
    # gains what was put through all its aliases
    bad = []
    g = torch.Generator().manual_seed(714)

    def t(*shape):
        return (torch.randn(shape, generator=g) * 4).to(dt)

    def put(x, idx, v, acc):
        x.index_put_(idx, v, accumulate=acc)

    for acc in (False, True):
        # indices along an expanded dim, along a kept one, both, with repeats
        for bs, es, idx in (((1, 3, 4), (2, 3, 4), [[0, 1, 0]]), ((1, 3, 4), (2, 3, 4), [[1], [2, 0]]),
                            ((3, 1), (3, 4), [[0, 2], [1, 3]]), ((3, 1), (3, 4), [[2, 2, 0]]),
                            ((1, 4), (3, 4), [[0, 0, 2]]), ((1, 4), (3, 4), [[1], [3, 3, 0]])):
            ii = tuple(torch.tensor(i) for i in idx)
            _check(bad, f"{bs}->{es} {idx} acc={acc} 0-dim", _inplace(put), (t(*bs), es, ii, t(), acc), tol=1e-5)
            _check(bad, f"{bs}->{es} {idx} acc={acc} (1,)", _inplace(put), (t(*bs), es, ii, t(1), acc), tol=1e-5)
        # a value per indexed element: accumulate sums them through the
        # aliases (in another order than CPU's: float sums within 1e-5)
        if acc:
            _check(bad, "values", _inplace(put), (t(1, 4), (3, 4), (torch.tensor([0, 2, 2]),), t(3, 4), acc), tol=1e-5)
            _check(bad, "values 2", _inplace(put), (t(3, 1), (3, 4), (torch.tensor([0, 2]), torch.tensor([1, 3])),
                                                   t(2), acc), tol=1e-5)
        # an empty index list entry (None) puts into a whole dim
        _check(bad, f"None acc={acc}", _inplace(put), (t(3, 1), (3, 4), (None, torch.tensor([1, 1])), t(), acc),
               tol=1e-5)
    # x[idx] = v, its Python form
    _check(bad, "setitem", _inplace(lambda x, i, v: x.__setitem__(i, v)), (t(1, 4), (3, 4), torch.tensor([0, 2]), t()))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.add, torch.sub])
def test_add_sub_bool_alpha_complex_half_result(op):
    # fuzz 708:898: add(float16 (4, 5), complex number, alpha=True): the
    # result would be complex32; CPU's alpha check refuses the bool alpha
    # first ('Boolean alpha only supported for Boolean results.'); tpu
    # raised its complex32 refusal. A shape mismatch still comes first
    bad = []
    x = torch.randn(4, 5).half()
    for other in (-0.76 - 1.82j, torch.tensor(1j, dtype=torch.complex64)):
        _check(bad, f"{other}", op, (x, other), {"alpha": True})
        _check(bad, f"{other} alpha False", op, (x, other), {"alpha": False})
    _check(bad, "complex64", op, (x.float(), 2j), {"alpha": True})
    _check(bad, "shape", op, (x, torch.ones(3, dtype=torch.complex64)), {"alpha": True})
    _check(bad, "rsub", torch.rsub, (x, 2j), {"alpha": True})
    assert not bad, "\n".join(bad)
