"""Small programs on XLA CPU's classic emitters (the default,
TORCH_TPU_SMALL_PROGRAM_ELEMENTS, csrc/exec/opt_level.h; optimization
level 1) against its fusion emitters everywhere (the bound set to 0) and
against the classic emitters at level 0 (TORCH_TPU_XLA_OPTIMIZATION_LEVEL=0,
which sets every program's level: the matrix products and the programs
above the bound run at 0 too): compile time per program for 120 new small
programs, and device time per launch (torch.tpu.set_launch_timing) of a
column sum, exp, softmax and a matmul at 1024..65536 elements, with
PyTorch on CPU timed beside them (the peer; wall time per call, its ops run
inline). Fresh processes, the three settings in turn each round; ratios
are per round, medians printed.

    .venv/bin/python bench/bench_small_programs.py [--rounds 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SIZES = (1024, 4096, 8192, 16384, 65536)
BOUND = 8192  # TT_SMALL_PROGRAM_CPU_DEFAULT (csrc/exec/opt_level.h)
OPS = ("sum0", "exp", "softmax", "mm")


def cases(torch, x):
    return {"sum0": lambda: x.sum(0), "exp": lambda: torch.exp(x), "softmax": lambda: torch.softmax(x, -1),
            "mm": lambda: x.T @ x}


def child():
    os.environ["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = "off"
    os.environ["TORCH_TPU_ASYNC_COMPILE"] = "0"  # compile seconds of one program at a time
    import torch
    import torchtpu  # noqa: F401

    out = {}
    (torch.ones(3, device="tpu") + 1).cpu()
    s0 = torch.tpu.cache_stats()
    for n in range(2, 42):  # 3 new programs per n (ones, mul, add)
        (torch.ones(n, dtype=torch.int64, device="tpu") * 3 + 1).cpu()
    s1 = torch.tpu.cache_stats()
    out["compile_ms"] = 1e3 * (s1["compile_seconds"] - s0["compile_seconds"]) / (s1["misses"] - s0["misses"])
    torch.manual_seed(0)
    for n in SIZES:
        xt = torch.randn(n // 64, 64, device="tpu")
        xc = xt.cpu()
        for name in OPS:
            f, g = cases(torch, xt)[name], cases(torch, xc)[name]
            with torch.no_grad():
                f().cpu()
                torch.tpu.synchronize()
                torch.tpu.set_launch_timing(True)
                t0 = torch.tpu.launch_timing()
                for _ in range(200):
                    y = f()
                y.cpu()
                torch.tpu.synchronize()
                t1 = torch.tpu.launch_timing()
                torch.tpu.set_launch_timing(False)
                out[f"{name}/{n}"] = 1e6 * (t1["seconds"] - t0["seconds"]) / 200
                g()
                c0 = time.perf_counter()
                for _ in range(200):
                    g()
                out[f"cpu {name}/{n}"] = 1e6 * (time.perf_counter() - c0) / 200
    print(json.dumps(out))


def run(bound, level=None):
    env = dict(os.environ)
    env.pop("TORCH_TPU_SMALL_PROGRAM_ELEMENTS", None)
    env.pop("TORCH_TPU_XLA_OPTIMIZATION_LEVEL", None)
    if bound is not None:
        env["TORCH_TPU_SMALL_PROGRAM_ELEMENTS"] = str(bound)
    if level is not None:
        env["TORCH_TPU_XLA_OPTIMIZATION_LEVEL"] = str(level)
    r = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", action="store_true")
    args = ap.parse_args()
    if args.child:
        return child()
    rounds = []
    for _ in range(args.rounds):
        # fusion emitters everywhere; the default (classic emitters, level 1); every program at level 0
        rounds.append((run(0), run(None), run(None, 0)))
    med = lambda k, i: statistics.median(r[i][k] for r in rounds)  # noqa: E731
    ratio = lambda k, i, j: statistics.median(r[i][k] / r[j][k] for r in rounds)  # noqa: E731
    print(f"small programs: XLA CPU's fusion emitters, the default (classic emitters; level 1 as every "
          f"program) and level 0; {args.rounds} rounds of fresh processes")
    print(f"compile ms/program (120 small programs): fusion {med('compile_ms', 0):.1f}  classic "
          f"{med('compile_ms', 1):.1f}  level 0 {med('compile_ms', 2):.1f}  classic/fusion "
          f"{ratio('compile_ms', 1, 0):.2f}  level 0/classic {ratio('compile_ms', 2, 1):.2f}")
    print(f"{'op/elements':16s} {'fusion us':>10s} {'classic us':>10s} {'level 0 us':>10s} {'cl/fusion':>10s} "
          f"{'L0/classic':>11s} {'PyTorch CPU us':>15s}")
    for n in SIZES:
        for name in OPS:
            k = f"{name}/{n}"
            note = ("  (matrix product: fusion emitters in all)" if name == "mm" else
                    "" if n <= BOUND else "  (above the bound: fusion emitters in all)")
            print(f"{k:16s} {med(k, 0):10.1f} {med(k, 1):10.1f} {med(k, 2):10.1f} {ratio(k, 1, 0):10.2f} "
                  f"{ratio(k, 2, 1):11.2f} {med('cpu ' + k, 0):15.1f}{note}")


if __name__ == "__main__":
    main()
