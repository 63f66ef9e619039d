"""Random ops beyond the basic samplers on "tpu": cauchy_, log_normal_,
geometric_, multinomial, rrelu (train and eval) and fractional max pooling.
Samplers are checked statistically with fixed seeds (streams differ from
CPU's by design); everything with deterministic inputs (rrelu in eval,
fractional pooling given its samples) is compared with CPU exactly."""
import math

import pytest
import torch
import torch.nn.functional as F

import torchtpu  # noqa: F401
from conftest import compare, make

A = torch.ops.aten
N = 20000


def same_error(fn, cpu_args, tpu_args=None):
    """fn raises on tpu what it raises on CPU: same type, CPU's message."""
    with pytest.raises(Exception) as ec:
        fn(*cpu_args)
    tpu_args = tpu_args if tpu_args is not None else [a.to("tpu") if isinstance(a, torch.Tensor) else a for a in cpu_args]
    with pytest.raises(type(ec.value)) as et:
        fn(*tpu_args)
    assert str(ec.value).split("\n")[0] in str(et.value)


# ---- continuous distributions ----

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_cauchy(dtype):
    x = torch.empty(N, device="tpu", dtype=dtype).cauchy_(1.5, 2.0).cpu().double()
    # |x| > 65504 (inf in float16, as on CPU) has probability ~2e-5 per sample
    assert torch.isfinite(x).all() if dtype != torch.float16 else not torch.isnan(x).any()
    # Median 1.5; half the mass within one sigma of it; quartiles at median -+ sigma.
    assert abs(x.median() - 1.5) < 0.1
    assert abs(((x - 1.5).abs() < 2.0).double().mean() - 0.5) < 0.02
    assert abs((x < -0.5).double().mean() - 0.25) < 0.02
    z = torch.empty(N, device="tpu", dtype=dtype).cauchy_().cpu().double()
    assert abs(z.median()) < 0.05 and abs((z.abs() < 1).double().mean() - 0.5) < 0.02


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_log_normal(dtype):
    x = torch.empty(N, device="tpu", dtype=dtype).log_normal_(0.5, 0.3).cpu().double()
    assert (x > 0).all()
    lx = x.log()
    assert abs(lx.mean() - 0.5) < 0.02 and abs(lx.std() - 0.3) < 0.02
    d = torch.empty(N, device="tpu", dtype=dtype).log_normal_().cpu().double().log()  # defaults mean 1, std 2
    assert abs(d.mean() - 1) < 0.06 and abs(d.std() - 2) < 0.06


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int64, torch.int32, torch.uint8])
def test_geometric(dtype):
    p = 0.3
    x = torch.empty(N, device="tpu", dtype=dtype).geometric_(p).cpu()
    assert x.dtype == dtype
    x = x.double()
    assert x.min() >= 1 and torch.equal(x, x.round())
    if dtype != torch.uint8:  # uint8 wraps its (rare) values above 255, as on CPU
        assert abs(x.mean() - 1 / p) < 0.08
        assert abs(x.var() - (1 - p) / p ** 2) < 0.5
    # P(X = 1) = p, P(X = 2) = p (1 - p)
    assert abs((x == 1).double().mean() - p) < 0.015
    assert abs((x == 2).double().mean() - p * (1 - p)) < 0.015


def test_geometric_narrow_ints_wrap():
    # Draws above the type's range keep their low bits, as CPU's casts do: zeros and negatives appear.
    for dt in (torch.uint8, torch.int8):
        x = torch.empty(N, device="tpu", dtype=dt).geometric_(0.01).cpu()
        assert (x == 0).any() and (dt == torch.uint8 or (x < 0).any())


def test_distribution_errors():
    for fn, dt in [(lambda t: t.cauchy_(0, 0), torch.float32), (lambda t: t.cauchy_(), torch.int64),
                   (lambda t: t.log_normal_(0, 0), torch.float32), (lambda t: t.log_normal_(), torch.int64),
                   (lambda t: t.geometric_(1), torch.float32), (lambda t: t.geometric_(0), torch.int32),
                   (lambda t: t.geometric_(-0.5), torch.float32), (lambda t: t.geometric_(0.5), torch.bool)]:
        same_error(fn, [torch.empty(3, dtype=dt)])


