"""Results laid out as CPU lays them out when an argument is not row-major
(csrc/ops/result_layout.c: TensorIterator's order for pointwise ops, the
suggested memory format for conv/norm/pool/upsample/pad, empty_like for sort
and dropout). OpInfo's samples of those ops, with their tensors made
transposed or channels_last (same values), run on CPU and on tpu: every
tensor result must have CPU's strides and values."""
import pytest
import torch
from torch.testing._internal.common_methods_invocations import binary_ufuncs, op_db, unary_ufuncs

import torchtpu  # noqa: F401

NN = {"nn.functional.conv2d", "nn.functional.conv3d", "nn.functional.batch_norm", "nn.functional.group_norm",
      "nn.functional.max_pool2d", "nn.functional.avg_pool2d", "nn.functional.adaptive_avg_pool2d",
      "nn.functional.adaptive_max_pool2d", "nn.functional.interpolate", "nn.functional.pad", "sort",
      "nn.functional.hardtanh", "nn.functional.relu", "where", "clamp", "lerp", "addcmul", "addcdiv",
      "nn.functional.gelu", "nn.functional.silu", "masked_fill", "floor_divide", "nn.functional.avg_pool3d",
      "nn.functional.max_pool3d"}
DTYPES = (torch.float32, torch.int64, torch.bool, torch.complex64)
OPS = sorted({(o.name + "." + o.variant_test_name).rstrip("."): o
              for o in list(unary_ufuncs) + list(binary_ufuncs) + [o for o in op_db if o.name in NN]
              if "chalf" not in o.name  # (complex32 is not a tpu dtype)
              and any(d in o.supported_dtypes("cpu") for d in DTYPES)}.items())
MAX_SAMPLES = 6


def strided(t, how):
    """The same values in another layout."""
    if not isinstance(t, torch.Tensor) or t.dim() < 2 or t.numel() < 2:
        return t
    if how == "channels_last" and t.dim() in (4, 5):
        return t.contiguous(memory_format=torch.channels_last if t.dim() == 4 else torch.channels_last_3d)
    return t.transpose(-1, -2).contiguous().transpose(-1, -2)


def to_tpu(x):
    # 0-dim tensors stay CPU scalars (as on CPU, where the refs treat them as
    # scalars; a 0-dim device tensor is broadcast by expand instead)
    if isinstance(x, torch.Tensor):
        return x if x.dim() == 0 else x.to("tpu")
    if isinstance(x, (list, tuple)):
        return type(x)(to_tpu(v) for v in x)
    return x


def restride(x, how):
    if isinstance(x, (list, tuple)):
        return type(x)(strided(v, how) for v in x)
    return strided(x, how)


def tensors(r):
    if isinstance(r, torch.Tensor):
        return [r]
    if isinstance(r, (list, tuple)):
        return [t for t in r if isinstance(t, torch.Tensor)]
    return []


@pytest.mark.parametrize("how", ["transposed", "channels_last"])
@pytest.mark.parametrize("name,op", OPS, ids=[n for n, _ in OPS])
def test_result_strides_equal_cpu(name, op, how):
    dtype = next(d for d in DTYPES if d in op.supported_dtypes("cpu"))
    checked = 0
    for i, s in enumerate(op.sample_inputs("cpu", dtype)):
        if i >= MAX_SAMPLES:
            break
        inp, args = restride(s.input, how), tuple(restride(a, how) for a in s.args)
        kwargs = {k: restride(v, how) for k, v in s.kwargs.items()}
        if all(not isinstance(x, torch.Tensor) or x.is_contiguous() for x in (inp, *args, *kwargs.values())):
            continue
        torch.manual_seed(0)
        try:
            want = op(inp, *args, **kwargs)
        except Exception:  # noqa: BLE001 - CPU refuses this sample: nothing to compare
            continue
        torch.manual_seed(0)
        try:
            got = op(to_tpu(inp), *to_tpu(args), **{k: to_tpu(v) for k, v in kwargs.items()})
        except RuntimeError as e:
            if "to be on the same device" in str(e):  # a _refs op refuses a CPU scalar on any other device
                continue
            raise
        for w, g in zip(tensors(want), tensors(got)):
            if w.numel() <= 1:
                continue
            assert g.shape == w.shape, (name, i)
            assert g.stride() == w.stride(), (name, i, how, w.shape, w.stride(), g.stride())
            if "dropout" not in name:
                torch.testing.assert_close(g.cpu(), w, equal_nan=True, atol=1e-4, rtol=1e-4)
            checked += 1
    if how == "transposed" and name in ("add", "mul", "where", "nn.functional.conv2d", "sort"):
        assert checked > 0, name  # the test exercises these at least
