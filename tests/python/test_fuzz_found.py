"""Wrong answers and refusals the differential fuzzer (tools/fuzz) found,
each checked against CPU: narrow-integer matrix products wrap as CPU's do,
bool ones are refused as CPU refuses them, and a copy of an empty tensor to
the host is still a synchronization point."""
import warnings

import pytest
import torch

from cpu_same import same_as_cpu

NARROW = [torch.int8, torch.uint8, torch.int16]


def _mats(dtype, d):
    # 300 products of 100 * 100 (or 200 * 100): far past the narrow type's range
    hi = 200 if dtype == torch.uint8 else 100
    a = torch.full((2, 300), hi, dtype=dtype, device=d)
    a[1, ::3] = 7
    return a, torch.full((300, 2), 100, dtype=dtype, device=d)


@pytest.mark.parametrize("dtype", NARROW)
@pytest.mark.parametrize("op", ["matmul", "mm", "bmm", "mv", "dot", "addmm", "baddbmm", "addbmm", "addmv"])
def test_narrow_integer_products_wrap_like_cpu(dtype, op):
    def f(d):
        a, b = _mats(dtype, d)
        return {"matmul": lambda: a @ b, "mm": lambda: torch.mm(a, b),
                "bmm": lambda: torch.bmm(a[None], b[None]), "mv": lambda: torch.mv(a, b[:, 0]),
                "dot": lambda: torch.dot(a[0], b[:, 0]),
                "addmm": lambda: torch.addmm(a[:, :2], a, b, beta=3, alpha=2),
                "baddbmm": lambda: torch.baddbmm(a[None, :, :2], a[None], b[None], alpha=-1),
                "addbmm": lambda: torch.addbmm(a[:, :2], torch.stack([a, a]), torch.stack([b, b])),
                "addmv": lambda: torch.addmv(a[:, 0], a, b[:, 1], beta=2)}[op]()
    same_as_cpu(f)


@pytest.mark.parametrize("op", ["mm", "bmm", "mv", "dot", "matmul", "baddbmm", "addmv"])
def test_bool_products_refused_like_cpu(op):
    def f(d):
        a = torch.ones(2, 2, dtype=torch.bool, device=d)
        return {"mm": lambda: torch.mm(a, a), "bmm": lambda: torch.bmm(a[None], a[None]),
                "mv": lambda: torch.mv(a, a[0]), "dot": lambda: torch.dot(a[0], a[0]),
                "matmul": lambda: a @ a, "baddbmm": lambda: torch.baddbmm(a[None], a[None], a[None]),
                "addmv": lambda: torch.addmv(a[0], a, a[0])}[op]()
    same_as_cpu(f)


def test_empty_copy_to_host_raises_an_earlier_ops_error():
    # CPU raises at index_select; tpu's check is deferred to the next
    # synchronization point, which the (empty) copy to the host must be.
    x = torch.zeros(5, 0, device="tpu")
    r = torch.index_select(x, 0, torch.tensor([7], device="tpu"))
    with pytest.raises(RuntimeError, match="INDICES element is out of DATA bounds, id=7 axis_dim=5"):
        r.cpu()
    torch.zeros(3, device="tpu").cpu()  # the error was raised once, and cleared


@pytest.mark.parametrize("op", ["abs", "abs_", "sign", "sign_", "sgn"])
def test_uint8_abs_and_sign_like_cpu(op):
    # stablehlo's abs/sign refuse unsigned operands: these failed to compile
    same_as_cpu(lambda d: getattr(torch.tensor([0, 1, 200, 255], dtype=torch.uint8, device=d), op)())


@pytest.mark.parametrize("divisor", [0.0, -0.0, float("nan"), "tensor0", "tensor1"])
@pytest.mark.parametrize("mode", [None, "floor", "trunc"])
def test_bool_dividend_keeps_zero_over_zero_nan(divisor, mode):
    # XLA turned convert(mask) / broadcast(y) into select(mask, 1 / y, 0): False / 0 gave 0, CPU NaN
    def f(d):
        x = torch.tensor([False, True, False], device=d)
        y = {"tensor0": torch.tensor(0.0, device=d), "tensor1": torch.zeros(1, device=d)}.get(divisor, divisor)
        return torch.div(x, y, rounding_mode=mode)
    same_as_cpu(f)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("op", ["std", "var", "std_mean", "var_mean", "std_dim", "var_keepdim"])
def test_std_var_near_float_max_like_cpu(dtype, op):
    # CPU accumulates in double; float32 squares of values near finfo.max overflowed to inf
    def f(d):
        x = torch.tensor([[3e38, -3e38, 1e38], [1.0, 2.0, 4.0], [0.0, 0.0, 0.0]], dtype=dtype, device=d)
        return {"std": lambda: x[0].std(), "var": lambda: x[0].var(), "std_mean": lambda: torch.std_mean(x, 1),
                "var_mean": lambda: torch.var_mean(x, 0, correction=0), "std_dim": lambda: x.std(1),
                "var_keepdim": lambda: x[1:].var(1, keepdim=True)}[op]()
    same_as_cpu(f, atol=0, rtol=2e-6 if dtype == torch.float32 else 1e-2)


@pytest.mark.parametrize("args", [(-2, 2, 5, 0.5, torch.uint8), (-1, 3, 5, 2, torch.int8), (0, 400, 3, 1.1, torch.int64),
                                  (0.7, 9.9, 4, 2, torch.int32), (-3, 5, 9, 1.1, torch.int16)])
def test_integer_logspace_like_cpu(args):
    # CPU converts start/end to the integer type first (uint8 -2 is 254), takes their
    # difference in C's integer arithmetic
    start, end, steps, base, dtype = args
    same_as_cpu(lambda d: torch.logspace(start, end, steps, base=base, dtype=dtype, device=d))


