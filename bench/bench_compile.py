"""torch.compile(backend="tpu") replaying captured plans (csrc/exec/plan.h)
against the graph run op by op as deferred work (the backend before plans),
eager DeferAndFuse and PyTorch on CPU, in one run:

1. host overhead per call of a compiled 10-op graph on small tensors: the
   whole call (Dynamo's guards and our replay; the inputs need no gradient,
   so the graph skips AOTAutograd: _compile._Inference), the one
   _C.plan_run call alone, Dynamo alone (a backend whose graph returns its
   first input: guards and frame, the floor of any backend here) and Dynamo
   calling _C.plan_run directly (no Python of ours: what _compile adds is
   the difference to the first row);
2. step times of the MLP training step and of the small transformer's
   inference step (the model compiled; loss, backward and optimizer eager);
3. a whole training step compiled (forward, loss, backward and
   optimizer.step() in one torch.compile'd function: Dynamo's graphs are the
   forward, the backward and the optimizer step) against the same step in
   eager DeferAndFuse and on PyTorch's CPU, for the MLP, the CNN and the
   transformer with SGD (momentum) and AdamW, with the programs each step
   launches (plans replayed + eager regions run).

    .venv/bin/python bench/bench_compile.py [--repeats 7] [--steps 20] [--calls 2000] [--only whole]

Sections 2 and 3 also print the device time of a tpu step: the summed
launch-to-ready time of its programs (torch.tpu.set_launch_timing), taken
in a round of its own after each wall-time round (timing makes every launch
wait), and wall/device, the issue's "host is no longer the bottleneck"
measure (1.0: the step takes as long as its programs). On XLA's CPU plugin
the "device" is the same two cores: cheap programs run inline on the
calling thread and count as device time here.

Runs are interleaved round by round (load from other processes hits all
alike); times are medians over the rounds; ratios are medians of per-round
ratios, higher = the compiled plan is faster.
"""
import argparse
import copy
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402
import torchtpu  # noqa: E402
from torchtpu import _C, _compile  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
import models  # noqa: E402


def deferred_backend(gm, example_inputs, **kwargs):
    """The backend as it was before plans: every graph op by op, deferred and fused."""
    from torch._dynamo.backends.common import aot_autograd

    def compiler(g, ex):
        def run(args):
            return _compile._deferred(g, args)
        run._boxed_call = True
        return run

    return aot_autograd(fw_compiler=compiler, bw_compiler=compiler)(gm, example_inputs, **kwargs)


def ten_ops(a, b):
    x = a * b + 1
    x = torch.sin(x) * a
    x = x - b.exp()
    x = torch.tanh(x) + x.abs()
    return x.sum(0) / 3


def per_call_us(fn, calls):
    """(wall, this thread's CPU) us per call: on a loaded machine the CPU time is the steadier one."""
    t0, c0 = time.perf_counter(), time.thread_time()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls * 1e6, (time.thread_time() - c0) / calls * 1e6


