"""Strict vs DeferAndFuse (and PyTorch on CPU for reference) on training
steps of the transformer block and the small CNN: step time, executables
compiled, peak device memory. Prints a table; ratios are what to read.

    .venv/bin/python bench/bench_modes.py
"""
import copy
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
import models  # noqa: E402


def run(kind, device, mode, base, steps=10, repeats=3):
    model = copy.deepcopy(base).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = models.batch(kind, n=16)
    x, y = x.to(device), y.to(device)

    def step():
        opt.zero_grad()
        loss = models.loss_fn(kind, model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    ctx = torch.tpu.eager_mode(mode) if device == "tpu" else None
    if ctx:
        ctx.__enter__()
    try:
        for _ in range(3):
            step()
        execs0 = torch.tpu.cache_stats()["executables"] if device == "tpu" else 0
        if device == "tpu":
            torch.tpu.synchronize()
            torch.tpu.reset_peak_memory_stats()
            base_bytes = torch.tpu.memory_stats()["live_bytes"]
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(steps):
                step()
            best = min(best, (time.perf_counter() - t0) / steps * 1e3)
        if device != "tpu":
            return best, None, None
        peak = torch.tpu.memory_stats()["peak_bytes"] - base_bytes
        return best, torch.tpu.cache_stats()["executables"] - execs0, peak
    finally:
        if ctx:
            ctx.__exit__(None, None, None)


def main():
    print(f"plugin: {torch.tpu.runtime_info()['plugin_path']}")
    print(f"{'model':12s} {'run':16s} {'ms/step':>9s} {'vs strict':>10s} {'new execs':>10s} {'peak KiB':>10s}")
    for kind in ("transformer", "cnn"):
        torch.manual_seed(0)
        base = models.make(kind)
        n_before = torch.tpu.cache_stats()["executables"]
        strict = run(kind, "tpu", "strict", base)
        strict_execs = torch.tpu.cache_stats()["executables"] - n_before
        n_before = torch.tpu.cache_stats()["executables"]
        daf = run(kind, "tpu", "defer_and_fuse", base)
        daf_execs = torch.tpu.cache_stats()["executables"] - n_before
        cpu = run(kind, "cpu", None, base)
        print(f"{kind:12s} {'strict':16s} {strict[0]:9.2f} {1.0:10.2f} {strict_execs:10d} {strict[2] / 1024:10.1f}")
        print(f"{kind:12s} {'defer_and_fuse':16s} {daf[0]:9.2f} {strict[0] / daf[0]:10.2f} {daf_execs:10d} {daf[2] / 1024:10.1f}")
        print(f"{kind:12s} {'torch cpu':16s} {cpu[0]:9.2f} {strict[0] / cpu[0]:10.2f} {'':>10s} {'':>10s}")
    print("'vs strict' = strict step time / this run's step time (higher is faster);")
    print("'new execs' = executables compiled by that mode, warm-up included.")


if __name__ == "__main__":
    main()
