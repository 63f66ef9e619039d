"""Differences of the thirteenth fuzzing session (seeds 636-700), each checked against CPU.

Found probing the neighbours of the ops the seeds drew: scatter_reduce
mean and index_reduce of a bool self, and scatter of a src of another rank,
built programs XLA's compiler refused (or computed where CPU refuses);
errors in other words or order than CPU's: std/var of an integral input,
index_select of a 0-d self, masked_scatter's dtypes, index_reduce's and
scatter/gather's shape checks, searchsorted's sizes, repeat's
negative repeats, trace's bool refusal, take's out= dtype before an empty
self. A wrong refusal: one-step float16 logspace/linspace that overflow
(CPU gives inf), lerp with a 0-dim weight of another dtype (CPU promotes it);
clamp of a real self with complex bounds refused in CPU's words, softmax into an
integral dtype (the kernel's name; an empty input computes), stack's sizes.
A wrong value: complex logspace overflowing to inf + NaN j."""

import pytest
import torch

from test_fuzz_found10 import _check  # CPU's dtype, shape and values, or its exception


@pytest.mark.parametrize("op", [torch.std, torch.var, torch.std_mean, torch.var_mean])
def test_std_var_integral_message(op):
    # std(int64) is CPU's 'std and var only support floating point and
    # complex dtypes', std_mean's 'std_mean only support ...'; tpu said
    # 'std and var only supports ...' for all four
    bad = []
    for dt in (torch.bool, torch.uint8, torch.int32, torch.int64):
        x = torch.arange(6).reshape(2, 3).to(dt)
        _check(bad, f"{dt}", op, (x,))
        _check(bad, f"{dt} dim 1", op, (x, 1))
        _check(bad, f"{dt} empty", op, (x[:0],))
    assert not bad, "\n".join(bad)


def test_scatter_reduce_bool_mean_refused():
    # scatter_reduce(bool, ..., 'mean') is CPU's '"scatter_gather_tensor_cpu_
    # reduce_mean" not implemented for 'Bool'' (with an empty index its
    # floor division by the counts: '"div_floor_cpu" ...'); tpu's lowering
    # built a bool division XLA's compiler refused ('compiling
    # aten::scatter_reduce.two failed in PJRT plugin'), or computed
    bad = []
    x = torch.zeros(4, 3, dtype=torch.bool)
    for idx in ([[0, 1, 1]], [[3, 3, 0], [1, 1, 1]], [[7, 0, 0]], torch.empty(0, 3, dtype=torch.long)):
        idx = torch.as_tensor(idx)
        # without include_self CPU's reset of self checks the indices first,
        # which tpu checks asynchronously (after the refusal)
        for inc in (True, False) if idx.numel() == 0 or idx.max() < 4 else (True,):
            for red in ("mean", "sum", "prod", "amax", "amin"):
                _check(bad, f"{idx.tolist()} {red} include_self={inc}", torch.scatter_reduce,
                       (x, 0, idx, torch.ones(idx.shape, dtype=torch.bool), red), {"include_self": inc})
    # the shape check comes first
    _check(bad, "shape", torch.scatter_reduce, (x, 0, torch.zeros(3, 3, dtype=torch.long),
                                                torch.ones(2, 3, dtype=torch.bool), "mean"))
    assert not bad, "\n".join(bad)


@pytest.mark.filterwarnings("ignore:index_reduce")
def test_index_reduce_bool_refused():
    # index_reduce of a 1-D bool self is CPU's '"index_func_" not implemented
    # for 'Bool'', at any index; without include_self at any rank
    # '"index_reduce_func_exclude_input_init" ...'; past one dim its mean
    # '"div_floor_cpu" ...' (other reductions compute); tpu computed (mean
    # failed to compile: 'compiling aten::index_reduce failed in PJRT plugin')
    bad = []
    for shape in ((4,), (4, 2), (2, 4, 1)):
        x = torch.zeros(shape, dtype=torch.bool)
        for idx in ([0], [1, 1, 3], [], [9]):
            idx = torch.tensor(idx, dtype=torch.long)
            for inc in (True, False):
                if len(shape) > 1 and inc and idx.numel() and idx.max() >= 2:
                    continue  # CPU's index check first (tpu's is asynchronous)
                for red in ("prod", "mean", "amax", "amin"):
                    _check(bad, f"{shape} {idx.tolist()} {red} include_self={inc}", torch.Tensor.index_reduce,
                           (x, 0, idx, torch.ones((idx.numel(),) + shape[1:], dtype=torch.bool), red),
                           {"include_self": inc})
    assert not bad, "\n".join(bad)


