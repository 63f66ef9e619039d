"""Differences of the eleventh fuzzing session (seeds 486-560), each checked against CPU.

An index write into an empty dim that returned a result where CPU raises,
softshrink of non-floating inputs, calls tpu refused where CPU computes, and
errors raised in another order or words than CPU's."""

import pytest
import torch

from test_fuzz_found9 import _run  # a call, its exception as a value
from test_fuzz_found10 import _check, _same  # CPU's dtype, shape and values, or its exception


@pytest.mark.parametrize("op", [torch.eq, torch.ne])
def test_eq_ne_complex32_common_type(op):
    # fuzz 487:626: ne(float16 (1, 4, 1), 1.86+1.24j, out=float16) computes
    # on CPU (in ComplexHalf: the number's parts rounded to float16); tpu
    # refused 'the result type is complex32 (ComplexHalf)'
    bad = []
    inf, nan = float("inf"), float("nan")
    h = torch.tensor([1.0, 1.8603515625, 1.86, nan, -0.0, 65504, inf], dtype=torch.float16)
    for other in (1.86 + 1.24j, 1.86 + 0j, 0j, complex(65519, 0), complex(1e6, 0), complex(inf, 0), complex(nan, 0)):
        _check(bad, f"{other}", op, (h, other))
        _check(bad, f"{other} out", op, (h.reshape(1, 7, 1), other),
               outs={"out": lambda: torch.empty(0, dtype=torch.float16)})
        _check(bad, f"{other} 0-dim", op, (h[1], other))
    for cdt in (torch.complex64, torch.complex128):
        _check(bad, f"0-dim {cdt}", op, (h, torch.tensor(1.86 + 0j, dtype=cdt)))
    _check(bad, "in place", lambda t, o: getattr(t.clone(), op.__name__ + "_")(o), (h, 1.86 + 0j))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.floor_divide, torch.fmod, torch.remainder, torch.lt, torch.ge,
                                torch.bitwise_and, torch.logaddexp2, torch.nextafter, torch.atan2])
def test_binary_complex_refusal_names_common_type(op):
    # fuzz 486:946: floor_divide(bool, -1.81-1.96j) is CPU's '"div_floor_cpu"
    # not implemented for 'ComplexFloat'' (the iterator's common type: a
    # Python complex beside an integral tensor is the default complex type,
    # beside float16 ComplexHalf; a complex64 tensor beside float64
    # ComplexDouble); tpu named the number's ComplexDouble
    bad = []
    for xdt in (torch.bool, torch.int32, torch.float16, torch.bfloat16, torch.float32, torch.float64):
        x = torch.ones(3, dtype=xdt)
        _check(bad, f"{xdt} number", op, (x, -1.81 - 1.96j))
        _check(bad, f"{xdt} 0-dim", op, (x, torch.tensor(-1.81 - 1.96j)))
        _check(bad, f"{xdt} tensor", op, (x, torch.full((3,), -1.81 - 1.96j)))
    _check(bad, "c64 with f64", op, (torch.ones(3, dtype=torch.complex64), torch.ones(3, dtype=torch.float64)))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.floor_divide, torch.logaddexp2])
def test_binary_complex_out_cast_before_refusal(op):
    # fuzz 486:946, 488:1352: floor_divide(bool (33, 17), -1.81-1.96j,
    # out=int32) is CPU's 'result type ComplexFloat can't be cast to the
    # desired output type Int' (its iterator checks the cast into out before
    # the kernel refuses complex values; PyTorch's meta kernel refuses them
    # first, so tpu raised the refusal); a complex out gets the refusal
    bad = []
    for xdt in (torch.bool, torch.int32, torch.bfloat16, torch.float64):
        x = torch.ones(3, dtype=xdt)
        for other in (-1.81 - 1.96j, torch.tensor(-1.81 - 1.96j), torch.full((3,), -1.81 - 1.96j)):
            if op is torch.logaddexp2 and not isinstance(other, torch.Tensor):
                continue
            for od in (torch.int32, torch.float32, torch.bool, torch.complex64):
                _check(bad, f"{xdt} {type(other).__name__} out={od}", op, (x, other),
                       outs={"out": lambda od=od: torch.empty(0, dtype=od)})
    _check(bad, "sizes first", op, (torch.ones(3, 4), torch.ones(5, dtype=torch.complex64)),
           outs={"out": lambda: torch.empty(0, dtype=torch.int32)})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.clamp_max, torch.clamp_min, torch.maximum, torch.fmin, torch.heaviside])
