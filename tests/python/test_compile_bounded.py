"""Bounded dynamism (torchtpu/_bounded.py): a compiled graph with symbolic
sizes runs padded to its bucket's bound, one plan per bucket, with masks
where elements along a padded dim are combined. Each test's values are CPU
eager's for every length; the padding is filled with huge values where the
test can reach it (an argument that narrows a tensor laid out at the bound
is widened back with no copy), so a missing mask shows as a wrong value.
Graphs that cannot run padded keep plans per size (and say why)."""
import copy
import gc
import re

import pytest
import torch

from test_compile_sizes import _pair as _sizes_pair
from torchtpu import _compile

TOL = {"rtol": 1e-5, "atol": 1e-5}


_old = set()


@pytest.fixture(autouse=True)
def fresh():
    torch._dynamo.reset()
    torch.tpu.set_dynamic_buckets(None)
    _old.update(id(g) for g in _all_graphs())
    yield
    torch.tpu.set_dynamic_buckets(None)
    torch._dynamo.reset()


def _all_graphs():
    return [g for g in gc.get_objects() if type(g) is _compile._Graph]


def _graphs():
    """The graphs compiled by this test that have sizes (one per FX graph:
    AOTAutograd may hold a copy of a compiled graph beside it)."""
    seen = {}
    for g in _all_graphs():
        if id(g) not in _old and g.sizes:
            seen.setdefault(id(g.gm), g)
    return list(seen.values())


def _poisoned(n, bound, d=8, seed=0):
    """(tpu x of [2, n, d] narrowing a [2, bound, d] tensor whose tail is
    huge, its CPU copy)."""
    g = torch.Generator().manual_seed(seed + n)
    full = torch.randn(2, bound, d, generator=g)
    full[:, n:] = 3e4
    x = full.to("tpu")[:, :n]
    return x, full[:, :n].clone()


def _check_padded(fn, lengths, bound, seed, **tol):
    """fn compiled dynamic=True on poisoned inputs of each length (bucket
    `bound`) equals fn on CPU, and every graph ran padded."""
    f = torch.compile(fn, backend="tpu", dynamic=True)
    for n in lengths:
        x, xc = _poisoned(n, bound, seed=seed)
        for got, want in zip(f(x), fn(xc)):
            assert got.shape == want.shape
            torch.testing.assert_close(got.cpu(), want, **(tol or TOL))
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _calls(fn, lengths, bound, seed, **tol):
    """fn compiled dynamic=True on poisoned inputs of each length equals fn on
    CPU; returns how many calls ran padded and how many at their own sizes."""
    f = torch.compile(fn, backend="tpu", dynamic=True)
    plans = torch.tpu.plan_stats()
    for n in lengths:
        x, xc = _poisoned(n, bound, seed=seed)
        for got, want in zip(f(x), fn(xc)):
            assert got.shape == want.shape
            torch.testing.assert_close(got.cpu(), want, **(tol or TOL))
    after = torch.tpu.plan_stats()
    return after["padded_calls"] - plans["padded_calls"], after["size_calls"] - plans["size_calls"]


def _pair():
    """(CPU block, compiled tpu block with its weights; dynamic=True). The
    block (test_compile_sizes') ends in a mean over the symbolic dim."""
    ref, dev = _sizes_pair(False)
    return ref, torch.compile(dev, backend="tpu", dynamic=True)


def test_a_sweep_compiles_one_program_per_bucket():
    ref, f = _pair()
    lengths = [3, 5, 6, 7, 9, 12, 15, 16, 17, 23, 30, 9, 5]  # buckets 4, 8, 16, 32
    before = torch.tpu.cache_stats()["executables"]
    plans = torch.tpu.plan_stats()
    with torch.no_grad():
        for n in lengths:
            x = torch.randn(2, n, 32, generator=torch.Generator().manual_seed(n))
            y = f(x.to("tpu"))
            assert y.shape == (2, n, 32)
            torch.testing.assert_close(y.cpu(), ref(x), **TOL)
    # one program per bucket, whatever the lengths (staging inputs and reading
    # narrowed outputs compile nothing)
    assert torch.tpu.cache_stats()["executables"] - before <= 4
    after = torch.tpu.plan_stats()
    assert after["captures"] - plans["captures"] == 4
    assert after["replays"] - plans["replays"] == len(lengths) - 4
    assert after["padded_calls"] - plans["padded_calls"] == len(lengths)  # every call of the one graph
    assert after["size_calls"] == plans["size_calls"]


def test_outputs_feed_the_next_call_without_a_copy():
    ref, f = _pair()
    with torch.no_grad():
        for n in (5, 7, 6):
            x = torch.randn(2, n, 32, generator=torch.Generator().manual_seed(n))
            y = f(f(x.to("tpu")))  # the second call widens the first's narrowed output back
            torch.testing.assert_close(y.cpu(), ref(ref(x)), **TOL)


def _reductions(x):
    return (x.softmax(1), x.log_softmax(1), x.sum(1), x.mean(1), x.amax(1), x.amin(1), x.logsumexp(1),
            x.transpose(1, 2) @ x, x.cumsum(1), x.sum(), x.mean(), (x * 2).relu().amax(dim=(0, 1)))


def test_reductions_over_a_padded_dim_are_masked():
    _check_padded(_reductions, (9, 11, 13, 16, 10), 16, 0, rtol=1e-5, atol=1e-3)  # padding 7..0
    # Dynamo compiles a second graph for n == 16 (the argument is contiguous
    # then); each has one plan: batch 2, length 16, width 8 (all symbolic)
    gs = _graphs()
    assert gs and all(g.bounding is not None and g.unbounded is None for g in gs)
    assert all(list(g.plans) == [("bounded", 2, 16, 8)] for g in gs)


def _ends(x):
    pos = torch.arange(x.shape[1], device=x.device)
    ids = (x[..., 0].abs() * 100).long() % 8  # padded positions of ids hold anything
    table = torch.arange(8 * 3, dtype=x.dtype, device=x.device).reshape(8, 3)
    return (x[:, 1:].sum(1), x[:, :-2].amax(1), torch.cat([x[:, :1] - 5, x], 1).softmax(1), x[:, 3:].mean(1),
            x[:, 2] * 1, x[:, pos].log_softmax(1), table[ids].sum(1), torch.nn.functional.embedding(ids, table).amax(1),
            x.index_select(1, pos).amin(1), table.index_select(0, ids[0]).sum(0), torch.floor_divide(x, 0.25).sum(1))


def test_slices_cats_and_indexing_of_a_padded_dim():
    _check_padded(_ends, (9, 11, 13, 16, 10), 16, 7, rtol=1e-5, atol=1e-3)


def _merged(x):
    b, n, d = x.shape
    flat = x.reshape(b * n, d)  # batch and length merged: padding inside the dim
    return flat.sum(0), flat.mean(0), (flat @ flat.t()).softmax(-1).reshape(b, n, b * n).sum(1).amax(-1)


def test_merged_padded_dims_are_masked():
    _check_padded(_merged, (5, 7, 8, 6), 8, 3, rtol=1e-5, atol=1e-3)


