"""Calls CPU PyTorch refuses (or computes differently) where tpu used to
compute silently, each against CPU: exception type and CPU's message, or the
same result. Scalars that overflow the type they are converted to (addcmul/
addcdiv value, add/sub alpha, linspace/logspace ends), roll of a 0-dim
tensor, index dtypes, index_put_ value dtypes, integer pow of unsigned
types, vector_norm's dtype=, float-only kernels on integers, and integer
division by zero (raised at the op for a number divisor, at the next
synchronization point for a tensor divisor: csrc/exec/async_errors.c)."""
import pytest
import torch

from cpu_same import same_as_cpu


def T(values, dtype, d):
    return torch.tensor(values, dtype=dtype, device=d)


I8, U8, F16, F32, F64, L = torch.int8, torch.uint8, torch.float16, torch.float32, torch.float64, torch.int64

CASES = {
    # scalar overflow (CPU's checked Scalar conversion)
    "addcmul_value_int8": lambda d: torch.addcmul(T([1, 2], I8, d), T([1, 2], I8, d), T([3, 1], I8, d), value=1000),
    "addcmul_value_fits_int8": lambda d: torch.addcmul(T([1, 2], I8, d), T([1, 2], I8, d), T([3, 1], I8, d), value=-100),
    "addcmul_value_float": lambda d: torch.addcmul(T([1, 2], F32, d), T([1, 2], F32, d), T([3, 1], F32, d), value=1e300),
    "addcmul_value_half_opmath": lambda d: torch.addcmul(T([1, 2], F16, d), T([1, 2], F16, d), T([3, 1], F16, d), value=1e10),
    "addcdiv_value_float": lambda d: torch.addcdiv(T([1, 2], F32, d), T([1, 2], F32, d), T([3, 1], F32, d), value=1e300),
    "addcmul_bool": lambda d: torch.addcmul(T([True], torch.bool, d), T([True], torch.bool, d), T([True], torch.bool, d)),
    "add_alpha_int8": lambda d: torch.add(T([1, 2], I8, d), T([1, 2], I8, d), alpha=1000),
    "sub_alpha_half": lambda d: torch.sub(T([1, 2], F16, d), T([1, 2], F16, d), alpha=1e10),
    "add_alpha_uint8_negative": lambda d: torch.add(T([1, 2], U8, d), T([1, 1], U8, d), alpha=-1),
    "add_alpha_true": lambda d: torch.add(T([1, 2], I8, d), T([1, 2], I8, d), alpha=True),
    "logspace_end_int8": lambda d: torch.logspace(0, 200, 3, dtype=I8, device=d),
    "logspace_end_int32": lambda d: torch.logspace(0, 1e10, 3, dtype=torch.int32, device=d),
    "logspace_start_float": lambda d: torch.logspace(1e40, 2, 3, dtype=F32, device=d),
    "logspace_fits_uint8": lambda d: torch.logspace(0, 2, 3, dtype=U8, device=d),
    "linspace_end_int8": lambda d: torch.linspace(0, 200, 3, dtype=I8, device=d),
    "linspace_end_half": lambda d: torch.linspace(0, 2e38, 3, dtype=F16, device=d),
    "linspace_bool": lambda d: torch.linspace(0, 2, 3, dtype=torch.bool, device=d),
    "logspace_bool": lambda d: torch.logspace(0, 2, 3, dtype=torch.bool, device=d),
    "pow_exponent_int16": lambda d: T([2, 3], torch.int16, d) ** 70000,
    "pow_negative_exponent_first": lambda d: T([2, 3], torch.int16, d) ** -70000,
    "pow_exponent_fits_int8": lambda d: T([2, 3], I8, d) ** 3,
    "complex_sub_alpha_false": lambda d: torch.sub(T([1 + 1j, 2], torch.complex64, d), 0, alpha=False),
    "complex_add_alpha_true": lambda d: torch.add(T([1 + 1j, 2], torch.complex128, d), T([1, 2], torch.complex128, d), alpha=True),
    # roll of a 0-dim tensor along a dim
    "roll_0dim_dim_minus1": lambda d: torch.roll(T(3.0, F32, d), 1, -1),
    "roll_0dim_dim0": lambda d: torch.roll(T(3.0, F32, d), 1, 0),
    "roll_0dim_no_dim": lambda d: torch.roll(T(3.0, F32, d), 1),
    # index dtypes and value dtypes
    "index_add_uint8_index": lambda d: torch.index_add(torch.zeros(3, device=d), 0, T([0, 1], U8, d), torch.ones(2, device=d)),
    "index_add_int16_index_": lambda d: torch.zeros(3, device=d).index_add_(0, T([0, 1], torch.int16, d), torch.ones(2, device=d)),
    "index_add_int32_index": lambda d: torch.index_add(torch.zeros(3, device=d), 0, T([0, 2], torch.int32, d), torch.ones(2, device=d)),
    "index_put_0dim_value_other_dtype": lambda d: torch.zeros(3, device=d).index_put_((T([0], L, d),), T(1.0, F64, d)),
    "index_put_value_other_dtype": lambda d: torch.zeros(3, device=d).index_put_((T([0], L, d),), T([1.0], F64, d)),
    "index_put_mask_0dim_value": lambda d: torch.zeros(3, device=d).index_put_((T([True, False, True], torch.bool, d),),
                                                                             T(2, L, d)),
    "setitem_0dim_value_other_dtype": lambda d: torch.zeros(3, device=d).__setitem__(T([1], L, d), T(1.5, F64, d)),
    "index_int16_indices": lambda d: torch.zeros(3, device=d)[T([0, 2], torch.int16, d)],
    "index_put_int8_indices": lambda d: torch.index_put(torch.zeros(3, device=d), (T([0], I8, d),), T(1.0, F32, d)),
    "index_int32_indices": lambda d: torch.arange(3.0, device=d)[T([0, 2], torch.int32, d)],
    "scatter_add_src_dtype_empty_index": lambda d: torch.scatter_add(torch.zeros(0, 3, dtype=torch.int32, device=d), 0,
                                                                     torch.zeros(0, 2, dtype=L, device=d),
                                                                     torch.zeros(0, 2, dtype=F64, device=d)),
    "index_fill_complex64_1e300": lambda d: torch.index_fill(torch.zeros(3, dtype=torch.complex64, device=d), 0,
                                                             T([0], L, d), 1e300),
    "fill_complex64_1e300": lambda d: torch.zeros(3, dtype=torch.complex64, device=d).fill_(1e300),
    "fill_complex64_inf_converts": lambda d: torch.zeros(3, dtype=torch.complex64, device=d).fill_(float("inf")),
    "dot_mixed": lambda d: torch.dot(torch.ones(3, device=d), torch.ones(3, dtype=F64, device=d)),
    "vdot_mixed": lambda d: torch.vdot(torch.ones(3, device=d), torch.ones(3, dtype=L, device=d)),
    "vdot_complex_mixed": lambda d: torch.vdot(torch.ones(3, dtype=torch.complex64, device=d), torch.ones(3, dtype=torch.bfloat16, device=d)),
    "vdot_complex": lambda d: torch.vdot(T([1 + 2j, 3], torch.complex64, d), T([2, 1j], torch.complex64, d)),
    # compiles and matches (uint8 pow), or refuses as CPU does
    "uint8_pow_int": lambda d: T([2, 3, 17], U8, d) ** 2,
    "uint8_pow_uint8": lambda d: T([2, 3, 17], U8, d) ** T([2, 9, 3], U8, d),
    "int_pow_uint8_exponent": lambda d: 3 ** T([2, 3, 5], U8, d),
    "int64_pow_beyond_64": lambda d: T([0, 1, 2, 3, -1, -3, 7], L, d) ** 65,
    "int64_pow_beyond_int32": lambda d: T([0, 1, 2, 3, -1, -3, 7], L, d) ** (2**40 + 3),
    "int64_pow_int64_max": lambda d: T([0, 1, 2, 3, -1, -3, 7], L, d) ** (2**63 - 1),
    "int32_pow_tensor_exponents": lambda d: T([3, 5, -3, 2, 7], torch.int32, d) ** T([64, 65, 100, 31, 2**31 - 1], torch.int32, d),
    "int8_pow_127": lambda d: T([3, -3, 2, 5], I8, d) ** 127,
    "bool_pow_2_31": lambda d: T([True, False], torch.bool, d) ** (2**31),
    "vector_norm_dtype_long": lambda d: torch.linalg.vector_norm(T([3.0, 4.0], F32, d), dtype=L),
    "vector_norm_dtype_narrowing": lambda d: torch.linalg.vector_norm(T([3.0, 4.0], F64, d), dtype=F32),
    "vector_norm_dtype_widening": lambda d: torch.linalg.vector_norm(T([3.0, 4.0], F32, d), dtype=F64),
    "hypot_long": lambda d: torch.hypot(T([3], L, d), T([4], L, d)),
    "hypot_long_float": lambda d: torch.hypot(T([3], L, d), T([4.0], F32, d)),
    "logaddexp_long": lambda d: torch.logaddexp(T([3], L, d), T([4], L, d)),
    "logaddexp2_int8": lambda d: torch.logaddexp2(T([3], I8, d), T([4], I8, d)),
    "nansum_float_out_long": lambda d: torch.nansum(T([1.5, 2.0], F32, d), out=torch.empty((), dtype=L, device=d)),
    # integer division by zero: a number divisor raises at the op
    "remainder_by_number_zero": lambda d: torch.remainder(T([5, -3], L, d), 0),
    "fmod_by_number_zero": lambda d: torch.fmod(T([5, -3], L, d), 0),
    "floor_divide_by_number_zero": lambda d: T([5, -3], L, d) // 0,
    "div_trunc_by_host_zero": lambda d: torch.div(T([5, -3], L, d), torch.tensor(0), rounding_mode="trunc"),
    "float_floor_div_by_zero_computes": lambda d: torch.div(T([5.0, -3.0], F32, d), 0.0, rounding_mode="floor"),
    "int_floor_div_nonzero": lambda d: T([5, -3, 7], L, d) // T([2, 2, -3], L, d),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_cpu(case):
    same_as_cpu(CASES[case])


def _zero_divisor(d, dtype=L):
    return T([0, 2], dtype, d)


# a tensor divisor with a zero element: a device-side check, read at the next synchronization point
ZERO_DIV = {
    "floor_divide": lambda d, t: T([5, 3], t, d) // _zero_divisor(d, t),
    "div_trunc": lambda d, t: torch.div(T([5, 3], t, d), _zero_divisor(d, t), rounding_mode="trunc"),
    "div_floor": lambda d, t: torch.div(T([5, 3], t, d), _zero_divisor(d, t), rounding_mode="floor"),
    "remainder": lambda d, t: T([5, 3], t, d) % _zero_divisor(d, t),
    "fmod": lambda d, t: torch.fmod(T([5, 3], t, d), _zero_divisor(d, t)),
    "remainder_scalar_tensor": lambda d, t: torch.remainder(5, _zero_divisor(d, t)),
    "floor_divide_": lambda d, t: T([5, 3], t, d).floor_divide_(_zero_divisor(d, t)),
    "broadcast_0dim_divisor": lambda d, t: T([5, 3], t, d) // T(0, t, d),
}


@pytest.mark.parametrize("dtype", [L, torch.int32, U8], ids=str)
@pytest.mark.parametrize("case", sorted(ZERO_DIV))
def test_integer_division_by_zero_raises_at_sync(case, dtype):
    with pytest.raises(RuntimeError, match="^ZeroDivisionError"):
        ZERO_DIV[case]("cpu", dtype)
    r = ZERO_DIV[case]("tpu", dtype)  # the launch does not wait; the check's flag is read at the sync
    with pytest.raises(RuntimeError, match=r"^ZeroDivisionError \(aten::.*raised asynchronously"):
        r.cpu()


def _m(d):
    return T([True, False, True], torch.bool, d)


# a device 0-dim value tensor of masked_fill/index_fill: CPU's value.item() is a checked conversion
VALUE_FITS = {
    "masked_fill_int8_1000": lambda d: torch.zeros(3, dtype=I8, device=d).masked_fill(_m(d), T(1000, L, d)),
    "masked_fill__int8_minus_129": lambda d: torch.full((3,), 5, dtype=I8, device=d).masked_fill_(_m(d), T(-129, L, d)),
    "masked_fill_int8_nan": lambda d: torch.zeros(3, dtype=I8, device=d).masked_fill(_m(d), T(float("nan"), F32, d)),
    "masked_fill_float_1e300": lambda d: torch.zeros(3, device=d).masked_fill(_m(d), T(1e300, F64, d)),
    "masked_fill_float_complex_value": lambda d: torch.zeros(3, device=d).masked_fill(_m(d), T(1 + 2j, torch.complex64, d)),
    "index_fill_int8_1000": lambda d: torch.zeros(3, dtype=I8, device=d).index_fill(0, T([0], L, d), T(1000, L, d)),
}
VALUE_FITS_OK = {
    "masked_fill_int8_100": lambda d: torch.zeros(3, dtype=I8, device=d).masked_fill(_m(d), T(100, L, d)),
    "masked_fill_int8_float_value": lambda d: torch.zeros(3, dtype=I8, device=d).masked_fill(_m(d), T(3.5, F32, d)),
    "masked_fill_float_inf_value": lambda d: torch.zeros(3, device=d).masked_fill(_m(d), T(float("inf"), F64, d)),
    "masked_fill_float_real_complex": lambda d: torch.zeros(3, device=d).masked_fill(_m(d), T(1 + 0j, torch.complex64, d)),
}


@pytest.mark.parametrize("case", sorted(VALUE_FITS))
def test_device_value_overflow_raises_at_sync(case):
    with pytest.raises(RuntimeError, match="^value cannot be converted to type"):
        VALUE_FITS[case]("cpu")
    cpu_msg = None
    try:
        VALUE_FITS[case]("cpu")
    except RuntimeError as e:
        cpu_msg = str(e)
    r = VALUE_FITS[case]("tpu")
    with pytest.raises(RuntimeError, match="raised asynchronously") as info:
        r.cpu()
    assert cpu_msg in str(info.value)


@pytest.mark.parametrize("case", sorted(VALUE_FITS_OK))
def test_device_value_that_fits_matches_cpu(case):
    same_as_cpu(VALUE_FITS_OK[case])


def test_integer_division_by_zero_raises_at_the_op_in_debug_mode():
    with torch.tpu.eager_mode("debug"):
        with pytest.raises(RuntimeError, match=r"^ZeroDivisionError \(aten::floor_divide: integer division by zero, "
                                               r"1 zero divisor\(s\); debug mode\)"):
            T([5, -3, 4], L, "tpu") // T([0, 1, 2], L, "tpu")


@pytest.mark.parametrize("mode", ["strict", "defer_and_fuse"])
def test_zero_division_error_raised_once_then_cleared(mode):
    with torch.tpu.eager_mode(mode):
        r = T([5, -3], L, "tpu") % _zero_divisor("tpu")
        with pytest.raises(RuntimeError, match="^ZeroDivisionError"):
            torch.tpu.synchronize()
        # later ops run normally
        assert (T([5, -3], L, "tpu") // T([2, 2], L, "tpu")).cpu().tolist() == [2, -2]
        del r


_DISPATCH_REFUSALS = {
    # CPU's AT_DISPATCH refusals ('"abs_cpu" not implemented for 'Bool'') are NotImplementedError
    "abs_bool": lambda d: torch.abs(torch.tensor([True, False], device=d)),
    "ceil_bool": lambda d: torch.ceil(torch.tensor([True], device=d)),
    "pow_bool": lambda d: torch.pow(torch.tensor([True], device=d), torch.tensor([True], device=d)),
    "clamp_bool": lambda d: torch.clamp(torch.tensor([True], device=d), min=True),
    "bitwise_not_half": lambda d: torch.bitwise_not(torch.ones(2, dtype=torch.half, device=d)),
    "bitwise_and_float": lambda d: torch.bitwise_and(torch.ones(2, device=d), 1),
    "fmod_bool": lambda d: torch.fmod(torch.tensor([True], device=d), torch.tensor([True], device=d)),
    "lerp_int": lambda d: torch.lerp(torch.tensor([1, 2], device=d), torch.tensor([1, 2], device=d), 0.5),
    "frac_int": lambda d: torch.frac(torch.tensor([1, 2], device=d)),
    "col2im_long": lambda d: torch.nn.functional.fold(torch.ones(1, 4, 4, dtype=torch.long, device=d), (3, 3), 2),
    "cumsum_bool_out": lambda d: torch.cumsum(torch.tensor([True], device=d), 0,
                                              out=torch.empty(1, dtype=torch.bool, device=d)),
    "nansum_long_out": lambda d: torch.nansum(torch.ones(2, device=d), out=torch.empty((), dtype=torch.long, device=d)),
    "reflection_pad_bool": lambda d: torch.nn.functional.pad(torch.ones(1, 1, 2, dtype=torch.bool, device=d), (1, 1),
                                                             mode="reflect"),
    "adaptive_avg_long": lambda d: torch.nn.functional.adaptive_avg_pool2d(torch.ones(1, 1, 4, 4, dtype=torch.long,
                                                                                      device=d), 2),
    "logcumsumexp_long": lambda d: torch.logcumsumexp(torch.tensor([1, 2], device=d), 0),
    "median_bool": lambda d: torch.median(torch.tensor([True, False], device=d), 0),
    "gelu_long": lambda d: torch.nn.functional.gelu(torch.tensor([1, 2], device=d)),
    "ctc_long": lambda d: torch.nn.functional.ctc_loss(torch.ones(3, 1, 4, dtype=torch.long, device=d),
                                                       torch.tensor([[1]], device=d), torch.tensor([3]), torch.tensor([1])),
}


@pytest.mark.parametrize("case", sorted(_DISPATCH_REFUSALS))
def test_dispatch_refusals_are_not_implemented_errors_like_cpu(case):
    same_as_cpu(_DISPATCH_REFUSALS[case])


@pytest.mark.parametrize("op", ["median", "nanmedian"])
@pytest.mark.parametrize("dim", [None, 0])
def test_median_of_bool_refused_with_cpus_name(op, dim):
    same_as_cpu(lambda d: getattr(torch, op)(torch.tensor([True, False], device=d), *(() if dim is None else (dim,))))


@pytest.mark.parametrize("case", ["topk_big", "topk_neg", "topk_0d", "kth_big", "kth_zero"])
def test_k_out_of_range_is_a_runtime_error_like_cpu(case):
    f = {"topk_big": lambda d: torch.topk(torch.ones(3, device=d), 5),
         "topk_neg": lambda d: torch.topk(torch.ones(3, device=d), -1),
         "topk_0d": lambda d: torch.topk(torch.ones((), device=d), 2),
         "kth_big": lambda d: torch.kthvalue(torch.ones(3, device=d), 5),
         "kth_zero": lambda d: torch.kthvalue(torch.ones(3, device=d), 0)}[case]
    same_as_cpu(f)


@pytest.mark.parametrize("case", [((0, 3), 1, 0), ((0, 3), 1, -2), ((0, 3), 2, 0), ((3, 0), 1, 1), ((0, 3), 1, 1),
                                  ((2, 3), 4, 1)])
def test_kthvalue_of_an_empty_dim_is_an_index_error_like_cpu(case):
    # fuzz 51:40: CPU's zero_numel_check_dims (IndexError) comes before k's range check (RuntimeError)
    shape, k, dim = case
    same_as_cpu(lambda d: tuple(torch.kthvalue(torch.zeros(shape, device=d), k, dim)))


@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("dim", [None, (), 0, 1, (0, 1)])
def test_amax_of_an_empty_input_needs_a_dim_like_cpu(op, dim):
    # fuzz 51:651: amin(empty) with no dim is CPU's RuntimeError "Expected reduction dim to be specified"
    def f(d):
        x = torch.zeros(0, 3, device=d)
        return getattr(torch, op)(x) if dim is None else getattr(torch, op)(x, dim)
    same_as_cpu(f)


@pytest.mark.parametrize("form", ["index_fill", "index_fill_", "tensor_value", "int64"])
def test_index_fill_index_dtype_is_an_index_error_like_cpu(form):
    # fuzz 52:50: index_fill_ with an int32 index is CPU's IndexError "Expected dtype int64 for index."
    def f(d):
        x = torch.zeros(3, 2, device=d)
        i = torch.tensor([1], dtype=torch.int64 if form == "int64" else torch.int32, device=d)
        return {"index_fill": lambda: x.index_fill(0, i, 1.0), "index_fill_": lambda: x.index_fill_(1, i, -2.0),
                "tensor_value": lambda: x.index_fill(0, i, torch.tensor(3.0, device=d)),
                "int64": lambda: x.index_fill(0, i, 5)}[form]()
    same_as_cpu(f)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_argmax_of_an_empty_input_is_an_index_error_like_cpu(op, keepdim):
    # fuzz 60:125: argmin(empty) without dim is CPU's IndexError (TORCH_CHECK_INDEX); tpu raised RuntimeError
    same_as_cpu(lambda d: getattr(torch, op)(torch.zeros(0, 3, device=d), keepdim=keepdim))


def _sync(t):
    t.cpu()  # raises a deferred index check here, as CPU raises at the op
    return t


@pytest.mark.parametrize("case", ["matrix_dim0_neg", "matrix_dim1_big", "matrix_int32", "vector_neg", "vector_big",
                                  "transposed_neg", "in_range", "3d_middle_dim", "3d_last_dim", "3d_first_dim"])
def test_index_add_out_of_range_error_type_like_cpu(case):
    # fuzz 51:387: CPU adds into a matrix by an int64 index through scatter_add (RuntimeError
    # "index -2 is out of bounds for dimension 0 with size 2"); tpu raised IndexError
    def f(d):
        x, y, L32 = torch.zeros(4, 3, device=d), torch.zeros(1, 4, 1, device=d), torch.int32
        i = lambda v, dt=torch.int64: torch.tensor(v, dtype=dt, device=d)  # noqa: E731
        return _sync({"matrix_dim0_neg": lambda: x.index_add(0, i([-1]), torch.ones(1, 3, device=d)),
                      "matrix_dim1_big": lambda: x.index_add(1, i([3]), torch.ones(4, 1, device=d)),
                      "matrix_int32": lambda: x.index_add(0, i([9], L32), torch.ones(1, 3, device=d)),
                      "vector_neg": lambda: x[:, 0].index_add(0, i([-1]), torch.ones(1, device=d)),
                      "vector_big": lambda: x[:, 0].index_add(0, i([4]), torch.ones(1, device=d)),
                      "transposed_neg": lambda: x.t().index_add(0, i([-1]), torch.ones(1, 4, device=d)),
                      "in_range": lambda: x.index_add(1, i([2, 0]), torch.ones(4, 2, device=d)),
                      # fuzz 52:1212: the middle dim of a 3-d self takes the IndexError path
                      "3d_middle_dim": lambda: y.index_add(1, i([-1]), torch.ones(1, 1, 1, device=d)),
                      "3d_last_dim": lambda: y.index_add(2, i([-1]), torch.ones(1, 4, 1, device=d)),
                      "3d_first_dim": lambda: y.index_add(0, i([1]), torch.ones(1, 4, 1, device=d))}[case]())
    same_as_cpu(f)


@pytest.mark.parametrize("case", ["dim0_neg", "dim1_neg", "dim1_big", "dim_neg1_of_3d", "dim1_of_3d", "vector_neg",
                                  "int32_dim1", "empty_self_dim", "empty_other_dim", "in_range"])
def test_index_select_out_of_range_error_type_like_cpu(case):
    # fuzz 51:1494: CPU's dim-1 fast path raises RuntimeError "INDICES element is out of DATA
    # bounds, id=-3 axis_dim=3"; tpu raised IndexError "index out of range in self"
    def f(d):
        x, y = torch.zeros(4, 3, device=d), torch.zeros(2, 3, 5, device=d)
        i = lambda v, dt=torch.int64: torch.tensor(v, dtype=dt, device=d)  # noqa: E731
        return _sync({"dim0_neg": lambda: x.index_select(0, i([-1])), "dim1_neg": lambda: x.index_select(1, i([-1])),
                      "dim1_big": lambda: x.index_select(-1, i([0, 3])),
                      "dim_neg1_of_3d": lambda: y.index_select(-1, i([5])),
                      "dim1_of_3d": lambda: y.index_select(1, i([-3])),
                      "vector_neg": lambda: x[0].index_select(0, i([-1])),
                      "int32_dim1": lambda: x.index_select(1, i([7], torch.int32)),
                      "empty_self_dim": lambda: torch.zeros(4, 0, device=d).index_select(1, i([0])),
                      "empty_other_dim": lambda: torch.zeros(0, 3, device=d).index_select(1, i([5])),
                      "in_range": lambda: y.index_select(1, i([2, 0]))}[case]())
    same_as_cpu(f)


# In-place bitwise ops and shifts whose computation type is float: CPU's
# TensorIterator refuses the cast into self ("result type Float can't be cast
# to the desired output type Int", RuntimeError) before any kernel is chosen;
# the out-of-place forms (and a float self) get the kernel's NotImplementedError.
INPLACE_BITWISE = {
    "bitwise_and_": lambda a, b: a.bitwise_and_(b),
    "bitwise_or_scalar": lambda a, b: a.bitwise_or_(1.5),
    "bitwise_xor_": lambda a, b: a.bitwise_xor_(b),
    "iand": lambda a, b: a.__iand__(b),
    "bitwise_left_shift_": lambda a, b: a.bitwise_left_shift_(b),
    "ilshift": lambda a, b: a.__ilshift__(b),
    "irshift_scalar": lambda a, b: a.__irshift__(2.5),
    "bitwise_and_out_of_place": lambda a, b: a.bitwise_and(b),
    "float_self_bitwise_and_": lambda a, b: b.bitwise_and_(a),
    "float_self_lshift_": lambda a, b: b.bitwise_left_shift_(a),
}


@pytest.mark.parametrize("case", sorted(INPLACE_BITWISE))
@pytest.mark.parametrize("dtype", [torch.int32, torch.uint8, torch.bool])
def test_inplace_bitwise_with_a_float_operand_is_refused_like_cpu(case, dtype):
    fn = INPLACE_BITWISE[case]
    same_as_cpu(lambda d: fn(torch.ones(3, dtype=dtype, device=d), torch.full((3,), 1.5, device=d)))


C64, C128 = torch.complex64, torch.complex128
COMPLEX_REFUSALS = {
    "nansum": lambda d: torch.nansum(T([1 + 2j, 3], C64, d)),
    "nansum_dim": lambda d: torch.nansum(T([[1 + 2j, 3]], C128, d), dim=1, keepdim=True),
    "nansum_dim_out_of_range_first": lambda d: torch.nansum(T([[1 + 2j, 3]], C64, d), dim=5),
    "nansum_empty": lambda d: torch.nansum(T([], C64, d)),
    "nansum_out_int": lambda d: torch.nansum(T([1 + 2j], C64, d), out=torch.empty(0, dtype=torch.int32, device=d)),
    "nansum_float_into_complex_dtype": lambda d: torch.nansum(T([1.0, float("nan")], F32, d), dtype=C64),
    "nansum_float_still_computes": lambda d: torch.nansum(T([1.0, float("nan")], F32, d)),
    "nanmean": lambda d: torch.nanmean(T([1 + 2j, 3], C128, d)),
    "nanmean_complex_dtype": lambda d: torch.nanmean(T([1.0, 2.0], F64, d), dtype=C128),
    "isposinf": lambda d: torch.isposinf(T([1 + 2j], C64, d)),
    "isposinf_out_float": lambda d: torch.isposinf(T([1 + 2j], C64, d), out=torch.empty(1, device=d)),
    "isneginf": lambda d: torch.isneginf(T([1 + 2j], C128, d)),
    "deg2rad": lambda d: torch.deg2rad(T([1 + 2j], C64, d)),
    "deg2rad_": lambda d: T([1 + 2j], C64, d).deg2rad_(),
    "deg2rad_out_int": lambda d: torch.deg2rad(T([1 + 2j], C64, d), out=torch.empty(1, dtype=torch.int32, device=d)),
    "rad2deg": lambda d: torch.rad2deg(T([1 + 2j], C128, d)),
    "rad2deg_": lambda d: T([1 + 2j], C128, d).rad2deg_(),
    "deg2rad_real_into_complex_out": lambda d: torch.deg2rad(T([90.0], F32, d), out=torch.empty(1, dtype=C64, device=d)),
}


@pytest.mark.parametrize("case", sorted(COMPLEX_REFUSALS))
def test_complex_input_refused_with_cpus_error(case):
    # fuzz seeds 81-95: ~90 exception-type mismatches; CPU raises RuntimeError('nansum on CPU does not
    # support complex inputs', 'isposinf does not support complex inputs.', 'deg2rad is not supported
    # for complex tensors.'), tpu raised NotImplementedError ('complex dtype ... not supported on TPU yet')
    same_as_cpu(COMPLEX_REFUSALS[case])


def _ones(shape, dtype, d):
    return torch.ones(shape, dtype=dtype, device=d)


BROADCAST_FIRST = {
    "bitwise_xor_complex": lambda d: torch.bitwise_xor(_ones((2, 5), C64, d), _ones((2, 3), C64, d)),
    "hypot_int8": lambda d: torch.hypot(_ones((2, 5), I8, d), _ones((2, 3), I8, d)),
    "hypot_int8_broadcasting": lambda d: torch.hypot(_ones((2, 5), I8, d), _ones((1, 5), I8, d)),
    "atan2_complex_rightmost_dim": lambda d: torch.atan2(_ones((4, 2, 5), C64, d), _ones((3, 1, 7), C64, d)),
    "addcmul_complex_third": lambda d: torch.addcmul(_ones((3, 5), C128, d), _ones((3, 5), C128, d), _ones((3, 4), C128, d)),
    "lerp_int32": lambda d: torch.lerp(_ones(5, torch.int32, d), _ones(4, torch.int32, d), 0.5),
    "logical_and_complex_empty": lambda d: torch.logical_and(_ones(3, C64, d), _ones(0, C64, d)),
    "left_shift_bool": lambda d: torch.bitwise_left_shift(_ones(5, torch.bool, d), _ones(4, torch.bool, d)),
    "clamp_complex_checked_first": lambda d: torch.clamp(_ones(5, C64, d), _ones(4, C64, d)),
    "fmax_complex_checked_first": lambda d: torch.fmax(_ones(5, C64, d), _ones(4, C64, d)),
}


@pytest.mark.parametrize("case", sorted(BROADCAST_FIRST))
def test_pointwise_shape_error_before_dtype_refusal_like_cpu(case):
    # fuzz seeds 81-95: ~55 exception-type mismatches; CPU's TensorIterator broadcasts the operands
    # before its kernel refuses their dtype ('The size of tensor a (5) must match the size of tensor
    # b (3) at non-singleton dimension 1'); tpu raised its dtype refusal (NotImplementedError). clamp
    # and fmax check complex values before broadcasting, on both
    same_as_cpu(BROADCAST_FIRST[case])


DIMS_FIRST = {
    "cummin_complex_dim": lambda d: torch.cummin(_ones((2, 3), C64, d), 3),
    "cummax_complex_dim": lambda d: torch.cummax(_ones((2, 3), C128, d), -3),
    "cummin_complex_in_range": lambda d: torch.cummin(_ones((2, 3), C64, d), 1),
    "median_bool_dim": lambda d: torch.median(_ones((2, 3), torch.bool, d), 4),
    "kthvalue_complex_dim": lambda d: torch.kthvalue(_ones((2, 3), C64, d), 1, dim=2),
    "clamp_complex_checked_first": lambda d: torch.clamp(_ones((2, 3), C64, d), 0, 1),
}


@pytest.mark.parametrize("case", sorted(DIMS_FIRST))
def test_dim_error_before_dtype_refusal_like_cpu(case):
    # fuzz seeds 81-95: ~20 exception-type mismatches; CPU checks dims before its kernel refuses the
    # dtype (cummin(complex, dim=3): IndexError 'Dimension out of range'); tpu raised the refusal
    # (NotImplementedError '"cummin_cpu" not implemented for ...')
    same_as_cpu(DIMS_FIRST[case])


CAST_FIRST = {
    "fmod_int16_complex_number": lambda d: _ones(3, torch.int16, d).fmod_(1j),
    "left_shift_int64_complex_number": lambda d: _ones(3, L, d).bitwise_left_shift_(2 + 1j),
    "fmod_float64_complex128_tensor": lambda d: _ones(3, F64, d).fmod_(_ones(3, C128, d)),
    "div_bool_complex_tensor": lambda d: _ones(3, torch.bool, d).div_(_ones(3, C64, d), rounding_mode="floor"),
    "floor_divide_uint8_complex": lambda d: _ones(3, U8, d).floor_divide_(_ones(1, C64, d)),
    "floor_divide_half_complex_number": lambda d: _ones(3, F16, d).floor_divide_(1j),
    "bitwise_or_uint8_complex": lambda d: _ones(3, U8, d).bitwise_or_(_ones(3, C64, d)),
    "shapes_still_first": lambda d: _ones(3, F32, d).floor_divide_(_ones(4, C64, d)),
    "complex_self_refused": lambda d: _ones(3, C64, d).fmod_(_ones(3, C64, d)),
    "shapes_mismatch_int8_hypot_": lambda d: _ones((2, 3), I8, d).hypot_(_ones((2, 4), I8, d)),
    "broadcast_shape_not_self_hypot_": lambda d: _ones(3, I8, d).hypot_(_ones((2, 3), I8, d)),
    "broadcast_into_self_still_refused": lambda d: _ones((2, 3), I8, d).hypot_(_ones(3, I8, d)),
}


@pytest.mark.parametrize("case", sorted(CAST_FIRST))
def test_inplace_iterator_checks_before_dtype_refusal_like_cpu(case):
    # fuzz seeds 81-95: ~25 exception-type mismatches; CPU broadcasts an in-place op's operands, checks
    # the shape is self's and casts a complex result into a real self ("result type ComplexFloat can't
    # be cast to the desired output type Short", RuntimeError) before its kernel runs; tpu raised the
    # dtype refusal (NotImplementedError)
    same_as_cpu(CAST_FIRST[case])


def _empty_c(shape, d, dtype=C64):
    return torch.zeros(shape, dtype=dtype, device=d)


EMPTY_FIRST = {
    "amin_dim": lambda d: torch.amin(_empty_c((0, 3), d, C128), 0),
    "amax_negative_dim_as_given": lambda d: torch.amax(_empty_c((0, 3), d), -2, keepdim=True),
    "amin_dims_second_empty": lambda d: torch.amin(_empty_c((2, 0, 3), d), (0, 1)),
    "amax_no_dim": lambda d: torch.amax(_empty_c((0, 3), d)),
    "amin_out_of_range_dim": lambda d: torch.amin(_empty_c((0, 3), d), 5),
    "max_dim": lambda d: torch.max(_empty_c((0, 3), d), 0),
    "min_dim_negative": lambda d: torch.min(_empty_c((2, 0, 3), d), -2, keepdim=True),
    "max_dim_nonempty_still_refused": lambda d: torch.max(_empty_c((0, 3), d), 1),
    "max_all": lambda d: torch.max(_empty_c((0, 3), d, C128)),
    "min_all": lambda d: torch.min(_empty_c((3, 0), d)),
    "kthvalue_dim": lambda d: torch.kthvalue(_empty_c((0, 3), d), 1, 0),
    "kthvalue_default_dim": lambda d: torch.kthvalue(_empty_c((3, 0), d), 1),
    "kthvalue_nonempty_dim_still_refused": lambda d: torch.kthvalue(_empty_c((0, 3), d), 2, 1),
    "median_dim": lambda d: torch.median(_empty_c((0, 3), d), -2),
    "nanmedian_dim": lambda d: torch.nanmedian(_empty_c((0, 3), d, C128), 0),
    "mode_dim": lambda d: torch.mode(_empty_c((0, 3), d), 0),
    "mode_nonempty": lambda d: torch.mode(_ones((2, 3), C64, d), 1),
    "aminmax_dim": lambda d: torch.aminmax(_empty_c((0, 3), d), dim=0),
    "aminmax_all": lambda d: torch.aminmax(_empty_c((0, 3), d)),
    "aminmax_nonempty_dim_still_refused": lambda d: torch.aminmax(_empty_c((0, 3), d), dim=1),
    "zero_dim_refused": lambda d: torch.max(_empty_c((), d), 0),
}


@pytest.mark.parametrize("case", sorted(EMPTY_FIRST))
def test_empty_reduction_dim_before_complex_refusal_like_cpu(case):
    # fuzz seeds 101-108: ~15 exception-type mismatches; CPU checks a reduction's empty dims before
    # its kernel refuses a complex input (amin(complex (0, 3), 0): IndexError 'amin(): Expected
    # reduction dim 0 to have non-zero size.'); tpu raised the refusal ('"min_values_cpu" not
    # implemented for ...'); mode's refusal is now CPU's dispatch refusal too
    same_as_cpu(EMPTY_FIRST[case])


def _zc(d):
    return torch.tensor([1 + 2j, -3 + 0.5j], device=d)


COMPLEX_OUT_FIRST = {
    "clamp_scalar": lambda d, o: torch.clamp(_zc(d), None, 0.5, out=o),
    "clamp_tensor": lambda d, o: torch.clamp(_zc(d), _zc(d), out=o),
    "clamp_max": lambda d, o: torch.clamp_max(_zc(d), 1.0, out=o),
    "clamp_min": lambda d, o: torch.clamp_min(_zc(d), 1.0, out=o),
    "clamp_max_tensor_cast_first": lambda d, o: torch.clamp_max(_zc(d), _zc(d), out=o),  # minimum_cpu's dispatch: after
    "hardtanh": lambda d, o: torch._C._nn.hardtanh(_zc(d), out=o),
    "floor": lambda d, o: torch.floor(_zc(d), out=o),
    "ceil": lambda d, o: torch.ceil(_zc(d), out=o),
    "trunc": lambda d, o: torch.trunc(_zc(d), out=o),
    "real_input_still_computes": lambda d, o: torch.clamp(_zc(d).real, -1.0, 0.5, out=o),
}


@pytest.mark.parametrize("out_dtype", [F32, torch.int16, C128, torch.bool])
@pytest.mark.parametrize("case", sorted(COMPLEX_OUT_FIRST))
def test_complex_refusal_before_out_dtype_like_cpu(case, out_dtype):
    # fuzz 105:110, 101:36: clamp(complex, out=float32) raises NotImplementedError 'clamp is not
    # supported for complex types' on CPU (its meta function checks before out's dtype); tpu raised
    # the out= dtype rule's RuntimeError 'Found dtype Float but expected ComplexFloat'
    same_as_cpu(lambda d: COMPLEX_OUT_FIRST[case](d, torch.empty(0, dtype=out_dtype, device=d)))


SHAPES_FIRST = {
    "lerp_int8_weight_mismatch": lambda d: _ones((3, 1), I8, d).lerp_(_ones((3, 1), I8, d), _ones((4, 5), I8, d)),
    "lerp_int64_end_mismatch": lambda d: _ones(3, L, d).lerp_(_ones(33, L, d), 0.5),
    "lerp_int16_broadcast_not_self": lambda d: _ones(3, torch.int16, d).lerp_(_ones((2, 3), torch.int16, d), 0.5),
    "lerp_int32_tensor_weight_refused": lambda d: _ones(3, torch.int32, d).lerp_(_ones(3, torch.int32, d), _ones(3, torch.int32, d)),
    "lerp_int32_scalar_weight_refused": lambda d: torch.lerp(_ones(3, torch.int32, d), _ones(3, torch.int32, d), 0.5),
    "lerp_functional_tensor_weight_refused": lambda d: torch.lerp(_ones(3, I8, d), _ones(3, I8, d), _ones(1, I8, d)),
    "addcdiv_complex_mismatch": lambda d: _ones(257, C64, d).addcdiv_(_ones((0, 3), C64, d), _ones(257, C64, d)),
    "addcmul_complex_second_mismatch": lambda d: _ones((3, 5), C128, d).addcmul_(_ones(5, C128, d), _ones(17, C128, d)),
    "addcmul_complex_broadcast_not_self": lambda d: _ones(5, C64, d).addcmul_(_ones((2, 5), C64, d), _ones(5, C64, d)),
    "lerp_complex_mismatch": lambda d: _ones(5, C128, d).lerp_(_ones(17, C128, d), 0.5),
}


@pytest.mark.parametrize("case", sorted(SHAPES_FIRST))
def test_inplace_ternary_shapes_before_dtype_refusal_like_cpu(case):
    # fuzz 104:4, 106:724, 107:808 (lerp_ of integers), 105:1472, 106:1246 (addcdiv_ of complex):
    # CPU's iterator raises the size error ('The size of tensor a (3) must match the size of tensor b
    # (4) at non-singleton dimension 0') before lerp's kernel refuses integers or tpu refuses complex
    # values; lerp with a tensor weight is refused by CPU's lerp_kernel_tensor, not lerp_kernel_scalar
    same_as_cpu(SHAPES_FIRST[case])


def _b(shape, d):
    return torch.ones(shape, dtype=torch.bool, device=d)


PRODUCT_SHAPES_FIRST = {
    "mm": lambda d: torch.mm(_b((1, 5), d), _b((6, 7), d)),
    "matmul": lambda d: torch.matmul(_b((3, 1), d), _b((2, 7), d)),
    "addmm": lambda d: torch.addmm(_b((2, 2), d), _b((2, 3), d), _b((4, 2), d)),
    "bmm": lambda d: torch.bmm(_b((2, 0, 0), d), _b((2, 1, 7), d)),
    "bmm_batches": lambda d: torch.bmm(_b((2, 1, 3), d), _b((3, 3, 7), d)),
    "bmm_batches_float": lambda d: torch.bmm(_ones((2, 2, 3), F32, d), _ones((3, 3, 2), F32, d)),
    "baddbmm": lambda d: torch.baddbmm(_b((1, 1, 1), d), _b((1, 1, 1), d), _b((1, 2, 1), d)),
    "addbmm_batches": lambda d: torch.addbmm(_b((2, 2), d), _b((2, 2, 3), d), _b((3, 3, 2), d)),
    "addbmm_sizes": lambda d: torch.addbmm(_ones((2, 2), F32, d), _ones((2, 2, 3), F32, d), _ones((2, 4, 2), F32, d)),
    "mv": lambda d: torch.mv(_b((2, 3), d), _b(4, d)),
    "addmv": lambda d: torch.addmv(_b(2, d), _b((2, 3), d), _b(4, d)),
    "mm_shapes_fit_refused": lambda d: torch.mm(_b((2, 3), d), _b((3, 2), d)),
    "bmm_shapes_fit_refused": lambda d: torch.bmm(_b((2, 2, 3), d), _b((2, 3, 2), d)),
    "mv_shapes_fit_refused": lambda d: torch.mv(_b((2, 3), d), _b(3, d)),
}


@pytest.mark.parametrize("case", sorted(PRODUCT_SHAPES_FIRST))
def test_bool_products_check_shapes_before_refusal_like_cpu(case):
    # fuzz 106:1122, 105:520, 104:1486, 108:1463: CPU's meta functions check a product's shapes
    # before its kernel refuses Bool ('mat1 and mat2 shapes cannot be multiplied (1x5 and 6x7)');
    # tpu raised the refusal ('"addmm_impl_cpu_" not implemented for 'Bool''). bmm's batch
    # mismatch is CPU's 'Expected size for first two dimensions of batch2 ...' (addbmm keeps its own)
    same_as_cpu(PRODUCT_SHAPES_FIRST[case])


ALLANY_OUT_FIRST = {
    "all_int32_out_bad_dim": lambda d: torch.all(_ones((0, 3), torch.int32, d), dim=3,
                                                 out=torch.empty(0, dtype=torch.int32, device=d)),
    "any_float_out_bad_dims": lambda d: torch.any(_ones((0, 3), torch.int32, d), dim=(0, 5),
                                                  out=torch.empty(0, dtype=F32, device=d)),
    "any_int64_out_bad_dim": lambda d: torch.any(_ones(2, F32, d), dim=3, out=torch.empty(0, dtype=L, device=d)),
    "all_uint8_out_bad_dim_index_error": lambda d: torch.all(_ones((0, 3), torch.int32, d), dim=3,
                                                             out=torch.empty(0, dtype=U8, device=d)),
    "all_int32_out_good_dim": lambda d: torch.all(_ones((2, 3), torch.int32, d), dim=1,
                                                  out=torch.empty(0, dtype=torch.int32, device=d)),
}


@pytest.mark.parametrize("case", sorted(ALLANY_OUT_FIRST))
def test_any_all_out_dtype_before_dims_like_cpu(case):
    # fuzz 104:935: all(int32 (0, 3), dim=3, out=int32) is CPU's 'all only supports bool tensor for
    # result, got: Int' (RuntimeError, checked before the dims); tpu raised the IndexError of dim 3
    same_as_cpu(ALLANY_OUT_FIRST[case])


COMPLEX_MEAN_DTYPE_FIRST = {
    "dims_out_of_range_int64": lambda d: torch.mean(_ones(257, C64, d), dim=[2, 2], dtype=L),
    "all_int32": lambda d: torch.mean(_ones((3, 4), C128, d), dtype=torch.int32),
    "dim_bool": lambda d: torch.mean(_ones((3, 4), C64, d), 1, dtype=torch.bool),
    "dim_uint8_keepdim": lambda d: torch.mean(_ones((3, 4), C64, d), (0,), keepdim=True, dtype=U8),
    "complex_dtype_computes": lambda d: torch.mean(_ones((3, 4), C64, d), 1, dtype=C128),
}


@pytest.mark.parametrize("case", sorted(COMPLEX_MEAN_DTYPE_FIRST))
def test_complex_mean_integral_dtype_like_cpu(case):
    # fuzz 110:0, 101:1180: mean(complex, dtype=int64) is CPU's RuntimeError 'mean(): could not infer
    # output dtype. Optional dtype must be ... Got: Long' (before the dims); tpu raised the dims'
    # IndexError or its refusal of a complex input reduced to an integral dtype
    same_as_cpu(COMPLEX_MEAN_DTYPE_FIRST[case])


@pytest.mark.parametrize("dtype", [torch.bool, F32, L])
@pytest.mark.parametrize("op", ["median", "nanmedian"])
@pytest.mark.parametrize("dim", [0, -2, 1])
def test_median_dim_empty_check_before_bool_refusal_like_cpu(dtype, op, dim):
    # fuzz 111:191: median(bool (0, 3), 0) is CPU's IndexError 'median(): Expected reduction dim 0 to
    # have non-zero size.' (before its kernel refuses Bool); tpu raised the Bool refusal, and for
    # other dtypes worded the IndexError otherwise
    same_as_cpu(lambda d: getattr(torch, op)(torch.zeros(0, 3, dtype=dtype, device=d), dim))
