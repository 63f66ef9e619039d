"""Property checks for OpInfo entries whose values are random (used by tools/opinfo.py).

A device's random stream cannot reproduce CPU's, so PyTorch's test_compare_cpu skips these entries. Here a
sample of such an entry passes when its result on tpu has CPU's structure, shapes and dtypes, is the same
when run again under the same seed, is finite wherever CPU's result is finite, and lies in the support of
the distribution (per entry below). The report counts these apart from the value-compared entries."""
import torch
from torch.utils._pytree import tree_flatten

# values are undefined: only structure, shapes and dtypes are checked
UNDEFINED = {"empty", "empty_like", "empty_permuted", "empty_strided", "new_empty", "new_empty_strided"}


def _numbers(sample):
    """The numbers among the sample's input (randint's samples start with high or low) and positional args."""
    return [a for a in (sample.input, *sample.args) if isinstance(a, (int, float)) and not isinstance(a, bool)]


def _range(sample, default):
    """(low, high) of a randint/uniform-like sample: positional numbers or low/high/from/to keywords."""
    nums = _numbers(sample)
    low, high = default
    if len(nums) == 1:
        high = nums[0]
    elif len(nums) >= 2:
        low, high = nums[0], nums[1]
    low = sample.kwargs.get("low", sample.kwargs.get("from", low))
    high = sample.kwargs.get("high", sample.kwargs.get("to", high))
    return low, high


def _require(cond, what):
    if not bool(cond):
        raise AssertionError(f"random result outside the distribution's support: {what}")


def _integral(v):
    return torch.equal(v, v.floor()) if v.is_floating_point() else True


def _support(name, sample, out):
    x = sample.input
    v = out[0].double() if out and isinstance(out[0], torch.Tensor) else None
    if v is None or v.numel() == 0:
        return
    if name == "bernoulli":
        _require(((v == 0) | (v == 1)).all(), "bernoulli values are 0 or 1")
    elif name == "exponential":
        _require((v >= 0).all(), "exponential values >= 0")
    elif name == "geometric":
        _require((v >= 1).all() and _integral(v), "geometric values are integers >= 1")
    elif name == "log_normal":
        _require((v >= 0).all(), "log_normal values >= 0")
    # (the rand_like entry of op_db calls randn_like: no support beyond finiteness)
    elif name in ("randint", "randint_like"):
        low, high = _range(sample, (0, None))
        _require(_integral(v) and (v >= low).all() and (high is None or (v < high).all()),
                 f"randint values are integers in [{low}, {high})")
    elif name == "uniform":
        low, high = _range(sample, (0.0, 1.0))
        _require(((v >= low) & (v <= high)).all(), f"uniform values in [{low}, {high}]")
    elif name == "multinomial":
        probs = x.double() if x.dim() == 2 else x.double().unsqueeze(0)
        idx = out[0].long() if out[0].dim() == 2 else out[0].long().unsqueeze(0)
        _require(((idx >= 0) & (idx < probs.shape[-1])).all(), "multinomial indices are categories")
        _require((probs.gather(1, idx) > 0).all(), "multinomial never draws a zero-probability category")
        replacement = sample.args[1] if len(sample.args) > 1 else sample.kwargs.get("replacement", False)
        if not replacement:
            for row in idx:
                _require(row.unique().numel() == row.numel(), "multinomial without replacement draws distinct")
    elif name in ("nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d"):
        p = sample.kwargs.get("p", sample.args[0] if sample.args else 0.5)
        if sample.kwargs.get("training", True) and p < 1:
            kept = x.double() / (1 - p)
            ok = (v == 0) | torch.isclose(v, kept, rtol=1e-3, atol=1e-5) | (kept.isnan() & v.isnan())
            _require(ok.all(), f"dropout values are 0 or x / (1 - {p})")
    elif name == "nn.functional.rrelu":
        lower, upper = sample.kwargs.get("lower", 1.0 / 8), sample.kwargs.get("upper", 1.0 / 3)
        xd = x.double()
        pos = xd >= 0
        _require(torch.isclose(v[pos], xd[pos], rtol=1e-3, atol=1e-5).all(), "rrelu keeps x >= 0")
        ratio = v[~pos] / xd[~pos]
        _require(((ratio >= lower - 1e-3) & (ratio <= upper + 1e-3)).all(), f"rrelu slope in [{lower}, {upper}]")
    elif name.startswith("nn.functional.fractional_max_pool"):
        _require(torch.isin(v, x.double()).all(), "fractional max pool outputs are input values")


def check(name, sample, got, again, want):
    """Raises AssertionError unless the tpu results `got` and `again` (same seed) have the properties above;
    `want` is CPU's result for the same sample (its values are not compared)."""
    g, gspec = tree_flatten(got)
    a, _ = tree_flatten(again)
    w, wspec = tree_flatten(want)
    if gspec != wspec:
        raise AssertionError(f"result structure differs: {gspec} vs {wspec}")
    g = [t.cpu() if isinstance(t, torch.Tensor) else t for t in g]
    a = [t.cpu() if isinstance(t, torch.Tensor) else t for t in a]
    for gt, at, wt in zip(g, a, w):
        if not isinstance(wt, torch.Tensor):
            continue
        if not isinstance(gt, torch.Tensor) or gt.shape != wt.shape or gt.dtype != wt.dtype:
            raise AssertionError(f"result differs from CPU's in shape or dtype: {getattr(gt, 'shape', gt)} "
                                 f"{getattr(gt, 'dtype', '')} vs {tuple(wt.shape)} {wt.dtype}")
        if name in UNDEFINED:
            continue
        if not torch.equal(gt.isnan(), at.isnan()) or not torch.equal(gt.nan_to_num(0), at.nan_to_num(0)):
            raise AssertionError("not reproducible: the same seed gave different values on tpu")
        if wt.is_floating_point() and wt.isfinite().all() and not gt.isfinite().all():
            raise AssertionError("non-finite values where CPU's result is finite")
    if name not in UNDEFINED:
        _support(name, sample, g)
