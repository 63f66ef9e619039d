"""Normalization parameters of another dtype than the input follow CPU's
rule (csrc/ops/norm_mixed.h, ATen's mixed_dtype.h): a float16/bfloat16
input with float32 parameters computes; other mixes raise CPU's
RuntimeError ("mixed dtype (CPU): ..."), for layer norm, group norm, batch
norm (with and without running statistics) and instance norm. Before, tpu
computed every mix."""
import pytest
import torch
import torch.nn.functional as F

OPS = {
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (3,), w, b), (3,)),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), (4,)),
    "batch_norm": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (4,)),
    "batch_norm_stats": (lambda x, w, b: F.batch_norm(x, torch.zeros_like(w), torch.ones_like(w), w, b,
                                                      training=True), (4,)),
    "instance_norm": (lambda x, w, b: F.instance_norm(x, weight=w, bias=b), (4,)),
}
F32, F64, BF16, F16 = torch.float32, torch.float64, torch.bfloat16, torch.float16
MIXES = [(BF16, F32, F32), (F16, F32, F32), (F32, BF16, BF16), (F32, F64, F64), (F64, F32, F32), (BF16, F64, F64),
         (BF16, F16, F16), (F32, F32, BF16), (F32, None, F64), (BF16, F32, F64)]


def _outcome(op, xd, wd, bd, device):
    fn, shape = OPS[op]
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 4, 3, generator=g).to(xd).to(device)
    w = None if wd is None else (torch.rand(*shape, generator=g) + 0.5).to(wd).to(device)
    b = None if bd is None else torch.randn(*shape, generator=g).to(bd).to(device)
    try:
        return "ok", fn(x, w, b)
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return "raise", e


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("mix", MIXES, ids=lambda m: "-".join(str(d).replace("torch.", "") for d in m))
def test_mixed_dtypes_like_cpu(op, mix):
    cpu, tpu = _outcome(op, *mix, "cpu"), _outcome(op, *mix, "tpu")
    if cpu[0] == "raise":
        assert tpu[0] == "raise", f"CPU raised {cpu[1]!r}; tpu computed"
        assert type(tpu[1]) is type(cpu[1]) and str(cpu[1]).splitlines()[0] in str(tpu[1]), (cpu[1], tpu[1])
        return
    assert tpu[0] == "ok", f"CPU computed; tpu raised {tpu[1]!r}"
    assert tpu[1].dtype == cpu[1].dtype
    tol = 1e-2 if mix[0] in (BF16, F16) else 1e-5
    torch.testing.assert_close(tpu[1].cpu().float(), cpu[1].float(), rtol=tol, atol=tol)


def test_some_mix_is_refused_and_some_computes():
    """The table above has both kinds on CPU (no vacuous pass)."""
    kinds = {_outcome("layer_norm", *m, "cpu")[0] for m in MIXES}
    assert kinds == {"ok", "raise"}