F = torch.nn.functional
_X = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5) - 30
_C = torch.linspace(-3, 3, 288).reshape(2, 4, 6, 6)
_W = torch.linspace(-1, 1, 216).reshape(6, 4, 3, 3)


def _cl(t):
    return t.to(memory_format=torch.channels_last)


@pytest.mark.parametrize("case", ["neg_permuted", "add_transposed", "add_scalar", "mul_0dim", "exp_slice", "where",
                                  "compare", "relu_cl", "add_cl_contig"])
def test_pointwise_results_take_the_inputs_dim_order(case):
    # CPU's TensorIterator lays a result out in its inputs' dim order; the core's are row-major
    def f(d):
        x, c = _X.to(d), _C.to(d)
        return {"neg_permuted": lambda: torch.neg(x.permute(2, 0, 1)),
                "add_transposed": lambda: x.transpose(0, 2) + x.transpose(0, 2),
                "add_scalar": lambda: x.transpose(0, 2) + 1, "mul_0dim": lambda: x.transpose(0, 1) * torch.tensor(2.0),
                "exp_slice": lambda: torch.exp(x[:, ::2] / 30), "where": lambda: torch.where(x.mT > 0, x.mT, 0.0),
                "compare": lambda: x.mT > 0, "relu_cl": lambda: F.relu(_cl(c)),
                "add_cl_contig": lambda: _cl(c) + c}[case]()
    same_as_cpu(f, strides=True)


@pytest.mark.parametrize("case", ["conv", "conv_weight_cl", "conv_f64", "batch_norm", "batch_norm_eval", "group_norm",
                                  "max_pool", "avg_pool", "adaptive_avg_pool", "upsample_nearest", "upsample_bilinear",
                                  "pad", "dropout"])
def test_channels_last_results_like_cpu(case):
    def f(d):
        c, w = _C.to(d), _W.to(d)
        return {"conv": lambda: F.conv2d(_cl(c), w, padding=1),
                "conv_weight_cl": lambda: F.conv2d(c, _cl(w), padding=1),
                "conv_f64": lambda: F.conv2d(_cl(c.double()), w.double(), padding=1),
                "batch_norm": lambda: F.batch_norm(_cl(c), None, None, training=True),
                "batch_norm_eval": lambda: F.batch_norm(_cl(c), torch.zeros(4, device=d), torch.ones(4, device=d)),
                "group_norm": lambda: F.group_norm(_cl(c), 2), "max_pool": lambda: F.max_pool2d(_cl(c), 2),
                "avg_pool": lambda: F.avg_pool2d(_cl(c), 2), "adaptive_avg_pool": lambda: F.adaptive_avg_pool2d(_cl(c), 3),
                "upsample_nearest": lambda: F.interpolate(_cl(c), scale_factor=2),
                "upsample_bilinear": lambda: F.interpolate(_cl(c), scale_factor=2, mode="bilinear"),
                "pad": lambda: F.pad(_cl(c), (1, 1, 1, 1)), "dropout": lambda: F.dropout(_cl(c), 0.0)}[case]()
    same_as_cpu(f, strides=True, atol=1e-4, rtol=1e-4)


def test_channels_last_dropout_mask_layout():
    r = F.dropout(_cl(_C.to("tpu")), 0.5)
    assert r.stride() == _cl(_C).stride()


@pytest.mark.parametrize("case", ["complex_sum", "complex_mean_neg", "scalar_count_nonzero", "scalar_sum"])
def test_repeated_reduction_dims_raise_like_cpu(case):
    def f(d):
        c, s = torch.ones(2, 3, dtype=torch.complex64, device=d), torch.tensor(2.0, device=d)
        return {"complex_sum": lambda: torch.sum(c, [1, 1]), "complex_mean_neg": lambda: torch.mean(c, [1, -1]),
                "scalar_count_nonzero": lambda: torch.count_nonzero(s, [-1, -1]),
                "scalar_sum": lambda: torch.sum(s, [0, -1])}[case]()
    same_as_cpu(f)


@pytest.mark.parametrize("op", ["addmm", "baddbmm", "addbmm", "addmv"])
def test_integer_empty_product_with_float_beta_like_cpu(op):
    # k == 0: CPU's result.mul_(beta) refuses a float beta on integers (addmv's gemv truncates it)
    def f(d):
        i = dict(dtype=torch.int32, device=d)
        return {"addmm": lambda: torch.addmm(torch.ones((), **i), torch.ones(8, 0, **i), torch.ones(0, 1, **i), beta=0.5),
                "baddbmm": lambda: torch.baddbmm(torch.ones((), **i), torch.ones(2, 3, 0, **i), torch.ones(2, 0, 1, **i),
                                                 beta=0.5),
                "addbmm": lambda: torch.addbmm(torch.ones(2, 2, **i), torch.ones(3, 2, 0, **i), torch.ones(3, 0, 2, **i),
                                               beta=1.5),
                "addmv": lambda: torch.addmv(torch.ones(3, **i), torch.ones(3, 0, **i), torch.ones(0, **i), beta=0.5)}[op]()
    same_as_cpu(f)


@pytest.mark.parametrize("op", ["sum", "prod", "nansum", "cumsum", "cumprod", "mean"])
def test_explicit_dtype_must_match_out_like_cpu(op):
    def f(d):
        x = torch.ones(2, 3, device=d)
        dt = torch.float32 if op == "mean" else torch.int8
        return getattr(torch, op)(x, 0, dtype=dt, out=torch.empty(0, dtype=torch.float64, device=d))
    same_as_cpu(f)


@pytest.mark.parametrize("case", [((0, 3), 1), ((0, 3), 0), ((3, 0, 2), 0), ((0, 2, 0), 0), ((0,), 0)])
@pytest.mark.parametrize("consecutive", [False, True])
def test_unique_dim_zero_sized_dims_like_cpu(case, consecutive):
    shape, dim = case
    fn = torch.unique_consecutive if consecutive else torch.unique
    same_as_cpu(lambda d: fn(torch.ones(shape, dtype=torch.int8, device=d), dim=dim, return_counts=True))