def test_distribution_seeds():
    def draw():
        return [torch.empty(50, device="tpu").cauchy_().cpu(), torch.empty(50, device="tpu").log_normal_().cpu(),
                torch.empty(50, device="tpu").geometric_(0.2).cpu(),
                torch.multinomial(torch.rand(3, 10, device="tpu"), 4).cpu(),
                torch.multinomial(torch.rand(10, device="tpu"), 30, True).cpu()]
    torch.manual_seed(5)
    a = draw()
    torch.manual_seed(5)
    b = draw()
    for u, v in zip(a, b):
        assert torch.equal(u, v)
    torch.manual_seed(6)
    c = draw()
    assert not torch.equal(a[0], c[0]) and not torch.equal(a[4], c[4])


def test_views_and_empty():
    base = torch.zeros(4, 6, device="tpu")
    base[:, ::2].cauchy_()
    h = base.cpu()
    assert (h[:, 1::2] == 0).all() and (h[:, ::2] != 0).all()
    assert torch.empty(0, device="tpu").geometric_(0.5).shape == (0,)


# ---- multinomial ----

CHI2_999 = {2: 13.82, 3: 16.27, 4: 18.47}  # chi-square quantiles at 0.999 by degrees of freedom


def chi2(counts, probs):
    n = counts.sum()
    exp = probs * n
    return float(((counts - exp) ** 2 / exp).sum())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_multinomial_with_replacement(dtype):
    w = torch.tensor([1.0, 0.0, 3.0, 2.0, 0.5, 0.0, 3.5])
    s = torch.multinomial(w.to("tpu", dtype), N, replacement=True).cpu()
    assert s.dtype == torch.int64 and s.shape == (N,)
    counts = torch.bincount(s, minlength=7).double()
    assert counts[1] == 0 and counts[5] == 0  # zero-probability categories never drawn
    pos = w > 0
    assert chi2(counts[pos], (w[pos] / w.sum()).double()) < CHI2_999[4]


def test_multinomial_rows():
    w = torch.tensor([[0.0, 1.0, 1.0, 2.0], [5.0, 0.0, 0.0, 5.0], [0.0, 0.0, 0.0, 1.0]])
    s = torch.multinomial(w.to("tpu"), 6000, replacement=True).cpu()
    assert s.shape == (3, 6000)
    c0 = torch.bincount(s[0], minlength=4).double()
    assert c0[0] == 0 and chi2(c0[1:], torch.tensor([0.25, 0.25, 0.5], dtype=torch.float64)) < CHI2_999[2]
    assert set(s[1].unique().tolist()) == {0, 3} and abs((s[1] == 0).double().mean() - 0.5) < 0.03
    assert (s[2] == 3).all()


def test_multinomial_without_replacement():
    w = torch.tensor([0.1, 0.0, 0.4, 0.2, 0.3, 0.0])
    rows = 5000
    s = torch.multinomial(w.to("tpu").expand(rows, 6).contiguous(), 4).cpu()
    assert s.shape == (rows, 4)
    srt = s.sort(1).values
    assert (srt[:, 1:] != srt[:, :-1]).all()  # distinct in every row
    assert ((s != 1) & (s != 5)).all()  # zero-probability categories never drawn while others remain
    # First draws follow w; second draws P(j) = sum_i w_i w_j / (1 - w_i).
    p = w.double()
    first = torch.bincount(s[:, 0], minlength=6).double()
    nz = p > 0
    assert chi2(first[nz], p[nz]) < CHI2_999[3]
    second_p = torch.stack([sum(p[i] * p[j] / (1 - p[i]) for i in range(6) if i != j) for j in range(6)])
    second = torch.bincount(s[:, 1], minlength=6).double()
    assert chi2(second[nz], second_p[nz]) < CHI2_999[3]
    # Drawing every category gives a permutation, the zero ones last.
    full = torch.multinomial(w.to("tpu"), 6).cpu()
    assert sorted(full.tolist()) == list(range(6)) and set(full[4:].tolist()) == {1, 5}


