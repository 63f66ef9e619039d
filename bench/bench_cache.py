"""Time to the first training step of the transformer block (or the small
CNN: --model cnn), cold (empty
tier-3 compile cache: every program compiles; with background compiles, the
default, and with TORCH_TPU_ASYNC_COMPILE=0) vs warm (a second process
loads every executable from tier 3), with PyTorch on CPU as the peer, all
measured in this run, each in a fresh process. Prints a table.

    .venv/bin/python bench/bench_cache.py [--repeats 3] [--mode strict|defer_and_fuse] [--model transformer|cnn]

"first step" = from before building the model on the device to the loss of
one forward + backward + AdamW step on the host; PyTorch's own lazy import
of torch._dynamo (2-3 s here, triggered by the optimizer's constructor on any
device) is done before the clock starts, as it is no part of what the cache
changes. "process" = from interpreter start to the same point (includes
importing torch and torch._dynamo).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "tests", "python")

CHILD = r"""
import time
t_start = time.perf_counter()
import json, sys, torch
import torch._dynamo  # PyTorch's lazy import, paid by every device: see the docstring
sys.path.insert(0, %r)
import models
device, kind = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
t0 = time.perf_counter()
model = models.make(kind).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x, y = (t.to(device) for t in models.batch(kind, n=16))
opt.zero_grad()
loss = models.loss_fn(kind, model(x), y)
loss.backward()
opt.step()
value = loss.item()
t1 = time.perf_counter()
stats = torch.tpu.cache_stats() if device == "tpu" else {}
print(json.dumps({"first_step_s": t1 - t0, "import_s": t0 - t_start, "loss": value, "stats": stats}))
""" % MODELS


def run(device, kind, tier3=None, mode="strict", async_compile=True):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCH_TPU_TIER") and k != "WORLD_SIZE"}
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = tier3 or "off"  # cold: not the user's default cache
    if mode == "defer_and_fuse":
        env["TORCH_TPU_DEFER_AND_FUSE"] = "1"
    if not async_compile:
        env["TORCH_TPU_ASYNC_COMPILE"] = "0"
    out = subprocess.run([sys.executable, "-c", CHILD, device, kind], env=env, capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["process_s"] = r["import_s"] + r["first_step_s"]
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3, help="cold/warm pairs; the best of each is shown")
    ap.add_argument("--mode", default="strict", choices=["strict", "defer_and_fuse"], help="eager mode of the tpu runs")
    ap.add_argument("--model", default="transformer", choices=["transformer", "cnn"])
    args = ap.parse_args()
    rows = {"cpu": [], "off": [], "cold": [], "cold_sync": [], "warm": []}
    for _ in range(args.repeats):
        root, root_sync = tempfile.mkdtemp(prefix="tt_bench_tier3_"), tempfile.mkdtemp(prefix="tt_bench_tier3_")
        try:
            rows["cpu"].append(run("cpu", args.model))
            rows["off"].append(run("tpu", args.model, None, args.mode))  # tier 3 off: no writes
            rows["cold"].append(run("tpu", args.model, root, args.mode))
            rows["cold_sync"].append(run("tpu", args.model, root_sync, args.mode, async_compile=False))
            rows["warm"].append(run("tpu", args.model, root, args.mode))
            entries = len([f for f in os.listdir(root) if f.endswith(".ttx")])
            size = sum(os.path.getsize(os.path.join(root, f)) for f in os.listdir(root))
        finally:
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(root_sync, ignore_errors=True)
    best = {k: min(v, key=lambda r: r["first_step_s"]) for k, v in rows.items()}
    cold, warm, cold_sync, off = best["cold"], best["warm"], best["cold_sync"], best["off"]
    assert warm["loss"] == cold["loss"] == cold_sync["loss"] == off["loss"], "a cached or background-compiled executable computed something else"
    name = {"transformer": "transformer block", "cnn": "small CNN"}[args.model]
    print(f"{name}, batch 16, {args.mode}: time to first training step (best of {args.repeats}, "
          f"fresh process each)")
    print(f"{'run':<34}{'first step s':>14}{'process s':>12}{'compiles':>10}{'tier3 hits':>12}{'compile s':>11}{'load s':>9}")
    labels = {"cpu": "PyTorch CPU (peer)", "off": "tpu, tier 3 off", "cold": "tpu, tier 3 cold (default: on)", "cold_sync": "tpu, tier 3 cold, ASYNC_COMPILE=0",
              "warm": "tpu, tier 3 warm"}
    for k in ("cpu", "off", "cold_sync", "cold", "warm"):
        r, s = best[k], best[k]["stats"]
        extra = (f"{s['misses']:>10}{s['tier3_hits']:>12}{s['compile_seconds']:>11.3f}{s['load_seconds']:>9.3f}"
                 if s else f"{'-':>10}{'-':>12}{'-':>11}{'-':>9}")
        print(f"{labels[k]:<34}{r['first_step_s']:>14.3f}{r['process_s']:>12.3f}{extra}")
    print(f"cold, background vs calling-thread compiles: {cold_sync['first_step_s'] / cold['first_step_s']:.2f}x "
          f"faster to the first step ('compile s' sums the threads' compile times)")
    print(f"cold with tier-3 writes vs tier 3 off, first step: {cold['first_step_s'] / off['first_step_s']:.2f}x "
          f"(the cost of keeping tier 3 on by default in a fresh cache)")
    print(f"warm vs cold, first step: {cold['first_step_s'] / warm['first_step_s']:.1f}x faster "
          f"(process: {cold['process_s'] / warm['process_s']:.1f}x); tier 3 held {entries} entries, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