@pytest.mark.parametrize("case", ["uint8_neg_alpha", "int8_big_beta", "int32_half_alpha", "int64_addmv_half_beta"])
def test_integer_product_scalars_checked_like_cpu(case):
    # CPU converts beta/alpha to the integer type with its overflow check (uint8 -0.5 overflows)
    def f(d):
        u, i8 = dict(dtype=torch.uint8, device=d), dict(dtype=torch.int8, device=d)
        i32, i64 = dict(dtype=torch.int32, device=d), dict(dtype=torch.int64, device=d)
        return {"uint8_neg_alpha": lambda: torch.addmm(torch.ones((), **u), torch.ones(1, 1, **u), torch.ones(1, 2, **u),
                                                      beta=0, alpha=-0.5),
                "int8_big_beta": lambda: torch.addmm(torch.ones(2, 2, **i8), torch.ones(2, 2, **i8), torch.ones(2, 2, **i8),
                                                    beta=300),
                "int32_half_alpha": lambda: torch.addmm(torch.ones(2, 2, **i32), torch.ones(2, 2, **i32),
                                                       torch.ones(2, 2, **i32), alpha=0.5),
                "int64_addmv_half_beta": lambda: torch.addmv(torch.ones(2, **i64), torch.ones(2, 2, **i64),
                                                            torch.ones(2, **i64), beta=0.5)}[case]()
    same_as_cpu(f)


@pytest.mark.parametrize("divisor", [2 ** 31, 2 ** 16, 256])
def test_integer_division_by_a_number_that_wraps_to_zero(divisor):
    # CPU converts the divisor to the integer type first: int16 sees 2**31 and 2**16 as 0
    same_as_cpu(lambda d: torch.div(torch.tensor([[3], [-7], [1]], dtype=torch.int16, device=d), divisor,
                                    rounding_mode="floor"))


@pytest.mark.parametrize("out_dtype", [torch.float16, torch.float64, torch.float32])
def test_lerp_out_dtype_must_match_like_cpu(out_dtype):
    # CPU's lerp iterator checks every dtype the same: a float16 out= of float32 inputs raises
    same_as_cpu(lambda d: torch.lerp(torch.ones(4, 5, device=d), torch.zeros(1, 5, device=d), torch.full((4, 5), 0.25, device=d),
                                     out=torch.empty(0, dtype=out_dtype, device=d)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_signbit_reads_the_bit_of_negative_zero_and_nan_like_cpu(dtype):
    # fuzz 21:715: signbit(-nan) is True on CPU (std::signbit); a comparison cannot see it
    x = torch.tensor([-0.0, 0.0, float("nan"), -float("nan"), -1.0, 1.0, -float("inf"), float("inf")])
    same_as_cpu(lambda d: torch.signbit(x.to(dtype).to(d)))
    same_as_cpu(lambda d: torch.copysign(torch.ones(8, dtype=dtype, device=d), x.to(dtype).to(d)))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128, torch.float32])
def test_vdot_sizes_must_match_like_cpu(dtype):
    # fuzz 21:1216: complex vdot broadcast [0] against [1] and returned 0
    same_as_cpu(lambda d: torch.vdot(torch.zeros(0, dtype=dtype, device=d), torch.ones(1, dtype=dtype, device=d)))
    same_as_cpu(lambda d: torch.vdot(torch.ones(3, dtype=dtype, device=d), torch.ones(1, dtype=dtype, device=d)))


@pytest.mark.parametrize("dim", [1, -2, 0, -1])
@pytest.mark.parametrize("op", ["kthvalue", "median", "nanmedian", "mode"])
def test_selection_on_a_0d_tensor_checks_dim_like_cpu(op, dim):
    # fuzz 22:673: a 0-d input's dim must be in [-1, 0]; kthvalue(x, 1, dim=1) was computed
    args = (1, dim) if op == "kthvalue" else (dim,)
    same_as_cpu(lambda d: tuple(getattr(torch, op)(torch.tensor(2.5, device=d), *args)))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int64, torch.float32, torch.float64])
@pytest.mark.parametrize("ends", [(2.687, -4), (-4, 2), (2.687, 300), (1.7, -2.2), (0.5, 2)])
@pytest.mark.parametrize("op", ["logspace", "linspace"])
def test_one_step_space_fills_like_cpu(op, ends, dtype):
    # fuzz 34:40: CPU fills one step with fill_(start) (linspace: end unchecked) or
    # fill_(pow(base, start)) in double (logspace: 10**2.687 overflows uint8 and raises)
    same_as_cpu(lambda d: getattr(torch, op)(*ends, 1, dtype=dtype, device=d))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8, torch.uint8])
@pytest.mark.parametrize("args", [(3, -0.886, -1.396), (-0.91, 5), (-2.5, 0.2), (0, 5, 0.5), (0.5, 3.7, 0.9),
                                  (-9.522, 4.468, 0.316), (8.455, 2.553, -0.359), (1, 10, 3), (2**40, 2**40 + 5)])
def test_arange_into_integers_like_cpu(args, dtype):
    # fuzz 43:1054, 39:1269: CPU truncates start and step to int64 before computing the values
    # (arange(3, -0.886, -1.396, dtype=int32) is 3, 2, 1), and sizes an int64 result from the
    # truncated ends (arange(-0.91, 5, dtype=int64) has 5 elements; int32 has 6)
    if dtype != torch.int64 and args[-1] == 2**40 + 5:
        args = (7, 12)
    same_as_cpu(lambda d: torch.arange(*args, dtype=dtype, device=d))


def test_arange_bound_message_like_cpu():
    same_as_cpu(lambda d: torch.arange(5, 0, 1, device=d))


def test_arange_bool_refused_like_cpu():
    same_as_cpu(lambda d: torch.arange(3, dtype=torch.bool, device=d))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("mode", ["floor", "trunc"])
