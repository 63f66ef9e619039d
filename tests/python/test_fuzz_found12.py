"""Differences of the twelfth fuzzing session (seeds 561-635), each checked against CPU.

Errors raised in another order or words than CPU's: bmm/baddbmm of batches
of two dtypes past CPU's small-product loop, and into an out= of another
dtype than batch2's. Found beside the known-open hardtanh/hardshrink out=
items (ops the fuzzer does not draw): activations that computed where CPU
raises (hardtanh's and threshold's numbers out of the input's range,
non-floating hardshrink, bool threshold) and float16 threshold compared in
the wrong type."""

import pytest
import torch

from test_fuzz_found9 import _run  # noqa: F401 - a call, its exception as a value
from test_fuzz_found10 import _check  # CPU's dtype, shape and values, or its exception


def _layout(t, how):
    if how == "t":  # each matrix column-major
        return t.transpose(1, 2).contiguous().transpose(1, 2)
    if how == "n":  # neither row- nor column-major
        return torch.cat([t, t], 2)[:, :, ::2]
    if how == "e":  # one matrix expanded over the batch
        return t[:1].expand(t.shape[0], -1, -1)
    return t


@pytest.mark.parametrize("op", ["bmm", "baddbmm"])
def test_bmm_mixed_dtypes_large_product(op):
    # fuzz 571:1365: baddbmm(bool, bool (1, 8, 16), complex128 (1, 16, 7)) is
    # CPU's 'expected scalar type ComplexDouble but found Bool': where one
    # matrix's rows * cols * contraction reach 400, CPU's kernel leaves its
    # loop (which dispatches on batch1's type: Bool refused, else 'expected
    # scalar type Int but found Float') for MKL's gemm (a float32, float64 or
    # complex result, batch2's type, and batches each row- or column-major),
    # which reads batch1 as the result's type, or else for one addmm per
    # batch ('expected m1 and m2 to have the same dtype', addmm_'s 'mat1 and
    # mat2 must have the same dtype'; Bool refused as "addmm_impl_cpu_");
    # tpu gave the loop's errors at every size
    bad = []
    pairs = [(torch.bool, torch.bool), (torch.bool, torch.complex128), (torch.bool, torch.float32),
             (torch.int32, torch.bool), (torch.int32, torch.float32), (torch.int32, torch.bfloat16),
             (torch.float16, torch.float32), (torch.float32, torch.int64), (torch.float64, torch.float32),
             (torch.complex64, torch.float64)]
    for m, k, n in [(2, 3, 4), (8, 16, 7), (1, 400, 1), (1, 1, 399), (5, 80, 1)]:
        for a, b in pairs:
            for l1 in "ctne":
                for l2 in "ctn":
                    def f(s, b1, b2, l1=l1, l2=l2):
                        b1, b2 = _layout(b1, l1), _layout(b2, l2)
                        return torch.bmm(b1, b2) if op == "bmm" else torch.baddbmm(s, b1, b2)
                    _check(bad, f"({m}, {k}, {n}) {a} {b} {l1}{l2}", f,
                           (torch.zeros(2, m, n, dtype=a), torch.ones(2, m, k, dtype=a), torch.ones(2, k, n, dtype=b)))
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("op", ["bmm", "baddbmm"])
def test_bmm_mixed_dtypes_out_dtype_first(op):
    # fuzz 573:118: bmm(bool (2, 8, 5), int8 (2, 5, 1), out=bool) is CPU's
    # 'Expected out tensor to have dtype signed char, but got bool instead':
    # its meta sets the result up with batch2's options (checking out's
    # dtype) before its kernel finds batch1 of another type; PyTorch's meta
    # kernel refuses the mixed dtypes, so tpu raised the Bool refusal
    bad = []
    dts = [torch.bool, torch.int8, torch.int32, torch.float32, torch.complex64]
    for m, k, n in [(8, 5, 1), (8, 16, 7), (2, 0, 3)]:
        for a in dts:
            for b in dts:
                if op == "baddbmm" and k == 0 and (a.is_floating_point or a.is_complex) and \
                        not (b.is_floating_point or b.is_complex):
                    continue  # a floating self copied into an integral result: refused (fuzz 140:428)
                for o in dts:
                    args = (torch.ones(2, m, k, dtype=a), torch.ones(2, k, n, dtype=b))
                    if op == "baddbmm":
                        args = (torch.zeros(2, m, n, dtype=a),) + args
                    _check(bad, f"({m}, {k}, {n}) {a} {b} out={o}", getattr(torch, op), args,
                           outs={"out": lambda o=o: torch.empty(0, dtype=o)})
    _check(bad, "sizes first", torch.bmm, (torch.ones(2, 3, 4, dtype=torch.bool), torch.ones(2, 5, 1, dtype=torch.int8)),
           outs={"out": lambda: torch.empty(0, dtype=torch.bool)})
    _check(bad, "self's dtype first", torch.baddbmm,
           (torch.ones(2, 3, 1), torch.ones(2, 3, 4, dtype=torch.bool), torch.ones(2, 4, 1, dtype=torch.int8)),
           outs={"out": lambda: torch.empty(0, dtype=torch.bool)})
    assert not bad, "\n".join(bad[:20])


