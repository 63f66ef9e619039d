"""One check for promotion and special-value tests: a function of the device
run on CPU and on "tpu" gives the same dtype, the same values (NaN where CPU
has NaN), optionally the same strides, or the same exception type with CPU's
message inside ours."""
import torch


def _run(fn, device):
    try:
        return fn(device), None
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return None, e


def _flat(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def same_as_cpu(fn, strides=False, atol=None, rtol=None):
    expected, cpu_err = _run(fn, "cpu")
    actual, tpu_err = _run(fn, "tpu")
    if cpu_err is not None:
        assert tpu_err is not None, f"CPU raised {type(cpu_err).__name__}: {cpu_err}; tpu returned {actual}"
        assert type(tpu_err) is type(cpu_err), f"CPU raised {type(cpu_err).__name__}: {cpu_err}; tpu {type(tpu_err).__name__}: {tpu_err}"
        first = str(cpu_err).splitlines()[0]
        assert first in str(tpu_err), f"CPU's message {first!r} not in tpu's {str(tpu_err)!r}"
        return
    assert tpu_err is None, f"tpu raised {type(tpu_err).__name__}: {tpu_err}; CPU returned {expected}"
    for e, a in zip(_flat(expected), _flat(actual), strict=True):
        assert a.device.type == "tpu"
        assert a.dtype == e.dtype, f"dtype {a.dtype}, CPU {e.dtype}"
        assert a.shape == e.shape, f"shape {tuple(a.shape)}, CPU {tuple(e.shape)}"
        if strides:
            assert a.stride() == e.stride(), f"strides {a.stride()}, CPU {e.stride()}"
        tol = {} if atol is None else {"atol": atol, "rtol": rtol}
        torch.testing.assert_close(a.cpu(), e, equal_nan=True, **tol)