@pytest.mark.parametrize("divisor", ["number", "0dim_f64", "one_element", "many"])
def test_rounding_div_by_one_element_in_float32_like_cpu(divisor, mode, dtype):
    # fuzz 56:515: CPU divides a bfloat16/float16 tensor by a one-element divisor in float32
    # with the divisor's own value (floor_divide(bf16 -5.875, 2.931) is -3; 2.931 rounded
    # to bfloat16 first gave -2); a divisor of many elements rounds every step
    def f(d):
        x = torch.tensor([5.875, -5.875, 2.9375, 7.0, 1e4, -0.0, 0.0, 3.0] * 3, dtype=dtype, device=d)
        y = {"number": 2.94, "0dim_f64": torch.tensor(2.94, dtype=torch.float64, device=d),
             "one_element": torch.tensor([[2.94]], dtype=dtype, device=d),
             "many": torch.full((24,), 2.94, dtype=dtype, device=d)}[divisor]
        return torch.div(x, y, rounding_mode=mode), torch.floor_divide(x, y) if mode == "floor" else x
    same_as_cpu(f, atol=0, rtol=0)


@pytest.mark.parametrize("divisor", [0.0, -0.0, float("inf"), float("nan")])
def test_rounding_div_by_special_number_bfloat16_like_cpu(divisor):
    x = torch.tensor([1.0, -1.0, 0.0, float("inf"), float("nan")], dtype=torch.bfloat16)
    same_as_cpu(lambda d: (torch.floor_divide(x.to(d), divisor), torch.div(x.to(d), divisor, rounding_mode="trunc")))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("exponent", [70000, 70000.0, -2147483649, 1e39, 3e38, float("inf"), -float("inf"), 2.5])
def test_pow_number_exponent_checked_like_cpu(exponent, dtype):
    # fuzz 57:67: CPU converts the exponent with exp.to<scalar_t>() for float16 and bfloat16
    # tensors, raising "value cannot be converted to type c10::Half without overflow" for
    # pow(float16, -2147483649); tpu computed [1, inf, 0]
    same_as_cpu(lambda d: torch.pow(torch.tensor([1.0, 0.5, 2.0, -3.0], dtype=dtype, device=d), exponent))


@pytest.mark.parametrize("case", ["empty_self_dim1", "empty_self_dim0", "empty_source", "vector_empty_self",
                                  "3d_middle_empty_self", "int32_empty_self"])
def test_index_add_into_empty_checks_no_index_like_cpu(case):
    # fuzz 53:233: CPU's scatter_add path adds nothing into an empty self (or from an empty
    # source) and checks no index: index_add(zeros(0, 3), 1, [-5, 0], zeros(0, 2)) is empty there,
    # tpu raised "index out of range in self" at the next synchronization
    def f(d):
        i = torch.tensor([-5, 0], device=d)
        r = {"empty_self_dim1": lambda: torch.zeros(0, 3, device=d).index_add(1, i, torch.zeros(0, 2, device=d)),
             "empty_self_dim0": lambda: torch.zeros(0, 3, device=d).index_add(0, i, torch.ones(2, 3, device=d)),
             "empty_source": lambda: torch.zeros(2, 0, device=d).index_add(0, i, torch.zeros(2, 0, device=d)),
             "vector_empty_self": lambda: torch.zeros(0, device=d).index_add(0, i, torch.zeros(2, device=d)),
             "3d_middle_empty_self": lambda: torch.zeros(0, 4, 1, device=d).index_add(1, i, torch.zeros(0, 2, 1, device=d)),
             "int32_empty_self": lambda: torch.zeros(0, 3, device=d).index_add(0, i.int(), torch.ones(2, 3, device=d))}[case]()
        r.cpu()
        return r
    same_as_cpu(f)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                                   torch.float32, torch.bool])
@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_median_of_an_empty_tensor_compiles(op, dtype):
    # fuzz 51:825: median(empty uint8) failed to compile (a NaN constant of an integer type);
    # CPU returns NaN converted to the type: floats compare, integers hold the undefined
    # float to integer conversion of NaN (docs/fuzz_known.md), so only dtype and shape here
    r = getattr(torch, op)(torch.zeros(0, dtype=dtype, device="tpu"))
    e = getattr(torch, op)(torch.zeros(0, dtype=dtype))
    assert (r.dtype, r.shape) == (e.dtype, e.shape)
    v = r.cpu()  # the program runs (and compiles) here
    if dtype.is_floating_point:
        assert torch.isnan(v)
    if dtype == torch.bool:  # fuzz 52:996: NaN converted to bool, before CPU's Bool refusal
        assert v.item() is True


@pytest.mark.parametrize("op", ["remainder", "fmod", "floor_divide", "trunc", "take_along_dim"])
@pytest.mark.parametrize("shape", [(0, 3), (2, 0)])
def test_integer_division_of_an_empty_tensor_by_zero_like_cpu(op, shape):
    # fuzz 51:1195: take_along_dim of empty tensors raised ZeroDivisionError (its decomposition
    # takes the index remainder by the dim's size, 0); CPU's kernel never runs on no elements
    def f(d):
        x = torch.zeros(shape, dtype=torch.int64, device=d)
        return {"remainder": lambda: torch.remainder(x, 0), "fmod": lambda: torch.fmod(x, 0),
                "floor_divide": lambda: torch.floor_divide(x, 0), "trunc": lambda: torch.div(x, 0, rounding_mode="trunc"),
                "take_along_dim": lambda: torch.take_along_dim(x.half(), x, 1 if shape[1] == 0 else 0)}[op]()
    same_as_cpu(f)


@pytest.mark.parametrize("out_dtype", [torch.complex64, torch.complex128, torch.float64, torch.float32, torch.float16,
                                       torch.int64])
