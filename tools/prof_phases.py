"""Where the host time of one op goes, phase by phase, in Strict and
DeferAndFuse: training steps of a test model, then a loop of `a + b`.

Needs the phase timers compiled in (base/prof.h); they cost nothing otherwise:

    CFLAGS=-DTT_PROFILE=1 .venv/bin/python setup.py -q build_ext --inplace --force   # wall time
    CFLAGS=-DTT_PROFILE=2 ...                                # CPU time of the calling thread
    .venv/bin/python tools/prof_phases.py [transformer|cnn|mlp] [steps]

Rebuild without CFLAGS (and --force) afterwards. Nested phases overlap:
py_call = args + call + results; call = lower + end_op (+ debug checks);
flush = fingerprint + find + bind + execute + event. Each timer pair costs
tens of nanoseconds (wall) or about a microsecond (thread CPU time).
"""
import copy
import os
import sys
import time

import torch

import torchtpu._C as C

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
import models  # noqa: E402


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "transformer"
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    torch.manual_seed(0)
    base = models.make(kind)

    def training(mode):
        with torch.tpu.eager_mode(mode):
            model = copy.deepcopy(base).to("tpu")
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
            x, y = models.batch(kind, n=16)
            x, y = x.to("tpu"), y.to("tpu")

        def step():
            opt.zero_grad()
            loss = models.loss_fn(kind, model(x), y)
            loss.backward()
            opt.step()
            return loss.item()

        return step

    def add_loop(n=3000):
        a = torch.ones(1, device="tpu")
        b = torch.ones(1, device="tpu")
        for _ in range(n):
            a + b
        torch.tpu.synchronize()

    for mode in ("strict", "defer_and_fuse"):
        step = training(mode)
        with torch.tpu.eager_mode(mode):
            for _ in range(3):
                step()
            for what, fn, n in ((f"{kind} step", step, steps), ("3000 x (a + b)", add_loop, 1)):
                torch.tpu.synchronize()
                C.prof_take()
                launches0 = torch.tpu.cache_stats()["requests"]
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                wall = (time.perf_counter() - t0) / n * 1e3
                d = C.prof_take()
                if not d["py_call"][1]:
                    sys.exit("no counts: build with CFLAGS=-DTT_PROFILE=1 (see this file's docstring)")
                launches = (torch.tpu.cache_stats()["requests"] - launches0) / n
                print(f"== {what}, {mode}: {wall:.2f} ms wall, {d['py_call'][1] / n:.0f} _C.call, "
                      f"{launches:.0f} launches (per step / loop)")
                for name, (ns, count) in d.items():
                    if count:
                        print(f"   {name:12s} {ns / n / 1e6:8.3f} ms  {ns / count / 1e3:8.2f} us each  x{count / n:.0f}")


if __name__ == "__main__":
    main()
