"""The execution engine's benchmarks in one run, for the transformer block
training step and the small CNN: per-step time in Strict, DeferAndFuse and
PyTorch on CPU, executables compiled, peak device memory and the host-path
accounting (bench_modes.py), then the time to the first step with a cold vs
a warm tier-3 compile cache for each model (bench_cache.py).

    .venv/bin/python bench/bench_engine.py [--repeats 9] [--steps 8] [--cache-repeats 2]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9, help="bench_modes: interleaved rounds")
    ap.add_argument("--steps", type=int, default=8, help="bench_modes: steps per run per round")
    ap.add_argument("--cache-repeats", type=int, default=2, help="bench_cache: cold/warm pairs per model")
    args = ap.parse_args()
    runs = [["bench_modes.py", "--repeats", str(args.repeats), "--steps", str(args.steps)]]
    runs += [["bench_cache.py", "--repeats", str(args.cache_repeats), "--model", m] for m in ("transformer", "cnn")]
    for cmd in runs:
        print(f"== {' '.join(cmd)}", flush=True)
        subprocess.run([sys.executable, os.path.join(HERE, cmd[0])] + cmd[1:], check=True)
        print(flush=True)


if __name__ == "__main__":
    main()
