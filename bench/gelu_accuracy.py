"""Exact GELU (approximate='none') and its backward in float32: error
against a float64 reference (0.5 x erfc(-x/sqrt2) via scipy, which keeps
its digits for x << 0) over a dense sweep of [-20, 20], by band, for CPU's
float32, the tpu eager path and torch.compile(backend="tpu").

Usage: PYTHONPATH=. python bench/gelu_accuracy.py [--n 2000001]"""
import argparse

import numpy as np
import torch
import torch.nn.functional as F
from scipy.special import erfc

import torchtpu  # noqa: F401

# [-10, -5.5547] is where float32 GELU is saturated to -0 on purpose (as
# CPU's erff form), so its relative error is 1 there by design.
SAT = -5.554719924926758
BANDS = [("x<-10", -np.inf, -10), ("[-10,sat)", -10, SAT), ("[sat,-2)", SAT, -2), ("[-2,0)", -2, 0), ("[0,2)", 0, 2), (">=2", 2, np.inf)]


def reference(x64):
    phi = 0.5 * erfc(-x64 / np.sqrt(2))
    pdf = np.exp(-0.5 * x64 * x64) / np.sqrt(2 * np.pi)
    return x64 * phi, phi + x64 * pdf, np.maximum(np.abs(phi), np.abs(x64 * pdf))


def ulp32(v):
    a = np.abs(v).astype(np.float32)
    return np.spacing(np.maximum(a, np.float32(np.finfo(np.float32).tiny))).astype(np.float64)


def stats(y, ref, x64, scale):
    """Error relative to scale (the reference, or for the backward the
    larger of Phi and |x phi|: it has a root near x = -0.75 where Phi and
    x phi cancel) and in float32 ulps of scale."""
    y = y.astype(np.float64)
    rel = np.where(scale != 0, np.abs(y - ref) / np.where(scale != 0, scale, 1), np.abs(y))
    ulp = np.abs(y - ref) / ulp32(scale)
    out = {}
    for name, lo, hi in BANDS:
        m = (x64 >= lo) & (x64 < hi)
        out[name] = (rel[m].max(), ulp[m].max())
    return out


def sweep(n):
    x = torch.linspace(-20, 20, n, dtype=torch.float32)
    return torch.cat([x, torch.tensor([-5.5, -5.55, -5.56, -4.25, -1e-30, 1e-30])])


def run(x, g):
    out = {}
    out["cpu"] = (F.gelu(x), torch.ops.aten.gelu_backward(g, x))
    xt, gt = x.to("tpu"), g.to("tpu")
    out["tpu eager"] = (F.gelu(xt).cpu(), torch.ops.aten.gelu_backward(gt, xt).cpu())
    f = torch.compile(lambda x, g: (F.gelu(x), torch.ops.aten.gelu_backward(g, x)), backend="tpu")
    y, d = f(xt, gt)
    out["tpu compiled"] = (y.cpu(), d.cpu())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000001)
    a = ap.parse_args()
    x = sweep(a.n)
    g = torch.ones_like(x)
    x64 = x.double().numpy()
    ref_f, ref_b, scale_b = reference(x64)
    res = run(x, g)
    for what, k, ref, scale in (("gelu", 0, ref_f, np.abs(ref_f)), ("gelu_backward", 1, ref_b, scale_b)):
        print(f"{what}: max relative error (max ulp) vs float64, float32 input"
              + (", relative to max(Phi, |x phi|)" if k else ""))
        print(f"{'':14}" + "".join(f"{b[0]:>21}" for b in BANDS))
        for name, ys in res.items():
            s = stats(ys[k].numpy(), ref, x64, scale)
            print(f"{name:14}" + "".join(f"{s[b][0]:>11.2e} ({s[b][1]:>6.3g})" for b in [b[0] for b in BANDS]))


if __name__ == "__main__":
    main()
