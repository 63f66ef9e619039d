"""Eager with changing shapes (issue 15, part 5): a loop that appends one
token's keys and values to a KV cache and attends over it, so every step's
KV length is new. Prints, for 16 and 64 steps in Strict and DeferAndFuse,
each without and with eager buckets (torch.tpu.set_eager_buckets), the
programs compiled (cache misses) and the wall time, with PyTorch on CPU as
the peer; the ratio 64/16 of programs compiled is what to read (sub-linear:
at most 1.5x).

    .venv/bin/python bench/bench_kv_eager.py [--steps 16,64] [--heads 4] [--dim 16]

Each (mode, steps) row runs in a fresh process (the compile cache's tier 1
would otherwise serve a later row from an earlier one's programs; tiers 2
and 3 are turned off), so a row is a first run: compiles included.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def kv_loop(steps, device, heads, dim, seed=0):
    import torch

    g = torch.Generator().manual_seed(seed)
    q = torch.randn(1, heads, 1, dim, generator=g).to(device)
    new_k = [torch.randn(1, heads, 1, dim, generator=g).to(device) for _ in range(4)]
    new_v = [torch.randn(1, heads, 1, dim, generator=g).to(device) for _ in range(4)]
    k = torch.zeros(1, heads, 0, dim, device=device)
    v = torch.zeros(1, heads, 0, dim, device=device)
    scale = dim ** -0.5
    outs = []
    for i in range(steps):
        k = torch.cat([k, new_k[i % 4]], dim=2)
        v = torch.cat([v, new_v[i % 4]], dim=2)
        s = torch.matmul(q, k.transpose(-1, -2)) * scale
        p = torch.softmax(s, dim=-1)
        outs.append(torch.matmul(p, v))
    return torch.stack(outs).cpu()


def child(mode, steps, heads, dim):
    os.environ["TORCH_TPU_TIER2_COMPILATION_CACHE"] = "0"
    os.environ["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = "off"
    import torch

    t0 = time.perf_counter()
    if mode == "cpu":
        kv_loop(steps, "cpu", heads, dim)
        print(json.dumps({"seconds": time.perf_counter() - t0, "programs": 0, "compile_s": 0.0}))
        return
    import torchtpu  # noqa: F401

    buckets = mode.endswith("+buckets")
    mode = mode.removesuffix("+buckets")
    torch.tpu.set_eager_mode(mode)
    torch.tpu.set_eager_buckets(buckets)
    torch.zeros(1, device="tpu").cpu()  # the device is up before the clock starts
    before = torch.tpu.cache_stats()
    t0 = time.perf_counter()
    kv_loop(steps, "tpu", heads, dim)
    after = torch.tpu.cache_stats()
    print(json.dumps({"seconds": time.perf_counter() - t0, "programs": after["misses"] - before["misses"],
                      "compile_s": after["compile_seconds"] - before["compile_seconds"]}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", default="16,64")
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--child", nargs=2)
    a = ap.parse_args()
    if a.child:
        child(a.child[0], int(a.child[1]), a.heads, a.dim)
        return
    steps = [int(s) for s in a.steps.split(",")]
    rows = {}
    modes = ("strict", "strict+buckets", "defer_and_fuse", "defer_and_fuse+buckets", "cpu")
    for mode in modes:
        for n in steps:
            p = subprocess.run([sys.executable, __file__, "--child", mode, str(n), "--heads", str(a.heads),
                                "--dim", str(a.dim)], capture_output=True, text=True, check=False)
            if p.returncode:
                sys.exit(f"{mode} {n}: {p.stderr[-2000:]}")
            rows[mode, n] = json.loads(p.stdout.strip().splitlines()[-1])
    print(f"KV-append + attention loop, heads={a.heads} dim={a.dim}; fresh process per row, tiers 2/3 off")
    print(f"{'mode':24} {'steps':>5} {'programs':>8} {'compile s':>9} {'wall s':>8}")
    for (mode, n), r in rows.items():
        print(f"{mode:24} {n:5d} {r['programs']:8d} {r['compile_s']:9.2f} {r['seconds']:8.3f}")
    lo, hi = steps[0], steps[-1]
    for mode in modes[:-1]:
        a0, a1 = rows[mode, lo]["programs"], rows[mode, hi]["programs"]
        print(f"{mode}: programs {hi}/{lo} steps = {a1 / max(a0, 1):.2f}x "
              f"(wall {rows[mode, hi]['seconds'] / max(rows[mode, lo]['seconds'], 1e-9):.2f}x; "
              f"vs CPU at {hi}: {rows[mode, hi]['seconds'] / max(rows['cpu', hi]['seconds'], 1e-9):.0f}x)")


if __name__ == "__main__":
    main()