@pytest.mark.parametrize("in_dtype", [torch.complex64, torch.float32])
def test_abs_out_of_a_complex_input_like_cpu(in_dtype, out_dtype):
    # fuzz 54:119: abs(complex128, out=complex128) is |z| + 0j on CPU, and a real out takes the
    # real result by canCast (complex64 input, float64 out); tpu raised "Found dtype ... but expected"
    def f(d):
        out = torch.zeros(2, dtype=out_dtype, device=d)
        return torch.abs(torch.tensor([3 + 4j, -1j]).to(in_dtype).to(d), out=out)
    same_as_cpu(f)


@pytest.mark.parametrize("case", [("linspace", float("inf"), -1, 0, torch.int32), ("linspace", 1e20, 2, 0, torch.int64),
                                  ("logspace", -2.125, -2.541, 0, torch.uint8), ("logspace", 1e10, 2, 0, torch.int16),
                                  ("linspace", 3, 2, 0, torch.bool), ("linspace", 0.5, 2, 1, torch.bool),
                                  ("linspace", 0, 2, 1, torch.bool), ("logspace", 0, 2, 1, torch.bool),
                                  ("linspace", 0, 2, 3, torch.bool), ("linspace", 1e20, 2, 1, torch.int32)])
def test_space_of_zero_or_one_steps_like_cpu(case):
    # fuzz 63:41: linspace(inf, -1, 0, dtype=int32) is empty on CPU (no end converted, no kernel
    # chosen); tpu raised "value cannot be converted to type int without overflow"; one bool
    # step is CPU's fill_ (linspace(0.5, 2, 1, dtype=bool) is [True]), two or more are refused
    op, start, end, steps, dtype = case
    same_as_cpu(lambda d: getattr(torch, op)(start, end, steps, dtype=dtype, device=d))


@pytest.mark.parametrize("case", ["full_like_bool", "full_bool_zero", "full_int8", "full_int8_overflow", "fill_bool",
                                  "fill_float_real", "fill_float_imag", "masked_fill_bool", "masked_fill_float",
                                  "masked_fill_float_imag", "fill_complex", "index_fill_refused", "alpha_refused",
                                  "alpha_int_refused", "alpha_complex"])
def test_complex_number_fills_a_real_tensor_like_cpu(case):
    # fuzz 53:75: full_like(uint8, -0.01-0.36j, dtype=bool) is all True on CPU (value.to<bool>()),
    # a real type takes a zero imaginary part's real part and overflows otherwise; tpu raised
    # "a complex number where bool is expected"
    def f(d):
        m = torch.tensor([True, False], device=d)
        z = lambda dt=torch.float32: torch.zeros(2, dtype=dt, device=d)  # noqa: E731
        return {"full_like_bool": lambda: torch.full_like(z(torch.uint8), -0.01 - 0.36j, dtype=torch.bool),
                "full_bool_zero": lambda: torch.full((2,), 0j, dtype=torch.bool, device=d),
                "full_int8": lambda: torch.full((2,), 3 + 0j, dtype=torch.int8, device=d),
                "full_int8_overflow": lambda: torch.full((2,), 300 + 0j, dtype=torch.int8, device=d),
                "fill_bool": lambda: z(torch.bool).fill_(1j), "fill_float_real": lambda: z().fill_(2 + 0j),
                "fill_float_imag": lambda: z().fill_(2 + 1j),
                "masked_fill_bool": lambda: z(torch.bool).masked_fill_(m, 1j),
                "masked_fill_float": lambda: z().masked_fill(m, -2 + 0j),
                "masked_fill_float_imag": lambda: z().masked_fill(m, 2 + 1j),
                "fill_complex": lambda: z(torch.complex64).fill_(2 + 1j),
                "index_fill_refused": lambda: z().index_fill(0, torch.tensor([1], device=d), 3 + 0j),
                "alpha_refused": lambda: z().add(z(), alpha=2 + 0j),
                "alpha_int_refused": lambda: z(torch.int32).sub(z(torch.int32), alpha=1j),
                "alpha_complex": lambda: z(torch.complex64).add(z(torch.complex64) + 1, alpha=2.5)}[case]()
    same_as_cpu(f)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("case", [((0, 2), 9), ((0,), -2), ((2, 0), -7), ((), 5), ((), -1), ((3,), 1), ((0, 3), 1)])
def test_cummax_of_an_empty_tensor_ignores_dim_like_cpu(op, case):
    # fuzz 52:327: cummin(zeros(0, 3), 3) returns the empty input on CPU (dim is wrapped only for a
    # nonempty input); tpu raised "Dimension out of range"
    shape, dim = case
    same_as_cpu(lambda d: tuple(getattr(torch, op)(torch.zeros(shape, device=d), dim)))


@pytest.mark.parametrize("case", ["floor_divide", "floor", "trunc", "floor_number", "true_div"])
def test_rounding_division_of_bools_refused_like_cpu(case):
    # fuzz 52:38: floor_divide(bool, bool) failed to compile in the PJRT plugin; CPU raises
    # NotImplementedError '"div_floor_cpu" not implemented for 'Bool''
    def f(d):
        b = torch.tensor([True, False], device=d)
        return {"floor_divide": lambda: torch.floor_divide(b, b), "floor": lambda: torch.div(b, b, rounding_mode="floor"),
                "trunc": lambda: torch.div(b, b, rounding_mode="trunc"),
                "floor_number": lambda: torch.div(b, True, rounding_mode="floor"), "true_div": lambda: torch.div(b, b)}[case]()
    same_as_cpu(f)


@pytest.mark.parametrize("case", ["bmm_bool_k0", "bmm_bool_empty", "bmm_bool_full", "mm_bool_k0", "mm_bool_empty",
                                  "mv_bool_k0", "matmul_bool_k0", "bmm_mixed_empty", "bmm_mixed_k0", "bmm_mixed_full",
                                  "mm_mixed_k0", "dot_bool_k0"])