def overhead(args):
    torch._dynamo.reset()
    a, b = torch.randn(8, 8), torch.randn(8, 8)
    at, bt = a.to("tpu"), b.to("tpu")
    planned = torch.compile(ten_ops, backend="tpu")
    deferred = torch.compile(ten_ops, backend=deferred_backend)
    for f in (planned, deferred):
        f(at, bt).cpu()
    # the plan itself, called as AOTAutograd calls it
    plan, why = None, None
    _C.plan_capture_begin(True)
    out = ten_ops(at, bt)
    plan, why = _C.plan_capture_end([at, bt], [out], "bench")
    assert plan is not None, why
    targs = [at, bt]

    def first_input(gm, example_inputs):
        return lambda *args: (args[0],)

    def plan_only(gm, example_inputs):
        return lambda *args: _C.plan_run(plan, list(args), False)

    floor = torch.compile(ten_ops, backend=first_input)
    direct = torch.compile(ten_ops, backend=plan_only)
    floor(at, bt), direct(at, bt)
    runs = {
        "compiled (plan)": lambda: planned(at, bt),
        "_C.plan_run alone": lambda: _C.plan_run(plan, targs),
        "Dynamo alone": lambda: floor(at, bt),
        "Dynamo + plan_run": lambda: direct(at, bt),
        "compiled (deferred)": lambda: deferred(at, bt),
        "eager DeferAndFuse": None,
        "torch cpu eager": lambda: ten_ops(a, b),
    }
    times = {k: [] for k in runs}
    calls = args.calls
    for r in range(args.repeats):
        for name, fn in runs.items():
            if name == "eager DeferAndFuse":
                with torch.tpu.eager_mode("defer_and_fuse"):
                    times[name].append(per_call_us(lambda: ten_ops(at, bt), calls // 4))
                    torch.tpu.synchronize()
                continue
            times[name].append(per_call_us(fn, calls if "cpu" not in name else calls))
            torch.tpu.synchronize()
    med = statistics.median
    print(f"\n1. a compiled 10-op graph on 8x8 float32, host time per call (no wait for the device), "
          f"median of {args.repeats} rounds of {calls} calls")
    base = times["compiled (plan)"]
    for name, t in times.items():
        wall, cpu = [w for w, _ in t], [c for _, c in t]
        ratio = statistics.median(x[0] / y[0] for x, y in zip(t, base))
        ratio_cpu = statistics.median(x[1] / y[1] for x, y in zip(t, base))
        print(f"   {name:22s} {med(wall):9.1f} us/call wall {med(cpu):9.1f} us/call thread CPU   "
              f"{ratio:6.2f}x the plan's wall time, {ratio_cpu:6.2f}x its CPU time")
    s = torch.tpu.plan_stats()
    print(f"   plan stats: {s}")


def device_round(run, steps):
    """One round with launch timing on: the device ms per step of run."""
    if run.device != "tpu":
        return
    torch.tpu.set_launch_timing(True)
    for _ in range(steps):
        run.step()
    t = torch.tpu.launch_timing()
    torch.tpu.set_launch_timing(False)
    run.device_ms.append(t["seconds"] / steps * 1e3)


def device_columns(run):
    """' device ms, wall/device' for a tpu run, blanks for the CPU."""
    if not run.device_ms:
        return " " * 34
    med = statistics.median
    ratio = med(w / d for w, d in zip(run.times, run.device_ms))
    return f"{med(run.device_ms):8.3f} ms device {ratio:5.2f}x wall/device"


class Step:
    def __init__(self, kind, device, how, base, train):
        self.kind, self.device, self.how, self.train = kind, device, how, train
        self.model = copy.deepcopy(base).to(device)
        if not train:
            self.model.eval()
        if how == "plan":
            self.f = torch.compile(self.model, backend="tpu")
        elif how == "deferred":
            self.f = torch.compile(self.model, backend=deferred_backend)
        else:
            self.f = self.model
        self.opt = torch.optim.SGD(self.model.parameters(), lr=1e-3) if train else None
        x, y = models.batch(kind, n=16)
        self.x, self.y = x.to(device), y.to(device)
        self.times, self.device_ms = [], []
        for _ in range(3):
            self.step()

    def _ctx(self):
        import contextlib
        if self.device == "tpu":  # what runs outside the graphs (loss, optimizer) is deferred and fused too
            return torch.tpu.eager_mode("defer_and_fuse")
        return contextlib.nullcontext()

    def step(self):
        with self._ctx():
            if self.train:
                self.opt.zero_grad()
                loss = models.loss_fn(self.kind, self.f(self.x), self.y)
                loss.backward()
                self.opt.step()
                return loss.item()
            with torch.no_grad():
                return self.f(self.x).sum().item()

    def round(self, steps):
        t0 = time.perf_counter()
        for _ in range(steps):
            self.step()
        self.times.append((time.perf_counter() - t0) / steps * 1e3)
        device_round(self, steps)


def steps(args):
    print(f"\n2. step times (ms, wall, each step waits for its result), median of {args.repeats} interleaved "
          f"rounds of {args.steps} steps")
    med = statistics.median
    for kind, train in (("mlp", True), ("transformer", False)):
        torch._dynamo.reset()
        torch.manual_seed(0)
        base = models.make(kind)
        runs = {"compiled (plan)": Step(kind, "tpu", "plan", base, train),
                "compiled (deferred)": Step(kind, "tpu", "deferred", base, train),
                "eager DeferAndFuse": Step(kind, "tpu", "eager", base, train),
                "torch cpu eager": Step(kind, "cpu", "eager", base, train)}
        rotated_rounds(runs, args.repeats, args.steps)
        plan = runs["compiled (plan)"].times
        what = f"{kind} {'training' if train else 'inference'} step"
        for name, run in runs.items():
            ratio = statistics.median(x / y for x, y in zip(run.times, plan))
            print(f"   {what:28s} {name:20s} {med(run.times):8.3f} ms   {ratio:6.2f}x the plan's time  "
                  f"{device_columns(run)}")


class WholeStep:
    """One training step as a user writes it; `how`: compiled (the whole
    function, backend="tpu"), defer (eager DeferAndFuse) or cpu."""

    def __init__(self, kind, opt, how, base):
        device = "cpu" if how == "cpu" else "tpu"
        self.how, self.device = how, device
        self.model = copy.deepcopy(base).to(device)
        if opt == "sgd":
            self.opt = torch.optim.SGD(self.model.parameters(), lr=1e-2, momentum=0.9)
        else:
            self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        x, y = models.batch(kind, n=16)
        self.x, self.y = x.to(device), y.to(device)
        model, o = self.model, self.opt

        def step(x, y):
            o.zero_grad()
            loss = models.loss_fn(kind, model(x), y)
            loss.backward()
            o.step()
            return loss

        self.f = torch.compile(step, backend="tpu") if how == "compiled" else step
        self.times, self.cpu, self.device_ms = [], [], []
        for _ in range(3):
            self.step()
        self.programs = self.count_programs() if device == "tpu" else None

    def step(self):
        if self.how == "defer":
            with torch.tpu.eager_mode("defer_and_fuse"):
                return self.f(self.x, self.y).item()
        return self.f(self.x, self.y).item()

    def count_programs(self):
        # a deferred replay is no launch of its own: it runs in the next region
        p0, r0 = torch.tpu.plan_stats(), torch.tpu.region_stats()["flushes"]
        self.step()
        p1 = torch.tpu.plan_stats()
        return p1["replays"] - p0["replays"] - (p1["deferred"] - p0["deferred"]) + torch.tpu.region_stats()["flushes"] - r0

    def round(self, steps):
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(steps):
            self.step()
        self.times.append((time.perf_counter() - t0) / steps * 1e3)
        self.cpu.append((time.thread_time() - c0) / steps * 1e3)
        device_round(self, steps)


def whole(args):
    print(f"\n3. a whole training step compiled (ms, wall, each step waits for its loss), median of {args.repeats} "
          f"interleaved rounds of {args.steps} steps; programs: launched per step (plans launched alone + regions, a fused step's one included)")
    med = statistics.median
    for kind in ("mlp", "cnn", "transformer"):
        for opt in ("sgd", "adamw"):
            torch._dynamo.reset()
            torch.manual_seed(0)
            base = models.make(kind)
            runs = {"compiled step": WholeStep(kind, opt, "compiled", base),
                    "eager DeferAndFuse": WholeStep(kind, opt, "defer", base),
                    "torch cpu eager": WholeStep(kind, opt, "cpu", base)}
            rotated_rounds(runs, args.repeats, args.steps)
            mine = runs["compiled step"].times
            what = f"{kind} {opt}{' (momentum)' if opt == 'sgd' else ''}"
            for name, run in runs.items():
                ratio = statistics.median(x / y for x, y in zip(run.times, mine))
                progs = f"{run.programs:3d} programs" if run.programs is not None else " " * 12
                ratio_cpu = statistics.median(x / y for x, y in zip(run.cpu, runs["compiled step"].cpu))
                print(f"   {what:26s} {name:20s} {med(run.times):8.3f} ms wall {med(run.cpu):8.3f} ms thread CPU  "
                      f"{progs}  {ratio:6.2f}x the compiled step's wall, {ratio_cpu:6.2f}x its CPU  "
                      f"{device_columns(run)}")


def rotated_rounds(runs, repeats, steps):
    """`repeats` rounds of every run, each round starting one run later (no
    run always goes first on a shared machine)."""
    order = list(runs.values())
    for r in range(repeats):
        for run in order[r % len(order):] + order[:r % len(order)]:
            run.round(steps)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--only", choices=("overhead", "steps", "whole"), default=None)
    args = p.parse_args()
    print(f"plugin: {torch.tpu.runtime_info()['plugin_path']}")
    for name, fn in (("overhead", overhead), ("steps", steps), ("whole", whole)):
        if args.only in (None, name):
            fn(args)


if __name__ == "__main__":
    main()