def test_complex_other_own_check_before_out_dtype(op):
    # CPU's meta functions refuse a complex operand, the second one too,
    # before out's dtype is looked at: clamp_max(int32, 1j, out=int32) is
    # 'clamp is not supported for complex types', maximum(bool, complex,
    # out=int32) 'maximum not implemented for complex tensors.'; tpu raised
    # the out= dtype rule's error (found while checking fuzz 486:946)
    bad = []
    for xdt in (torch.bool, torch.int32, torch.float64):
        x = torch.ones(3, dtype=xdt)
        others = [torch.tensor(-1.8 - 1.9j), torch.full((3,), -1.8 - 1.9j)]
        if op in (torch.clamp_max, torch.clamp_min):
            others.append(-1.8 - 1.9j)
        for other in others:
            for od in (torch.int32, torch.float32, torch.complex64):
                _check(bad, f"{xdt} {type(other).__name__} out={od}", op, (x, other),
                       outs={"out": lambda od=od: torch.empty(0, dtype=od)})
    assert not bad, "\n".join(bad)


def test_sort_topk_complex_dims_first():
    # fuzz 487:760: sort(complex128 (0,), dim=2), 492:1230: argsort(complex64
    # (0, 3), dim=3): CPU's meta wraps the dim (IndexError) before its kernel
    # refuses complex values (' Sort does not support complex dtypes on
    # CPU'); topk checks k too. tpu raised the refusal first
    bad = []
    for shape in ((0,), (0, 3), (2, 3), ()):
        x = torch.ones(shape, dtype=torch.complex64)
        _check(bad, f"{shape} sort dim 3", lambda t: torch.sort(t, dim=3)[0], (x,))
        _check(bad, f"{shape} sort", lambda t: torch.sort(t)[0], (x,))
        _check(bad, f"{shape} argsort -3", lambda t: torch.argsort(t, dim=-3), (x,))
        _check(bad, f"{shape} argsort stable", lambda t: torch.argsort(t, dim=1, stable=True), (x,))
        _check(bad, f"{shape} msort", torch.msort, (x,))
        for k, dim in ((1, 5), (0, -1), (4, -1), (-1, -1), (2, -2), (1, 0)):
            _check(bad, f"{shape} topk {k} {dim}", lambda t, k=k, dim=dim: torch.topk(t, k, dim=dim)[0], (x,))
    assert not bad, "\n".join(bad)


def test_index_fill_checks_before_dim():
    # fuzz 488:337: index_fill(float64 (0, 3), 3, int64 index, -0.05+1.01j)
    # is CPU's 'index_fill_(): Converting complex Scalar to non-complex type
    # is not supported' (index_fill_ wraps the dim after its index dtype,
    # value dim and complex checks); tpu raised the dim's IndexError
    bad = []
    idx = torch.tensor([0, 1])
    for x in (torch.ones(0, 3, dtype=torch.float64), torch.ones(2, 3), torch.tensor(1.5)):
        for dim in (3, -4, 1):
            _check(bad, f"{tuple(x.shape)} {dim} complex", torch.index_fill, (x, dim, idx, -0.05 + 1.01j))
            _check(bad, f"{tuple(x.shape)} {dim} complex 0-dim", torch.index_fill, (x, dim, idx, torch.tensor(1j)))
            _check(bad, f"{tuple(x.shape)} {dim} int32 index", torch.index_fill, (x, dim, idx.int(), 2.0))
            _check(bad, f"{tuple(x.shape)} {dim} 1-d value", torch.index_fill, (x, dim, idx, torch.ones(1)))
            _check(bad, f"{tuple(x.shape)} {dim} in place", lambda t, *a: t.clone().index_fill_(*a), (x, dim, idx, 1j))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.remainder, torch.fmod, torch.add, torch.atan2, torch.maximum, torch.clamp_max,
                                torch.floor_divide, torch.logaddexp2, torch.eq])