def test_trivial_products_skip_the_kernel_like_cpu(case):
    # fuzz 52:1453, 57:233: CPU's mm/bmm/mv return zeros before their kernel when the product is
    # empty or k == 0: bmm(bool (2, 3, 0), bool (2, 0, 4)) is all False, bmm(int32 (2, 0, 1),
    # int16 (2, 1, 7)) an empty int16 (batch2's type); tpu refused both
    def f(d):
        z = lambda *s, dt=torch.bool: torch.zeros(s, dtype=dt, device=d)  # noqa: E731
        i32, i16 = torch.int32, torch.int16
        return {"bmm_bool_k0": lambda: torch.bmm(z(2, 3, 0), z(2, 0, 4)), "bmm_bool_empty": lambda: torch.bmm(z(2, 0, 1), z(2, 1, 4)),
                "bmm_bool_full": lambda: torch.bmm(z(2, 3, 1), z(2, 1, 4)), "mm_bool_k0": lambda: torch.mm(z(3, 0), z(0, 4)),
                "mm_bool_empty": lambda: torch.mm(z(0, 2), z(2, 4)), "mv_bool_k0": lambda: torch.mv(z(3, 0), z(0)),
                "matmul_bool_k0": lambda: torch.matmul(z(3, 0), z(0, 4)),
                "bmm_mixed_empty": lambda: torch.bmm(z(2, 0, 1, dt=i32), z(2, 1, 7, dt=i16)),
                "bmm_mixed_k0": lambda: torch.bmm(z(2, 3, 0, dt=i32), z(2, 0, 4, dt=torch.float32)),
                "bmm_mixed_full": lambda: torch.bmm(z(2, 3, 1, dt=i32), z(2, 1, 4, dt=i16)),
                "mm_mixed_k0": lambda: torch.mm(z(3, 0, dt=i32), z(0, 4, dt=i16)),
                "dot_bool_k0": lambda: torch.dot(z(0), z(0))}[case]()
    same_as_cpu(f)


@pytest.mark.parametrize("case", [(torch.complex128, torch.complex128), (torch.complex64, torch.complex64),
                                  (torch.int16, torch.int16), (torch.float32, torch.float32), (torch.int64, torch.uint8),
                                  (torch.complex128, torch.uint8), (torch.bfloat16, torch.complex64)])
def test_conj_physical_out_like_cpu(case):
    # fuzz 52:840: torch.conj_physical(x, out=) raised "operator 'aten::conj_physical.out' is not
    # implemented for TPU yet"; CPU computes it (a unary op: out must have the input's dtype)
    in_dt, out_dt = case
    x = torch.tensor([[1 + 2j, -3.5 - 0j, 0.25j]]) if in_dt.is_complex else torch.tensor([[1, -3, 7]])
    same_as_cpu(lambda d: torch.conj_physical(x.to(in_dt).to(d), out=torch.empty(0, dtype=out_dt, device=d)))


@pytest.mark.parametrize("case", ["scatter_value", "index_select", "index_select_in_range"])
def test_refused_out_leaves_no_deferred_error(case):
    # fuzz 52:134 -> 52:135: scatter(bool, 0, index with -19, 70000, out=int64) raised CPU's
    # out dtype error, but only after the functional scatter had queued its (failing) index
    # check, which was then raised at the next, unrelated synchronization point (a torch.where)
    def f(d):
        x = torch.zeros(4, 3, dtype=torch.bool, device=d)
        i = torch.tensor([[-19, 1]] if case == "scatter_value" else [-5 if case == "index_select" else 1], device=d)
        out = torch.empty(0, dtype=torch.int64, device=d)
        if case == "scatter_value":
            return torch.scatter(x, 0, i, 7, out=out)
        return torch.index_select(x, 0, i, out=out)
    same_as_cpu(f)
    assert torch.ones(3, device="tpu").sum().item() == 3.0  # a synchronization point: nothing left to raise


@pytest.mark.parametrize("case", [(torch.int8, 300, None), (torch.int8, -129, None), (torch.int8, 1e10, "multiply"),
                                  (torch.uint8, -1, None), (torch.float16, 1e6, "add"), (torch.bool, 5, None),
                                  (torch.int8, 1.5, None), (torch.int8, 300, "empty_index")])
def test_scatter_value_checked_like_cpu(case):
    # fuzz 80:724: scatter(int8, 0, index, 300) raises CPU's 'value cannot be converted to type
    # int8_t without overflow' (value.to<scalar_t>() in its kernel); tpu wrapped the value.
    # With an empty index the kernel never runs and nothing is checked
    dtype, value, reduce = case
    def f(d):
        x = torch.zeros(3, dtype=dtype, device=d)
        i = torch.zeros(0 if reduce == "empty_index" else 1, dtype=torch.int64, device=d)
        if reduce in (None, "empty_index"):
            return torch.scatter(x, 0, i, value)
        return torch.scatter(x, 0, i, value, reduce=reduce)
    same_as_cpu(f)


@pytest.mark.parametrize("case", ["device_complex_into_bool", "nan_inf_into_empty_bool", "host_complex_into_bool",
                                  "device_complex_into_float", "index_fill_complex_into_bool"])
def test_complex_value_tensor_fills_a_bool_like_cpu(case):
    # fuzz 80:606: masked_fill(bool, mask, complex64 0-dim tensor) computes on CPU (value.item()
    # then Scalar::to<bool>); tpu's device-side value check raised 'value cannot be converted to
    # type bool without overflow' at the next synchronization point
    def f(d):
        m = torch.tensor([True, False], device=d)
        b = torch.zeros(2, dtype=torch.bool, device=d)
        r = {"device_complex_into_bool": lambda: b.masked_fill(m, torch.tensor(1 + 2j, device=d)),
             "nan_inf_into_empty_bool": lambda: b[:0].masked_fill(m[:0], torch.tensor(complex("nan+infj"), device=d)),
             "host_complex_into_bool": lambda: b.masked_fill(m, torch.tensor(1 + 2j)),
             "device_complex_into_float": lambda: b.float().masked_fill(m, torch.tensor(1 + 2j, device=d)),
             "index_fill_complex_into_bool": lambda: b.index_fill(0, torch.tensor([0], device=d),
                                                                  torch.tensor(3 + 1j, device=d))}[case]()
        r.cpu()
        return r
    same_as_cpu(f)