def test_custom_buckets_and_off():
    f = torch.compile(lambda x: x.softmax(1) * 2, backend="tpu", dynamic=True)
    torch.tpu.set_dynamic_buckets([12, 40])
    assert torch.tpu.get_dynamic_buckets() == (12, 40)
    for n in (3, 5, 12, 13, 39, 50):  # 50: above the largest bucket, a plan of its own
        x = torch.randn(2, n)
        torch.testing.assert_close(f(x.to("tpu")).cpu(), x.softmax(1) * 2, **TOL)
    (g,) = _graphs()  # every size is bucketed, the batch's too
    assert sorted(k for k in g.plans if k and k[0] == "bounded") == [("bounded", 12, 12), ("bounded", 12, 40)]
    assert (2, 50) in g.plans
    torch.tpu.set_dynamic_buckets(False)
    x = torch.randn(2, 7)
    torch.testing.assert_close(f(x.to("tpu")).cpu(), x.softmax(1) * 2, **TOL)
    assert (2, 7) in g.plans
    with pytest.raises(ValueError):
        torch.tpu.set_dynamic_buckets([0, 4])
    with pytest.raises(TypeError):
        torch.tpu.set_dynamic_buckets(7)


def _flip(x):
    """flip along the padded dim and static ones; nansum over the padded dim."""
    y = torch.where(x > 1, float("nan"), x)
    return x.flip(1).cumsum(1), x.flip(0, 1, 2), x.flip(-1), y.nansum(1), y.nansum()


def test_flip_and_nansum_run_padded():
    """Element j of a flipped padded dim reads n - 1 - j at run time; nansum's padding holds 0. Before: plans
    per size ("aten.flip.default / aten.nansum.default is not known to be right on padded tensors")."""
    _check_padded(_flip, (3, 6, 5, 8), 8, seed=109)


def _from_end(x):
    return x[:, -3:].sum(1), x[:, -1:]


def test_a_static_count_from_the_end_runs_padded():
    """x[:, -k:] of a padded dim, k static: read from n - k at run time (a generate step's last logits).
    Before: plans per size ("a slice of a symbolic dim that does not start at a static index from its
    front")."""
    _check_padded(_from_end, (3, 6, 5, 8), 8, seed=163)


def _strided(x):
    return x[:, ::2].sum(1)


def _repeat_padded(x):
    return x.repeat(1, 2, 1).cumsum(1)


def _count(x):
    return x * x.shape[1]


def _write(x):
    x.mul_(2)
    return x.sum(1)


def _alias(x):
    return x.view(x.shape[0], x.shape[1], 2, 4)


@pytest.mark.parametrize("fn,why", [(_strided, "slice"),
                                    (_repeat_padded, "cumsum"), (_write, "")])
def test_graphs_not_right_padded_keep_plans_per_size(fn, why):
    f = torch.compile(fn, backend="tpu", dynamic=True)
    before = torch.tpu.plan_stats()
    for n in (5, 6, 7, 6):
        x, xc = _poisoned(n, 8, seed=5)
        x = x.clone()
        got = f(x)
        want = fn(xc)
        torch.testing.assert_close(got.cpu(), want, **TOL)
        torch.testing.assert_close(x.cpu(), xc, **TOL)  # an input written in place is written
    gs = _graphs()
    assert gs and all(g.bounding is None and why in g.unbounded for g in gs), [g.unbounded for g in gs]
    assert not any(k and k[0] == "bounded" for g in gs for k in g.plans)
    after = torch.tpu.plan_stats()
    assert after["padded_calls"] == before["padded_calls"]
    assert after["size_calls"] - before["size_calls"] == 4


def _narrow_by_two_ints(x, a, b):
    return x.narrow(2, 0, a + b), x * 2


def test_an_output_viewing_an_input_by_integer_arguments_runs_padded():
    """An output that views an input is replayed on the host from the call's sizes; its size a + b of two
    integer arguments that no tensor has (read at their first values, as logits_to_keep) was read again
    there with none of the analysis' values: the call raised "a size s56 + s71 that is neither a product
    of symbols nor a symbol plus a constant" (big_bird's and xlm's training, once their loss graph ran
    padded). The sizes of such views are now read in the analysis."""
    f = torch.compile(_narrow_by_two_ints, backend="tpu", dynamic=True)
    before = torch.tpu.plan_stats()
    for n in (5, 6, 7):
        x, xc = _poisoned(n, 8, seed=31)
        got, want = f(x, 1, 2), _narrow_by_two_ints(xc, 1, 2)
        for a, b in zip(got, want):
            torch.testing.assert_close(a.cpu(), b, **TOL)
    after = torch.tpu.plan_stats()
    assert after["padded_calls"] - before["padded_calls"] == 3


def _and_its_columns(x):
    y = x * 2
    return y, y[:, :, :2]


def test_outputs_that_view_one_tensor_share_its_storage():
    """A graph (no autograd) returning a tensor and a view of it: a write through the view shows in the
    tensor, as in eager. Padded, each output was a tensor of its own (compacted): the write did not show
    (off by 100, silently). The view is now made again on the tensor as returned (Bounding.finish)."""
    f = torch.compile(_and_its_columns, backend="tpu", dynamic=True)
    for n in (5, 6, 7):
        x, xc = _poisoned(n, 8, seed=37)
        got, want = f(x), _and_its_columns(xc)
        assert got[1].untyped_storage().data_ptr() == got[0].untyped_storage().data_ptr()
        got[1].add_(100)
        want[1].add_(100)
        for a, b in zip(got, want):
            torch.testing.assert_close(a.cpu(), b, **TOL)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def test_a_size_as_a_value_is_the_real_size():
    # x * x.shape[1] multiplies by the length, not the bucket's bound (a run-time scalar of the plan)
    _check_padded(lambda x: (x * x.shape[1], x.sum(1) / x.shape[1]), (5, 6, 7, 5), 8, 13)


def test_an_output_that_views_an_input_is_a_view_of_the_input_as_given():
    f = torch.compile(_alias, backend="tpu", dynamic=True)
    for n in (5, 6, 7, 6):
        x, xc = _poisoned(n, 8, seed=5)
        got = f(x)
        assert got.shape == (2, n, 2, 4)
        assert got.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        torch.testing.assert_close(got.cpu(), _alias(xc), **TOL)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _views_of_a_result(x):
    y = x.softmax(1) * 2
    return y, y.transpose(0, 1), y[:, 1:], y.unsqueeze(0)


def test_outputs_that_view_a_result():
    # AOTAutograd regenerates outputs aliasing an intermediate from the base
    # output's storage: the narrowed outputs share the padded storage
    _check_padded(_views_of_a_result, (5, 6, 7, 5), 8, 11)


def _repeated(x):  # every dim of x is symbolic here: repeats of new and size-1 dims only
    return x[:, :, :1].repeat(1, 1, 3).softmax(1), x.unsqueeze(0).repeat(2, 1, 1, 1).sum(2)


def test_repeat_of_unpadded_dims():
    _check_padded(_repeated, (5, 6, 7), 8, 13, rtol=1e-5, atol=1e-3)


def _repeat_by_the_batch(x):
    """bloom's alibi [heads, 1, n] repeated batch times (a symbolic count) and cpmant's positions [1, n]."""
    alibi = torch.arange(1, 5, device=x.device, dtype=x.dtype)[:, None, None] * x[0].sum(-1)[None, None, :]
    r = alibi.repeat(x.shape[0], 1, 1)
    pos = torch.arange(x.shape[1], device=x.device)[None, :].repeat(x.shape[0], 1)
    return r.view(x.shape[0], 4, x.shape[1]).softmax(-1), pos * 2, x + pos[..., None]