def test_complex32_result_into_out(op):
    # fuzz 492:194: remainder(float16 (1,) expanded, -1.37-1.1j, out=float16)
    # is CPU's 'result type ComplexHalf can't be cast to the desired output
    # type Half' (the iterator's complex32 type checked against out first);
    # tpu raised the kernel's refusal. An op's own complex check
    # (maximum's, clamp's) still comes first; eq computes
    bad = []
    x = torch.ones(1, dtype=torch.float16).expand(3)
    for other in (-1.37 - 1.1j, torch.tensor(-1.37 - 1.1j)):
        if op in (torch.atan2, torch.maximum, torch.logaddexp2) and not isinstance(other, torch.Tensor):
            continue
        for od in (torch.float16, torch.int32, torch.bool):
            _check(bad, f"{type(other).__name__} out={od}", op, (x, other),
                   outs={"out": lambda od=od: torch.empty(0, dtype=od)})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", ["index_fill_", "index_fill", "index_copy_"])
def test_index_write_into_empty_dim_checks_indices(op):
    # fuzz 509:595: index_fill_ of an expanded complex64 (0, 3) along dim 0
    # at [-1, 0] is CPU's IndexError 'index -1 is out of bounds for dimension
    # 0 with size 0' (its kernel iterates self restrided to (2, 3) and checks
    # each index; a dense empty self fails there too, with CPU's own setStorage
    # error); tpu returned the empty tensor. Where that block is empty
    # ((0, 3) along dim 1) nothing is checked on either device
    def call(dev, shape, dim, idx):
        x = torch.ones((1,) + shape[1:], dtype=torch.complex64, device=dev).expand(shape) if shape[0] == 0 \
            else torch.ones(shape, dtype=torch.complex64, device=dev)
        i = torch.tensor(idx, dtype=torch.long, device=dev)
        if op == "index_copy_":
            src = torch.ones(tuple(len(idx) if d == dim else s for d, s in enumerate(shape)), dtype=torch.complex64,
                             device=dev)
            return torch.ones(shape, dtype=torch.complex64, device=dev).index_copy_(dim, i, src).cpu()
        f = getattr(x, op) if op.endswith("_") else (lambda *a: torch.index_fill(x, *a))
        return f(dim, i, 2.0).cpu()

    for shape, dim, idx in (((0, 3), 0, [-1, 0]), ((0, 3), 0, [5]), ((0,), 0, [3]), ((2, 0), 1, [7])):
        if op == "index_fill_" and shape[0] == 0:  # the expanded self: CPU's IndexError (the others copy it dense)
            with pytest.raises(IndexError):
                call("cpu", shape, dim, idx)
        with pytest.raises(IndexError):
            call("tpu", shape, dim, idx)
    for shape, dim, idx in (((0, 3), 1, [-6]), ((2, 0), 0, [7]), ((0, 3), 0, [])):
        assert torch.equal(call("cpu", shape, dim, idx), call("tpu", shape, dim, idx))


@pytest.mark.parametrize("op", [torch.floor_divide, torch.remainder, torch.bitwise_and])
def test_binary_complex_number_self(op):
    # fuzz 508:324: floor_divide(-0.21+1.83j, int64 (0,), out=int64) is CPU's
    # 'result type ComplexFloat can't be cast to the desired output type
    # Long' (a number self is a wrapped number: the default complex type);
    # tpu raised '"div_floor_cpu" not implemented for 'ComplexDouble''
    bad = []
    for xdt in (torch.int64, torch.bool, torch.float16, torch.float64):
        t = torch.ones(3, dtype=xdt)
        _check(bad, f"{xdt}", op, (-0.21 + 1.83j, t))
        _check(bad, f"{xdt} empty", op, (-0.21 + 1.83j, t[:0]))
        if op is torch.floor_divide:
            for od in (torch.int64, torch.complex128):
                _check(bad, f"{xdt} out={od}", op, (-0.21 + 1.83j, t[:0]),
                       outs={"out": lambda od=od: torch.empty(0, dtype=od)})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.cummax, torch.cummin])