_BYTE_VALUES = [4.9, -0.55, 0.97, 256.0, -1.0, float("nan"), float("inf"), -256.5, 1e20, 0.0, 1.0, -3.0]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
                                   torch.int8, torch.int16, torch.int32, torch.int64, torch.bool])
@pytest.mark.parametrize("op", ["any", "all"])
@pytest.mark.parametrize("form", ["dim", "dims", "all", "one_element", "empty"])
def test_any_all_into_uint8_out_convert_first_like_cpu(dtype, op, form):
    # fuzz 90:1057: CPU converts the input to a uint8 out='s type before the reduction
    # (0.97 and 256 become 0); tpu tested the unconverted values: any([[-0.55]], dim=1) gave 1
    def f(d):
        if dtype.is_floating_point or dtype.is_complex:
            v = [x for x in _BYTE_VALUES if dtype != torch.float16 or abs(x) < 7e4]
            x = torch.tensor(v, dtype=torch.float64).to(dtype)
        else:
            x = torch.tensor([256, -256, 257, 0, 1, -1, 512, 255, 3, -3, 7, 9]).to(dtype)
        x = x.to(d).reshape(-1, 2)
        if dtype == torch.complex64:
            x = x * 1j + 0.25  # the imaginary part does not count: real parts 0.25
        fn = getattr(torch, op)
        if form == "dim":
            return fn(x, dim=1, keepdim=True, out=torch.full((x.shape[0], 1), 7, dtype=torch.uint8, device=d))
        if form == "dims":
            return fn(x, dim=(0,), out=torch.zeros(2, dtype=torch.uint8, device=d))
        if form == "all":
            return fn(x[1:3], out=torch.zeros((), dtype=torch.uint8, device=d))
        if form == "one_element":  # a single element is tested unconverted: 0.97 is true
            return fn(x[1:2, 0], out=torch.zeros((), dtype=torch.uint8, device=d))
        return fn(x[:0], dim=1, out=torch.full((0,), 5, dtype=torch.uint8, device=d))
    same_as_cpu(f)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
                                   torch.int16, torch.int64, torch.bool])
def test_iterator_cast_to_uint8_is_cpus_conversion(dtype):
    # the core's _tt_iterator_cast, which the out= reductions reading their input in out's type use
    # (any/all into uint8): c10's conversion (the low byte of the int64 truncation; NaN, inf and
    # values past int64 give 0), not XLA's saturating one (.to(uint8) on tpu: -1.0 is 0, 300.7 is 255)
    from torchtpu import _C
    if dtype.is_floating_point or dtype.is_complex:
        v = _BYTE_VALUES + [-1e20, 300.7, -255.9, 2.0 ** 63, -(2.0 ** 63), float("-inf")]
        x = torch.tensor([a for a in v if dtype != torch.float16 or abs(a) < 7e4], dtype=torch.float64).to(dtype)
    else:
        x = torch.tensor([256, -256, 257, 0, 1, -1, 512, 255, 3, -3, 7, 9]).to(dtype)
    cast = _C.call(_C.op_names().index("_tt_iterator_cast"), (x.to("tpu"), torch.uint8))
    want = (x.real if dtype.is_complex else x).to(torch.uint8)
    assert cast.dtype == torch.uint8 and cast.cpu().tolist() == want.tolist()


@pytest.mark.parametrize("case", ["bf16_dim_into_f16", "f64_dim_into_f32", "f16_all_into_f32", "bf16_all_into_f64",
                                  "f16_one_row_into_f32", "f16_empty_into_f32", "f64_all_into_f32", "f16_into_f16",
                                  "f32_dim_into_f64"])
@pytest.mark.parametrize("op", ["std", "var"])
def test_std_var_out_of_another_float_type_like_cpu(op, case):
    # fuzz 93:969: var(bfloat16 [..., -3.4e38], dim=-1, out=float16) is NaN on CPU (the input is
    # converted to out's type first, -3.4e38 becoming -inf); tpu gave inf. fuzz 90:868: std(float16,
    # out=float32) raises on CPU ('std_var_all: Unsupported dtype Half', its all-reduce for a
    # one-element result); tpu computed it
    src, rows, dim, dst = {"bf16_dim_into_f16": (torch.bfloat16, 2, 1, torch.float16),
                           "f64_dim_into_f32": (torch.float64, 2, 1, torch.float32),
                           "f16_all_into_f32": (torch.float16, 2, None, torch.float32),
                           "bf16_all_into_f64": (torch.bfloat16, 2, None, torch.float64),
                           "f16_one_row_into_f32": (torch.float16, 1, 1, torch.float32),
                           "f16_empty_into_f32": (torch.float16, 0, None, torch.float32),
                           "f64_all_into_f32": (torch.float64, 2, None, torch.float32),
                           "f16_into_f16": (torch.float16, 2, 1, torch.float16),
                           "f32_dim_into_f64": (torch.float32, 2, 1, torch.float64)}[case]
    big = {torch.bfloat16: -3.3895e38, torch.float64: -1e300, torch.float32: 3e38}.get(src, 60000.0)

    def f(d):
        x = torch.tensor([[1.5, 0.0, -1.0, -4.5, big]] * rows, dtype=torch.float64).to(src).to(d)
        return getattr(torch, op)(x, dim=dim, out=torch.empty(0, dtype=dst, device=d))
    same_as_cpu(f)


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16, torch.int32])
@pytest.mark.parametrize("op", ["remainder", "fmod", "floor_divide", "div_trunc"])
@pytest.mark.parametrize("divisor", ["int64_max", "host_tensor_int64_max", "int64_max_minus_255"])
def test_integer_divisor_wrapped_not_rounded_through_double_like_cpu(dtype, op, divisor):
    # fuzz 107:462: remainder(int16, 2**63 - 1) is 0 on CPU (the divisor wraps to -1);
    # tpu's zero-divisor check read the number through a double (2**63, wrapping to 0)
    # and raised ZeroDivisionError
    v = {"int64_max": 2**63 - 1, "int64_max_minus_255": 2**63 - 256}.get(divisor, 2**63 - 1)

    def f(d):
        x = torch.tensor([5, -7, 3, 0, 100], dtype=dtype, device=d)
        y = torch.tensor(v) if divisor.startswith("host") else v
        if op == "div_trunc":
            return torch.div(x, y, rounding_mode="trunc")
        return getattr(torch, op)(x, y)
    same_as_cpu(f)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("out", ["empty", "wrong_shape", "right_shape", "float64", "int64", "bool", "aliases_input"])
