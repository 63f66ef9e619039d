"""Host overhead per op and one transformer training step: torchtpu vs PyTorch
on CPU, measured in the same run. Prints a table of ratios and times.

    .venv/bin/python bench/bench_overhead.py

Each figure is the median of REPEATS timed runs (the machine may be shared:
a median is steadier than a single run, and the count is printed).
"""
import copy
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
import models  # noqa: E402


REPEATS = 7


def per_op_us(device, n=5000):
    a = torch.ones(1, device=device)
    b = torch.ones(1, device=device)
    for _ in range(200):
        c = a + b
    if device == "tpu":
        torch.tpu.synchronize()
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(n):
            c = a + b
        if device == "tpu":
            torch.tpu.synchronize()
        times.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(times)


def step_ms(device, base, steps=10):
    model = copy.deepcopy(base).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = models.batch("transformer", n=16)
    x, y = x.to(device), y.to(device)

    def step():
        opt.zero_grad()
        loss = models.loss_fn("transformer", model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(3):
        step()
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        times.append((time.perf_counter() - t0) / steps * 1e3)
    return statistics.median(times)


def main():
    torch.manual_seed(0)
    tpu_op, cpu_op = per_op_us("tpu"), per_op_us("cpu")
    with torch.tpu.eager_mode("defer_and_fuse"):
        daf_op = per_op_us("tpu")
    base = models.make("transformer")
    tpu_step, cpu_step = step_ms("tpu", base), step_ms("cpu", base)
    info = torch.tpu.runtime_info()
    print(f"plugin: {info['plugin_path']} (PJRT {info['pjrt_api_version']}, {info['platform_name']})")
    print(f"{'measure':44s} {'torchtpu':>10s} {'torch cpu':>10s} {'ratio':>8s}")
    print(f"medians of {REPEATS} timed runs each")
    print(f"{'a + b, 1 element, warm cache (us/op)':44s} {tpu_op:10.1f} {cpu_op:10.1f} {tpu_op / cpu_op:8.1f}")
    print(f"{'  the same in DeferAndFuse (us/op)':44s} {daf_op:10.1f} {cpu_op:10.1f} {daf_op / cpu_op:8.1f}")
    print(f"{'transformer block train step (ms)':44s} {tpu_step:10.2f} {cpu_step:10.2f} {tpu_step / cpu_step:8.1f}")
    print(f"cache: {torch.tpu.cache_stats()}")


if __name__ == "__main__":
    main()