def test_multinomial_one_sample():
    w = torch.tensor([0.2, 0.0, 0.8])
    s = torch.multinomial(w.to("tpu").expand(N, 3).contiguous(), 1).cpu()
    assert s.shape == (N, 1)
    c = torch.bincount(s.flatten(), minlength=3).double()
    assert c[1] == 0 and abs(c[2] / N - 0.8) < 0.015
    for repl in (False, True):
        one = torch.multinomial(torch.tensor([0.0, 0.0, 3.0], device="tpu"), 1, repl).cpu()
        assert one.tolist() == [2]


def test_multinomial_strided_input():
    q = torch.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [0.0, 1.0]], device="tpu").t()  # (2, 4), not contiguous
    s = torch.multinomial(q, 2).cpu()
    assert sorted(s[0].tolist()) == [1, 2] and sorted(s[1].tolist()) == [0, 3]


def test_multinomial_out_and_empty():
    out = torch.empty(0, dtype=torch.long, device="tpu")
    torch.multinomial(torch.tensor([1.0, 1.0], device="tpu"), 5, True, out=out)
    assert out.shape == (5,) and set(out.cpu().tolist()) <= {0, 1}
    assert torch.multinomial(torch.ones(0, 3, device="tpu"), 2).shape == (0, 2)


@pytest.mark.parametrize("probs,n,repl", [
    ([0.0, 0.0], 1, False), ([0.0, 0.0], 2, True), ([[1.0, 1.0], [0.0, 0.0]], 1, False),
    ([-1.0, 1.0], 2, True), ([-1.0, 1.0], 1, False), ([math.inf, 1.0], 2, True), ([math.inf, 1.0], 1, False),
    ([math.nan, 1.0], 2, True), ([math.nan, 1.0], 2, False), ([1.0, 1.0], 3, False), ([1.0, 1.0], 0, True),
    ([[[1.0]]], 1, False), ([[], []], 1, True), ([[], []], 3, True), ([], 2, True),
])
def test_multinomial_errors(probs, n, repl):
    same_error(lambda p: torch.multinomial(p, n, repl), [torch.tensor(probs)])


def test_multinomial_int_error():
    same_error(lambda p: torch.multinomial(p, 1), [torch.tensor([1, 2])])


# ---- rrelu ----

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_rrelu_eval(dtype):
    x = make((6, 7), dtype)
    x[0, 0], x[0, 1] = 0.0, float("nan")
    compare(lambda t: F.rrelu(t, 0.1, 0.4, training=False), x, grad=dtype == torch.float32)
    compare(lambda t: A.rrelu_with_noise(t, torch.empty_like(t), 0.2, 0.3, False), x)
    noise = torch.full((6, 7), 7.0, dtype=dtype)
    nt = noise.to("tpu")
    A.rrelu_with_noise(x.to("tpu"), nt, 0.2, 0.3, False)
    assert (nt.cpu() == 7).all()  # eval leaves the noise alone


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_rrelu_train(dtype):
    lo, hi = 0.1, 0.3
    x = make((50, 40), dtype)
    x[0, :3] = torch.tensor([0.0, float("nan"), -0.0])
    xt = x.to("tpu").requires_grad_()
    noise = torch.empty(50, 40, dtype=dtype, device="tpu")
    y = A.rrelu_with_noise(xt, noise, lo, hi, True)
    y.backward(torch.ones(50, 40, dtype=dtype, device="tpu"))
    yc, nc, gc = y.detach().cpu(), noise.cpu(), xt.grad.cpu()
    pos = x > 0
    assert torch.equal(yc[pos], x[pos]) and (nc[pos] == 1).all()
    neg = x < 0
    slope = (yc[neg].double() / x[neg].double())
    tol = 1e-2 if dtype == torch.bfloat16 else 1e-6
    assert slope.min() >= lo - tol and slope.max() <= hi + tol
    assert (nc[neg] >= lo - tol).all() and (nc[neg] <= hi + tol).all()
    ct = torch.float64 if dtype == torch.float64 else torch.float32
    assert torch.equal(yc[neg], (x[neg].to(ct) * nc[neg].to(ct)).to(dtype))
    assert abs(nc[neg].double().mean() - (lo + hi) / 2) < 0.01 and nc[neg].double().std() > 0.04
    assert yc[0, 1].isnan() and nc[0, 1] == 1  # NaN passes through
    assert nc[0, 0] != 1 and nc[0, 2] != 1  # zeros (of both signs) draw a slope
    assert torch.equal(gc, nc)  # the gradient is the noise