def test_maximum_minimum_out_resized_like_cpu(op, out):
    # fuzz 101:838, 108:1054: CPU resizes an out= of another shape (warning when it was
    # not empty); tpu's own maximum.out/minimum.out lowering broadcast out against the
    # inputs and raised 'The size of tensor a (3) must match the size of tensor b (0)'
    def f(d):
        a = torch.tensor([[1.0, float("nan"), -2.0], [4.0, 0.5, -0.0]], device=d)
        b = torch.tensor([0.0, 3.0, -1.0], device=d)
        o = {"empty": lambda: torch.empty(0, device=d), "wrong_shape": lambda: torch.zeros(5, device=d),
             "right_shape": lambda: torch.zeros(2, 3, device=d),
             "float64": lambda: torch.zeros(0, 3, dtype=torch.float64, device=d),
             "int64": lambda: torch.zeros(2, 3, dtype=torch.int64, device=d),
             "bool": lambda: torch.zeros(0, dtype=torch.bool, device=d),
             "aliases_input": lambda: a}[out]()
        r = getattr(torch, op)(a, b, out=o)
        assert r is o
        return o
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_as_cpu(f)


@pytest.mark.parametrize("op", ["sinh", "cosh"])
@pytest.mark.parametrize("dtype", [torch.int16, torch.float32])
def test_sinh_cosh_float32_rounding_like_cpu(op, dtype):
    # fuzz 109:429: sinh(int16 -9, out=complex128) was -4051.5400 on tpu, -4051.5420 on CPU
    # (4 float32 ulps: e^|x| / 2 as exp(|x| - ln 2), whose argument rounds); written into a
    # complex128 out, complex128's tolerance sees it
    def f(d):
        x = torch.arange(-20, 21, dtype=dtype, device=d)
        if dtype.is_floating_point:
            x = x * 1.37
        return getattr(torch, op)(x, out=torch.empty(0, dtype=torch.complex128, device=d))
    same_as_cpu(f, atol=0, rtol=2.5e-7)  # XLA's float32 exp: 1 ulp (1.2e-7) off CPU's at most here


def _bools(shape, d):
    return torch.ones(shape, dtype=torch.bool, device=d)


_BOOL_TRIVIAL_ADD = {
    "k0_beta_int": lambda d: torch.addmm(_bools((3, 2), d), _bools((3, 0), d), _bools((0, 2), d), alpha=-0.5),
    "k0_beta_zero": lambda d: torch.addmm(_bools((3, 2), d), _bools((3, 0), d), _bools((0, 2), d), beta=0),
    "k0_beta_float_zero": lambda d: torch.addmm(_bools((3, 2), d), _bools((3, 0), d), _bools((0, 2), d), beta=0.0),
    "k0_beta_true": lambda d: torch.addmm(_bools((3, 2), d), _bools((3, 0), d), _bools((0, 2), d), beta=True),
    "k0_beta_false": lambda d: torch.addmm(_bools((3, 2), d), _bools((3, 0), d), _bools((0, 2), d), beta=False),
    "k0_beta_float": lambda d: torch.addmm(_bools((3, 2), d), _bools((3, 0), d), _bools((0, 2), d), beta=0.5),
    "k0_self_broadcast_true": lambda d: torch.addmm(_bools(2, d) & torch.tensor([True, False], device=d),
                                                    _bools((3, 0), d), _bools((0, 2), d), beta=True),
    "k0_self_float": lambda d: torch.addmm(torch.ones(3, 2, device=d), _bools((3, 0), d), _bools((0, 2), d)),
    "empty_rows": lambda d: torch.addmm(_bools((0, 2), d), _bools((0, 5), d), _bools((5, 2), d)),
    "empty_cols": lambda d: torch.addmm(_bools((3, 0), d), _bools((3, 5), d), _bools((5, 0), d)),
    "baddbmm_k0": lambda d: torch.baddbmm(_bools((1, 3, 2), d), _bools((1, 3, 0), d), _bools((1, 0, 2), d)),
    "baddbmm_empty": lambda d: torch.baddbmm(_bools((1, 0, 2), d), _bools((1, 0, 3), d), _bools((1, 3, 2), d)),
    "full_product_refused": lambda d: torch.addmm(_bools((3, 2), d), _bools((3, 1), d), _bools((1, 2), d)),
}


@pytest.mark.parametrize("case", sorted(_BOOL_TRIVIAL_ADD))
def test_bool_addmm_trivial_products_like_cpu(case):
    # fuzz 109:538, 103:607: addmm of Bool matrices with an empty contraction is CPU's
    # result = self * beta (no kernel, so no Bool refusal): zeros for beta 0, self for True,
    # 'result type Long can't be cast to the desired output type Bool' for a number; an empty
    # result is returned as is. tpu refused them all as the kernel does
    same_as_cpu(_BOOL_TRIVIAL_ADD[case])
