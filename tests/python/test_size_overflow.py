"""Sizes whose byte count overflows 64 bits raise CPU's RuntimeError
("Storage size calculation overflowed ...") instead of wrapping to a tiny
storage that aborts the process inside XLA; sizes that fit but cannot be
allocated raise a RuntimeError. The tpu side runs in one subprocess that
reports each case as it goes, so a case that kills the process is recorded
as a crash (and the ones after it as not reached)."""
import json
import os
import subprocess
import sys

import pytest
import torch

# (expression with device D, message check): "exact" -- tpu's message is
# CPU's; "overflow" -- both say the storage size overflowed (tpu names the op
# and may report an intermediate shape of its lowering).
CASES = {
    "empty": ("torch.empty(2**62, device=D)", "exact"),
    "empty_2d": ("torch.zeros(2**31, 2**31, device=D)", "exact"),
    "empty_zero_after_overflow": ("torch.empty(2**40, 2**40, 0, device=D)", "exact"),
    "ones": ("torch.ones(2**62, device=D)", "exact"),
    "randn": ("torch.randn(2**62, device=D)", "exact"),
    "full": ("torch.full((2**62,), 1.0, device=D)", "overflow"),
    "arange": ("torch.arange(2**62, device=D)", "overflow"),
    "repeat": ("torch.ones(1, device=D).repeat(2**62)", "overflow"),
    "expand_contiguous": ("torch.ones(1, device=D).expand(2**62).contiguous()", "overflow"),
    "expand_to_double": ("torch.ones(1, device=D).expand(2**62).to(torch.float64)", "overflow"),
    "expand_reshape_mul": ("torch.ones(1, device=D).expand(2**62).reshape(2**61, 2) * 2", "overflow"),
    "new_empty": ("torch.ones(1, device=D).new_empty(2**62)", "exact"),
    "new_zeros": ("torch.ones(1, device=D).new_zeros(2**62)", "exact"),
    "new_full": ("torch.ones(1, device=D).new_full((2**62,), 2.0)", "exact"),
    "empty_strided": ("torch.empty_strided((2, 2), (2**62, 1), device=D)", "exact"),
    "empty_strided_negative": ("torch.empty_strided((2, 2), (-1, 1), device=D)", "exact"),
    "as_strided": ("torch.ones(4, device=D).as_strided((2**62,), (1,))", "exact"),
    "as_strided_2d": ("torch.ones(4, device=D).as_strided((2**61, 8), (1, 1))", "exact"),
    "resize_": ("torch.ones(4, device=D).resize_(2**62)", "exact"),
    "view_dtype": ("torch.empty(2**61, dtype=torch.float64, device=D).view(torch.uint8)", "exact"),
    "numel_overflow": ("torch.ones(1, device=D).view(1, 1).expand(2**40, 2**40) + 1", "exact"),
    # Fits int64 but no device can hold it: an error, never an abort.
    "huge_alloc": ("(torch.empty(2**42, device=D) + 1).sum().item()", "oom"),
    "huge_uint8": ("torch.empty(2**63 - 1, dtype=torch.uint8, device=D).fill_(1)[0].item()", "oom"),
}

_CHILD = r"""
import json, sys, torch
cases = json.loads(sys.argv[1])
mode = sys.argv[2]
if mode != "strict":
    torch.tpu.set_eager_mode(mode)
D = "tpu"
for name, expr in cases:
    try:
        eval(expr)
        r = ["ok", ""]
    except Exception as e:
        r = [type(e).__name__, str(e)]
    print(json.dumps([name] + r), flush=True)
"""


def _run_tpu(mode):
    names = list(CASES)
    args = json.dumps([[n, CASES[n][0]] for n in names])
    env = dict(os.environ, TORCH_TPU_LAUNCH_BLOCKING="0")
    p = subprocess.run([sys.executable, "-c", _CHILD, args, mode], capture_output=True, text=True, timeout=600, env=env)
    got = {}
    for line in p.stdout.splitlines():
        try:
            name, kind, msg = json.loads(line)
        except ValueError:
            continue
        got[name] = (kind, msg)
    for n in names:
        if n not in got:
            first = not any(m not in got for m in names[:names.index(n)])
            got[n] = ("crash" if first else "not reached", f"rc={p.returncode}: {p.stderr[-800:]}")
    return got


_results = {}


def _tpu(mode, name):
    if mode not in _results:
        _results[mode] = _run_tpu(mode)
    return _results[mode][name]


def _cpu(expr):
    try:
        eval(expr, {"torch": torch, "D": "cpu"})
    except Exception as e:
        return type(e).__name__, str(e)
    return "ok", ""


@pytest.mark.parametrize("mode", ["strict", "defer_and_fuse"])
@pytest.mark.parametrize("name", list(CASES))
def test_size_overflow_raises_like_cpu(name, mode):
    expr, check = CASES[name]
    cpu_kind, cpu_msg = _cpu(expr)
    assert cpu_kind == "RuntimeError", (cpu_kind, cpu_msg)  # the case is one CPU refuses
    kind, msg = _tpu(mode, name)
    # An allocation the device cannot hold raises torch.OutOfMemoryError (a
    # RuntimeError), as CUDA does; CPU's allocator raises a plain RuntimeError.
    expected = ("OutOfMemoryError",) if check == "oom" else (cpu_kind,)
    assert kind in expected, f"{expr}: tpu gave {kind}: {msg[:600]}; CPU: {cpu_msg}"
    if check == "exact":
        assert msg == cpu_msg
    elif check == "overflow":
        assert "Storage size calculation overflowed with sizes=[" in msg and cpu_msg.startswith(
            "Storage size calculation overflowed"), (msg, cpu_msg)


def test_sizes_that_fit_still_work():
    # the check must not refuse what fits: empty, zero-sized and large-but-fine shapes
    for shape in [(0,), (2**62, 0), (0, 2**40, 2**40)[:1], (3, 5), (1, 1, 1, 1, 1, 1, 1, 1)]:
        a = torch.zeros(shape, device="tpu")
        assert a.shape == torch.zeros(shape).shape
    e = torch.ones(1, device="tpu").expand(2**62)  # a view: no storage of that size
    assert e.shape == torch.ones(1).expand(2**62).shape and e.stride() == (0,)
    torch.testing.assert_close(torch.empty_strided((2, 3), (1, 2), device="tpu").fill_(2).cpu(),
                               torch.empty_strided((2, 3), (1, 2)).fill_(2))
