"""Per-op host cost of two builds, A/B, by thread CPU time (steadier than wall
time on a shared machine): a + b on 8-element tensors in Strict and
DeferAndFuse, the best of 5 timed loops per fresh process, the builds
alternating order round by round; PyTorch on CPU measured the same way.
Prints each build's best and the median of the per-round ratios.

    .venv/bin/python bench/bench_ab_cputime.py --baseline /path/to/other/tree [--rounds 7]

--baseline: a checkout whose torchtpu._C is built in place (a git worktree
of an older commit, `python setup.py build_ext --inplace` in it).
"""
import argparse
import os
import statistics
import subprocess
import sys

PROBE = r'''
import sys, time, torch
dev, mode = sys.argv[1], sys.argv[2]
if dev == "tpu":
    import torchtpu  # noqa: F401
    torch.tpu.set_eager_mode(mode)
a = torch.ones(8, device=dev); b = torch.ones(8, device=dev)
def sync():
    if dev == "tpu":
        torch.tpu.synchronize()
for _ in range(500):
    c = a + b
sync()
best = 1e9
for _ in range(5):
    t0 = time.thread_time()
    for _ in range(4000):
        c = a + b
    sync()
    best = min(best, (time.thread_time() - t0) / 4000 * 1e6)
print("R", best)
'''


def probe(tree, dev, mode):
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree
    out = subprocess.run([sys.executable, "-c", PROBE, dev, mode], env=env, capture_output=True, text=True,
                         cwd=tree or None, timeout=600).stdout
    return float([line for line in out.splitlines() if line.startswith("R ")][0][2:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    builds = [("this", here), ("baseline", os.path.abspath(args.baseline))]
    res = {m: {b: [] for b, _ in builds} for m in ("strict", "defer_and_fuse")}
    for r in range(args.rounds):
        for m in res:
            for b, tree in (builds if r % 2 == 0 else builds[::-1]):
                res[m][b].append(probe(tree, "tpu", m))
    cpu = min(probe(None, "cpu", "-") for _ in range(3))
    print(f"thread CPU time per a+b (8 elements), best of each build over {args.rounds} alternating rounds; "
          f"PyTorch CPU {cpu:.2f} us")
    for m, d in res.items():
        ratios = [x / y for x, y in zip(d["this"], d["baseline"])]
        print(f"{m:15s} this {min(d['this']):6.2f} us  baseline {min(d['baseline']):6.2f} us  "
              f"this/baseline median {statistics.median(ratios):.3f} (rounds {' '.join(f'{x:.2f}' for x in ratios)})  "
              f"this/CPU {min(d['this']) / cpu:.1f}")


if __name__ == "__main__":
    main()
