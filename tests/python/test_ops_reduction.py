"""Reductions, normalization and losses on "tpu" against PyTorch on CPU."""
import pytest
import torch
import torch.nn.functional as F

import torchtpu
from conftest import DTYPES_ALL, DTYPES_FLOAT, compare




# Half-type gradients go through cancellations (x - mean, g - sum(g * y)) where
# one rounding step apart from CPU's kernels shows as a large relative error
# on near-zero entries; float32 runs at the default tolerances.
HALF_TOL = {torch.bfloat16: dict(atol=1e-2, rtol=2e-2), torch.float16: dict(atol=2e-3, rtol=2e-3)}


def tol(dtype):
    return HALF_TOL.get(dtype, {})


def _x(dtype, shape=(3, 4, 5)):
    x = torch.randn(shape)
    if dtype == torch.bool:
        return x > 0
    if not dtype.is_floating_point:
        return (x * 10).to(dtype)
    return x.to(dtype)


# ---- sum / mean / prod -------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_sum(dtype):
    x = _x(dtype)
    grad = dtype.is_floating_point
    out = compare(lambda a: a.sum(), x, grad=grad)
    compare(lambda a: a.sum((0, -1), keepdim=True), x, grad=grad)
    compare(lambda a: a.sum([]), x)
    if not grad:
        assert out.dtype == torch.int64


def test_sum_dtype_arg_and_scalar():
    compare(lambda a: a.sum(1, dtype=torch.float64), _x(torch.float32))
    compare(lambda a: a.sum(dtype=torch.float32), _x(torch.int32))
    compare(lambda a: a.sum(0), torch.tensor(2.5))
    compare(lambda a: a.sum(1), torch.zeros(2, 0))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_mean(dtype):
    x = _x(dtype)
    compare(lambda a: a.mean(), x, grad=True)
    compare(lambda a: a.mean(-1, keepdim=True), x, grad=True)
    compare(lambda a: a.mean((0, 2)), x, grad=True)


def test_mean_errors_and_empty():
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        torch.arange(4, device="tpu").mean()
    compare(lambda a: a.mean(1), torch.zeros(2, 0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool])
def test_prod_forward(dtype):
    x = _x(dtype, (2, 3)) if dtype != torch.int32 else torch.tensor([[1, -2, 3], [4, 0, 2]], dtype=dtype)
    compare(lambda a: (a.prod(), a.prod(1), a.prod(0, keepdim=True)), x)


def test_prod_backward():
    compare(lambda a: a.prod(1), torch.randn(3, 4), grad=True)


# ---- max / min / arg ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_amax_amin_max_min(dtype):
    x = _x(dtype)
    compare(lambda a: (a.amax(1), a.amin((0, 2), keepdim=True), a.amax()), x)
    compare(lambda a: (a.max(), a.min()), x)
    compare(lambda a: (a.max(1), a.min(-1, keepdim=True)), x)


def test_max_min_nan_and_ties():
    x = torch.tensor([[1.0, float("nan"), 0.0], [3.0, 2.0, 3.0]])
    compare(lambda a: (a.max(), a.min(), a.amax(0), a.amin(1)), x)
    compare(lambda a: (a.max(1), a.min(1), a.max(0), a.argmax(1), a.argmin(0)), x)


def test_amax_backward():
    compare(lambda a: a.amax(1), torch.randn(3, 4), grad=True)
    compare(lambda a: a.amin(0, keepdim=True), torch.tensor([[1.0, 2.0], [1.0, 0.5]]), grad=True)


def test_max_full_backward():
    compare(lambda a: a.max(), torch.randn(3, 4), grad=True)