def test_rrelu_functional_and_inplace():
    x = make((30, 30), torch.float32)
    xt = x.to("tpu").requires_grad_()
    y = F.rrelu(xt, 0.25, 0.5, training=True)
    y.backward(torch.ones(30, 30, device="tpu"))
    yc, gc = y.detach().cpu(), xt.grad.cpu()
    neg = x < 0
    assert torch.allclose(gc[neg] * x[neg], yc[neg]) and (gc[~neg] == 1).all()
    assert gc[neg].min() >= 0.25 and gc[neg].max() < 0.5
    z = x.to("tpu")
    F.rrelu_(z, 0.25, 0.5, training=True)
    zc = z.cpu()
    assert torch.equal(zc[~neg], x[~neg]) and ((zc[neg] / x[neg]) >= 0.2499).all() and ((zc[neg] / x[neg]) <= 0.5001).all()
    out, nout = A.rrelu_with_noise_functional(x.to("tpu"), torch.zeros(30, 30, device="tpu"), 0.25, 0.5, True)
    assert torch.allclose(out.cpu()[neg], x[neg] * nout.cpu()[neg]) and (nout.cpu()[~neg] == 1).all()
    torch.manual_seed(3)
    a = F.rrelu(x.to("tpu"), training=True).cpu()
    torch.manual_seed(3)
    assert torch.equal(F.rrelu(x.to("tpu"), training=True).cpu(), a)


def test_rrelu_noise_view():
    """The noise written through a strided view lands in its base only."""
    x = make((6, 4), torch.float32)
    base = torch.zeros(6, 8, device="tpu")
    y = A.rrelu_with_noise(x.to("tpu"), base[:, ::2], 0.1, 0.3, True).cpu()
    b = base.cpu()
    assert (b[:, 1::2] == 0).all() and torch.equal(y, torch.where(x <= 0, x * b[:, ::2], x))


def test_rrelu_backward_vs_cpu():
    x, g = make((5, 6), torch.float32), make((5, 6), torch.float32, seed=1)
    noise = torch.rand(5, 6) * 0.2 + 0.1
    for training, lo, hi in [(True, 0.1, 0.3), (True, 0.2, 0.2), (False, 0.1, 0.3)]:
        compare(lambda a, b, c: A.rrelu_with_noise_backward(a, b, c, lo, hi, training, False), g, x, noise)
    compare(lambda a, b, c: A.rrelu_with_noise_backward(a, b, c, 0.1, 0.3, False, True), g, x, noise)
    same_error(lambda a, b, c: A.rrelu_with_noise_backward(a, b, c, -0.3, -0.1, False, True), [g, x, noise])


# A fixed input with negative entries: CPU samples (and checks lower <= upper)
# only where an input is negative, so an unseeded randn with six positive
# entries (one run in 64) made CPU accept (0.3, 0.1) and the test fail.
_RX = torch.tensor([[-1.0, 0.5, -2.0], [1.5, -0.25, 0.75]])


@pytest.mark.parametrize("args", [
    (_RX.clone(), torch.empty(3), 0.1, 0.3, True), (_RX.clone(), torch.empty(2, 3), 0.3, 0.1, True),
    (_RX.clone(), torch.empty(2, 3, dtype=torch.float64), 0.1, 0.3, True),
    (_RX.half(), torch.empty(2, 3).half(), 0.1, 0.3, True),
    (torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long), 0.1, 0.3, False),
])
def test_rrelu_errors(args):
    same_error(A.rrelu_with_noise, list(args))


# ---- fractional max pooling ----

