"""IEEE and PyTorch semantics at special values on "tpu", each case against
CPU: 0 * inf is NaN through a bool mask, |z| keeps a NaN part, one-step
linspace is its start, complex pow at a zero base, complex sums over expanded
views of infinities, complex add/sub's product by alpha, and the layout sort
gives a permuted input."""
import math

import pytest
import torch

from cpu_same import same_as_cpu

INF, NAN = math.inf, math.nan
COMPLEX = [torch.complex64, torch.complex128]


def T(values, dtype, device):
    return torch.tensor(values, dtype=dtype, device=device)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize("form", ["mask_times_tensor", "tensor_times_mask", "inplace"])
def test_bool_times_inf_is_nan(dtype, form):
    def f(d):
        m = T([True, False, False, True], torch.bool, d)
        x = T([INF, -INF, NAN, 2.0], dtype, d)
        if form == "mask_times_tensor":
            return m * x
        if form == "tensor_times_mask":
            return x * m
        return x.mul_(m)
    same_as_cpu(f)


@pytest.mark.parametrize("number", [INF, -INF])
def test_bool_mask_times_inf_number_is_nan(number):
    same_as_cpu(lambda d: T([True, False], torch.bool, d) * number)
    same_as_cpu(lambda d: number * T([False, True], torch.bool, d))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_abs_of_complex_keeps_nan(dtype):
    vals = [complex(NAN, 1), complex(1, NAN), complex(NAN, NAN), complex(INF, NAN), complex(NAN, -INF), 3 + 4j]
    same_as_cpu(lambda d: torch.abs(T(vals, dtype, d)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("start,end", [(1.0, INF), (-INF, 2.0), (3.0, NAN)])
def test_linspace_one_step_is_start(dtype, start, end):
    same_as_cpu(lambda d: torch.linspace(start, end, 1, dtype=dtype, device=d))


ZERO_BASE_EXPONENTS = [1 + 1j, 2 + 0j, 0j, -1 + 0j, 1j, -1 + 1j, 0.5 - 3j]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("form", ["tensor_tensor", "number_base", "complex_number_base"])
def test_pow_of_complex_zero(dtype, form):
    def f(d):
        y = T(ZERO_BASE_EXPONENTS, dtype, d)
        if form == "tensor_tensor":
            return T([0j] * len(ZERO_BASE_EXPONENTS), dtype, d) ** y
        return torch.pow(0 if form == "number_base" else 0j, y)
    same_as_cpu(f)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("exponent", [1 + 1j, 0.25 + 2j])
def test_pow_complex_zero_tensor_number_exponent(dtype, exponent):
    same_as_cpu(lambda d: T([0j, 0j, 1 + 1j], dtype, d) ** exponent, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("value", [complex(INF, 1), complex(INF, INF), complex(-INF, 2), complex(1, -INF)])
@pytest.mark.parametrize("reduce", ["sum", "sum_dim", "mean"])
def test_complex_sum_over_expanded_infinities(dtype, value, reduce):
    def f(d):
        x = T([value], dtype, d).expand(2, 4)
        if reduce == "sum":
            return x.sum()
        if reduce == "sum_dim":
            return x.sum(1)
        return x.mean()
    same_as_cpu(f)


_INF_PARTS = [complex(INF, 0), complex(0, -INF), complex(-INF, 2), complex(3, INF), complex(NAN, 0), complex(1, 2)]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("form", ["tensor", "number", "zero_dim", "real_other", "real_self", "inplace", "out",
                                  "strided_257", "sub", "sub_number", "alpha_one"])
def test_complex_add_sub_multiply_other_by_alpha(dtype, form):
    # fuzz 90:1191: CPU computes x + alpha * y through c10::complex's plain product, for the default
    # alpha 1 too (scalar and vectorized loops alike): 1 + (inf + 0j) is inf + nanj there, (nan + 0j)
    # makes both parts NaN; tpu skipped the product for alpha 1 and kept the finite part
    def f(d):
        y = T(_INF_PARTS, dtype, d)
        x = T([1 - 1j, -2 + 0.5j, 0j, 4j, 1 + 1j, -3 - 3j], dtype, d)
        if form == "tensor":
            return torch.add(x, y)
        if form == "number":
            return torch.add(x, INF), x + complex(0, -INF)
        if form == "zero_dim":
            return torch.add(x, T(complex(0, INF), dtype, d))
        if form == "real_other":
            return x + T([INF, -INF, NAN, 1, 2, 3], dtype.to_real(), d)
        if form == "real_self":
            return torch.add(T([1, 2, 3, 4, 5, 6], dtype.to_real(), d), y)
        if form == "inplace":
            return x.add_(y)
        if form == "out":
            return torch.add(x, y, out=torch.empty(6, dtype=dtype, device=d))
        if form == "strided_257":  # CPU's vectorized loop and its scalar tail
            big = T(_INF_PARTS * 86, dtype, d)[::2]
            return torch.add(torch.ones(257, dtype=dtype, device=d), big[:257])
        if form == "sub":
            return torch.sub(x, y), x - y
        if form == "sub_number":
            return torch.sub(x, complex(INF, 0))
        return torch.add(x, y, alpha=1), torch.add(x, y, alpha=1.0)
    same_as_cpu(f)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("layout", ["transposed", "permuted3d", "permuted_sliced"])
def test_sort_keeps_layout_of_permuted_input(dtype, descending, layout):
    def f(d):
        g = torch.Generator().manual_seed(0)
        base = torch.randperm(24, generator=g).to(dtype).reshape(2, 3, 4).to(d)
        if layout == "transposed":
            x = base[0].t()
        elif layout == "permuted3d":
            x = base.permute(2, 0, 1)
        else:
            x = base.permute(2, 0, 1)[:, :, ::2]
        return torch.sort(x, dim=0, descending=descending)
    same_as_cpu(f, strides=True)


@pytest.mark.parametrize("n", [64, 20000])  # a small program (XLA's classic emitters) and a large one (fusion emitters)
def test_erf_reaches_one_and_gelu_of_minus_inf_is_nan(n):
    """Graph fuzzer 30:55: XLA CPU's fusion-emitter erf levels off at +-0.99999982, so 1 + erf(x) of a very
    negative x was 1.8e-7 and gelu(-inf) -inf; CPU's float32 erf is +-1 from |x| = 3.92778 on and gelu(-inf)
    is NaN (-inf * 0)."""
    import torch.nn.functional as F
    x = torch.linspace(-8, 8, n)
    x[:4] = torch.tensor([-float("inf"), float("inf"), float("nan"), 3.9277801513671875])
    t = x.to("tpu")
    e, ec = torch.erf(t).cpu(), torch.erf(x)
    far = x.abs() >= 3.9277801513671875
    assert torch.equal(e[far], ec[far])
    assert torch.isnan(e[2])
    torch.testing.assert_close(e, ec, atol=4e-7, rtol=0, equal_nan=True)
    g, gc = F.gelu(t).cpu(), F.gelu(x)
    # GELU(+inf) is inf in float64 and in CPU's scalar and AVX2 paths; its AVX-512 float32 kernel gives NaN
    g64 = F.gelu(x[1:2].double())
    assert torch.isnan(g[0]) and torch.isnan(gc[0]) and g[1] == g64[0] == float("inf")
    gc[1] = g64[0]
    assert ((1 + torch.erf(t[x < -6])).cpu() == 0).all()
    torch.testing.assert_close(g, gc, atol=2e-6, rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [False, True])
@pytest.mark.parametrize("self_nan", [False, True])
def test_scatter_and_index_reduce_max_min_propagate_nan(reduce, include_self, self_nan):
    """Graph fuzzer 110:41: XLA CPU's scatter combiner dropped a NaN (scatter_reduce(amax) of [nan, 1.0] into one
    slot gave 1.0; a slot receiving only NaN kept the -inf identity); CPU's max/min propagate it, from the
    source and, with include_self, from self."""
    src = torch.tensor([[float("nan"), 1.0], [-float("inf"), 2.0], [float("inf"), float("nan")]])
    idx = torch.tensor([[0, 0], [1, 1], [0, 1]])
    base = torch.tensor([[float("nan"), 5.0], [1.0, float("nan")], [0.0, 0.0]]) if self_nan else torch.zeros(3, 2)
    want = base.scatter_reduce(1, idx, src, reduce=reduce, include_self=include_self)
    got = base.to("tpu").scatter_reduce(1, idx.to("tpu"), src.to("tpu"), reduce=reduce, include_self=include_self)
    torch.testing.assert_close(got.cpu(), want, equal_nan=True)
    rows = torch.tensor([0, 0, 2])
    want = base.index_reduce(0, rows, src, reduce, include_self=include_self)
    got = base.to("tpu").index_reduce(0, rows.to("tpu"), src.to("tpu"), reduce, include_self=include_self)
    torch.testing.assert_close(got.cpu(), want, equal_nan=True)
