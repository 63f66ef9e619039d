"""Differences of the fifth fuzzing session, each checked against CPU:
logsumexp over dim=() raises CPU's error."""
import pytest
import torch

from cpu_same import same_as_cpu


@pytest.mark.parametrize("shape", [(3, 4), (5,), (2, 1, 3)])
@pytest.mark.parametrize("out", [None, torch.float32, torch.float64])
def test_logsumexp_empty_dim_list_raises_as_cpu(shape, out):
    # CPU sums over every dim into a 0-dim result, then adds its [1, ..., 1]
    # maxes in place: "output with shape [] doesn't match the broadcast shape
    # [1, 1]"; tpu returned the all-reduce
    x = torch.randn(shape)

    def f(d):
        if out is None:
            return torch.logsumexp(x.to(d), dim=())
        return torch.logsumexp(x.to(d), dim=(), out=torch.empty(0, dtype=out, device=d))

    same_as_cpu(f)


@pytest.mark.parametrize("shape,keepdim", [((3, 4), True), ((), False), ((0, 3), False)])
def test_logsumexp_empty_dim_list_computes_where_cpu_does(shape, keepdim):
    # kept dims, a 0-dim input and an empty one reduce over everything on CPU
    x = torch.randn(shape)
    same_as_cpu(lambda d: torch.logsumexp(x.to(d), dim=(), keepdim=keepdim))