def test_index_select_scalar_index_count():
    # index_select of a 0-d self with an index of 0 or 2 values is CPU's
    # 'index_select(): Index to scalar can have only 1 value, got 2
    # value(s)' (before the index's dtype); tpu's reshape failed ('cannot
    # reshape [2] float32 to [] float32')
    bad = []
    for dt in (torch.float32, torch.int64, torch.bool, torch.complex64):
        x = torch.tensor(1).to(dt)
        for idx in ([0, 0], [], [0], [3, 0], [0.0, 0.0], [0.0]):
            idx = torch.tensor(idx, dtype=torch.float32 if any(isinstance(v, float) for v in idx) else torch.long)
            _check(bad, f"{dt} {idx.tolist()}", torch.index_select, (x, 0, idx))
        _check(bad, f"{dt} 0-d index", torch.index_select, (x, 0, torch.tensor(0)))
        _check(bad, f"{dt} dim 1", torch.index_select, (x, 1, torch.tensor([0, 0])))
    assert not bad, "\n".join(bad)


def test_masked_scatter_dtype_message():
    # masked_scatter(bool self, mask, int64 source) is CPU's 'masked_scatter:
    # expected self and source to have same dtypes but gotBool and Long' (its
    # words run together), in place too; tpu said 'masked_scatter_: ... got Bool and Long'
    bad = []
    m = torch.tensor([True, False, True])
    for a, b in ((torch.bool, torch.int64), (torch.float32, torch.float64), (torch.int32, torch.int8)):
        for f in (torch.Tensor.masked_scatter, torch.Tensor.masked_scatter_):
            _check(bad, f"{f.__name__} {a} {b}", f, (torch.zeros(3, dtype=a), m, torch.ones(3, dtype=b)))
    assert not bad, "\n".join(bad)


def test_index_reduce_shape_messages():
    # index_reduce with a source of the wrong length or shape is CPU's
    # 'index_reduce_(): Number of indices (1) should be equal to
    # source.size(dim): (2), for dim: 0' or 'source tensor shape must match
    # self tensor shape, excluding the specified dimension. Got self.shape =
    # [4, 2] source.shape = [1, 3]'; tpu said 'source.size(dim) (2)' and
    # 'self and source must have the same shape except in dim 0'
    bad = []
    for shape, dim, ss in [((4, 2), 0, (2, 2)), ((4, 2), 1, (2, 2)), ((4, 2), 0, (1, 3)), ((4, 2), 1, (1, 3)),
                           ((4, 2), 0, (1, 2, 1)), ((4, 2), 1, (2,)), ((4, 2), 0, ()), ((), 0, (1,)), ((), 0, ()),
                           ((4,), 0, ()), ((), 0, (1, 2)), ((1,), 0, (1, 1)), ((4, 2), 0, (1, 2))]:
        _check(bad, f"{shape} {dim} {ss}", torch.Tensor.index_reduce,
               (torch.zeros(shape), dim, torch.tensor([0]), torch.ones(ss), "prod"))
    assert not bad, "\n".join(bad)


def test_scatter_gather_shape_messages():
    # scatter(self (4, 3), 0, index (3, 3), src (2, 3)) is CPU's 'Expected
    # index [3, 3] to be no larger than self [4, 3] apart from dimension 0
    # and to be no larger size than src [2, 3]' (its meta checks, after
    # src's dtype); a src of fewer dims its src.size(d) IndexError, of more
    # 'Index tensor must have the same number of dimensions as src tensor'.
    # tpu named one dim's sizes ('Size does not match at dimension 0 expected
    # index [3] to be no larger than src [2]'), or its stablehlo failed to
    # compile / 'slice out of range on dim 1'
    bad = []
    x = torch.zeros(4, 3)
    cases = [((3, 3), (2, 3)), ((3, 5), (9, 9)), ((3, 3), (3, 2)), ((3, 5), (3, 2)), ((3, 3), (9,)),
             ((3, 3), (9, 9, 9)), ((1, 3), (9,)), ((2, 2), ()), ((2, 2), (2, 2)), ((0, 3), (1,))]
    for isz, ssz in cases:
        idx = torch.zeros(isz, dtype=torch.long)
        for op, kw in ((torch.scatter, {}), (torch.scatter_add, {}), (torch.scatter, {"reduce": "add"})):
            _check(bad, f"{op.__name__}{kw} {isz} {ssz}", op, (x, 0, idx, torch.ones(ssz)), kw)
        _check(bad, f"scatter_reduce {isz} {ssz}", torch.scatter_reduce, (x, 0, idx, torch.ones(ssz), "amax"))
        _check(bad, f"scatter value {isz}", torch.scatter, (x, 0, idx, 2.0))
        _check(bad, f"scatter bad reduce {isz}", torch.scatter, (x, 0, idx, 2.0), {"reduce": "max"})
        _check(bad, f"gather {isz}", torch.gather, (x, 0, idx))
        _check(bad, f"gather dim 1 {isz}", torch.gather, (x, 1, idx))
        # src's dtype before the shapes
        _check(bad, f"scatter int src {isz} {ssz}", torch.scatter, (x, 0, idx, torch.ones(ssz, dtype=torch.int32)))
    for xs, isz, ssz in [((3,), (3,), ()), ((3,), (3,), (3, 3)), ((3,), (1,), (3, 3)), ((), (1,), ()), ((), (), ()),
                         ((), (1,), (1,)), ((3,), (), (2,))]:
        idx = torch.zeros(isz, dtype=torch.long)
        _check(bad, f"scatter {xs} {isz} {ssz}", torch.scatter, (torch.zeros(xs), 0, idx, torch.ones(ssz)))
        _check(bad, f"gather {xs} {isz}", torch.gather, (torch.zeros(xs), 0, idx))
    assert not bad, "\n".join(bad)


