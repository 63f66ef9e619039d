"""Indexing corner cases compared with CPU: index_copy with 0-dim operands
and CPU's order of argument checks (and exception types), uint8 masks
(deprecated on CPU: same warning, same result)."""
import warnings

import pytest
import torch

import torchtpu  # noqa: F401


def outcome(fn, dev):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn(dev)
            res = ("ok", r.cpu() if isinstance(r, torch.Tensor) else r)
        except Exception as e:  # noqa: BLE001 - the type and text are compared
            res = (type(e).__name__, str(e).split(": ", 1)[-1] if str(e).startswith("aten::") else str(e))
    return res, sorted(str(x.message).split(" (Triggered internally")[0] for x in w)


def same_as_cpu(fn):
    (c, cw), (t, tw) = outcome(fn, "cpu"), outcome(fn, "tpu")
    assert t[0] == c[0], (t, c)
    if c[0] == "ok":
        torch.testing.assert_close(t[1], c[1])
    else:
        assert t[1] == c[1]
    assert tw == cw


INDEX_COPY = [  # self shape, dim, index, source shape
    ((2, 3), 0, [1], (3,)), ((2, 3), 0, [1], ()), ((2, 3), 0, [[1]], (1, 3)), ((2, 3), 1, [0, 2], (2, 2)),
    ((2, 3), 1, [0], (3, 1)), ((3,), 0, [1], ()), ((), 0, [0], (1,)), ((), 0, 0, ()), ((), 0, [0, 0], ()),
    ((2, 3), 0, [1], (1, 2, 3)), ((2, 3), 0, [1, 0], (2, 3)), ((2, 3), 0, [1], (2, 3)), ((4, 2), -2, [3, 0], (2, 2)),
]


@pytest.mark.parametrize("case", INDEX_COPY, ids=str)
def test_index_copy_shapes_and_errors(case):
    xs, dim, idx, ss = case

    def fn(d):
        src = torch.arange(1.0, 1.0 + torch.Size(ss).numel(), device=d).reshape(ss)
        return torch.zeros(xs, device=d).index_copy_(dim, torch.tensor(idx, device=d), src)

    same_as_cpu(fn)


def test_index_copy_dtype_errors_in_cpu_order():
    same_as_cpu(lambda d: torch.zeros(2, device=d).index_copy_(0, torch.tensor([0], dtype=torch.int32, device=d),
                                                                torch.ones(1, device=d)))
    same_as_cpu(lambda d: torch.zeros(2, device=d).index_copy_(0, torch.tensor([0], device=d),
                                                                torch.ones(1, dtype=torch.float64, device=d)))
    # a float index with a bad source rank: the rank check comes first
    same_as_cpu(lambda d: torch.zeros(2, 2, device=d).index_copy_(0, torch.tensor([0.0], device=d), torch.ones(2, device=d)))


def test_uint8_mask_warns_and_reads_like_bool():
    mask = [1, 0, 1, 1, 0]
    same_as_cpu(lambda d: torch.arange(15.0, device=d).view(5, 3)[torch.tensor(mask, dtype=torch.uint8, device=d)])
    same_as_cpu(lambda d: torch.arange(105.0, device=d).view(5, 7, 3)[torch.tensor(mask, dtype=torch.uint8, device=d), :,
                                                                      torch.tensor([1, 1, 1], dtype=torch.uint8, device=d)])


def test_uint8_mask_put_warns_per_mask():
    def fn(d):
        y = torch.ones(10, 4, device=d)
        m = torch.tensor([1, 0] * 5, dtype=torch.uint8, device=d)
        return y.index_put_((m,), y[m] * 3, accumulate=True)

    same_as_cpu(fn)


@pytest.mark.parametrize("mask_kind", ["all", "rows", "full", "value_tensor"])
def test_masked_fill_on_expanded_tensor_warns_and_fills_every_selected_alias(mask_kind):
    def fn(d):
        base = torch.arange(3.0, device=d).view(3, 1)
        x = base.expand(3, 4)
        if mask_kind == "all":
            m = torch.ones(3, 4, dtype=torch.bool, device=d)
        elif mask_kind == "rows":
            m = torch.tensor([True, False, True], device=d).view(3, 1)
        else:  # one alias of row 1 selected: the shared element is filled
            m = torch.zeros(3, 4, dtype=torch.bool, device=d)
            m[1, 2] = True
        value = torch.tensor(-5.0, device=d) if mask_kind == "value_tensor" else -5.0
        x.masked_fill_(m, value)
        return torch.cat([base.flatten(), x.flatten()])

    same_as_cpu(fn)


def test_other_inplace_ops_on_expanded_tensors_still_raise():
    same_as_cpu(lambda d: torch.zeros(3, 1, device=d).expand(3, 4).add_(1))
    same_as_cpu(lambda d: torch.zeros(3, 1, device=d).expand(3, 4).masked_scatter_(
        torch.ones(3, 4, dtype=torch.bool, device=d), torch.ones(12, device=d)))


def test_empty_index_results_and_size_zero_dims():
    same_as_cpu(lambda d: torch.randn(5, device=d)[torch.empty(0, 2, dtype=torch.int64, device=d)])
    same_as_cpu(lambda d: torch.randn(2, 3, 4, 5, device=d)[:, torch.empty(0, 6, dtype=torch.int64, device=d)])
    same_as_cpu(lambda d: torch.empty(10, 0, device=d)[[1, 2]])
    same_as_cpu(lambda d: torch.empty(10, 0, device=d)[[], []])
    same_as_cpu(lambda d: torch.empty(10, 0, device=d)[:, [0, 1]])  # IndexError: no index fits a size-0 dim

    def put(d):
        x = torch.empty(10, 0, device=d)
        x[:, [0, 1]] = 1.0
        return x

    same_as_cpu(put)