def test_repeat_by_a_symbolic_count_runs_padded():
    """The copy index is the outer atom: copies past the count are padding at the end. Before: plans per size
    ("repeat by a symbolic count"; bloom, cpmant)."""
    _check_padded(_repeat_by_the_batch, (5, 6, 7), 8, 17, rtol=1e-5, atol=1e-3)
    torch._dynamo.reset()
    f = torch.compile(_repeat_by_the_batch, backend="tpu", dynamic=True)
    for b, n in ((3, 5), (3, 7), (4, 6)):  # a batch of 3 padded to 4: one copy past the count
        full = torch.randn(4, 8, 8, generator=torch.Generator().manual_seed(b * n))
        full[b:], full[:, n:] = 3e4, 3e4
        for got, want in zip(f(full.to("tpu")[:b, :n]), _repeat_by_the_batch(full[:b, :n])):
            torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-3)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _stack_gather(x):
    src = torch.cat([x[..., :1], x[..., :1] * 2, x[..., 1:2] * 3], 2)  # a static last dim of 3
    ids = (x[..., :1].abs() * 100).long() % 3  # padded positions hold anything
    return torch.stack([x, x * 2], 1).sum(2), torch.gather(src, 2, ids.expand(-1, -1, 3)).sum(1)


def test_stack_and_gather_into_unpadded_dims():
    _check_padded(_stack_gather, (5, 6, 7), 8, 17, rtol=1e-5, atol=1e-3)


def _neg_then_flatten(x):
    x.neg_()
    return x.reshape(-1)


