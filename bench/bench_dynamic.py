"""Changing sequence lengths through a compiled transformer block (issue 15,
part 4): 24 lengths from 5 to 200 (batch 2, a pre-norm attention block,
d=64, 4 heads), swept twice in a fresh process per row, tier 3 off. For each
way of running it: programs compiled in the first sweep, first and second
sweep wall time, and the largest difference from PyTorch on the CPU
(--train: a training step instead, the loss and every gradient
compared; AOTAutograd's forward and backward graphs both run padded). Rows:
torch.compile(backend="tpu") with dynamic=True (one graph, padded to
power-of-two buckets: one plan per bucket, torchtpu/_bounded.py), the same
with buckets off (torch.tpu.set_dynamic_buckets(False): plans per length),
with dynamic=False (Dynamo recompiles per length), torchtpu's DeferAndFuse
eager, and the peers PyTorch CPU eager and inductor on CPU (dynamic=True).
The issue's bar: at most two programs per power-of-two bucket (12 here).

    .venv/bin/python bench/bench_dynamic.py [--train] [--rows tpu_dynamic,tpu_per_size,tpu_static,tpu_eager,cpu,inductor]
"""
import argparse
import json
import os
import subprocess
import sys

CHILD = r'''
import json, os, sys, time
import torch
row = sys.argv[1]
train = sys.argv[2] == "train"
tpu = row.startswith("tpu")
if tpu:
    import torchtpu  # noqa: F401


class Block(torch.nn.Module):
    def __init__(s, d=64, h=4):
        super().__init__()
        s.h = h
        s.ln1, s.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        s.qkv, s.o = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        s.ff = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d))

    def forward(s, x):
        b, n, d = x.shape
        q, k, v = s.qkv(s.ln1(x)).view(b, n, 3, s.h, d // s.h).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) / (d // s.h) ** 0.5, -1) @ v
        x = x + s.o(a.transpose(1, 2).reshape(b, n, d))
        return x + s.ff(s.ln2(x))


torch.manual_seed(0)
ref = Block().eval()
m = Block().eval()
m.load_state_dict(ref.state_dict())
dev = "tpu" if tpu else "cpu"
m = m.to(dev)
if row in ("tpu_dynamic", "tpu_per_size"):
    if row == "tpu_per_size":
        torch.tpu.set_dynamic_buckets(False)
    f = torch.compile(m, backend="tpu", dynamic=True)
elif row == "tpu_static":
    torch._dynamo.config.automatic_dynamic_shapes = False
    torch._dynamo.config.cache_size_limit = 64
    f = torch.compile(m, backend="tpu", dynamic=False)
elif row == "tpu_eager":
    torch.tpu.set_eager_mode("defer_and_fuse")
    f = m
elif row == "inductor":
    f = torch.compile(m, dynamic=True)
else:
    f = m
lengths = [5 + round(i * 195 / 23) for i in range(24)]
xs = [torch.randn(2, n, 64, generator=torch.Generator().manual_seed(n)) for n in lengths]


def step(model, x):  # training: the loss and every parameter's gradient
    model.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    return [loss.detach()] + [p.grad for p in model.parameters()]


if train:
    if f is not m:
        f = torch.compile(step, backend="tpu", dynamic=row != "tpu_static") if tpu else torch.compile(step, dynamic=True)
    else:
        f = step
    refs = [step(ref, x) for x in xs]
else:
    with torch.no_grad():
        refs = [ref(x) for x in xs]


def sweep():
    worst = 0.0
    t = time.perf_counter()
    with torch.set_grad_enabled(train):
        for x, r in zip(xs, refs):
            got = f(m, x.to(dev)) if train else [f(x.to(dev))]
            for g, w in zip(got, r if train else [r]):
                worst = max(worst, (g.cpu() - w).abs().max().item())
    return time.perf_counter() - t, worst


s0 = torch.tpu.cache_stats() if tpu else None
first, w1 = sweep()
s1 = torch.tpu.cache_stats() if tpu else None
second, w2 = sweep()
out = {"first": first, "second": second, "worst": max(w1, w2)}
if tpu:
    torch.tpu.synchronize()
    out.update(programs=s1["misses"] - s0["misses"], compile_s=s1["compile_seconds"] - s0["compile_seconds"],
               plans=torch.tpu.plan_stats()["captures"])
print("DYN " + json.dumps(out))
'''

LABELS = {
    "tpu_dynamic": "torchtpu compile, dynamic=True",
    "tpu_per_size": "  same, buckets off (per length)",
    "tpu_static": "torchtpu compile, dynamic=False",
    "tpu_eager": "torchtpu DeferAndFuse eager",
    "cpu": "PyTorch CPU eager",
    "inductor": "inductor (CPU), dynamic=True",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default=",".join(LABELS))
    ap.add_argument("--train", action="store_true", help="a training step (forward, backward) instead of inference")
    a = ap.parse_args()
    env = dict(os.environ, TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT="off", TORCH_TPU_TIER2_COMPILATION_CACHE="0",
               OMP_WAIT_POLICY="PASSIVE")
    what = "training steps (loss and gradients compared)" if a.train else "inference"
    print(f"24 lengths 5..200 through a compiled attention block (batch 2, d=64), {what}, two sweeps, fresh process per row")
    print(f"{'row':34s} {'programs':>8s} {'plans':>5s} {'compile s':>9s} {'first s':>8s} {'second s':>8s} "
          f"{'2nd/CPU':>7s} {'max |diff|':>10s}")
    res = {}
    for row in a.rows.split(","):
        p = subprocess.run([sys.executable, "-c", CHILD, row, "train" if a.train else "infer"], env=env, capture_output=True, text=True, timeout=1800)
        line = [x for x in p.stdout.splitlines() if x.startswith("DYN ")]
        if not line:
            print(f"{LABELS[row]:34s} failed: {(p.stdout + p.stderr)[-800:]}")
            continue
        res[row] = json.loads(line[-1][4:])
    cpu = res.get("cpu", {}).get("second")
    for row, r in res.items():
        progs = (f"{r['programs']:8d} {r['plans']:5d} {r['compile_s']:9.2f}" if "programs" in r
                 else f"{'-':>8s} {'-':>5s} {'-':>9s}")
        ratio = f"{r['second'] / cpu:7.2f}" if cpu else f"{'-':>7s}"
        print(f"{LABELS[row]:34s} {progs} {r['first']:8.2f} {r['second']:8.2f} {ratio} {r['worst']:10.2e}")


if __name__ == "__main__":
    main()