_HARDTANH_LIMITS = [(), (-1, 1), (-0.5, 3), (0.5, 3.7), (2, -1), (1, 300), (-200, 300), (-1e30, 1), (1, 1e6),
                    (-1e40, 1), (True, 2), (-2.5, -0.5), (3, 1)]


@pytest.mark.parametrize("dt", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                                torch.bfloat16, torch.float32, torch.float64, torch.bool])
def test_hardtanh_limits_checked_as_cpu(dt):
    # found beside the known-open 'hardtanh uint8 with out=': CPU's
    # hardtanh_out reads an integral input's limits by Scalar::toLong (-0.5
    # is 0, 1e30 'value cannot be converted to type int64_t without
    # overflow'), refuses negative ones for uint8 ('cannot do hardtanh on an
    # unsigned type with negative limits'), and clamp_out converts each into
    # the input's type checked (int8 with 300, float16 with 1e6: 'value
    # cannot be converted to type int8_t without overflow'); tpu computed
    # all of these, the out-of-range limits wrapped (int8 clamp(-200, 300)
    # was 44 everywhere)
    bad = []
    x = torch.tensor([-3, 0, 1, 5, 127, -128, 200, float("nan") if dt.is_floating_point else 0]).to(dt)
    for lim in _HARDTANH_LIMITS:
        _check(bad, f"{lim}", torch.ops.aten.hardtanh, (x, *lim))
        _check(bad, f"{lim} in place", lambda t, *a: torch.ops.aten.hardtanh_(t.clone(), *a), (x, *lim))
        _check(bad, f"{lim} out", torch.ops.aten.hardtanh.out, (x, *lim), outs={"out": lambda: torch.empty(0, dtype=dt)})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.uint8, torch.int8, torch.int32, torch.int64, torch.bool, torch.complex64])
def test_hardshrink_refuses_non_floating(dt):
    # found beside the known-open 'hardshrink bool with out=': CPU's
    # hardshrink kernel dispatches on floating types only ('"hardshrink_cpu"
    # not implemented for 'Int''); tpu computed integral inputs and failed to
    # compile a bool one (stablehlo.negate of i1)
    bad = []
    x = torch.tensor([-3, 0, 1, 5]).to(dt)
    _check(bad, "functional", torch.ops.aten.hardshrink, (x,))
    _check(bad, "lambd", torch.ops.aten.hardshrink, (x, 2))
    _check(bad, "out", torch.ops.aten.hardshrink.out, (x,), outs={"out": lambda: torch.empty(0, dtype=dt)})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.bool, torch.int32, torch.float32])
def test_hardshrink_out_dtype_is_input_dtype(dt):
    # the known-open 'hardshrink bool with out=': CPU's iterator requires out
    # in the input's dtype ('Found dtype Byte but expected Bool'); PyTorch's
    # meta kernel makes a bool input's result int64, so tpu said 'expected
    # Long'
    bad = []
    x = torch.tensor([-3, 0, 1, 5]).to(dt)
    for od in (torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.float32):
        _check(bad, f"out={od}", torch.ops.aten.hardshrink.out, (x,), outs={"out": lambda od=od: torch.empty(0, dtype=od)})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.uint8, torch.int8, torch.int32, torch.int64, torch.bool, torch.float16,
                                torch.bfloat16, torch.float32])