def _write_then_narrow(x):
    x[:x.shape[0] // 2] = 0.125
    return x.narrow(0, 1, x.shape[0] - 1)


@pytest.mark.parametrize("fn,layout", [(_neg_then_flatten, "strided"), (_write_then_narrow, "narrowed")])
def test_an_output_viewing_a_written_input_that_is_not_row_major(fn, layout):
    """Graph fuzzer 2:147 and 3:65 (--family dynamic): with symbolic sizes AOTAutograd rebuilds an output that
    views an input the graph writes from the returned tensor's strides over the input's storage; returned as
    a view of the new value (row-major) it read the input's gaps (the strided input's filler, the padding of
    the tensor it narrows). torchtpu/_input_alias.py returns views of the input itself."""
    f = torch.compile(fn, backend="tpu", dynamic=True)
    for n in (3, 6, 5, 6):
        if layout == "strided":
            big = torch.full((2, 2 * n), 7.0)
            big[:, ::2] = torch.randn(2, n, generator=torch.Generator().manual_seed(n))
            x, xc = big.to("tpu")[:, ::2], big[:, ::2].clone()
        else:
            full = torch.full((8, 8), 3e4)
            full[:n, :n] = torch.randn(n, n, generator=torch.Generator().manual_seed(n))
            x, xc = full.to("tpu")[:n, :n], full[:n, :n].clone()
        got, want = f(x), fn(xc)
        assert got.shape == want.shape
        torch.testing.assert_close(got.cpu(), want, **TOL)
        torch.testing.assert_close(x.cpu(), xc, **TOL)  # the input is written


def _add_fill_narrow(x):
    x.add_(0.25)
    x.masked_fill_(x > 0.5, -1.0)
    return x.narrow(1, 0, x.shape[1] - 2)


@pytest.mark.parametrize("layout", ["contiguous", "narrowed", "transposed"])
def test_an_output_viewing_an_input_the_forward_writes_with_grad(layout):
    """Graph fuzzer 28:79 (--family dynamic): with grad, AOTAutograd's forward returns the written input's new
    value (the wrapper copies it into the input) and the output viewing the input is rebuilt from the
    returned view's base: the bucket-padded result (a setStorage error past the input's storage at n=5, or,
    for an input narrowing a wider tensor, the wrong elements read silently). The transposed input is
    PyTorch's own wrong answer with aot_eager on CPU (pytorch/pytorch#103650). Outputs, gradients and the
    written input equal eager CPU's at each length."""
    f = torch.compile(_add_fill_narrow, backend="tpu")
    for n in (16, 5, 6, 9, 12):
        g = torch.Generator().manual_seed(n)
        shape = {"transposed": (n, 6), "narrowed": (6, 12)}.get(layout, (6, n))
        big = torch.randn(shape, generator=g)
        res = []
        for dev in ("cpu", "tpu"):
            leaf = big.clone().to(dev).requires_grad_()
            x = leaf * 1
            x = x.t() if layout == "transposed" else x[:, :n]
            if dev == "tpu":
                torch._dynamo.mark_dynamic(x, 1)
                out = f(x)
            else:
                out = _add_fill_narrow(x)
            w = torch.arange(out.numel(), dtype=torch.float32).reshape(out.shape).to(dev)
            grad, = torch.autograd.grad((out * w).sum(), leaf)
            res.append([out.detach().cpu(), grad.cpu(), x.detach().cpu()])
        for got, want in zip(res[1], res[0]):
            torch.testing.assert_close(got, want, **TOL)


def _check_module_padded(cls, seed):
    """A module of static parameters compiled dynamic=True on poisoned [2, n, 8] inputs equals it on CPU, and
    every graph ran padded."""
    torch.manual_seed(seed)
    ref = cls()
    f = torch.compile(copy.deepcopy(ref).to("tpu"), backend="tpu", dynamic=True)
    with torch.no_grad():
        for n in (3, 6, 5, 8):
            x, xc = _poisoned(n, 8, seed=seed)
            for got, want in zip(f(x), ref(xc)):
                assert got.shape == want.shape
                torch.testing.assert_close(got.cpu(), want, **TOL)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


class _Router(torch.nn.Module):
    """An MoE router's top-k over experts (a static dim: the parameter's) of rows along the symbolic dims, and
    the argmax, argmin, sort and unbind of each row."""

    def __init__(self):
        super().__init__()
        self.gate = torch.nn.Linear(8, 6, bias=False)

    def forward(self, x):
        logits = self.gate(x)
        w, e = torch.topk(torch.softmax(logits, dim=-1), 2, dim=-1)
        s, i = torch.sort(logits, dim=-1, descending=True)
        u, v = logits.unflatten(-1, (2, 3)).unbind(-2)  # unbind along a static dim (deepseek_v4)
        return w, e, logits.argmax(dim=-1), logits.argmin(-1, keepdim=True), s, i, u * v


def test_topk_sort_argmax_unbind_along_a_static_dim_run_padded():
    """Each row is its own along a static dim: the padded rows give values no result reads. Before: the graph
    kept a plan per size ("aten.topk.default / aten.unbind.int is not known to be right on padded tensors")."""
    _check_module_padded(_Router, 41)


def _topk_along_the_length(x):
    return torch.topk(x, 2, dim=1)[1], x.argmax(dim=1), torch.topk(x, 3, dim=1, largest=False, sorted=True)[0]


def test_topk_along_the_symbolic_dim_runs_padded():
    """A static k along the padded dim: the padding filled with what sorts last, a stable sort's first k.
    Before: plans per size ("aten.topk.default along a symbolic dim")."""
    f = torch.compile(_topk_along_the_length, backend="tpu", dynamic=True)
    for n in (3, 6, 5):
        x, xc = _poisoned(n, 8, seed=43)
        for got, want in zip(f(x), _topk_along_the_length(xc)):
            torch.testing.assert_close(got.cpu(), want, rtol=0, atol=0)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


class _ComplexRope(torch.nn.Module):
    """deepseek's rotary on complex numbers and a write into a static slice: polar, view_as_complex,
    view_as_real, ones_like and slice_scatter/copy (a write into a clone) beside the symbolic dims."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        h = self.lin(x)
        c = torch.view_as_complex(h.unflatten(-1, (4, 2)))
        rot = torch.polar(torch.ones_like(h[..., :4]), h[..., 4:])
        r = torch.view_as_real(c * rot).flatten(-2)
        out = h.clone()
        out[..., 4:] = r[..., :4]
        out[..., :2] = 0.5
        return out, torch.zeros_like(h) + r


def test_complex_rotary_and_static_slice_writes_run_padded():
    """Before: plans per size ("aten.ones_like.default / aten.polar.default / aten.slice_scatter.default is not
    known to be right on padded tensors": deepseek_v2, deepseek_v3)."""
    _check_module_padded(_ComplexRope, 43)


class _Positions(torch.nn.Module):
    """bert's position embeddings: a static table's first n rows, n the input's length."""

    def __init__(self, rows):
        super().__init__()
        self.register_buffer("pos", torch.randn(rows, 8, generator=torch.Generator().manual_seed(rows)))

    def forward(self, x):
        return x + self.pos[:x.shape[1]]


def test_a_static_tables_first_rows_run_padded_while_the_bound_fits():
    """Before: plans per size ("slice of a static dim at a symbolic index": bert, electra, ernie). A length
    whose bucket's bound passes the table's 10 rows (9, 10: bound 16) runs at its own size."""
    ref = _Positions(10)
    f = torch.compile(copy.deepcopy(ref).to("tpu"), backend="tpu", dynamic=True)
    stats = []
    with torch.no_grad():
        for n in (3, 6, 5, 9, 10, 7):
            x, xc = _poisoned(n, 16, seed=47)
            before = torch.tpu.plan_stats()
            got = f(x)
            after = torch.tpu.plan_stats()
            assert got.shape == (2, n, 8)
            torch.testing.assert_close(got.cpu(), ref(xc), **TOL)
            stats.append((after["padded_calls"] - before["padded_calls"], after["size_calls"] - before["size_calls"]))
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]
    assert stats == [(1, 0), (1, 0), (1, 0), (0, 1), (0, 1), (1, 0)], stats


class _Convs(torch.nn.Module):
    """mamba's causal depthwise conv1d over the sequence (padding k-1, the first n outputs), a 'same' and a
    dilated conv1d, each along the symbolic length."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 4)
        self.causal = torch.nn.Conv1d(4, 4, 3, padding=2, groups=4)
        self.same = torch.nn.Conv1d(4, 6, 3, padding=1)
        self.dilated = torch.nn.Conv1d(4, 4, 3, padding=2, dilation=2, bias=False)

    def forward(self, x):
        h = self.lin(x).transpose(1, 2)
        n = h.shape[-1]
        return self.causal(h)[..., :n], self.same(h), self.dilated(h)


def test_convolutions_along_the_symbolic_length_run_padded():
    """The input's padding is zeroed, so an output inside the length reads zeros beyond it as the static run's
    implicit padding. Before: plans per size ("aten.convolution.default is not known to be right on padded
    tensors": falcon_mamba, falcon_h1, lfm2, bailing_hybrid)."""
    _check_module_padded(_Convs, 53)


def _last_n(x, y):
    return x[:, -y.shape[0]:] * 2  # y's length is x's: all of x's dim


def test_a_slice_of_the_last_n_of_a_dim_of_n_runs_padded():
    """x[:, -n:] of a dim of n (HF's hidden_states[:, -logits_to_keep:] when they are equal) is the whole dim,
    at the bounds the whole padded dim. Before: plans per size ("a slice of a symbolic dim that does not start
    at a static index from its front")."""
    f = torch.compile(_last_n, backend="tpu", dynamic=True)
    for n in (3, 6, 5):
        xc, y = torch.randn(2, n, 8), torch.randn(n)
        got = f(xc.to("tpu"), y.to("tpu"))
        assert got.shape == (2, n, 8)
        torch.testing.assert_close(got.cpu(), _last_n(xc, y), rtol=0, atol=0)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _append_and_attend(k, nk, q):
    k2 = torch.cat([k, nk], dim=1)
    return k2, torch.softmax(q @ k2.transpose(-1, -2), -1) @ k2


@pytest.mark.parametrize("rows,how", [(1, "dynamic"), (3, "mark")])
def test_a_padded_cache_appended_to_runs_padded(rows, how):
    """cat([cache, new rows]) along the cache's symbolic length (a KV cache in a compiled decode step; the new
    rows static: one under dynamic=True, three with mark_dynamic on the cache alone): the new rows are moved
    from the padded end to the real one. Before: plans per size ("cat along a symbolic dim of any operand but
    the last")."""
    f = torch.compile(_append_and_attend, backend="tpu", dynamic=True if how == "dynamic" else None)
    before = torch.tpu.plan_stats()
    for n in (3, 6, 5, 7, 12):
        k, kc = _poisoned(n, 16, d=4, seed=61)
        if how == "mark":
            torch._dynamo.mark_dynamic(k, 1)
        nk, q = torch.randn(2, rows, 4), torch.randn(2, 1, 4)
        for got, want in zip(f(k, nk.to("tpu"), q.to("tpu")), _append_and_attend(kc, nk, q)):
            assert got.shape == want.shape
            torch.testing.assert_close(got.cpu(), want, **TOL)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]
    assert torch.tpu.plan_stats()["padded_calls"] - before["padded_calls"] == 5


def _rows(n, bound, d=8, seed=0, dtype=torch.float32):
    """(tpu rows [n, d] narrowing [bound, d] whose tail is huge, their CPU copy)."""
    g = torch.Generator().manual_seed(seed + n)
    full = torch.randn(bound, d, generator=g).to(dtype)
    full[n:] = 3e4
    return full.to("tpu")[:n], full[:n].clone()


def _check_rows_padded(fn, seed, lengths=(3, 6, 5, 8), exact=False):
    f = torch.compile(fn, backend="tpu", dynamic=True)
    for n in lengths:
        x, xc = _rows(n, 8, seed=seed)
        for got, want in zip(f(x), fn(xc)):
            assert got.shape == want.shape and got.dtype == want.dtype
            torch.testing.assert_close(got.cpu(), want, **({"rtol": 0, "atol": 0, "equal_nan": True} if exact else TOL))
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _sorts_along_the_length(x):
    """Sorts, argmax and argmin along the padded dim: ties, NaN, integers and booleans."""
    t = torch.round(x * 2)  # ties
    y = torch.where(t == 1, float("nan"), t)
    i = t.to(torch.int64)
    return (torch.sort(y, dim=0)[0], torch.sort(y, dim=0, stable=True), torch.sort(y, dim=0, descending=True, stable=True),
            torch.sort(i, dim=0, stable=True), torch.sort(i, dim=0, descending=True, stable=True)[1],
            torch.sort(x > 0, dim=0, stable=True)[1], torch.sort(x > 0, dim=0, descending=True, stable=True)[1],
            y.argmax(dim=0), t.argmin(dim=0), i.argmax(dim=0), i.argmin(dim=0), tuple(torch.max(y, dim=0)),
            tuple(torch.min(i, dim=0)))


def test_sort_argmax_argmin_along_the_symbolic_dim_run_padded():
    """The padding holds what a stable sort puts last (NaN ascending, -inf descending, the integer limits,
    booleans) or what argmax/argmin/max/min pass over: the first n are the static run's, tie order included. Before:
    plans per size ("aten.sort.default along a symbolic dim")."""
    _check_rows_padded(lambda x: [t for r in _sorts_along_the_length(x) for t in (r if isinstance(r, tuple) else (r,))],
                       seed=47, exact=True)


def _index_by_data(x):
    """Rows picked by indices computed from the data (negative ones count from the end), and an inverse
    permutation written by index_put."""
    order = torch.argsort(x[:, 0], stable=True)
    inv = torch.empty_like(order)
    inv[order] = torch.arange(order.size(0), device=order.device)
    back = x[order][inv]
    neg = x[order - x.shape[0]]  # -n..-1
    return x[order], x.index_select(0, order), back, neg, inv


def test_indices_from_the_data_into_the_symbolic_dim_run_padded():
    """index/index_select/index_put into a dim padded at its end by any integers: a negative one counts from
    the real size. Before: plans per size ("indexing a symbolic dim with indices that are not its
    positions")."""
    _check_rows_padded(_index_by_data, seed=53, exact=True)


def test_an_index_past_the_real_size_raises_as_on_cpu():
    """An index inside the bucket's padding but past the real size is CPU's IndexError, not a padded row."""
    def f(x, i):
        return x[i]
    cf = torch.compile(f, backend="tpu", dynamic=True)
    for n in (3, 6):
        x, xc = _rows(n, 8, seed=59)
        i = torch.tensor([0, n - 1, -n])
        torch.testing.assert_close(cf(x, i.to("tpu")).cpu(), f(xc, i), rtol=0, atol=0)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]
    x, xc = _rows(5, 8, seed=59)
    for bad in (5, 7, -6):
        i = torch.tensor([0, bad])
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds for dimension 0 with size 5"):
            f(xc, i)
        # the padded run's check is at the real size, so its error is CPU's whether it is read at the
        # call (the launch done before the call returns) or at .cpu() (CI's timing)
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds for dimension 0 with size 5"):
            cf(x, i.to("tpu")).cpu()


