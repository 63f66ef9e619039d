"""CPU's AT_DISPATCH refusal ('"abs_cpu" not implemented for 'Bool'',
NotImplementedError) for every dtype CPU's kernel lacks, against tpu: the same
exception type and CPU's message, after only the "aten::<op>: " context tpu
puts first. The tpu sites all build it with one
helper (csrc/ops/dispatch_refusal.c); a site that goes back to its own code or
words, or a dtype name spelled differently, fails here. Each op must refuse at
least one of the dtypes walked on CPU, so no case passes vacuously."""
import re

import pytest
import torch
import torch.nn.functional as F

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTS = [dt for dt in DTYPES if not dt.is_floating_point]


def t(dt, d, shape=(2, 3)):
    """Small nonzero values of dtype dt (ones: valid in every dtype)."""
    return torch.ones(shape, dtype=dt, device=d)


# name -> (fn(dtype, device), dtypes walked)
OPS = {
    "abs": (lambda dt, d: torch.abs(t(dt, d)), DTYPES),
    "floor": (lambda dt, d: torch.floor(t(dt, d)), DTYPES),
    "trunc": (lambda dt, d: torch.trunc(t(dt, d)), DTYPES),
    "pow": (lambda dt, d: torch.pow(t(dt, d), t(dt, d)), DTYPES),
    "clamp": (lambda dt, d: torch.clamp(t(dt, d), t(dt, d), t(dt, d)), DTYPES),
    "clamp_min_scalar": (lambda dt, d: torch.clamp_min(t(dt, d), True), DTYPES),
    "bitwise_and": (lambda dt, d: torch.bitwise_and(t(dt, d), t(dt, d)), DTYPES),
    "bitwise_xor": (lambda dt, d: torch.bitwise_xor(t(dt, d), t(dt, d)), DTYPES),
    "bitwise_not": (lambda dt, d: torch.bitwise_not(t(dt, d)), DTYPES),
    "lshift": (lambda dt, d: t(dt, d) << t(dt, d), DTYPES),
    "rshift": (lambda dt, d: t(dt, d) >> t(dt, d), DTYPES),
    "gcd": (lambda dt, d: torch.gcd(t(dt, d), t(dt, d)), DTYPES),
    "lcm": (lambda dt, d: torch.lcm(t(dt, d), t(dt, d)), DTYPES),
    "fmod": (lambda dt, d: torch.fmod(t(dt, d), t(dt, d)), DTYPES),
    "remainder": (lambda dt, d: torch.remainder(t(dt, d), t(dt, d)), DTYPES),
    "lerp": (lambda dt, d: torch.lerp(t(dt, d), t(dt, d), 0.5), DTYPES),
    "addcmul": (lambda dt, d: torch.addcmul(t(dt, d), t(dt, d), t(dt, d)), DTYPES),
    "frac": (lambda dt, d: torch.frac(t(dt, d)), DTYPES),
    "hypot": (lambda dt, d: torch.hypot(t(dt, d), t(dt, d)), DTYPES),
    "nextafter": (lambda dt, d: torch.nextafter(t(dt, d), t(dt, d)), DTYPES),
    "softmax": (lambda dt, d: torch.softmax(t(dt, d), 1), INTS),
    "log_softmax": (lambda dt, d: torch.log_softmax(t(dt, d), 1), INTS),
    "logcumsumexp": (lambda dt, d: torch.logcumsumexp(t(dt, d), 1), INTS),
    "median": (lambda dt, d: torch.median(t(dt, d)), DTYPES),
    "arange": (lambda dt, d: torch.arange(3, dtype=dt, device=d), DTYPES),
    "linspace": (lambda dt, d: torch.linspace(0, 1, 3, dtype=dt, device=d), DTYPES),
    "logspace": (lambda dt, d: torch.logspace(0, 1, 3, dtype=dt, device=d), DTYPES),
    "tril_indices": (lambda dt, d: torch.tril_indices(3, 3, dtype=dt, device=d), DTYPES),
    "bincount": (lambda dt, d: torch.bincount(torch.ones(3, dtype=dt, device=d)), DTYPES),
    "repeat_interleave": (lambda dt, d: torch.repeat_interleave(torch.ones(3, dtype=dt, device=d)), DTYPES),
    "trace": (lambda dt, d: torch.trace(t(dt, d)), [torch.bool]),
    "cross": (lambda dt, d: torch.linalg.cross(t(dt, d, (2, 3)), t(dt, d, (2, 3))), [torch.bool]),
    "mm": (lambda dt, d: torch.mm(t(dt, d), t(dt, d, (3, 2))), [torch.bool]),
    "bmm": (lambda dt, d: torch.bmm(t(dt, d, (1, 2, 3)), t(dt, d, (1, 3, 2))), [torch.bool]),
    "lu_factor": (lambda dt, d: torch.linalg.lu_factor(t(dt, d, (2, 2))), DTYPES),
    "lu_solve": (lambda dt, d: torch.linalg.lu_solve(t(dt, d, (2, 2)), torch.ones(2, dtype=torch.int32, device=d),
                                                     t(dt, d, (2, 2))), [torch.float16, torch.bfloat16]),
    "det": (lambda dt, d: torch.linalg.det(t(dt, d, (2, 2))), [torch.float16, torch.bfloat16]),
    "gelu": (lambda dt, d: F.gelu(t(dt, d)), INTS),
    "prelu": (lambda dt, d: F.prelu(t(dt, d), t(dt, d, (1,))), INTS),
    "rrelu_train": (lambda dt, d: F.rrelu(t(dt, d), training=True), INTS + [torch.float16]),
    "max_pool2d": (lambda dt, d: F.max_pool2d(t(dt, d, (1, 1, 4, 4)), 2), DTYPES),
    "avg_pool2d": (lambda dt, d: F.avg_pool2d(t(dt, d, (1, 1, 4, 4)), 2), DTYPES),
    "adaptive_avg_pool2d": (lambda dt, d: F.adaptive_avg_pool2d(t(dt, d, (1, 1, 4, 4)), 2), INTS),
    "avg_pool3d": (lambda dt, d: F.avg_pool3d(t(dt, d, (1, 1, 2, 2, 2)), 2), INTS),
    "conv2d": (lambda dt, d: F.conv2d(t(dt, d, (1, 1, 3, 3)), t(dt, d, (1, 1, 2, 2))), [torch.bool]),
    "reflection_pad1d": (lambda dt, d: F.pad(t(dt, d, (1, 1, 3)), (1, 1), mode="reflect"), [torch.bool]),
    "interpolate_bilinear": (lambda dt, d: F.interpolate(t(dt, d, (1, 1, 2, 2)), scale_factor=2, mode="bilinear"), INTS),
    "interpolate_nearest1d": (lambda dt, d: F.interpolate(t(dt, d, (1, 2, 3)), scale_factor=2), INTS),
    "interpolate_nearest2d": (lambda dt, d: F.interpolate(t(dt, d, (1, 2, 3, 3)), scale_factor=2), INTS),
    "interpolate_trilinear": (lambda dt, d: F.interpolate(t(dt, d, (1, 2, 2, 2, 2)), scale_factor=2, mode="trilinear"), INTS),
    "interpolate_bicubic": (lambda dt, d: F.interpolate(t(dt, d, (1, 2, 3, 3)), scale_factor=2, mode="bicubic"), INTS),
    "interpolate_antialias": (lambda dt, d: F.interpolate(t(dt, d, (1, 2, 4, 4)), scale_factor=0.5, mode="bilinear",
                                                          antialias=True), INTS),
    "upsample_bilinear2d_backward": (lambda dt, d: torch.ops.aten.upsample_bilinear2d_backward(
        t(dt, d, (1, 2, 4, 4)), [4, 4], [1, 2, 2, 2], False), DTYPES),
    "upsample_bilinear2d_backward_cl": (lambda dt, d: torch.ops.aten.upsample_bilinear2d_backward(
        t(dt, d, (1, 2, 4, 4)).contiguous(memory_format=torch.channels_last), [4, 4], [1, 2, 2, 2], False), DTYPES),
    "upsample_nearest3d_backward_cl": (lambda dt, d: torch.ops.aten.upsample_nearest3d_backward(
        t(dt, d, (1, 2, 4, 4, 4)).contiguous(memory_format=torch.channels_last_3d), [4, 4, 4], [1, 2, 2, 2, 2]), DTYPES),
    "group_norm": (lambda dt, d: F.group_norm(t(dt, d, (1, 2, 3)), 1), INTS),
    "multi_margin_loss": (lambda dt, d: F.multi_margin_loss(t(dt, d, (2, 3)), torch.tensor([0, 1], device=d)), INTS),
    "multi_margin_loss_backward": (lambda dt, d: torch.ops.aten.multi_margin_loss_backward(
        t(dt, d, ()), t(dt, d, (2, 3)), torch.tensor([0, 1], device=d), 1, 1, None, 1), INTS),
    "log_normal_": (lambda dt, d: t(dt, d).log_normal_(), INTS),
    "geometric_": (lambda dt, d: t(dt, d).geometric_(0.5), [torch.bool]),
    "cumsum_out_bool": (lambda dt, d: torch.cumsum(t(torch.float32, d), 0, out=torch.empty(2, 3, dtype=dt, device=d)),
                        [torch.bool]),
    "nansum_out": (lambda dt, d: torch.nansum(t(torch.float32, d), out=torch.empty((), dtype=dt, device=d)), INTS),
}