def test_searchsorted_leading_dims_message():
    # searchsorted(boundaries (3, 4), values (0, 4)) is CPU's '... must
    # match, but we got boundaries tensor [3, 4] and input value tensor
    # [0, 4]'; tpu's message stopped at 'must match'
    bad = []
    for b, v in [((3, 4), (0, 4)), ((3, 4), (2, 4)), ((2, 3, 4), (2, 4, 4)), ((3, 4), (3,)), ((3, 4), ()),
                 ((3, 4), (3, 2)), ((4,), (2, 2))]:
        _check(bad, f"{b} {v}", torch.searchsorted, (torch.ones(b), torch.zeros(v)))
    assert not bad, "\n".join(bad)


def test_repeat_negative_repeats():
    # x.repeat(-1, 2) is CPU's 'Trying to create tensor with negative
    # dimension -3: [-3, 8]' (the first negative size of sizes * repeats),
    # and of an empty dim an empty result ((0, 4).repeat(-1, 2) is (0, 8));
    # tpu refused any negative repeat, naming it ('negative dimension -1')
    bad = []
    for dt in (torch.float32, torch.int64, torch.bool):
        for shape, reps in [((3, 4), (-1, 2)), ((), (-1, 2)), ((0, 4), (-1, 2)), ((3, 4), (-1, 2, -2)),
                            ((3, 4), (2, -1)), ((3, 0), (2, -1)), ((0, 0), (-3, -1)), ((3, 4), (2,)), ((2,), (1, 1, -1, 3))]:
            x = torch.arange(12)[:torch.Size(shape).numel()].reshape(shape).to(dt)
            _check(bad, f"{dt} {shape}.repeat{reps}", torch.Tensor.repeat, (x, *reps))
            if len(reps) >= 1:
                _check(bad, f"{dt} tile({shape}, {reps})", torch.tile, (x, reps))
    assert not bad, "\n".join(bad)


def test_trace_bool_refused_first():
    # trace of a bool tensor of other than two dims is CPU's '"trace" not
    # implemented for 'Bool'' (its dispatch comes before the dim check);
    # tpu said 'trace: expected a matrix, but got tensor with dim 1'
    bad = []
    for dt in (torch.bool, torch.float32, torch.int32):
        for shape in ((3,), (), (3, 4), (2, 2, 2), (0, 3)):
            _check(bad, f"{dt} {shape}", torch.trace, (torch.ones(shape, dtype=dt),))
    assert not bad, "\n".join(bad)


def _on(factory):
    """factory(*args, **kwargs) on the device of a tensor passed first."""
    return lambda like, *args, **kwargs: factory(*args, device=like.device, **kwargs)


@pytest.mark.parametrize("op", ["logspace", "linspace"])
def test_space_one_step_half_overflow(op):
    # fuzz 675:33: logspace(5, 0.989, 1) into float16 is inf on CPU (its one
    # step is filled without the overflow check for float16/bfloat16; two
    # steps or a float32 result check); tpu raised 'value cannot be
    # converted to type c10::Half without overflow'
    bad = []
    f = getattr(torch, op)
    for dt in (torch.float16, torch.bfloat16, torch.float32):
        for start, end in [(5, 0.989), (5.0, 5.0), (300, 1), (1e5, 1), (1e300, 1), (-1e5, 2), (float("nan"), 1)]:
            for steps in (1, 2):
                _check(bad, f"{op}({start}, {end}, {steps}) {dt}", _on(f), (torch.empty(0), start, end, steps), {"dtype": dt})
                _check(bad, f"{op}({start}, {end}, {steps}) out={dt}", f, (start, end, steps),
                       outs={"out": lambda dt=dt, steps=steps: torch.empty(steps, dtype=dt)})
    assert not bad, "\n".join(bad)