@pytest.mark.parametrize("case", ["index_select_negative", "index_select_past", "column", "second_index",
                                  "index_put"])
def test_a_bad_index_into_a_padded_dim_raises_cpus_error(case):
    """Each op's CPU error at the real size (dim and size as CPU names them); index_select's negative
    index raises as on CPU (it was read from the real end: a row, no error)."""
    def put(x, i):
        y = x.clone()
        y[i] = 1.0
        return y
    f, rows, bad = {
        "index_select_negative": (lambda x, i: x.index_select(0, i), True, -1),
        "index_select_past": (lambda x, i: x.index_select(0, i), True, 6),
        "column": (lambda x, i: x[:, i], False, 5),
        "second_index": (lambda x, i: x[torch.tensor([0, 1], device=x.device), i], False, -6),
        "index_put": (put, True, 5),
    }[case]
    cf = torch.compile(f, backend="tpu", dynamic=True)

    def make(n):
        g = torch.Generator().manual_seed(n)
        x = torch.randn(n, 4, generator=g) if rows else torch.randn(4, n, generator=g)
        return x, torch.tensor([n - 1])  # one element: a static length
    for n in (3, 6, 7):
        x, i = make(n)
        torch.testing.assert_close(cf(x.to("tpu"), i.to("tpu")).cpu(), f(x, i), rtol=0, atol=0)
    assert all(g.bounding is not None for g in _graphs()), [g.unbounded for g in _graphs()]
    x, i = make(5)
    i[-1] = bad
    with pytest.raises(IndexError) as want:
        f(x, i)
    with pytest.raises(IndexError, match=re.escape(str(want.value))):
        cf(x.to("tpu"), i.to("tpu")).cpu()
    # the graph stays padded (its error was the user's), and the next good call is right
    x, i = make(5)
    torch.testing.assert_close(cf(x.to("tpu"), i.to("tpu")).cpu(), f(x, i), rtol=0, atol=0)
    assert all(g.bounding is not None for g in _graphs()), [g.unbounded for g in _graphs()]


@pytest.mark.parametrize("bad", [6, -1])
def test_index_select_along_dim_1_of_a_padded_matrix_raises_cpus_runtime_error(bad):
    """Graph fuzzer (dynamic, bad_index): CPU's index_select along dim 1 of a matrix or more checks its
    indices in its dim-1 fast path (RuntimeError 'INDICES element is out of DATA bounds, id=6 axis_dim=6', as
    the eager lowering says); the padded graph's check said IndexError 'index out of range in self'. Other
    dims keep 'index out of range in self'."""
    f = lambda x, i: x.index_select(1, i)  # noqa: E731
    g = lambda x, i: x.index_select(0, i)  # noqa: E731
    cf, cg = torch.compile(f, backend="tpu", dynamic=True), torch.compile(g, backend="tpu", dynamic=True)
    for n in (3, 7, 6):
        x = torch.randn(4, n, generator=torch.Generator().manual_seed(n))
        i = torch.tensor([0, n - 1])
        torch.testing.assert_close(cf(x.to("tpu"), i.to("tpu")).cpu(), f(x, i), rtol=0, atol=0)
        torch.testing.assert_close(cg(x.t().contiguous().to("tpu"), i.to("tpu")).cpu(), g(x.t(), i), rtol=0, atol=0)
    assert all(gr.bounding is not None for gr in _graphs()), [gr.unbounded for gr in _graphs()]
    x, i = torch.randn(4, 6), torch.tensor([0, bad])
    for fn, cfn, arg in ((f, cf, x), (g, cg, x.t().contiguous())):
        with pytest.raises((IndexError, RuntimeError)) as want:
            fn(arg, i)
        with pytest.raises(want.type, match=re.escape(str(want.value))) as got:
            cfn(arg.to("tpu"), i.to("tpu")).cpu()
        assert type(got.value) is want.type


def test_histc_of_the_symbolic_dim_runs_padded():
    """Counts of the valid elements: the padding holds NaN (floats) or an integer below the range."""
    def f(x):
        return (torch.histc(x, bins=5, min=-2, max=2), torch.histc(torch.round(x).to(torch.int32), bins=4, min=-1, max=2)
                if x.device.type != "cpu" else torch.histc(torch.round(x), bins=4, min=-1, max=2))
    fc = torch.compile(f, backend="tpu", dynamic=True)
    for n in (3, 6, 5, 8):
        x, xc = _rows(n, 8, seed=61)
        got, want = fc(x), f(xc)
        torch.testing.assert_close(got[0].cpu(), want[0], rtol=0, atol=0)
        torch.testing.assert_close(got[1].cpu().float(), want[1], rtol=0, atol=0)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


