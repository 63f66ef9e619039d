"""Exact GELU's normal CDF on XLA CPU: three compiled float32 programs, A/B
in paired, interleaved rounds (this box is shared and noisy: compare the
ratios, not the absolute times).

  erf   x * 0.5 * (1 + erf(x / sqrt 2))     (chlo.erf; loses digits x < -2)
  erfc  x * 0.5 * erfc(-x / sqrt 2)          (chlo.erfc; GELU before h-gelu)
  gelu  F.gelu(x)                            (whatever the lowering does now)

Usage: PYTHONPATH=. python bench/bench_gelu_cdf.py [--rounds 15] [--iters 20]"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import torchtpu  # noqa: F401

R2 = 0.7071067811865476
PROGRAMS = {
    "erf": lambda x: x * 0.5 * (1 + torch.erf(x * R2)),
    "erfc": lambda x: x * 0.5 * torch.special.erfc(x * -R2),
    "gelu": lambda x: F.gelu(x),
}


def time_once(f, x, iters):
    torch.tpu.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        y = f(x)
    torch.tpu.synchronize()
    del y
    return (time.perf_counter() - t0) / iters


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    torch.manual_seed(0)
    for shape in ((512, 512), (64, 512, 512)):
        x = (3 * torch.randn(*shape)).to("tpu")
        fs = {k: torch.compile(v, backend="tpu") for k, v in PROGRAMS.items()}
        iters = max(2, a.iters if len(shape) == 2 else a.iters // 10)
        with torch.no_grad():
            for f in fs.values():
                f(x).cpu()
            t = {k: [] for k in fs}
            for r in range(a.rounds):
                order = list(fs) if r % 2 == 0 else list(reversed(fs))
                for k in order:
                    t[k].append(time_once(fs[k], x, iters))
        med = {k: statistics.median(v) for k, v in t.items()}
        print(f"{'x'.join(map(str, shape))} float32, {a.rounds} rounds x {iters} calls; median per call:")
        print("  " + "  ".join(f"{k} {1e6 * v:.0f} us" for k, v in med.items()))
        for num, den in (("gelu", "erfc"), ("gelu", "erf"), ("erfc", "erf")):
            ratios = [n / d for n, d in zip(t[num], t[den])]
            q = statistics.quantiles(ratios, n=4)
            print(f"  {num}/{den}: median {statistics.median(ratios):.3f} (quartiles {q[0]:.3f}-{q[2]:.3f})")


if __name__ == "__main__":
    main()