def _run(fn, dt, device):
    try:
        fn(dt, device)
        return None
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return e


def _refused_on_cpu(fn, dt):
    e = _run(fn, dt, "cpu")
    return e if isinstance(e, NotImplementedError) and "not implemented for '" in str(e) else None


@pytest.mark.parametrize("name", sorted(OPS))
def test_dispatch_refusal_same_type_and_message_as_cpu(name):
    fn, dtypes = OPS[name]
    refused = 0
    for dt in dtypes:
        cpu = _refused_on_cpu(fn, dt)
        if cpu is None:
            continue
        refused += 1
        tpu = _run(fn, dt, "tpu")
        assert tpu is not None, f"{name} {dt}: CPU raised {cpu!r}; tpu computed"
        assert type(tpu) is NotImplementedError, f"{name} {dt}: CPU {cpu!r}; tpu {type(tpu).__name__}: {tpu}"
        assert re.fullmatch(r"(aten::[\w.]+: )?" + re.escape(str(cpu)), str(tpu)), \
            f"{name} {dt}: CPU's message {str(cpu)!r}, tpu's {str(tpu)!r}"
    assert refused, f"{name}: CPU refused none of {dtypes}; the case tests nothing"


# CPU checks of its own that come before a kernel's dispatch: RuntimeError,
# each with its words (tpu used to answer these with a dispatch refusal).
CHECKS = {
    "argmax_bool": lambda d: torch.argmax(t(torch.bool, d)),
    "argmin_bool_dim": lambda d: torch.argmin(t(torch.bool, d), 0),
    "embedding_bag_int_weight": lambda d: F.embedding_bag(torch.tensor([0, 1], device=d), t(torch.int32, d, (3, 2)),
                                                          torch.tensor([0], device=d)),
    "embedding_bag_bool_weight": lambda d: F.embedding_bag(torch.tensor([0, 1], device=d), t(torch.bool, d, (3, 2)),
                                                           torch.tensor([0], device=d)),
    "embedding_bag_float_indices_first": lambda d: torch.embedding_bag(t(torch.int64, d, (3, 2)),
                                                                       torch.tensor([0.0, 1.0], device=d),
                                                                       torch.tensor([0], device=d)),
    "matrix_exp_long": lambda d: torch.linalg.matrix_exp(t(torch.int64, d, (2, 2))),
    "det_long": lambda d: torch.linalg.det(t(torch.int64, d, (2, 2))),
    "slogdet_bool": lambda d: torch.linalg.slogdet(t(torch.bool, d, (2, 2))),
    "slogdet_half": lambda d: torch.linalg.slogdet(t(torch.float16, d, (2, 2))),
    "inv_int": lambda d: torch.linalg.inv(t(torch.int32, d, (2, 2))),
    "inv_bfloat16": lambda d: torch.linalg.inv(t(torch.bfloat16, d, (2, 2))),
    "solve_long": lambda d: torch.linalg.solve(t(torch.int64, d, (2, 2)), t(torch.int64, d, (2, 2))),
    "lu_solve_long": lambda d: torch.linalg.lu_solve(t(torch.int64, d, (2, 2)), torch.ones(2, dtype=torch.int32, device=d),
                                                     t(torch.int64, d, (2, 2))),
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_checks_before_dispatch_like_cpu(name):
    fn = CHECKS[name]
    cpu, tpu = _run(lambda _, d: fn(d), None, "cpu"), _run(lambda _, d: fn(d), None, "tpu")
    assert type(cpu) is RuntimeError, f"CPU: {cpu!r}"
    assert type(tpu) is RuntimeError, f"CPU {cpu!r}; tpu {type(tpu).__name__}: {tpu}"
    assert re.fullmatch(r"(aten::[\w.]+: )?" + re.escape(str(cpu)), str(tpu)), f"CPU's message {str(cpu)!r}, tpu's {str(tpu)!r}"


def test_lu_unpack_of_integers_computes_like_cpu():
    """CPU unpacks integer LU data (no dtype check); tpu refused it as lu_cpu."""
    x = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    piv = torch.tensor([2, 3, 3], dtype=torch.int32)
    for dt in (torch.int64, torch.int32, torch.bool):
        for e, a in zip(torch.lu_unpack(x.to(dt), piv), torch.lu_unpack(x.to(dt).to("tpu"), piv.to("tpu")), strict=True):
            assert a.dtype == e.dtype
            assert torch.equal(a.cpu(), e)


def c(dt, d):
    return torch.tensor([1 + 1j, 2 - 1j], dtype=dt, device=d)


# Ordering ops refused for complex values (csrc/ops/complex_refusal.c): CPU's
# dispatch refusal or its own NotImplementedError / RuntimeError, in-place and
# overloads included.
A = torch.ops.aten
COMPLEX = {
    "lt": lambda dt, d: torch.lt(c(dt, d), c(dt, d)),
    "ge_scalar": lambda dt, d: torch.ge(c(dt, d), 1),
    "clamp": lambda dt, d: torch.clamp(c(dt, d), 0, 1),
    "clamp_min_tensor_": lambda dt, d: c(dt, d).clamp_min_(c(dt, d)),
    "clamp_max_tensor": lambda dt, d: torch.clamp_max(c(dt, d), c(dt, d)),
    "relu_": lambda dt, d: torch.relu_(c(dt, d)),
    "hardtanh": lambda dt, d: F.hardtanh(c(dt, d)),
    "threshold": lambda dt, d: F.threshold(c(dt, d), 0.5, 0.0),
    "max_all": lambda dt, d: torch.max(c(dt, d)),
    "max_dim": lambda dt, d: torch.max(c(dt, d), 0),
    "amax": lambda dt, d: torch.amax(c(dt, d)),
    "aminmax": lambda dt, d: torch.aminmax(c(dt, d)),
    "argmin": lambda dt, d: torch.argmin(c(dt, d)),
    "maximum": lambda dt, d: torch.maximum(c(dt, d), c(dt, d)),
    "fmin": lambda dt, d: torch.fmin(c(dt, d), c(dt, d)),
    "heaviside_": lambda dt, d: c(dt, d).heaviside_(c(dt, d)),
    "median_dim": lambda dt, d: torch.median(c(dt, d), 0),
    "nanmedian": lambda dt, d: torch.nanmedian(c(dt, d)),
    "kthvalue": lambda dt, d: torch.kthvalue(c(dt, d), 1),
    "cummax": lambda dt, d: torch.cummax(c(dt, d), 0),
    "sort_stable": lambda dt, d: torch.sort(c(dt, d), stable=True),
    "topk": lambda dt, d: torch.topk(c(dt, d), 1),
    "floor_divide_": lambda dt, d: c(dt, d).floor_divide_(2),
    "remainder_scalar_tensor": lambda dt, d: A.remainder.Scalar_Tensor(2, c(dt, d)),
    "fmod": lambda dt, d: torch.fmod(c(dt, d), 2),
    "floor": lambda dt, d: torch.floor(c(dt, d)),
    "trunc_": lambda dt, d: c(dt, d).trunc_(),
    "round": lambda dt, d: torch.round(c(dt, d)),
    "round_decimals": lambda dt, d: torch.round(c(dt, d), decimals=1),
}


@pytest.mark.parametrize("dt", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_complex_refusals_like_cpu(name, dt):
    cpu, tpu = _run(COMPLEX[name], dt, "cpu"), _run(COMPLEX[name], dt, "tpu")
    assert cpu is not None, f"{name}: CPU computed; the case tests nothing"
    assert type(tpu) is type(cpu), f"CPU {cpu!r}; tpu {type(tpu).__name__}: {tpu}"
    assert re.fullmatch(r"(aten::[\w.]+: )?" + re.escape(str(cpu)), str(tpu)), f"CPU's message {str(cpu)!r}, tpu's {str(tpu)!r}"
