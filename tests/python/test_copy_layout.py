"""Copies between CPU and tpu keep a dense tensor's layout as .cuda()/.cpu()
do (preserve_format), and pointwise results of such tensors take CPU's
layout (the binding checks contiguity in C and asks the glue to lay the
results out only then)."""
import pytest
import torch

import torchtpu  # noqa: F401

CASES = {
    "transposed": lambda: torch.randn(3, 4).t(),
    "channels_last": lambda: torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last),
    "permuted3d": lambda: torch.randn(2, 3, 4).permute(2, 0, 1),
    "contiguous": lambda: torch.randn(3, 4),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_to_tpu_and_back_keeps_strides(case):
    x = CASES[case]()
    t = x.to("tpu")
    assert t.stride() == x.stride()
    back = t.cpu()
    assert back.stride() == x.stride()
    assert torch.equal(back, x)


def test_sliced_source_becomes_dense():
    x = torch.randn(3, 8)[:, ::2]  # not dense: preserve_format gives row-major, as on CPU
    t = x.to("tpu")
    assert t.stride() == torch.empty_like(x).stride() == (4, 1)
    assert torch.equal(t.cpu(), x)


def test_explicit_memory_format():
    x = torch.randn(2, 3, 4, 5)
    t = x.to("tpu", memory_format=torch.channels_last)
    assert t.stride() == x.to(memory_format=torch.channels_last).stride()
    assert torch.equal(t.cpu(), x)
    y = CASES["transposed"]()
    assert y.to("tpu", memory_format=torch.contiguous_format).is_contiguous()


@pytest.mark.parametrize("case", sorted(CASES))
def test_pointwise_results_take_cpu_layout(case):
    x = CASES[case]()
    t = x.to("tpu")
    for f in (lambda a: a + a, lambda a: torch.add(a, a, alpha=2), lambda a: a.sigmoid(),
              lambda a: torch.where(a > 0, a, -a)):
        want, got = f(x), f(t)
        assert got.stride() == want.stride(), case
        torch.testing.assert_close(got.cpu(), want)
