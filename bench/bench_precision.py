"""Float32 matmul precision modes on the CPU plugin: a 2048x2048 float32
matmul per mode (medium = 1 bf16 pass, high = 3 bf16 passes, highest = the
plugin's native f32 dot, which is what every mode cost before modes existed)
beside PyTorch CPU's float32 matmul, in the same run. Prints per-mode
medians, ratios to highest and to PyTorch, and each mode's relative error
against float64.

    .venv/bin/python bench/bench_precision.py [--n 2048] [--repeats 5]

On the CPU plugin the "passes" are real dot_generals on bf16 operands with
an f32 result, which XLA's CPU backend widens to f32 (its bf16 dot is not
faster than f32): the cost shape is 1 : 3 : 1 dots plus the splitting
elementwise work, not a TPU's 1 : 3 : 6 MXU passes. Rounds are interleaved
(each round times every mode once) so that load from other processes hits
all alike; medians over rounds.
"""
import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see bench_modes.py

import torch  # noqa: E402
import torchtpu  # noqa: E402,F401

MODES = ("medium", "high", "highest")


def time_tpu(a, b, mode):
    with torch.tpu.precision(mode):
        t0 = time.perf_counter()
        c = a @ b
        torch.tpu.synchronize()
        return time.perf_counter() - t0, c


def time_cpu(a, b):
    t0 = time.perf_counter()
    c = a @ b
    return time.perf_counter() - t0, c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    n = args.n
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(n, n, generator=g), torch.randn(n, n, generator=g)
    ta, tb = a.to("tpu"), b.to("tpu")
    ref = a.double() @ b.double()
    errs = {}
    for mode in MODES:  # warm: compile each mode's program once
        _, c = time_tpu(ta, tb, mode)
        errs[mode] = ((c.cpu().double() - ref).norm() / ref.norm()).item()
    _, c = time_cpu(a, b)
    errs["torch_cpu"] = ((c.double() - ref).norm() / ref.norm()).item()
    times = {k: [] for k in MODES + ("torch_cpu",)}
    for _ in range(args.repeats):
        for mode in MODES:
            times[mode].append(time_tpu(ta, tb, mode)[0])
        times["torch_cpu"].append(time_cpu(a, b)[0])
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{n}x{n} float32 matmul, {args.repeats} rounds, torch {torch.__version__}, "
          f"plugin {torch.tpu.runtime_info()['platform_name']}")
    print(f"{'mode':<12}{'median ms':>11}{'x highest':>11}{'x torch cpu':>13}{'rel err vs f64':>17}")
    for k in MODES + ("torch_cpu",):
        print(f"{k:<12}{med[k] * 1e3:>11.1f}{med[k] / med['highest']:>11.2f}{med[k] / med['torch_cpu']:>13.2f}"
              f"{errs[k]:>17.2e}")


if __name__ == "__main__":
    main()
