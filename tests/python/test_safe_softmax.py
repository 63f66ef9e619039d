"""aten::_safe_softmax (PyTorch's math attention calls it) lowered in the core
(csrc/ops/norm.c): softmax with 0 for rows that are all -inf, the row test
taken from softmax's own row maximum. Against CPU PyTorch, with NaN and -inf
rows, dtype= (widening, narrowing), integer input, empty rows, and the
attention that uses it, forward and backward."""
import pytest
import torch
import torch.nn.functional as F

NINF = float("-inf")


def _special():
    x = torch.randn(4, 5, 6)
    x[0, 1] = NINF  # a whole row along dim 2
    x[1, :, 2] = NINF  # a whole row along dim 1
    x[2, 2, 3] = float("nan")
    x[3, 0, :] = NINF
    x[3, 0, 1] = float("nan")  # NaN among -infs: the row is NaN, not 0
    return x


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", [None, torch.float64, torch.bfloat16])
def test_matches_cpu_with_masked_and_nan_rows(dim, dtype):
    x = _special()
    want = torch._safe_softmax(x, dim, dtype=dtype)
    got = torch._safe_softmax(x.to("tpu"), dim, dtype=dtype).cpu()
    assert got.dtype == want.dtype
    tol = dict(atol=1e-2, rtol=1e-2) if dtype == torch.bfloat16 else dict(atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(got, want, equal_nan=True, **tol)


def test_nan_among_neg_inf_is_nan():
    for where in range(6):
        x = torch.full((6,), NINF)
        x[where] = float("nan")
        got = torch._safe_softmax(x.to("tpu"), 0).cpu()
        assert got.isnan().all(), (where, got)
    assert (torch._safe_softmax(torch.full((3, 6), NINF, device="tpu"), 1).cpu() == 0).all()


def test_narrowing_dtype_tests_self_not_the_converted_values():
    y = torch.full((2, 3), -1e300, dtype=torch.float64)  # finite: -inf only once float32
    y[1] = NINF
    want = torch._safe_softmax(y, 1, dtype=torch.float32)
    got = torch._safe_softmax(y.to("tpu"), 1, dtype=torch.float32).cpu()
    torch.testing.assert_close(got, want, equal_nan=True)
    assert want[0].isnan().all() and (want[1] == 0).all()


def test_integer_input_and_empty_rows():
    yi = torch.randint(0, 5, (3, 4))
    torch.testing.assert_close(torch._safe_softmax(yi.to("tpu"), 1, dtype=torch.float32).cpu(),
                               torch._safe_softmax(yi, 1, dtype=torch.float32))
    assert torch._safe_softmax(torch.randn(2, 0, 3, device="tpu"), 1).shape == (2, 0, 3)


def test_attention_with_a_fully_masked_row_forward_and_backward():
    torch.manual_seed(0)
    q = torch.randn(2, 3, 6, 4, requires_grad=True)
    m = torch.ones(6, 6, dtype=torch.bool).tril()
    m[3] = False  # query 3 sees nothing: its output is 0

    def f(q, m):
        return F.scaled_dot_product_attention(q, q * 2, q.sin(), attn_mask=m)

    out = f(q, m)
    out.square().sum().backward()
    qt = q.detach().to("tpu").requires_grad_()
    got = f(qt, m.to("tpu"))
    got.square().sum().backward()
    torch.testing.assert_close(got.detach().cpu(), out.detach(), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(qt.grad.cpu(), q.grad, atol=1e-5, rtol=1e-5)
    assert (got[:, :, 3].detach().cpu() == 0).all()
