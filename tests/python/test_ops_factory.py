"""Factories on "tpu" against CPU: arange's out= overloads and the window
functions built on them (hann/hamming/blackman/bartlett/kaiser)."""
import warnings

import pytest
import torch

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("n", [0, 1, 2, 9])
@pytest.mark.parametrize("kw", [{}, {"periodic": False}, {"dtype": torch.float64}])
def test_window_functions_vs_cpu(name, n, kw):
    t = getattr(torch, name)(n, device="tpu", **kw)
    assert t.device.type == "tpu"
    torch.testing.assert_close(t.cpu(), getattr(torch, name)(n, **kw))


@pytest.mark.parametrize("args,dtype", [((0, 6, 2), torch.float32), ((5,), torch.int64), ((1.0, 2.0, 0.25), torch.float64),
                                        ((10, 0, -3), torch.int32), ((0, 1, 0.1), torch.bfloat16)])
def test_arange_out_resizes_and_writes_like_cpu(args, dtype):
    for start_size in (0, 1):
        out, ref = torch.empty(start_size, dtype=dtype, device="tpu"), torch.empty(start_size, dtype=dtype)
        with warnings.catch_warnings(record=True) as w_tpu:
            warnings.simplefilter("always")
            r = torch.arange(*args, out=out)
        with warnings.catch_warnings(record=True) as w_cpu:
            warnings.simplefilter("always")
            torch.arange(*args, out=ref)
        assert r is out and out.dtype == dtype and out.device.type == "tpu"
        torch.testing.assert_close(out.cpu(), ref)
        # CPU's text adds "(Triggered internally at ...)"
        assert len(w_tpu) == len(w_cpu) == start_size
        assert all(str(c.message).startswith(str(t.message)) for t, c in zip(w_tpu, w_cpu))


def test_arange_out_of_matching_size_writes_in_place():
    base = torch.zeros(2, 4, device="tpu")
    torch.arange(4, out=base[1])
    torch.testing.assert_close(base.cpu(), torch.tensor([[0.0] * 4, [0.0, 1.0, 2.0, 3.0]]))