def test_threshold_checks_bool_and_number_range(dt):
    # found beside hardtanh: CPU's threshold kernel refuses Bool
    # ('"threshold_cpu" not implemented for 'Bool'') and converts threshold
    # and value into the input's type checked (int8 with 300, float16 with
    # 1e6: 'value cannot be converted to type int8_t without overflow'); tpu
    # computed a bool input and wrapped the numbers (uint8 threshold 300 gave
    # 253 for -3)
    bad = []
    x = torch.tensor([-3, 0, 1, 5, 127, -128, 2, 4]).to(dt)
    for th, v in [(1, 5), (300, 5), (1, 1000), (0.5, 2.5), (1, 1e6), (-1e40, 0), (True, False)]:
        _check(bad, f"{th}, {v}", torch.ops.aten.threshold, (x, th, v))
        _check(bad, f"{th}, {v} in place", lambda t, a, b: torch.ops.aten.threshold_(t.clone(), a, b), (x, th, v))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.uint8, torch.int32, torch.bool, torch.complex64])
def test_silu_glu_refusals_name_cpu_kernels(dt):
    # found beside hardtanh: CPU's refusals of non-floating silu and glu
    # name their kernels '"silu_cpu"' and '"glu_cpu"' (glu of complex too);
    # tpu said "silu" and "glu" (complex silu, which CPU computes, is
    # test_silu_complex_computes)
    bad = []
    x = torch.tensor([-3, 0, 1, 5]).to(dt)
    if not dt.is_complex:
        _check(bad, "silu", torch.ops.aten.silu, (x,))
    _check(bad, "glu", torch.ops.aten.glu, (x, 0))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16])
def test_threshold_half_compares_in_float(dt):
    # found beside hardtanh: CPU's float16/bfloat16 threshold kernel compares
    # x with threshold read as float; tpu rounded threshold to the input's
    # type first, so values next to it were replaced or kept wrongly (49 of
    # the float16 values in [0.25, 0.35] over 97 thresholds)
    bad = []
    x = torch.linspace(0.25, 0.35, 2000).to(dt).unique()
    for th in torch.linspace(0.26, 0.34, 97).tolist():
        _check(bad, f"{th}", torch.ops.aten.threshold, (x, th, -1.0))
        _check(bad, f"{th} in place", lambda t, a, b: torch.ops.aten.threshold_(t.clone(), a, b), (x, th, -1.0))
    assert not bad, "\n".join(bad[:10])


@pytest.mark.parametrize("dt", [torch.complex64, torch.complex128])
def test_silu_complex_computes(dt):
    # found beside hardtanh: CPU's silu computes complex inputs (z / (1 +
    # exp(-z))); tpu refused them ('silu: complex dtype complex64 is not
    # supported on TPU yet'). Where exp(-z) overflows CPU's complex division
    # gives NaN and XLA's a signed zero (the complex special-values rows of
    # docs/fuzz_known.md), so values stay within |re z| < 80 here
    bad = []
    g = torch.Generator().manual_seed(0)
    z = torch.complex(torch.rand(500, generator=g, dtype=torch.float64) * 160 - 80,
                      torch.rand(500, generator=g, dtype=torch.float64) * 20 - 10).to(dt)
    z = torch.cat([z, torch.tensor([0j, 1j, -2 + 0.5j], dtype=dt)])
    tol = 1e-5 if dt == torch.complex64 else 1e-12
    _check(bad, "functional", torch.nn.functional.silu, (z,), tol=tol)
    _check(bad, "in place", lambda t: torch.nn.functional.silu(t.clone(), inplace=True), (z,), tol=tol)
    _check(bad, "out", torch.ops.aten.silu.out, (z,), outs={"out": lambda: torch.empty(0, dtype=dt)}, tol=tol)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.igamma, torch.igammac])
