"""PyTorch's type promotion and casting rules on "tpu", each case against CPU
(dtype, values, exception type and message): the default dtype, complex
participants of lower priority, all/any on uint8, out= tensors the result
cannot be cast to, numbers that overflow the dtype they are converted to, and
subtraction of bools."""
import math

import pytest
import torch

from cpu_same import same_as_cpu


@pytest.fixture
def default_dtype(request):
    old = torch.get_default_dtype()
    torch.set_default_dtype(request.param)
    yield request.param
    torch.set_default_dtype(old)


def T(values, dtype, device):
    return torch.tensor(values, dtype=dtype, device=device)


DEFAULT_CASES = {
    "int_true_div": lambda d: T([1, 2, 7], torch.int64, d) / T([3, 3, 2], torch.int64, d),
    "int_div_scalar": lambda d: torch.div(T([1, 2, 7], torch.int32, d), 3),
    "int_times_float": lambda d: T([1, 2, 7], torch.int64, d) * 1.5,
    "bool_plus_float": lambda d: T([True, False], torch.bool, d) + 0.25,
    "int_sqrt": lambda d: torch.sqrt(T([1, 2, 9], torch.int64, d)),
    "int_sigmoid": lambda d: torch.sigmoid(T([1, -2, 0], torch.int16, d)),
    "arange_float": lambda d: torch.arange(0.0, 3.0, 0.5, device=d),
    "arange_float_end": lambda d: torch.arange(2.5, device=d),
    "full_float": lambda d: torch.full((2, 2), 1.5, device=d),
}


@pytest.mark.parametrize("default_dtype", [torch.float64, torch.float16, torch.bfloat16], indirect=True)
@pytest.mark.parametrize("case", sorted(DEFAULT_CASES))
def test_default_dtype_reaches_the_core(default_dtype, case):
    same_as_cpu(DEFAULT_CASES[case])


@pytest.mark.parametrize("default_dtype", [torch.float64], indirect=True)
def test_default_complex_follows_default_dtype(default_dtype):
    # a Python complex is complex128 under a float64 default
    same_as_cpu(lambda d: T([1, 2], torch.int64, d) * (1 + 2j))


@pytest.mark.parametrize("default_dtype", [torch.float16], indirect=True)
def test_complex32_default_refused(default_dtype):
    # CPU gives complex32, which tpu refuses rather than changing the type
    assert (T([1, 2], torch.int64, "cpu") + 1j).dtype == torch.complex32
    with pytest.raises(NotImplementedError, match="complex32"):
        T([1, 2], torch.int64, "tpu") + 1j


@pytest.mark.parametrize("real,cplx", [(torch.float32, torch.complex128), (torch.bfloat16, torch.complex128)])
def test_zero_dim_complex_keeps_tensor_precision(real, cplx):
    same_as_cpu(lambda d: T([1.0, -2.0], real, d) + T(1j, cplx, d))
    same_as_cpu(lambda d: T([1.0, -2.0], real, d) * T(2 - 1j, cplx, d))


@pytest.mark.parametrize("other", ["number", "zero_dim"])
def test_float16_with_complex_is_complex32_refused(other):
    x = T([1.0, 2.0], torch.float16, "cpu")
    c = 1j if other == "number" else T(1j, torch.complex64, "cpu")
    assert (x + c).dtype == torch.complex32
    c_tpu = c if other == "number" else c.to("tpu")
    with pytest.raises(NotImplementedError, match="complex32"):
        x.to("tpu") + c_tpu


@pytest.mark.parametrize("op", ["all", "any"])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_all_any_keep_uint8(op, dim):
    def f(d):
        x = T([[1, 0, 3], [2, 5, 7]], torch.uint8, d)
        return getattr(torch, op)(x) if dim is None else getattr(torch, op)(x, dim)
    same_as_cpu(f)


OUT_CASES = {
    "add_float_to_long": lambda d: torch.add(T([1.5, 2.5], torch.float32, d), 1,
                                             out=torch.empty(2, dtype=torch.long, device=d)),
    "div_int_to_long": lambda d: torch.div(T([3, 5], torch.int64, d), 2, out=torch.empty(2, dtype=torch.long, device=d)),
    "cat_float_to_long": lambda d: torch.cat([T([1.5], torch.float32, d), T([2.5], torch.float32, d)],
                                             out=torch.empty(2, dtype=torch.long, device=d)),
    "stack_float_to_long": lambda d: torch.stack([T([1.5], torch.float32, d)], out=torch.empty(1, 1, dtype=torch.long, device=d)),
    "cat_complex_to_float": lambda d: torch.cat([T([1 + 1j], torch.complex64, d)], out=torch.empty(1, device=d)),
    "all_float_out_float": lambda d: torch.all(T([1.5, 0.0], torch.float32, d), out=torch.empty((), device=d)),
    "any_dim_out_long": lambda d: torch.any(T([[1.5, 0.0]], torch.float32, d), 1,
                                            out=torch.empty(1, dtype=torch.long, device=d)),
    "sqrt_to_long": lambda d: torch.sqrt(T([4.0, 2.0], torch.float32, d), out=torch.empty(2, dtype=torch.long, device=d)),
    "complex_to_float": lambda d: torch.add(T([1 + 1j], torch.complex64, d), 1, out=torch.empty(1, device=d)),
    "float_to_bool": lambda d: torch.mul(T([0.5], torch.float32, d), 2, out=torch.empty(1, dtype=torch.bool, device=d)),
    "sum_out_long_sums_truncated": lambda d: torch.sum(T([1.5, 2.5], torch.float32, d), 0,
                                                       out=torch.empty((), dtype=torch.long, device=d)),
    "cumsum_out_long": lambda d: torch.cumsum(T([1.5, 2.5, 0.7], torch.float32, d), 0,
                                              out=torch.empty(3, dtype=torch.long, device=d)),
}