def _fmp_case(dtype, shape, k, out, seed=0, ties=False):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-3, 4, shape, generator=g).to(dtype) if ties else make(shape, dtype, seed)
    nsp = len(k)
    lead = shape[:-nsp]
    ns = (lead[0] if len(lead) == 2 else 1, lead[-1], nsp)
    s = torch.rand(ns, generator=g).to(dtype)
    return x, s


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape,k,out,ties", [
    ((2, 3, 11, 13), [3, 2], [4, 6], False), ((3, 10, 10), [2, 2], [5, 5], True), ((1, 2, 7, 9), [1, 3], [7, 3], True),
    ((2, 2, 6, 6), [2, 2], [1, 1], False), ((1, 1, 300, 4), [3, 1], [150, 2], False),
])
def test_fractional_max_pool2d_vs_cpu(dtype, shape, k, out, ties):
    x, s = _fmp_case(dtype, shape, k, out, ties=ties)
    compare(lambda a, b: A.fractional_max_pool2d(a, k, out, b), x, s, atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("shape,k,out,ties", [
    ((2, 3, 7, 8, 9), [2, 3, 2], [4, 5, 3], False), ((2, 6, 7, 8), [2, 2, 2], [3, 4, 5], True),
])
def test_fractional_max_pool3d_vs_cpu(dtype, shape, k, out, ties):
    x, s = _fmp_case(dtype, shape, k, out, ties=ties)
    compare(lambda a, b: A.fractional_max_pool3d(a, k, out, b), x, s, atol=0, rtol=0)


def test_fractional_max_pool_nan_inf_and_extra_samples():
    x, s = _fmp_case(torch.float32, (2, 3, 9, 9), [3, 3], [4, 4])
    x[0, 0, 1:3, 1:4] = float("nan")
    x[1, 2] = -float("inf")
    x[1, 1, 4, 4] = float("inf")
    s2 = torch.cat([s, torch.rand(3, 3, 2)])  # more sample rows than the batch: the first ones are used
    compare(lambda a, b: A.fractional_max_pool2d(a, [3, 3], [4, 4], b), x, s2, atol=0, rtol=0)
    compare(lambda a, b: A.fractional_max_pool2d(a, [0, 2], [3, 3], b), x, s, atol=0, rtol=0)  # empty windows
    compare(lambda a, b: A.fractional_max_pool2d(a, [2, 2], [0, 3], b), x, s)


def grad_compare(fn, x, *rest):
    """fn(x, *rest)'s first output and x's gradient through it on tpu equal CPU's; rest gets no gradient."""
    xc, xt = x.detach().clone().requires_grad_(), x.detach().to("tpu").requires_grad_()
    yc = fn(xc, *rest)
    yt = fn(xt, *[r.to("tpu") if isinstance(r, torch.Tensor) else r for r in rest])
    torch.testing.assert_close(yt.detach().cpu(), yc.detach(), atol=0, rtol=0)
    w = make(yc.shape, yc.dtype, seed=3)
    yc.backward(w)
    yt.backward(w.to("tpu"))
    torch.testing.assert_close(xt.grad.cpu(), xc.grad)


@pytest.mark.parametrize("nsp", [2, 3])
def test_fractional_max_pool_backward_vs_cpu(nsp):
    if nsp == 2:
        x, s = _fmp_case(torch.float32, (2, 3, 10, 11), [3, 3], [5, 6], ties=True)
        ks, fwd, bw = ([3, 3], [5, 6]), A.fractional_max_pool2d, A.fractional_max_pool2d_backward
    else:
        x, s = _fmp_case(torch.float32, (2, 2, 6, 7, 8), [2, 3, 2], [4, 3, 5], ties=True)
        ks, fwd, bw = ([2, 3, 2], [4, 3, 5]), A.fractional_max_pool3d, A.fractional_max_pool3d_backward
    grad_compare(lambda a, b: fwd(a, *ks, b)[0], x, s)
    grad_compare(lambda a, b: fwd(a, *ks, b)[0], x[0], s)  # unbatched
    # The backward op itself, with indices that repeat (overlapping windows).
    y, idx = fwd(x, *ks, s)
    gy = make(y.shape, torch.float32, seed=4)
    compare(lambda a, b, c: bw(a, b, *ks, c), gy, x, idx)


def test_fractional_max_pool_module():
    x = make((2, 3, 12, 12), torch.float32)
    s = torch.rand(2, 3, 2)
    grad_compare(lambda a, b: F.fractional_max_pool2d(a, 3, output_size=(5, 7), _random_samples=b), x, s)
    compare(lambda a, b: F.fractional_max_pool2d(a, 2, output_ratio=(0.5, 0.5), return_indices=True, _random_samples=b), x, s)
    # Samples drawn on the device: a valid pooling (every output an element of its plane at its index).
    y, idx = F.fractional_max_pool2d(x.to("tpu"), 3, output_size=(5, 5), return_indices=True)
    yc, ic = y.cpu(), idx.cpu()
    assert torch.equal(x.flatten(2).gather(2, ic.flatten(2)), yc.flatten(2))
    x3 = make((1, 2, 8, 8, 8), torch.float32)
    y3 = F.fractional_max_pool3d(x3.to("tpu"), 2, output_size=(4, 4, 4)).cpu()
    assert y3.shape == (1, 2, 4, 4, 4)


def test_fractional_max_pool_out_overload():
    """The .output overload names two outs (output=, indices=)."""
    x, s = _fmp_case(torch.float32, (1, 2, 8, 8), [2, 2], [3, 3])
    o, i = torch.empty(0, device="tpu"), torch.empty(0, dtype=torch.long, device="tpu")
    A.fractional_max_pool2d.output(x.to("tpu"), [2, 2], [3, 3], s.to("tpu"), output=o, indices=i)
    ref = A.fractional_max_pool2d(x, [2, 2], [3, 3], s)
    assert torch.equal(o.cpu(), ref[0]) and torch.equal(i.cpu(), ref[1])


@pytest.mark.parametrize("case", [
    ((1, 2, 5, 5), [2, 2], [5, 3], (1, 2, 2)), ((1, 2, 5, 5), [2, 2], [3, 5], (1, 2, 2)),
    ((2, 2, 6, 6), [2, 2], [3, 3], (1, 2, 2)), ((1, 2, 6, 6), [2, 2], [3, 3], (1, 3, 2)),
    ((1, 2, 6, 6), [2, 2], [3, 3], (1, 2, 3)), ((1, 2, 6, 6), [2, 2], [3, 3], (1, 2)),
    ((2, 6, 6), [2], [3, 3], (1, 2, 2)), ((1, 2, 0, 6), [2, 2], [3, 3], (1, 2, 2)), ((2, 7), [2, 2], [1, 3], (1, 2, 2)),
    ((2, 6, 6), [2, 2], [-1, 3], (1, 2, 2)),
])
def test_fractional_max_pool2d_errors(case):
    shape, k, out, ss = case
    same_error(lambda a, b: A.fractional_max_pool2d(a, k, out, b), [torch.randn(shape), torch.rand(ss)])


@pytest.mark.parametrize("case", [
    ((1, 2, 5, 6, 7), [2, 2, 2], [4, 3, 3], (1, 2, 3)), ((1, 2, 5, 6, 7), [2, 2, 2], [3, 5, 3], (1, 2, 3)),
    ((1, 2, 5, 6, 7), [2, 2, 2], [3, 3, 6], (1, 2, 3)), ((5, 6, 7), [2, 2, 2], [3, 3, 3], (1, 2, 3)),
    ((1, 2, 5, 6, 7), [2, 2], [3, 3, 3], (1, 2, 3)), ((1, 2, 5, 6, 7), [2, 2, 2], [3, 3, 3], (1, 2, 2)),
])
def test_fractional_max_pool3d_errors(case):
    shape, k, out, ss = case
    same_error(lambda a, b: A.fractional_max_pool3d(a, k, out, b), [torch.randn(shape), torch.rand(ss)])
    same_error(lambda a, b: A.fractional_max_pool3d(a, [1, 1, 1], [2, 2, 2], b),
               [torch.randn(1, 2, 5, 6, 7), torch.rand(1, 2, 3).double()])


def test_fractional_max_pool_backward_errors():
    x = torch.randn(1, 2, 6, 7)
    same_error(lambda g, a, i: A.fractional_max_pool2d_backward(g, a, [2, 2], [3, 4], i),
               [torch.randn(1, 2, 3, 3), x, torch.zeros(1, 2, 3, 3, dtype=torch.long)])
    x3 = torch.randn(1, 2, 5, 6, 7)
    same_error(lambda g, a, i: A.fractional_max_pool3d_backward(g, a, [2, 2, 2], [3, 3, 4], i),
               [torch.randn(1, 2, 3, 3, 3), x3, torch.zeros(1, 2, 3, 3, 3, dtype=torch.long)])