def test_index_with_an_empty_list_raises_as_on_cpu():
    same_as_cpu(lambda d: torch.ops.aten.index.Tensor(torch.tensor([1.0], device=d), []))


def test_index_put_checks_shape_before_dtype():
    def fn(d):
        x = torch.zeros(3, 4, dtype=torch.int64, device=d)
        x[torch.tensor([True, False, True], device=d)] = torch.ones(3, 4, device=d)  # 2 rows selected, 3 given
        return x

    same_as_cpu(fn)


def _setitem(shape, index, value, expand=None):
    def fn(d):
        x = torch.arange(float(torch.Size(shape).numel()), device=d).reshape(shape)
        if expand is not None:
            x = x[:1].expand(expand)
        idx = index(d)
        x[idx] = value(d) if callable(value) else value
        return x.clone()
    return fn


@pytest.mark.parametrize("value", [5.0, "zero_dim", "vector"])
def test_uint8_mask_setitem_follows_cpu_masked_fill_route(value):
    """CPU sends `x[mask] = scalar` (one mask, 0-dim value) to masked_fill_,
    which refuses uint8 masks; a vector value takes index_put (a warning)."""
    mask = lambda d: torch.tensor([1, 0, 1, 0], dtype=torch.uint8, device=d)  # noqa: E731
    v = {5.0: 5.0, "zero_dim": lambda d: torch.tensor(5.0, device=d),
         "vector": lambda d: torch.tensor([5.0, 6.0], device=d)}[value]
    same_as_cpu(_setitem((4,), mask, v))


@pytest.mark.parametrize("index", ["rows", "full", "after_slice"])
def test_bool_mask_setitem_on_expanded_tensor_warns_like_cpu(index):
    masks = {"rows": lambda d: torch.tensor([True, False, True], device=d),
             "full": lambda d: torch.ones(3, 4, dtype=torch.bool, device=d),
             "after_slice": lambda d: (slice(None), torch.tensor([True, False, True, False], device=d))}
    same_as_cpu(_setitem((3, 4), masks[index], -1.0, expand=(3, 4)))


def test_bool_mask_setitem_scalar_matches_cpu():
    same_as_cpu(_setitem((2, 3, 4), lambda d: (slice(None), torch.tensor([[True, False] * 2] * 3, device=d)), -1.0))
    same_as_cpu(_setitem((2, 3), lambda d: torch.tensor([True, False], device=d), 7.5))
    same_as_cpu(_setitem((2, 3), lambda d: torch.ones(3, dtype=torch.bool, device=d), 1.0))  # shape mismatch
    same_as_cpu(lambda d: torch.zeros(3, device=d).index_put((torch.tensor([True, False, True], device=d),),
                                                             torch.tensor(4.0, device=d)))
    same_as_cpu(lambda d: torch.zeros(3, device=d).index_put((torch.tensor([1, 0, 1], dtype=torch.uint8, device=d),),
                                                             torch.tensor(4.0, device=d)))


# Masks are expanded (or routed to masked_fill) in the core (csrc/api/index_masks.c).
def _mask(d, shape, seed, transpose=False):
    g = torch.Generator().manual_seed(seed)
    m = torch.rand(shape, generator=g) > 0.5
    m = m.t() if transpose else m
    return m.to(d)


MASK_CASES = {
    "lead_dim_setitem": lambda d: _set(torch.arange(24.0, device=d).view(3, 4, 2), (slice(None), _mask(d, (4,), 1)), 7.0),
    "transposed_mask_setitem": lambda d: _set(torch.arange(12.0, device=d).view(3, 4), _mask(d, (4, 3), 2, True), -1.0),
    "transposed_mask_read": lambda d: torch.arange(12.0, device=d).view(3, 4)[_mask(d, (4, 3), 3, True)],
    "mask_then_long": lambda d: torch.arange(24.0, device=d).view(4, 3, 2)[_mask(d, (4,), 4), torch.tensor([1], device=d)],
    "long_then_mask2d": lambda d: torch.arange(24.0, device=d).view(2, 3, 4)[torch.tensor([1, 0], device=d)[:, None],
                                                                            _mask(d, (3, 4), 5)],
    "two_masks": lambda d: torch.arange(12.0, device=d).view(3, 4)[_mask(d, (3,), 6), :][:, _mask(d, (4,), 7)],
    "mask_put_tensor_value": lambda d: _set(torch.zeros(3, 4, device=d), _mask(d, (3, 4), 8),
                                            torch.arange(float(int(_mask("cpu", (3, 4), 8).sum())), device=d)),
    "mask_accumulate": lambda d: torch.zeros(5, device=d).index_put_((_mask(d, (5,), 9),), torch.tensor(2.0, device=d),
                                                                     accumulate=True),
    "mask_shape_error": lambda d: torch.zeros(3, 4, device=d)[_mask(d, (3, 5), 10)],
    "mask_shape_error_put": lambda d: _set(torch.zeros(3, 4, device=d), _mask(d, (2,), 11), 1.0),
    "all_false_mask": lambda d: torch.arange(6.0, device=d).view(2, 3)[torch.zeros(2, 3, dtype=torch.bool, device=d)],
    "zero_dim_mask": lambda d: torch.tensor(5.0, device=d)[torch.tensor(True, device=d)],
    "cpu_mask_on_tpu": lambda d: torch.arange(6.0, device=d)[_mask("cpu", (6,), 12)],
}


def _set(x, idx, v):
    x[idx] = v
    return x


@pytest.mark.parametrize("case", sorted(MASK_CASES))
def test_masks_like_cpu(case):
    same_as_cpu(MASK_CASES[case])