def test_max_dim_backward():
    compare(lambda a: a.max(1), torch.randn(3, 4), grad=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_argmax_argmin(dtype):
    x = _x(dtype)
    compare(lambda a: (a.argmax(), a.argmin(), a.argmax(1), a.argmin(-1, keepdim=True), a.argmax(keepdim=True)), x)


def test_reduction_errors():
    x = torch.randn(2, 3).to("tpu")
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.sum(2)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        x.sum((0, 0))
    with pytest.raises(RuntimeError, match="numel\\(\\) == 0"):
        torch.zeros(0).to("tpu").max()
    with pytest.raises(IndexError, match="non-zero size"):
        torch.zeros(2, 0).to("tpu").amax(1)


# ---- var / std ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_var_std(dtype):
    x = _x(dtype)
    compare(lambda a: (a.var(1), a.var((0, 2), keepdim=True, correction=0), a.var()), x, grad=True, **tol(dtype))
    compare(lambda a: torch.var_mean(a, 1), x, grad=True, **tol(dtype))
    compare(lambda a: (a.std(1), a.std(), torch.std_mean(a, -1, keepdim=True)), x)


def test_std_backward():
    compare(lambda a: a.std((0, 2), keepdim=True), torch.randn(3, 4, 5), grad=True)


def test_var_edge():
    compare(lambda a: a.var(0), torch.randn(1, 3))  # N - 1 == 0 -> nan
    compare(lambda a: a.var(0, correction=2), torch.randn(2, 3))  # negative divisor -> inf
    with pytest.raises(RuntimeError, match="floating point"):
        torch.arange(3, device="tpu").var()


# ---- any / all / logsumexp / cumulative / norm -------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool])
def test_any_all(dtype):
    x = _x(dtype, (3, 4)) if dtype != torch.int32 else torch.tensor([[0, 1, 2, 0], [0, 0, 0, 0], [3, 4, 5, 6]], dtype=dtype)
    compare(lambda a: (a.any(), a.all(), a.any(1), a.all(0, keepdim=True), a.any((0, 1)), a.all((1,))), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_logsumexp_forward(dtype):
    x = _x(dtype)
    compare(lambda a: (a.logsumexp(1), a.logsumexp((0, 2), keepdim=True)), x)
    inf = float("inf")
    compare(lambda a: a.logsumexp(1), torch.tensor([[-inf, -inf], [inf, 1.0], [0.0, 1.0]]))


def test_logsumexp_backward():
    compare(lambda a: a.logsumexp(1), torch.randn(3, 4), grad=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32, torch.bool])
def test_cumsum_cumprod_forward(dtype):
    x = _x(dtype, (3, 4)) if dtype != torch.int32 else torch.tensor([[1, 2, 3, -1], [2, 2, 2, 2], [0, 5, 1, 1]], dtype=dtype)
    compare(lambda a: (a.cumsum(1), a.cumsum(0), a.cumsum(-1, dtype=torch.float32)), x)
    compare(lambda a: a.cumprod(1), x)


def test_cumsum_backward():
    compare(lambda a: (a.cumsum(1), a.cumprod(0)), torch.randn(3, 4), grad=True)


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_vector_norm_forward(dtype):
    x = _x(dtype)
    inf = float("inf")
    compare(lambda a: (a.norm(), torch.linalg.vector_norm(a, 1, dim=1), torch.linalg.vector_norm(a, inf, dim=(0, 1)),
                       torch.linalg.vector_norm(a, -inf, dim=2, keepdim=True), torch.linalg.vector_norm(a, 0),
                       torch.linalg.vector_norm(a, 3, dim=-1)), x)


def test_vector_norm_backward():
    compare(lambda a: (a.norm(), torch.linalg.vector_norm(a, 3, dim=1)), torch.randn(3, 4), grad=True)


# ---- softmax / layer norm / batch norm ---------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_softmax_log_softmax(dtype):
    x = _x(dtype)
    compare(lambda a: a.softmax(1), x, grad=True, **tol(dtype))
    compare(lambda a: a.log_softmax(-1), x, grad=True, **tol(dtype))
    compare(lambda a: (a.softmax(0), a.log_softmax(0)), torch.tensor(1.5).to(dtype))


def test_softmax_extremes():
    inf = float("inf")
    compare(lambda a: (a.softmax(1), a.log_softmax(1)), torch.tensor([[1000.0, 0.0, -inf], [1.0, 2.0, 3.0]]))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_layer_norm(dtype):
    x = _x(dtype, (2, 3, 4))
    w, b = torch.randn(3, 4).to(dtype), torch.randn(3, 4).to(dtype)
    compare(lambda a, ww, bb: F.layer_norm(a, (3, 4), ww, bb), x, w, b, grad=True, **tol(dtype))
    compare(lambda a: F.layer_norm(a, (4,), eps=1e-3), x, grad=True, **tol(dtype))


def test_layer_norm_module_and_error():
    ln_c = torch.nn.LayerNorm(5)
    with torch.no_grad():
        ln_c.weight.normal_()
        ln_c.bias.normal_()
    ln_t = torch.nn.LayerNorm(5).to("tpu")
    ln_t.load_state_dict(ln_c.state_dict())
    compare(lambda a: (ln_c if a.device.type == "cpu" else ln_t)(a), torch.randn(4, 5), grad=True)
    torch.testing.assert_close(ln_t.weight.grad.cpu(), ln_c.weight.grad)
    torch.testing.assert_close(ln_t.bias.grad.cpu(), ln_c.bias.grad)
    with pytest.raises(RuntimeError, match="normalized_shape"):
        F.layer_norm(torch.randn(2, 3).to("tpu"), (4,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_batch_norm_train_eval(dtype):
    m_c = torch.nn.BatchNorm2d(3)
    with torch.no_grad():
        m_c.weight.uniform_()
        m_c.bias.uniform_()
    m_t = torch.nn.BatchNorm2d(3).to("tpu")
    m_t.load_state_dict(m_c.state_dict())
    x = torch.randn(2, 3, 4, 4)
    if dtype != torch.float32:  # half input with float32 module parameters, as autocast does
        x = x.to(dtype)

    def run(a):
        return (m_c if a.device.type == "cpu" else m_t)(a)

    for _ in range(2):
        compare(run, x, grad=True)
    for name in ("running_mean", "running_var", "weight", "bias"):
        tv, cv = getattr(m_t, name), getattr(m_c, name)
        torch.testing.assert_close(tv.cpu(), cv, msg=name)
        if name in ("weight", "bias"):
            torch.testing.assert_close(tv.grad.cpu(), cv.grad, msg=name + ".grad")
    assert m_t.num_batches_tracked.item() == 2
    m_c.eval()
    m_t.eval()
    compare(run, x, grad=True)


def test_batch_norm_functional_no_stats_and_1d():
    compare(lambda a: F.batch_norm(a, None, None, training=True), torch.randn(4, 3), grad=True)
    rm, rv = torch.randn(3), torch.rand(3) + 0.5
    compare(lambda a: F.batch_norm(a, rm.to(a.device), rv.to(a.device), training=False), torch.randn(4, 3, 5), grad=True)


# ---- losses -------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss(reduction):
    logits = torch.randn(6, 5)
    tgt = torch.tensor([0, 4, 2, -100, 1, 4])
    w = torch.rand(5)
    compare(lambda a: F.nll_loss(a, tgt.to(a.device), reduction=reduction), logits, grad=True)
    compare(lambda a: F.nll_loss(a, tgt.to(a.device), weight=w.to(a.device), reduction=reduction), logits, grad=True)
    tgt2 = torch.tensor([0, 4, 2, 3, 1, 4])
    compare(lambda a: F.nll_loss(a, tgt2.to(a.device), ignore_index=4, reduction=reduction), logits, grad=True)


def test_nll_loss_1d_2d_and_errors():
    compare(lambda a: F.nll_loss(a, torch.tensor(3, device=a.device)), torch.randn(5), grad=True)
    tgt, w = torch.randint(0, 3, (2, 4, 4)), torch.rand(3)
    compare(lambda a: F.nll_loss(a, tgt.to(a.device), weight=w.to(a.device)), torch.randn(2, 3, 4, 4), grad=True)
    with pytest.raises((RuntimeError, ValueError), match="batch_size"):
        F.nll_loss(torch.randn(3, 4).to("tpu"), torch.zeros(2, dtype=torch.long, device="tpu"))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_cross_entropy(dtype):
    logits = torch.randn(6, 5).to(dtype)
    tgt = torch.tensor([0, 4, 2, -100, 1, 4])
    compare(lambda a: F.cross_entropy(a, tgt.to(a.device)), logits, grad=True, **tol(dtype))
    compare(lambda a: F.cross_entropy(a, tgt.to(a.device), reduction="sum"), logits, grad=True, **tol(dtype))


def test_cross_entropy_label_smoothing():
    logits = torch.randn(6, 5)
    tgt = torch.tensor([0, 4, 2, 3, 1, 4])
    compare(lambda a: F.cross_entropy(a, tgt.to(a.device), label_smoothing=0.1), logits, grad=True)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_mse_smooth_l1_bce(reduction):
    x, t = torch.randn(3, 4), torch.randn(3, 4)
    compare(lambda a: F.mse_loss(a, t.to(a.device), reduction=reduction), x, grad=True)
    compare(lambda a: F.smooth_l1_loss(a, t.to(a.device), reduction=reduction, beta=0.5), x, grad=True)
    p, y, w = torch.rand(3, 4), torch.rand(3, 4), torch.rand(3, 4)
    compare(lambda a: F.binary_cross_entropy(a, y.to(a.device), reduction=reduction), p, grad=True)
    compare(lambda a: F.binary_cross_entropy(a, y.to(a.device), weight=w.to(a.device), reduction=reduction), p, grad=True)


def test_smooth_l1_beta0():
    x, t = torch.randn(3, 4), torch.randn(3, 4)
    compare(lambda a: F.smooth_l1_loss(a, t.to(a.device), beta=0.0), x, grad=True)


def test_mse_bf16():
    compare(lambda a, b: F.mse_loss(a, b), torch.randn(3, 4).bfloat16(), torch.randn(3, 4).bfloat16(), grad=True)