def test_igamma_refuses_integral_operands(op):
    # found by a wider probe beside the session's seeds: CPU's igamma and
    # igammac keep their operands' common type and dispatch on floating types
    # ('"igamma_cpu" not implemented for 'Int''); tpu promoted integral and
    # bool operands to float and computed
    bad = []
    i, f = torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor([0.5, 1.5, 2.5])
    b = torch.tensor([True, False, True])
    for x, y in [(i, i), (b, b), (i, b), (i.long(), i), (i, f), (f, i), (f.half(), f.half())]:
        _check(bad, f"{x.dtype} {y.dtype}", op, (x, y), tol=1e-6)
        _check(bad, f"{x.dtype} {y.dtype} out", op, (x, y), outs={"out": lambda: torch.empty(0)}, tol=1e-6)
        _check(bad, f"{x.dtype} {y.dtype} in place", lambda s, o: getattr(s.clone(), op.__name__ + "_")(o), (x, y), tol=1e-6)
    _check(bad, "sizes first", op, (i, torch.ones(4, dtype=torch.int32)))
    assert not bad, "\n".join(bad)


def test_zeta_refuses_half_types():
    # found by a wider probe beside the session's seeds: CPU's zeta kernel has
    # no float16/bfloat16 case ('"zeta_cpu" not implemented for 'Half''); tpu
    # computed them
    bad = []
    h, i, f = torch.tensor([0.5, 1.5, 2.5], dtype=torch.float16), torch.tensor([1, 2, 3]), torch.tensor([0.5, 1.5, 2.5])
    for x, y in [(h, h), (h, 2), (2, h), (i, h), (h.bfloat16(), h.bfloat16()), (h.bfloat16(), f), (i, i), (f, f)]:
        _check(bad, f"{x} {y}", torch.special.zeta, (x, y), tol=1e-5)
    _check(bad, "sizes first", torch.special.zeta, (h, torch.ones(4, dtype=torch.float16)))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
def test_ndtri_deep_tail(dt):
    # found by a wider probe beside the session's seeds: ndtri(1e-10) was
    # -inf in float32 and ndtri(1e-20) in float64 (2p - 1 rounds to -1 and
    # erf_inv's start never moved); CPU gives -6.3613 and -9.2623
    bad = []
    p = torch.tensor([1e-3, 1e-5, 1.1e-5, 0.99e-5, 1e-6, 1e-10, 1e-15, 1e-20, 1e-30, 1e-37, 1.2e-38, 1e-100, 1e-300,
                      2.3e-308, 1 - 1e-7, 1 - 2e-5, 0.999999, 0.5, 0.3, 0.0, 1.0], dtype=torch.float64).to(dt)
    tol = 1e-6 if dt == torch.float32 else 1e-13
    _check(bad, "ndtri", torch.special.ndtri, (p,), tol=tol)
    _check(bad, "ndtri upper", torch.special.ndtri, (1 - p,), tol=tol)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", ["erfcx", "ndtri", "log_ndtr"])
def test_special_unary_refuses_half_types(name):
    # found by a wider probe beside the session's seeds: CPU's erfcx, ndtri
    # and log_ndtr kernels have no float16/bfloat16 case ('"ndtri_cpu" not
    # implemented for 'Half''); tpu computed them. Integral inputs compute.
    bad = []
    f = getattr(torch.special, name)
    for dt in (torch.float16, torch.bfloat16, torch.int32, torch.bool):
        x = torch.tensor([0, 1, 0, 1]).to(dt)
        _check(bad, f"{dt}", f, (x,), tol=1e-6)
        _check(bad, f"{dt} out", f, (x,), outs={"out": lambda: torch.empty(0)}, tol=1e-6)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