class _GroupedMoE(torch.nn.Module):
    """transformers' grouped-mm experts (integrations/moe.py): top-k routing, the (token, expert) pairs sorted
    by expert, rows gathered, histc counts and cumsum offsets, two _grouped_mm, an inverse permutation by
    index_put, the pairs summed back per token. Its tokens are one padded dim (a batch of 1)."""

    def __init__(self, e=4, k=2, d=8, h=16):
        super().__init__()
        self.gate = torch.nn.Linear(d, e, bias=False)
        self.up = torch.nn.Parameter(torch.randn(e, d, h) * 0.3)
        self.down = torch.nn.Parameter(torch.randn(e, h, d) * 0.3)
        self.e, self.k = e, k

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1])  # a batch of rows: the padding inside the flattened tokens
        w, idx = torch.topk(torch.softmax(self.gate(x), dim=-1), self.k, dim=-1)
        ids, sw = idx.reshape(-1), w.reshape(-1)
        ids_g, perm = torch.sort(ids)
        xg, swg = x[perm // self.k], sw[perm]
        counts = torch.histc(ids_g.float() if x.device.type == "cpu" else ids_g.int(), bins=self.e, min=0,
                             max=self.e - 1)
        offs = torch.cumsum(counts, dim=0, dtype=torch.int32)
        hid = torch.nn.functional.silu(torch._grouped_mm(xg, self.up, offs=offs))
        out = torch._grouped_mm(hid, self.down, offs=offs) * swg.unsqueeze(-1)
        inv = torch.empty_like(perm)
        inv[perm] = torch.arange(perm.size(0), device=x.device)
        return (out[inv].view(-1, self.k, x.shape[-1]).sum(dim=1).view(shape),)


def test_grouped_mm_experts_run_padded():
    """Before: plans per size ("aten.sort.default along a symbolic dim"); mixtral, olmoe with a batch of 1
    (`tools/causal_lm_sweep.py --models mixtral,olmoe --batch 1`) now run bounded."""
    torch.manual_seed(67)
    ref = _GroupedMoE()
    dev = copy.deepcopy(ref).to("tpu")
    with torch.no_grad():
        f = torch.compile(dev, backend="tpu", dynamic=True)
        for n in (3, 6, 5, 8):
            x, xc = _rows(n, 8, seed=67)
            torch.testing.assert_close(f(x)[0].cpu(), ref(xc)[0], **TOL)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


@pytest.mark.parametrize("how", ["dynamic", "mark"])
def test_grouped_mm_experts_over_a_batch_run_padded(how):
    """A batch of 2 rows of n tokens flattened: the padding is inside the (token, expert) pairs, so the sort,
    the grouped mm's row groups and the indices work in the static order (compacted, then laid out back).
    With dynamic=True the batch is a symbol too. Before: plans per size ("aten.sort.default along a
    symbolic dim"); mixtral, olmoe (`tools/causal_lm_sweep.py --models mixtral,olmoe [--how mark]`) now run
    bounded."""
    torch.manual_seed(71)
    ref = _GroupedMoE()
    f = torch.compile(copy.deepcopy(ref).to("tpu"), backend="tpu", dynamic=True if how == "dynamic" else None)
    with torch.no_grad():
        for n in (3, 6, 5, 8):
            x, xc = _poisoned(n, 8, seed=71)
            if how == "mark":
                torch._dynamo.mark_dynamic(x, 1)
            torch.testing.assert_close(f(x)[0].cpu(), ref(xc)[0], **TOL)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _batch_sorts(x):
    """x [2, n, 8] flattened to [2n, 8] rows: sorts, argmax and indices along the flattened dim."""
    r = x.reshape(-1, 8)
    t = torch.round(r * 2)
    v, i = torch.sort(t, dim=0, descending=True, stable=True)
    inv = torch.empty_like(i[:, 0])
    inv[i[:, 0]] = torch.arange(i.shape[0], device=x.device)
    out = v, i, r[i[:, 1]], r.index_select(0, inv), r[i[:, 2] - r.shape[0]], inv.unsqueeze(-1).expand(-1, 8)
    return (t.argmax(dim=0), *torch.max(t, dim=0)) + tuple(o.view(x.shape) for o in out)  # (padding at the ends)


def test_sorts_and_indices_along_a_flattened_batch_run_padded():
    _check_padded(_batch_sorts, (3, 6, 5, 8), 8, seed=73, rtol=0, atol=0)


def _one_hot_router(x):
    """An MoE router's one-hot of its top-k experts along the static expert dim (exaone_moe), scatter_add
    and scatter_reduce of the rows' values there."""
    logits = x[..., :6]
    _, e = torch.topk(logits, 2, dim=-1)
    hot = torch.zeros_like(logits).scatter(-1, e, 1.0)
    acc = torch.zeros_like(logits).scatter_add(-1, e, x[..., 6:8])
    most = logits.scatter_reduce(-1, e, x[..., :2], reduce="amax", include_self=False)
    return hot, acc, most, torch.zeros_like(logits).scatter(-1, e, x[..., 2:4])


def test_scatter_along_a_static_dim_runs_padded():
    """Before: plans per size ("aten.scatter.value is not known to be right on padded tensors")."""
    _check_padded(_one_hot_router, (3, 6, 5, 8), 8, seed=79)


def _tail(x, y):
    """The last m rows of a dim of n (falcon's rotary table sliced to the query length)."""
    t = x[:, -y.shape[1]:]
    return t + y, t.sum(1), t.softmax(1)


def test_the_last_m_of_a_dim_of_n_runs_padded():
    """Read from n - m at run time. Before: plans per size ("a slice of a symbolic dim that does not start at
    a static index from its front")."""
    f = torch.compile(_tail, backend="tpu", dynamic=True)
    for n, m in ((7, 3), (6, 5), (8, 2), (5, 5)):
        (x, xc), (y, yc) = _poisoned(n, 8, seed=83), _poisoned(m, 8, seed=89)
        for got, want in zip(f(x, y), _tail(xc, yc)):
            torch.testing.assert_close(got.cpu(), want, **TOL)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _norms(x):
    """vector norms over the padded dim (every ord: the padding must add nothing) and over the static one
    (inkling2's), log-sigmoid (inkling's)."""
    y = x / 3e4 + x.clamp(-2, 2)  # poisoned padding stays huge; valid values near x
    outs = [torch.linalg.vector_norm(y, ord, dim=1) for ord in (2, 1, 3.5, float("inf"), float("-inf"), 0, -1, -2.5)]
    return (*outs, torch.linalg.vector_norm(y, dim=-1, keepdim=True), torch.nn.functional.logsigmoid(y),
            torch.linalg.vector_norm(y, dim=(1, 2)))


def test_vector_norm_and_logsigmoid_run_padded():
    """Before: plans per size ("aten.linalg_vector_norm.default / aten.log_sigmoid_forward.default is not
    known to be right on padded tensors")."""
    _check_padded(_norms, (3, 6, 5, 8), 8, seed=97)


def _pads(x):
    """constant_pad_nd of a static dim (mamba's batch) and of the padded one, before and after it."""
    return (torch.nn.functional.pad(x, (0, 0, 0, 0, 0, 1)), torch.nn.functional.pad(x, (0, 0, 2, 0), value=1.5),
            torch.nn.functional.pad(x, (1, 0, 0, 3), value=-2.0).cumsum(1), torch.nn.functional.pad(x, (0, 0, 1, 2)).sum(1))


def test_constant_pad_runs_padded():
    """The input's padding holds the pad value. Before: plans per size ("aten.constant_pad_nd.default is not
    known to be right on padded tensors"; mamba, jamba)."""
    _check_padded(_pads, (3, 6, 5, 8), 8, seed=101)


def _repeat_per_expert(x):
    """llama4's tokens repeated once per expert ([2n, 8] -> [3 * 2n, 8]: the padding inside) and a bmm per
    expert."""
    r = x.reshape(-1, 8).repeat(3, 1).view(3, -1, 8)
    w = torch.arange(3 * 8 * 4, dtype=x.dtype, device=x.device).view(3, 8, 4) / 50
    return torch.bmm(r, w).view(3, x.shape[0], x.shape[1], 4).sum(0), r.sum(0).view(x.shape)


def test_repeat_of_a_padded_dim_runs_padded():
    """The copy index is the outer atom of the repeated dim. Before: plans per size ("repeat along a symbolic
    dim (its padding would be inside)"; llama4_text)."""
    _check_padded(_repeat_per_expert, (3, 6, 5, 8), 8, seed=103)


def _alls(x):
    """all/any over the padded dim, over everything and over a static dim (longcat_flash's all())."""
    b = x < 100  # the poisoned padding is False
    return (b.all(1), (~b).any(1), b.all(), (~b).any(), b.all(-1), torch.all(b, dim=(0, 1), keepdim=True),
            x.new_zeros(()) + b.all().to(x.dtype))


def test_all_any_run_padded():
    """Before: plans per size ("aten.all.default is not known to be right on padded tensors")."""
    _check_padded(_alls, (3, 6, 5, 8), 8, seed=107)


def _moments(x):
    """var/std over the padded dim, over all dims, with corrections 0, 1 and 2 and over a static dim."""
    return (x.var(1), x.std(1, correction=0, keepdim=True), torch.var(x, dim=(0, 1), correction=2), x.std(),
            x.var(-1), torch.std(x[:, :1], dim=1))


def test_var_std_run_padded():
    """Before: plans per size ("aten.var.correction / aten.std.correction is not known to be right on padded
    tensors"). One element along the dim with the correction 1 is NaN, as on CPU."""
    _check_padded(_moments, (3, 6, 5, 8), 8, seed=113, rtol=1e-5, atol=1e-5, equal_nan=True)


def _select_writes(x):
    """select_scatter at static indices (of the padded dim from its front, and of a static one), max/min of
    everything (xlm's), masked_fill with a tensor value (cpmant's)."""
    y = x.clone()
    y[:, 1] = x[:, 0] * 2
    y[..., 3] = -1.0
    return y, x.max(), x.min(), y.max() - y.min(), x.masked_fill(x > 0.5, x[0, 0, 0])  # a 0-d tensor value


def test_select_scatter_and_max_of_everything_run_padded():
    """Before: plans per size ("aten.select_scatter.default / aten.max.default is not known to be right on
    padded tensors"; recurrent_gemma, rwkv, xlm)."""
    _check_padded(_select_writes, (3, 6, 5, 8), 8, seed=127)


CHUNK = 8


def _chunked(x):
    """x [2, n, 8] through a chunked linear-attention kernel (qwen3_next's, nemotron_h's, kimi's): n padded with
    zeros up to a multiple of CHUNK (a size the graph computes with %), reshaped into chunks, solved within a
    chunk, a state carried across chunks by a Python loop (so Dynamo fixes the chunk count). The padded input
    is laid out with n innermost, which constant_pad_nd keeps, and a view below needs that layout."""
    b, n, d = x.shape[0], x.shape[1], 8
    pad = (CHUNK - n % CHUNK) % CHUNK
    g = torch.nn.functional.pad(-torch.sigmoid(x[..., 0]), (0, pad))
    h = x.reshape(b, n, 2, 4).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    h = torch.nn.functional.pad(h, (0, 0, 0, 0, 0, pad))
    v = h.permute(0, 2, 3, 1).view(b, -1).view(b, d, -1).transpose(1, 2)
    k = v.reshape(b, -1, CHUNK, d)
    cum = g.reshape(b, -1, CHUNK).cumsum(-1)
    upper = torch.ones(CHUNK, CHUNK, dtype=torch.bool, device=x.device).triu(1)
    decay = (cum.unsqueeze(-1) - cum.unsqueeze(-2)).masked_fill(upper, float("-inf")).exp()
    a = (k @ k.transpose(-1, -2)) * decay * 0.1 + torch.eye(CHUNK, device=x.device)
    u = torch.linalg.solve_triangular(a, k, upper=False, unitriangular=True)
    state = torch.zeros(b, d, d, device=x.device)
    out = torch.zeros_like(k)
    for i in range(k.shape[1]):
        out[:, i] = u[:, i] + k[:, i] @ state
        state = state * cum[:, i, -1:].exp().unsqueeze(-1) + k[:, i].transpose(-1, -2) @ k[:, i]
    return out.reshape(b, -1, d)[:, :n], state


def test_a_sequence_padded_to_whole_chunks_runs_padded():
    """The padded length and chunk count are sizes Dynamo's guards fix (its loop over chunks specialises
    their count): static in the plan, a bucket only where its bound pads to the same length. Lengths 3-7
    (one chunk; buckets 4 and 8) and 25-32 (four chunks; bucket 32) run padded; 17 (three chunks, bucket 32
    would pad to four) runs at its size. Before: plans per size ("a call of <built-in function mod>"); the
    eight linear-attention models (qwen3_next, qwen3_5_text, qwen3_5_moe_text, qwen4_exp_text, kimi_linear,
    olmo_hybrid, nemotron_h, falcon_h1, bailing_hybrid: `tools/causal_lm_sweep.py`) now run bounded."""
    assert _calls(_chunked, (3, 5, 7, 25, 30, 17), 32, 131, rtol=1e-4, atol=1e-4) == (5, 1)
    gs = _graphs()
    assert len(gs) == 3 and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _chunk_means(x):
    """Per-chunk means and a scan over chunks, nothing sliced back to n: only the check that the bounds give
    the guards' chunk count keeps a length from a bucket that would pad it to more chunks."""
    pad = (CHUNK - x.shape[1] % CHUNK) % CHUNK
    c = torch.nn.functional.pad(x, (0, 0, 0, pad)).reshape(x.shape[0], -1, CHUNK, 8)
    acc = torch.zeros(x.shape[0], 8, device=x.device)
    for i in range(c.shape[1]):
        acc = acc * 0.5 + c[:, i].sum(1)
    return acc, c.mean(1)


def _later_chunks(x):
    """The chunks from the middle on (nemotron_h's scan slices its [b, chunks, ...] states at chunks // 2
    .. chunks): a slice of a static dim at indices the guards fix, read as static and pinned."""
    pad = (CHUNK - x.shape[1] % CHUNK) % CHUNK
    c = torch.nn.functional.pad(x, (0, 0, 0, pad)).reshape(x.shape[0], -1, CHUNK, 8)
    acc = torch.zeros(x.shape[0], 8, device=x.device)
    for i in range(c.shape[1]):
        acc = acc * 0.5 + c[:, i].sum(1)
    m = c.shape[1]
    return acc, c[:, m // 2:m].sum(2)


def test_a_slice_of_the_chunks_at_a_fixed_count_runs_padded():
    # before: "slice of a static dim at a symbolic index", every length at its own size
    assert _calls(_later_chunks, (25, 27, 30), 32, 149) == (3, 0)  # four chunks, as at the bound


def test_a_bucket_that_pads_to_more_chunks_runs_at_its_size():
    assert _calls(_chunk_means, (3, 5, 17, 25, 30), 32, 139) == (4, 1)  # 17: three chunks, its bucket 32 four


def _eye_solve(x):
    """eye of the padded size; triangular systems batched over the padded dim."""
    s = x @ x.transpose(1, 2)
    m = x[..., :4].unsqueeze(-1) * x[..., 4:].unsqueeze(-2)
    return ((s + 100 * torch.eye(x.shape[1], device=x.device)).softmax(-1),
            torch.linalg.solve_triangular(m, x[..., :4].unsqueeze(-1), upper=False, unitriangular=True))


def test_eye_and_batched_triangular_solves_run_padded():
    """Before: plans per size ("aten.eye.default / aten.linalg_solve_triangular.default is not known to be
    right on padded tensors")."""
    _check_padded(_eye_solve, (3, 6, 5, 8), 8, seed=137)


def _indexer(x):
    """A sparse-attention indexer (deepseek_v32's, glm_moe_dsa's): causal scores, the top min(16, n) keys of
    each query (all of them up to 16: topk of a size capped at a static one, along the padded dim), a mask
    scattered at their positions along the padded dim; a static table's first min(16, n) rows (minimax's) and
    its last n rows (mpt's alibi[..., max(0, 32 - n):])."""
    n = x.shape[1]
    s = x @ x.transpose(1, 2)
    causal = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()
    s = s.masked_fill(~causal, float("-inf"))
    top = s.topk(min(16, n), dim=-1)
    keep = torch.full_like(s, float("-inf")).scatter(-1, top.indices, 0.0)
    att = (s + keep).softmax(-1) @ x
    table = torch.arange(32.0, device=x.device)
    first = table[: min(16, n)]
    last = table[max(0, 32 - n):]
    return att, top.values.sum(-1), x[:, : min(16, n)] * first[:, None], x * last[:, None]


def test_a_top_k_and_sizes_capped_at_a_static_size_run_padded():
    """Min(16, n) is n in a bucket whose bound is at most 16 (pinned), so 3-15 run padded and 20 (bucket 32)
    at its size. Before: plans per size ("a size Min(16, s27) that is not a product of symbols",
    "aten.topk.default takes a symbolic size as a value", "aten.scatter.value along a symbolic dim", "slice
    of a static dim at a symbolic index"); axk2, deepseek_v32, glm_moe_dsa, hy_v4, minimax
    (`tools/causal_lm_sweep.py`) now run bounded."""
    assert _calls(_indexer, (3, 6, 5, 9, 15, 20), 32, 149) == (5, 1)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _scatter_out_of_range(x, i):
    return torch.zeros_like(x).scatter(1, i, 1.0)


def test_a_scatter_index_past_the_real_size_raises_as_on_cpu():
    """An index past the real size (inside the bound) raises CPU's error, not a write into the padding."""
    f = torch.compile(_scatter_out_of_range, backend="tpu", dynamic=True)
    for n, bad in ((5, False), (6, False), (7, True)):
        x, xc = _poisoned(n, 8, seed=151)
        i = torch.tensor([[n - 1] * 8, [0] * 8]).unsqueeze(1).expand(2, n, 8).clone()
        if bad:
            i[1, 0, 0] = n
        if not bad:
            torch.testing.assert_close(f(x, i.to("tpu")).cpu(), _scatter_out_of_range(xc, i))
            continue
        with pytest.raises(RuntimeError, match="out of bounds"):
            _scatter_out_of_range(xc, i)
        with pytest.raises(RuntimeError, match="out of bounds"):
            f(x, i.to("tpu")).cpu()


def _keep_last(x, keep):
    """transformers' logits_to_keep: the last `keep` positions, 0 keeping all (a slice from -keep)."""
    return x[:, slice(-keep, None)] * 2


@pytest.mark.parametrize("keep", [0, 1, 2])
def test_the_last_positions_of_the_symbolic_dim_run_padded(keep):
    """x[:, -k:] of a padded dim reads from n - k at run time; an integer argument no tensor has as a size is
    read at its first value, a call with another value runs at its own sizes. Before: plans per size ("a
    slice of a symbolic dim that does not start at a static index from its front", "a size s55 + s70 that
    is neither..."); mpt (`tools/causal_lm_sweep.py`) now runs bounded."""
    f = torch.compile(_keep_last, backend="tpu", dynamic=True)
    plans = torch.tpu.plan_stats()
    calls = [(n, keep) for n in (3, 5, 6, 7)] + [(6, keep + 1), (5, keep)]
    for n, k in calls:
        x, xc = _poisoned(n, 8, seed=157)
        torch.testing.assert_close(f(x, k).cpu(), _keep_last(xc, k), rtol=0, atol=0)
    after = torch.tpu.plan_stats()
    assert after["padded_calls"] - plans["padded_calls"] >= 5
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _scaled(x):
    return x * 2, (x * 3)[:1], x.sum(-1)


def test_outputs_are_contiguous_and_widen_on_the_device():
    """A [2, n, 8] output narrowed from its [2, bound, 8] result would not be contiguous (user code that
    views it failed: longcat_flash's next graph, "Cannot view a tensor with shape [s47, s87, s12] and
    strides (s60, s12, 1)"); it is compacted in the program, and fed to the next call it is widened back
    on the device, not through host memory."""
    f = torch.compile(_scaled, backend="tpu", dynamic=True)
    for n in (3, 6, 5, 7):
        x, xc = _poisoned(n, 8, seed=167)
        outs = f(x)
        for got, want in zip(outs, _scaled(xc)):
            assert got.is_contiguous() and got.stride() == want.stride()
            torch.testing.assert_close(got.view(-1).cpu(), want.view(-1), **TOL)
        before = torch.tpu.plan_stats()["host_pads"]
        again = f(outs[0])
        assert torch.tpu.plan_stats()["host_pads"] == before
        for got, want in zip(again, _scaled(_scaled(xc)[0])):
            torch.testing.assert_close(got.cpu(), want, **TOL)
    gs = _graphs()
    assert gs and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _masks(x):
    m = x > 0
    return m & m.flip(-1), (x * 2).to(torch.int8)


def test_compacted_outputs_keep_their_dtype_when_widened():
    """A bool output widened for the next call stays bool (torch.where with a Python 0 would make it int64)."""
    f = torch.compile(_masks, backend="tpu", dynamic=True)
    g = torch.compile(lambda a, b: (a | b, b.to(torch.float32)), backend="tpu", dynamic=True)
    for n in (3, 6, 5):
        x, xc = _poisoned(n, 8, seed=173)
        m, i = f(x)
        m2, _ = f(i.to(torch.float32))  # a new tensor: through host memory
        both = g(m, m2)  # compacted outputs widened on the device
        want = (_masks(xc)[0] | _masks(_masks(xc)[1].to(torch.float32))[0])
        assert both[0].dtype == torch.bool and torch.equal(both[0].cpu(), want)


def _cat_with_legacy_empty(x):
    return torch.cat([torch.tensor([], device=x.device), x.transpose(0, 1)], -2).sum(0)


def test_a_cat_with_an_empty_1d_tensor_runs_padded():
    """cat skips 1-D empty tensors whatever its operands' rank (xlm's cache). Before: plans per size ("cat of
    operands of another rank")."""
    _check_padded(lambda x: (_cat_with_legacy_empty(x),), (3, 6, 5, 8), 8, seed=179)


def test_an_earlier_ops_index_error_read_in_a_padded_call_reaches_the_user():
    """An eager op's out-of-range index, read at a padded call's synchronization, is raised there (it
    was taken for the padded run's failure: the call ran again per size and the error was lost)."""
    import time

    def f(x):
        return x.sum(0) * 2
    cf = torch.compile(f, backend="tpu", dynamic=True)
    for n in (3, 6):
        x, xc = _rows(n, 8, seed=67)
        torch.testing.assert_close(cf(x).cpu(), f(xc))
    x, xc = _rows(12, 16, seed=67)  # a new bucket: its capture ends at a synchronization point
    x[torch.tensor([0, 99], device="tpu")]  # raises asynchronously
    time.sleep(0.3)  # its launch done: the next synchronization reads its check
    with pytest.raises(IndexError, match="index 99 is out of bounds for dimension 0 with size 12"):
        cf(x).cpu()
    torch.testing.assert_close(cf(x).cpu(), f(xc))
    assert all(g.bounding is not None for g in _graphs()), [g.unbounded for g in _graphs()]