def test_take_out_dtype_before_empty_self():
    # fuzz 667:1158: take(uint8 (0,), [0, 1], out=float64) is CPU's 'take():
    # self and out expected to have the same dtype, but got self.dtype = Byte
    # and out.dtype = Double' (take_out checks out before an empty self);
    # tpu raised the IndexError 'take(): tried to take from an empty tensor'
    bad = []
    for dt, od in [(torch.uint8, torch.float64), (torch.float64, torch.complex64), (torch.int32, torch.int32),
                   (torch.bool, torch.int64)]:
        for n, idx in [(0, [0, 1]), (0, []), (3, [0, 1])]:
            _check(bad, f"take({dt} ({n},), {idx}, out={od})", torch.take,
                   (torch.zeros(n, dtype=dt), torch.tensor(idx, dtype=torch.long)),
                   outs={"out": lambda od=od: torch.empty(0, dtype=od)})
    assert not bad, "\n".join(bad)


def test_logspace_complex_real_exponents():
    # logspace(0, 255, 3, dtype=complex64) is [1, inf + 0j, inf + 0j] on CPU
    # (its complex pow of a positive base to a real exponent keeps a zero
    # imaginary part); tpu's complex pow gave inf + NaN j. One step is CPU's
    # pow in double, polar(pow(base, re), im * log(base)): inf + NaN j when
    # it overflows, and 1e40 into complex64 its checked conversion's error
    # (tpu gave inf + 0j)
    bad = []
    for dt in (torch.complex64, torch.complex128):
        for args, kw in [((0, 255, 3), {}), ((0, 300, 3), {"base": 2}), ((5, 0, 3), {}), ((-3, 3, 7), {}),
                         ((0, 50, 3), {"base": 0.01}), ((0, 5, 3), {"base": -2}), ((1 + 1j, 2, 3), {}),
                         ((40, 40, 1), {}), ((400, 40, 1), {}), ((1j, 40, 1), {}), ((3 + 2j, 40, 1), {}),
                         ((3, 40, 1), {"base": -2}), ((1, 1, 1), {})]:
            _check(bad, f"logspace{args} {kw} {dt}", _on(torch.logspace), (torch.empty(0),) + args, {**kw, "dtype": dt},
                   tol=1e-5)
    assert not bad, "\n".join(bad)


def test_lerp_zero_dim_weight_promoted():
    # lerp(int8, int8, tensor(2.5)) is float32 on CPU (its lerp_Tensor meta
    # promotes a 0-dim weight with self and end, checking only a weight of
    # dims); tpu raised 'expected dtype signed char for `weight` but got
    # dtype float'. The weight rounds to the common dtype first (bfloat16
    # lerp(1000, -1000, tensor(0.3)) is 398 on CPU, not 400)
    bad = []
    t = torch.tensor
    cases = [(t([1, 2], dtype=torch.int8), t([3, 4], dtype=torch.int8), t(2.5)),
             (t([1., 2]), t([3., 4]), t(3)), (t([1., 2]), t([3., 4]), t(0.5, dtype=torch.float64)),
             (t([1., 2, 1000], dtype=torch.float16), t([3., -4, -1000], dtype=torch.float16), t(0.1)),
             (t([1., 2, 1000], dtype=torch.bfloat16), t([3., -4, -1000], dtype=torch.bfloat16), t(0.3)),
             (t([1., 2]), t([3., 4]), t([0.5, 0.5], dtype=torch.float64)), (t([1., 2]), t([3., 4], dtype=torch.float64), t(0.5)),
             (t([1., 2]), t([3., 4]), t(0.5, dtype=torch.complex64)), (t([1, 2]), t([3, 4]), t(2)),
             (t([1., 2]), t([3., 4]), t(True)), (t([True]), t([False]), t(0.5)),
             (t(1.), t(3.), t(0.5, dtype=torch.float64)), (t(1, dtype=torch.int8), t(3, dtype=torch.int8), t(0.5))]
    for s, e, w in cases:
        _check(bad, f"lerp({s.dtype} {tuple(s.shape)}, {e.dtype}, {w.dtype} {tuple(w.shape)})", torch.lerp, (s, e, w))
        _check(bad, f"lerp_({s.dtype} {tuple(s.shape)}, {e.dtype}, {w.dtype} {tuple(w.shape)})",
               lambda a, b, c: a.clone().lerp_(b, c), (s, e, w))
    # lerp.Scalar reads a complex weight into the math type: CPU's 'value
    # cannot be converted to type float without overflow' for float16 (tpu
    # said c10::Half)
    for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        _check(bad, f"lerp({dt}, 1+1j)", torch.lerp, (t([1., 2], dtype=dt), t([3., 4], dtype=dt), 1 + 1j))
    assert not bad, "\n".join(bad)


