"""Per-call cost of a JAX function as a PyTorch op (torch.tpu.pallas.jax_op)
on tpu tensors, beside the same computation as native tpu ops and the peers:
the same JAX function jitted by JAX itself on its CPU device, and PyTorch on
CPU, all measured in this run. The function is softmax(x * 2 + y) on a
(rows, 512) float32 input (Strict: one program per call; DeferAndFuse: the
op fused with an add and a mul around it, one program per step).

    .venv/bin/python bench/bench_jax_op.py [--rows 256] [--seconds 2]
"""
import argparse
import time

import torch


def per_call(fn, seconds):
    fn()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    return (time.perf_counter() - t0) / n * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=2.0)
    a = ap.parse_args()
    import jax
    import jax.numpy as jnp

    f = lambda x, y: jax.nn.softmax(x * 2 + y, axis=-1)
    op = torch.tpu.pallas.jax_op("bench::softmax", f)
    xc, yc = torch.randn(a.rows, 512), torch.randn(a.rows, 512)
    xt, yt = xc.to("tpu"), yc.to("tpu")
    xj, yj = jnp.asarray(xc.numpy()), jnp.asarray(yc.numpy())
    jf = jax.jit(f)

    def defer(g):
        def run():
            with torch.tpu.eager_mode("defer_and_fuse"):
                g().cpu()
        return run

    rows = [
        ("jax_op, Strict (+ .cpu())", lambda: op(xt, yt).cpu()),
        ("native tpu ops, Strict (+ .cpu())", lambda: torch.softmax(xt * 2 + yt, -1).cpu()),
        ("jax_op + add + mul, DeferAndFuse", defer(lambda: op(xt + 1, yt) * 3)),
        ("native + add + mul, DeferAndFuse", defer(lambda: torch.softmax((xt + 1) * 2 + yt, -1) * 3)),
        ("peer: jax.jit on JAX's CPU device", lambda: jf(xj, yj).block_until_ready()),
        ("peer: PyTorch CPU", lambda: torch.softmax(xc * 2 + yc, -1)),
    ]
    times = [(name, per_call(fn, a.seconds)) for name, fn in rows]
    base = times[-1][1]
    print(f"softmax(x*2+y), ({a.rows}, 512) float32; per call, ratio to PyTorch CPU")
    for name, us in times:
        print(f"  {name:40s} {us:9.1f} us  {us / base:6.2f}x")
    print(f"  JAX lowerings: {op.lowerings}")


if __name__ == "__main__":
    main()