def test_cummax_out_dtypes_before_dim(op):
    # fuzz 502:95: cummax(complex64 (3, 1), 3, out=(float16, int32)) and
    # 502:1288: cummax(int16 (1, 4, 1), 4, out=(bfloat16, int64)) are CPU's
    # 'expected scalar_type ComplexFloat but found Half' (cummax_out checks
    # values' then indices' dtypes before it wraps the dim); tpu raised the
    # dim's IndexError
    bad = []
    for shape in ((3, 1), (0, 3), ()):
        for xdt in (torch.complex64, torch.int16, torch.float32):
            for dim in (3, 0):
                for vd, idt in ((torch.float16, torch.int32), (xdt, torch.int32), (xdt, torch.int64)):
                    r = [_run(lambda dev: op(torch.ones(shape, dtype=xdt, device=dev), dim,
                                             out=(torch.empty(0, dtype=vd, device=dev),
                                                  torch.empty(0, dtype=idt, device=dev)))[0], (dev,), {})
                         for dev in ("cpu", "tpu")]
                    if not _same(*r):
                        bad.append(f"{shape} {xdt} {dim} {vd} {idt}: cpu {r[0]!r} tpu {r[1]!r}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.min, torch.max])
def test_min_max_dim_checks_before_out_dtypes(op):
    # fuzz 501:1162: min(complex64 (0,), -1, out=(float32 (5,), int64)) is
    # CPU's 'min(): Expected reduction dim 0 to have non-zero size.' (its
    # meta checks an empty input's dim, and refuses complex values, before
    # set_output looks at out's dtypes); tpu raised 'Expected out tensor to
    # have dtype c10::complex<float>, but got float instead'
    bad = []
    for xdt in (torch.float32, torch.complex64, torch.int32):
        for shape, dim in (((0,), -1), ((0, 3), 0), ((0, 3), 1), ((2, 3), 0), ((0,), 2), ((), 0)):
            for vd, idt in ((torch.float16, torch.int64), (xdt, torch.int32), (xdt, torch.int64)):
                r = [_run(lambda dev: op(torch.ones(shape, dtype=xdt, device=dev), dim,
                                         out=(torch.empty(5, dtype=vd, device=dev),
                                              torch.empty(0, dtype=idt, device=dev)))[0], (dev,), {})
                     for dev in ("cpu", "tpu")]
                if not _same(*r):
                    bad.append(f"{xdt} {shape} {dim} {vd} {idt}: cpu {r[0]!r} tpu {r[1]!r}")
    assert not bad, "\n".join(bad)


def test_softshrink_floating_only():
    # found checking fuzz 532:388 (the unary ops' out= order): softshrink of
    # a bool tensor failed in the PJRT compiler on tpu ('stablehlo.negate'
    # of i1) and of an integral one computed, where CPU's meta refuses them
    # ('"softshrink_check" not implemented for 'Bool''); complex in the same
    # words
    bad = []
    for dt in (torch.bool, torch.uint8, torch.int32, torch.int64, torch.complex64, torch.float16, torch.bfloat16):
        _check(bad, f"{dt}", torch.nn.functional.softshrink, (torch.tensor([1, 0, 1], dtype=dt), 0.5), tol=1e-2)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.frac, torch._C._nn.elu, torch._C._nn.leaky_relu])
def test_unary_out_dtype_before_dispatch_refusal(op):
    # fuzz 532:388: frac(bool, out=complex128) is CPU's 'Found dtype
    # ComplexDouble but expected Bool' (the iterator's same-dtype check comes
    # before the kernel refuses Bool); PyTorch's meta kernel refuses bool
    # first, so tpu raised '"frac_cpu" not implemented for 'Bool''
    bad = []
    for xdt in (torch.bool, torch.uint8, torch.int32, torch.float32):
        for od in (torch.bool, torch.int32, torch.float32, torch.complex128):
            if od != xdt:
                _check(bad, f"{xdt} out={od}", op, (torch.ones(3, dtype=xdt),),
                       outs={"out": lambda od=od: torch.empty(0, dtype=od)})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", ["logical_xor", "logical_and", "logical_or"])
def test_logical_complex32_common_type(name):
    # fuzz 532:1063: float16 (2, 3, 4).logical_xor_(0-dim complex128) is
    # CPU's '"logical_xor_cpu" not implemented for 'ComplexHalf'' (no kernel
    # for the complex32 common type; an in-place logical op casts its bool
    # result into self unchecked); tpu raised 'result type ComplexHalf can't
    # be cast to the desired output type Half'
    bad = []
    h = torch.tensor([1.0, 0.0, 2.0], dtype=torch.float16)
    for other in (torch.tensor(1j, dtype=torch.complex128), 1j, torch.tensor([1j, 0, 1j])):
        _check(bad, f"{type(other).__name__} fn", getattr(torch, name), (h, other))
        _check(bad, f"{type(other).__name__} in place", lambda t, o: getattr(t.clone(), name + "_")(o), (h, other))
    _check(bad, "float32 in place", lambda t, o: getattr(t.clone(), name + "_")(o), (h.float(), torch.tensor(1j)))
    assert not bad, "\n".join(bad)