def test_clamp_real_self_complex_bounds():
    # clamp(float32, min=complex64 tensor) is CPU's '"maximum_cpu" not
    # implemented for 'ComplexFloat'' (its meta refuses only a complex self;
    # the kernel of the bounds' common type refuses: clamp_max's minimum,
    # both bounds' clamp_cpu), clamp(float32, 1j) 'value cannot be converted
    # to type double without overflow', clamp_ of a float self with a complex
    # tensor bound the cast into self; tpu raised 'clamp is not supported
    # for complex types' for all
    bad = []
    c64, c128 = torch.ones(3, dtype=torch.complex64), torch.ones(3, dtype=torch.complex128)
    for dt in (torch.float32, torch.float64, torch.float16, torch.int32, torch.complex64):
        x = torch.ones(3, dtype=dt)
        calls = [("clamp(1j)", torch.clamp, (x, 1j)), ("clamp(None, 1j)", torch.clamp, (x, None, 1j)),
                 ("clamp(1j, 2)", torch.clamp, (x, 1j, 2)), ("clamp(c, x)", torch.clamp, (x, c64, x)),
                 ("clamp(x, c 0-d)", torch.clamp, (x, x, c64[0])), ("clamp(c)", torch.clamp, (x, c64)),
                 ("clamp(None, c128)", torch.clamp, (x, None, c128)), ("clamp_min(c)", torch.clamp_min, (x, c64)),
                 ("clamp_min(1j)", torch.clamp_min, (x, 1j)),
                 ("clamp_(c)", lambda a, b: a.clone().clamp_(b), (x, c64)),
                 ("clamp_(None, c128)", lambda a, b: a.clone().clamp_(None, b), (x, c128))]
        if dt.is_floating_point or dt.is_complex:
            calls.append(("clamp_(1j)", lambda a: a.clone().clamp_(1j), (x,)))  # an int self's words differ (open)
        for tag, f, args in calls:
            _check(bad, f"{dt} {tag}", f, args)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.softmax, torch.log_softmax])
def test_softmax_integral_dtype_kernel_name(op):
    # softmax(x, 0, dtype=int64) of a (2, 3) input is CPU's '"softmax_kernel_
    # impl" not implemented for 'Long'' (its last-dim kernel only for the
    # last dim or a 0-dim input), and of an empty input an empty int64
    # result (no kernel runs); tpu named the last-dim kernel always and
    # refused the empty input
    bad = []
    for shape, dim in [((2, 3), 0), ((2, 3), 1), ((2, 3), -1), ((3,), 0), ((), 0), ((0, 3), 1), ((0, 3), 0),
                       ((2, 0), 0), ((2, 1), 0), ((2, 3, 1), 1)]:
        for dt in (torch.int64, torch.bool, torch.uint8):
            _check(bad, f"{shape} {dim} dtype={dt}", op, (torch.ones(shape), dim), {"dtype": dt})
            _check(bad, f"{shape} {dim} {dt} input", torch._softmax if op is torch.softmax else torch._log_softmax,
                   (torch.ones(shape, dtype=dt), dim, False))
    assert not bad, "\n".join(bad)


def test_stack_size_message():
    # stack of (2, 3) and (1, 3) is CPU's 'stack expects each tensor to be
    # equal size, but got [2, 3] at entry 0 and [1, 3] at entry 1'; tpu's
    # sizes carried the dtype ('[2, 3] float32')
    bad = []
    for b in ((1, 3), (0,), (0, 3), (3,), ()):
        for dt in (torch.float32, torch.int64):
            _check(bad, f"{b} {dt}", lambda p, q: torch.stack([p, q]), (torch.ones(2, 3), torch.zeros(b, dtype=dt)))
            _check(bad, f"{b} {dt} three", lambda p, q: torch.stack([p, p, q], 1), (torch.ones(2, 3), torch.zeros(b, dtype=dt)))
    assert not bad, "\n".join(bad)