def test_acosh_atanh_wide_range(dt):
    # found by a wider probe beside the session's seeds: acosh(-1e8) was -inf
    # in float64 and 0 in float32 (t + sqrt(t (t + 2)) cancelled to -1; CPU
    # NaN), and atanh next to -1 lost digits (atanh(-0.999999999999) 4e-6 off
    # in float64: 2x / (1 - x) on x itself)
    bad = []
    x = torch.tensor([-1e8, -1e30, -1e3, -2.0, -1.0, 0.0, 0.5, 0.999, 1.0, 1.5, 1e8, 1e30, float("inf"), -float("inf"),
                      float("nan")], dtype=torch.float64).to(dt)
    y = torch.tensor([-0.999999999999, -0.9999, -0.5, -1e-10, -0.0, 0.0, 1e-10, 0.3, 0.5, 0.9999, 0.999999999999, 1, -1,
                      1.5, -1.5, float("nan")], dtype=torch.float64).to(dt)
    tol = 1e-13 if dt == torch.float64 else 1e-6 if dt == torch.float32 else 1e-2
    _check(bad, "acosh", torch.acosh, (x,), tol=tol)
    _check(bad, "atanh", torch.atanh, (y,), tol=tol)
    _check(bad, "atanh signs", lambda t: (lambda r: torch.signbit(r) & ~r.isnan())(torch.atanh(t)), (y,))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.float64, torch.float32])
def test_polygamma_zeta_far_negative(dt):
    # found by a wider probe beside the session's seeds: polygamma(n >= 2, x)
    # and zeta(s, q) for q below -32 (polygamma(3, -42.18) was 7.2e27, CPU
    # 5733): the direct terms (q + k)^-s stopped after 32 and XLA's
    # expansion took over from a negative q + 32
    bad = []
    x = torch.tensor([-1000.25, -110.63, -42.18, -33.5, -32.5, -31.5, -3.7, -0.5, 0.3, 1.5, 10.0, -40.0],
                     dtype=torch.float64).to(dt)
    tol = 1e-9 if dt == torch.float64 else 1e-4
    for n in (2, 3, 4):
        _check(bad, f"polygamma({n})", lambda t, n=n: torch.polygamma(n, t) / torch.polygamma(n, t.cpu()).abs().clamp(min=1).to(t.device),
               (x,), tol=tol)
    _check(bad, "zeta", lambda s, q: torch.special.zeta(s, q) / torch.special.zeta(s.cpu(), q.cpu()).abs().clamp(min=1).to(s.device),
           (torch.full_like(x, 4.0), x), tol=tol)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.float64, torch.float32])
def test_modified_bessel_k_tiny_arguments(dt):
    # found by a wider probe beside the session's seeds: K0/K1 (scaled too)
    # clamped x at 1e-30 (modified_bessel_k0(1e-300) gave 69.19, CPU 690.89;
    # k1(1e-34) 1e30 in float32, CPU 1e34)
    bad = []
    x = torch.tensor([1e-300, 1e-200, 1e-100, 1e-37, 1e-34, 1e-30, 1e-20, 1e-5, 0.1, 1.0, 1.9, 2.0, 2.1, 5.0, 50.0, 0.0,
                      -1.0], dtype=torch.float64)
    if dt == torch.float32:
        x = x[(x.abs() > 1.2e-38) | (x == 0)]
    x = x.to(dt)
    tol = 1e-12 if dt == torch.float64 else 1e-5
    for f in (torch.special.modified_bessel_k0, torch.special.modified_bessel_k1,
              torch.special.scaled_modified_bessel_k0, torch.special.scaled_modified_bessel_k1):
        _check(bad, f.__name__, lambda t, f=f: f(t) / f(t.cpu()).abs().clamp(min=1).to(t.device), (x,), tol=tol)
    assert not bad, "\n".join(bad)


def test_erfcx_asymptotic_branch_float64():
    # found by a wider probe beside the session's seeds: from x = 8 on, erfcx
    # summed five terms of its asymptotic series, a 3e-8 relative error in
    # float64 (erfcx(8.14): cpu 0.06879915108541, tpu 0.06879915256677)
    bad = []
    x = torch.cat([torch.linspace(7.5, 30, 901, dtype=torch.float64),
                   torch.tensor([1e3, 1e10, 1e100, 1e300, float("inf")], dtype=torch.float64)])
    _check(bad, "erfcx", torch.special.erfcx, (x,), tol=1e-14)
    _check(bad, "erfcx float32", torch.special.erfcx, (x.float(),), tol=1e-6)
    assert not bad, "\n".join(bad)