@pytest.mark.parametrize("case", sorted(OUT_CASES))
def test_out_dtype_casting(case):
    same_as_cpu(OUT_CASES[case])


def test_out_not_written_when_refused():
    out = torch.full((2,), 7, dtype=torch.long, device="tpu")
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        torch.add(T([1.5, 2.5], torch.float32, "tpu"), 1, out=out)
    assert out.cpu().tolist() == [7, 7]


OVERFLOW_CASES = {
    "full_nan_int8": lambda d: torch.full((2,), math.nan, dtype=torch.int8, device=d),
    "full_300_uint8": lambda d: torch.full((2,), 300, dtype=torch.uint8, device=d),
    "full_1e6_float16": lambda d: torch.full((2,), 1e6, dtype=torch.float16, device=d),
    "full_2p31_int32": lambda d: torch.full((2,), 2 ** 31, dtype=torch.int32, device=d),
    "fill_inf_int16": lambda d: torch.zeros(2, dtype=torch.int16, device=d).fill_(math.inf),
    "fill_minus1_float_uint8": lambda d: torch.zeros(2, dtype=torch.uint8, device=d).fill_(-1.0),
    "fill_1e300_int64": lambda d: torch.zeros(2, dtype=torch.int64, device=d).fill_(1e300),
    "fill_1e300_float32": lambda d: torch.zeros(2, device=d).fill_(1e300),
    "fill_1e300_bfloat16": lambda d: torch.zeros(2, dtype=torch.bfloat16, device=d).fill_(1e300),
    "masked_fill_300_int8": lambda d: torch.zeros(2, dtype=torch.int8, device=d).masked_fill(
        T([True, False], torch.bool, d), 300),
    "masked_fill_host_tensor_int8": lambda d: torch.zeros(2, dtype=torch.int8, device=d).masked_fill(
        T([True, False], torch.bool, d), torch.tensor(300)),
    "masked_fill_inplace_nan_int32": lambda d: torch.zeros(2, dtype=torch.int32, device=d).masked_fill_(
        T([True, False], torch.bool, d), math.nan),
    "clamp_max_300_int8": lambda d: torch.zeros(2, dtype=torch.int8, device=d).clamp(max=300),
    "clamp_min_-129_int8": lambda d: torch.zeros(2, dtype=torch.int8, device=d).clamp(min=-129),
    "clamp_1e6_float16": lambda d: torch.zeros(2, dtype=torch.float16, device=d).clamp(-1e6, 1e6),
    "index_fill_300_int8": lambda d: torch.zeros(2, dtype=torch.int8, device=d).index_fill(
        0, T([0], torch.int64, d), 300),
}


@pytest.mark.parametrize("case", sorted(OVERFLOW_CASES))
def test_number_overflowing_dtype_raises(case):
    same_as_cpu(OVERFLOW_CASES[case])


SUB_CASES = {
    "bool_minus_float": lambda d: T([True, False], torch.bool, d) - T([1.0, 2.0], torch.float32, d),
    "float_minus_bool": lambda d: T([1.0, 2.0], torch.float32, d) - T([True, False], torch.bool, d),
    "int_minus_bool": lambda d: T([1, 2], torch.int64, d) - T([True, False], torch.bool, d),
    "bool_minus_number": lambda d: T([True, False], torch.bool, d) - 1.5,
    "float_minus_true": lambda d: T([1.0, 2.0], torch.float32, d) - True,
    "number_minus_bool": lambda d: 1 - T([True, False], torch.bool, d),
    "bool_minus_complex": lambda d: T([True, False], torch.bool, d) - (1 + 2j),
    "complex_minus_bool": lambda d: T([1j, 2.0], torch.complex64, d) - T([True, False], torch.bool, d),
    "sub_inplace_bool": lambda d: T([1.0, 2.0], torch.float32, d).sub_(T([True, False], torch.bool, d)),
}


@pytest.mark.parametrize("case", sorted(SUB_CASES))
def test_subtraction_refuses_bool(case):
    same_as_cpu(SUB_CASES[case])
