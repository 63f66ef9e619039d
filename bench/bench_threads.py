"""The engine lock's cost and what threads get: per-op host overhead of one
thread (a + b on 1-element tensors, Strict and DeferAndFuse), A/B against a
baseline build when one is given, and the op throughput of 4 threads doing
independent work vs 1 thread. PyTorch on CPU is measured in the same run.

    .venv/bin/python bench/bench_threads.py [--baseline /path/to/other/tree] [--rounds 5]

--baseline: a checkout whose torchtpu._C is built in place (e.g. a git
worktree of the previous commit); each round runs both builds in turn, in
fresh processes, so machine noise falls on both alike. Ratios are reported,
of wall time and of the probing thread's CPU time (steadier here).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

PROBE = r"""
import json, sys, threading, time, torch
dev, what = sys.argv[1], sys.argv[2]
if dev == "tpu":
    import torchtpu  # noqa: F401

def per_op_us(n=4000):
    a = torch.ones(1, device=dev); b = torch.ones(1, device=dev)
    for _ in range(300): c = a + b
    if dev == "tpu": torch.tpu.synchronize()
    wall, cpu = [], []
    for _ in range(5):
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(n): c = a + b
        if dev == "tpu": torch.tpu.synchronize()
        wall.append((time.perf_counter() - t0) / n * 1e6)
        cpu.append((time.thread_time() - c0) / n * 1e6)
    return sorted(wall)[len(wall) // 2], min(cpu)  # wall: median; this thread's CPU time: best

def throughput(nthreads, n=1500):
    def work():
        a = torch.ones(8, device=dev); b = torch.ones(8, device=dev)
        for _ in range(n): a = a * 0.5 + b
        float(a.sum())
    work()
    ts = [threading.Thread(target=work) for _ in range(nthreads)]
    t0 = time.perf_counter()
    for t in ts: t.start()
    for t in ts: t.join()
    return nthreads * n * 2 / (time.perf_counter() - t0)  # ops per second

out = {}
if what == "op" and dev == "tpu":
    for mode in ("strict", "defer_and_fuse"):
        torch.tpu.set_eager_mode(mode)
        out[mode + "_us"], out[mode + "_cpu_us"] = per_op_us()
elif what == "op":
    out["cpu_us"], out["cpu_cpu_us"] = per_op_us()
else:
    out["t1_ops_s"] = throughput(1)
    out["t4_ops_s"] = throughput(4)
print(json.dumps(out))
"""


def probe(tree, dev, what):
    """One measurement in a fresh process; None when it died (a build whose threads crash)."""
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree
    p = subprocess.run([sys.executable, "-c", PROBE, dev, what], capture_output=True, text=True, env=env, timeout=600)
    if p.returncode:
        if what == "op":
            raise SystemExit(f"probe failed ({tree or 'this tree'}, {dev}):\n{p.stderr[-2000:]}")
        return None
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", help="a tree with torchtpu._C built in place, to A/B against")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    here = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    builds = [("this", here)] + ([("baseline", os.path.abspath(args.baseline))] if args.baseline else [])
    rows = {name: [] for name, _ in builds}
    cpu, thr = [], {}
    for r in range(args.rounds):
        order = builds if r % 2 == 0 else builds[::-1]  # interleaved, alternating order
        for name, tree in order:
            rows[name].append(probe(tree, "tpu", "op"))
        cpu.append(probe(None, "cpu", "op"))
    for name, tree in builds:  # thread throughput: fewer rounds, it is not an A/B
        thr[name] = [probe(tree, "tpu", "threads") for _ in range(max(1, args.rounds // 2))]
    thr["cpu"] = [probe(None, "cpu", "threads") for _ in range(max(1, args.rounds // 2))]

    def med(rs, k):
        return statistics.median(x[k] for x in rs)

    def tcols(rs):
        ok = [x for x in rs if x]
        if not ok:
            return f"crashed ({len(rs)}/{len(rs)} runs) | crashed | |"
        t1, t4 = med(ok, "t1_ops_s"), med(ok, "t4_ops_s")
        died = f" ({len(rs) - len(ok)} of {len(rs)} runs crashed)" if len(ok) < len(rs) else ""
        return f"{t1:.0f} | {t4:.0f}{died} | {t4 / t1:.2f} |"

    print(f"rounds: {args.rounds} (medians; fresh process per probe)")
    print("| build | strict us/op | defer us/op | 1-thread ops/s | 4-thread ops/s | 4T / 1T |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, _ in builds:
        rs = rows[name]
        print(f"| {name} | {med(rs, 'strict_us'):.2f} | {med(rs, 'defer_and_fuse_us'):.2f} | {tcols(thr[name])}")
    print(f"| torch cpu | {med(cpu, 'cpu_us'):.2f} | | {tcols(thr['cpu'])}")
    print("thread CPU time per op (best), steadier than wall time on a shared machine: " + ", ".join(
        f"{name} strict {min(x['strict_cpu_us'] for x in rows[name]):.2f} us, defer "
        f"{min(x['defer_and_fuse_cpu_us'] for x in rows[name]):.2f} us" for name, _ in builds)
        + f", torch cpu {min(x['cpu_cpu_us'] for x in cpu):.2f} us")
    if args.baseline:
        for k in ("strict_us", "defer_and_fuse_us", "strict_cpu_us", "defer_and_fuse_cpu_us"):
            per_round = [a[k] / b[k] for a, b in zip(rows["this"], rows["baseline"])]
            best = min(x[k] for x in rows["this"]) / min(x[k] for x in rows["baseline"])
            print(f"{k}: this/baseline per round {['%.3f' % x for x in per_round]}, "
                  f"median {statistics.median(per_round):.3f}, best/best {best:.3f}")


if __name__ == "__main__":
    main()
