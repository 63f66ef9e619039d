"""Strict vs DeferAndFuse (and PyTorch on CPU for reference) on training
steps of the transformer block and the small CNN: step time, executables
compiled, peak device memory. Prints a table; ratios are what to read.

    .venv/bin/python bench/bench_modes.py [--repeats 15] [--steps 10] [--models transformer,cnn]

The three runs of a model are interleaved: each round runs `steps` steps of
each, in turn, so that load from other processes on the machine hits all of
them alike; times are medians over the rounds. The speed-up is the median of
the per-round ratios strict/defer_and_fuse (a paired estimate: a noisy round
moves both of its times). Wall time is what a user waits; process CPU time
(all threads: Python, autograd, the plugin's workers) is printed beside it
because on a shared machine it is far less noisy.

The step's host path -- the main thread plus PyTorch's autograd thread,
which run one after the other -- is measured per thread from
/proc/self/task/*/schedstat ('host ms'); everything else (the plugin's
execution and compile threads) is 'device ms'. With the CPU plugin the
"device" shares the machine's cores with the host: once DeferAndFuse's step
is host-bound, the ratio of the two host paths bounds its speed-up.
"""
import argparse
import copy
import os
import statistics
import sys
import time

# PyTorch's CPU ops use OpenMP workers that by default spin for a while after
# each parallel region: interleaved with the tpu runs, the spinning workers of
# a torch-CPU round took the cores from the round after it (a CNN step in
# DeferAndFuse measured 4.60 ms after CPU rounds, 3.46 ms without them).
# Passive waiting makes the reference run leave the cores when it is done.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402
import torchtpu  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
import models  # noqa: E402


def thread_ns():
    """CPU ns so far of the host path (main + autograd threads) and of all other threads."""
    host = other = 0
    pid = str(os.getpid())
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:  # the thread ended
            continue
        if tid == pid or name.startswith("pt_autograd"):
            host += ns
        else:
            other += ns
    return host, other


class Run:
    """One model copy on one device in one eager mode, warmed up."""

    def __init__(self, kind, device, mode, base, warmup=3):
        self.device, self.mode = device, mode
        self.model = copy.deepcopy(base).to(device)
        # "compiled": torch.compile(backend="tpu") -- the forward and backward
        # graphs fused -- with the optimizer and the rest in DeferAndFuse
        self.forward = torch.compile(self.model, backend="tpu") if mode == "compiled" else self.model
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        x, y = models.batch(kind, n=16)
        self.x, self.y, self.kind = x.to(device), y.to(device), kind
        self.wall, self.cpu, self.peak = [], [], 0
        self.host_ns = self.other_ns = self.steps = 0
        execs0 = self._execs()
        with self._mode():
            for _ in range(warmup):
                self.step()
        self.new_execs = self._execs() - execs0  # compiled by the warm-up; more are counted later

    def _execs(self):
        return torch.tpu.cache_stats()["executables"] if self.device == "tpu" else 0

    def _mode(self):
        import contextlib
        if self.device != "tpu":
            return contextlib.nullcontext()
        return torch.tpu.eager_mode("defer_and_fuse" if self.mode == "compiled" else self.mode)

    def step(self):
        self.opt.zero_grad()
        loss = models.loss_fn(self.kind, self.forward(self.x), self.y)
        loss.backward()
        self.opt.step()
        return loss.item()

    def host_ms(self):
        return self.host_ns / self.steps / 1e6

    def other_ms(self):
        return self.other_ns / self.steps / 1e6

    def round(self, steps):
        """`steps` timed steps; the step's .item() waits for the device."""
        execs0 = self._execs()
        with self._mode():
            if self.device == "tpu":
                torch.tpu.synchronize()
                torch.tpu.reset_peak_memory_stats()
                base_bytes = torch.tpu.memory_allocated()
            h0, o0 = thread_ns()
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(steps):
                self.step()
            self.wall.append((time.perf_counter() - t0) / steps * 1e3)
            self.cpu.append((time.process_time() - c0) / steps * 1e3)
            h1, o1 = thread_ns()
            self.host_ns += h1 - h0
            self.other_ns += o1 - o0
            self.steps += steps
            if self.device == "tpu":
                self.peak = max(self.peak, torch.tpu.max_memory_allocated() - base_bytes)
        self.new_execs += self._execs() - execs0


def paired_ratio(a, b):
    return statistics.median(x / y for x, y in zip(a, b))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=15, help="interleaved rounds (medians are taken over them)")
    p.add_argument("--steps", type=int, default=10, help="training steps per run per round")
    p.add_argument("--models", default="transformer,cnn")
    p.add_argument("--no-cpu", action="store_true", help="skip the PyTorch CPU reference")
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile(backend='tpu') run")
    args = p.parse_args()
    med = statistics.median
    print(f"plugin: {torch.tpu.runtime_info()['plugin_path']}")
    print(f"{args.repeats} interleaved rounds x {args.steps} steps per run; medians over the rounds; "
          f"DeferAndFuse chunk (TORCH_TPU_DEFER_CHUNK_OPS): {torchtpu._C._get_defer_chunk_ops() or 'none'}")
    print(f"{'model':12s} {'run':16s} {'wall ms/step':>12s} {'cpu ms/step':>12s} {'host ms':>8s} {'device ms':>9s} "
          f"{'x strict':>9s} {'x cpu':>7s} {'new execs':>10s} {'peak KiB':>9s}")
    summary = []
    for kind in args.models.split(","):
        torch.manual_seed(0)
        base = models.make(kind)
        runs = [Run(kind, "tpu", "strict", base), Run(kind, "tpu", "defer_and_fuse", base)]
        if not args.no_cpu:
            runs.append(Run(kind, "cpu", None, base))
        if not args.no_compile:
            runs.append(Run(kind, "tpu", "compiled", base))
        for r in range(args.repeats):
            for run in runs[r % len(runs):] + runs[:r % len(runs)]:  # rotate who goes first
                run.round(args.steps)
        strict = runs[0]
        cpu = next((r for r in runs if r.device == "cpu"), None)
        for run in runs:
            name = run.mode or "torch cpu"
            vs_strict = paired_ratio(strict.wall, run.wall)
            vs_cpu = f"{paired_ratio(cpu.wall, run.wall):7.2f}" if cpu else f"{'-':>7s}"
            tpu_cols = f"{run.new_execs:10d} {run.peak / 1024:9.1f}" if run.device == "tpu" else f"{'':>10s} {'':>9s}"
            print(f"{kind:12s} {name:16s} {med(run.wall):12.2f} {med(run.cpu):12.2f} {run.host_ms():8.2f} {run.other_ms():9.2f} "
                  f"{vs_strict:9.2f} {vs_cpu} {tpu_cols}")
        daf = runs[1]
        summary.append(f"{kind}: DeferAndFuse is {paired_ratio(strict.wall, daf.wall):.2f}x faster per step than "
                       f"Strict in wall time ({paired_ratio(strict.cpu, daf.cpu):.2f}x in process CPU time), "
                       f"median of {args.repeats} interleaved rounds of {args.steps} steps (target: 1.5x); "
                       f"host paths strict/defer_and_fuse {strict.host_ms() / daf.host_ms():.2f}x, "
                       f"DeferAndFuse wall / its host path {med(daf.wall) / daf.host_ms():.2f}")
    print("'x strict' / 'x cpu' = median over rounds of (that run's step time) / (this run's), wall time;")
    print("higher is faster. 'new execs' = executables compiled by that run, warm-up included.")
    print("'host ms' = CPU per step of the main and autograd threads (they run in turn: the host path);")
    print("'device ms' = CPU per step of every other thread (the plugin executing and compiling).")
    for line in summary:
        print(line)


if __name__ == "__main__":
    main()
