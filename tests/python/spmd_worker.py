"""One rank of tests/python/test_spmd_handshake.py (2 of these run at once).

Usage: spmd_worker.py CASE[,CASE...]   (env: RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT, PG_TIMEOUT). Each case sets TORCH_TPU_SPMD_HANDSHAKE_STAGE (read
at each compile) as STAGE says; prints "OK rank R CASES" when all held."""
import datetime
import os
import sys

import torch
import torch.distributed as dist

import torchtpu  # noqa: F401
from torchtpu import _compile
from torchtpu.distributed import _handshake

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
CASES = sys.argv[1]
STAGE = {"same": "COMPILE_STAGE", "diverge": "COMPILE_STAGE", "dispatch": "DISPATCH_STAGE",
         "missing": "COMPILE_STAGE", "off": "OFF"}


def check(cond, what):
    if not cond:
        raise AssertionError(f"rank {RANK}: {what}")


def compiled(scale):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return _compile.backend(gm, example_inputs)

    @torch.compile(backend=backend)
    def step(x):
        y = x * scale
        dist.all_reduce(y)
        return y.sin() + 1

    return step, graphs


def expect_raise(fn, *needles):
    try:
        fn()
    except RuntimeError as e:
        for n in needles:
            check(n in str(e), f"{n!r} not in the error: {e}")
        return str(e)
    raise AssertionError(f"rank {RANK}: no error")


def run(CASE):
    os.environ["TORCH_TPU_SPMD_HANDSHAKE_STAGE"] = STAGE[CASE]
    torch._dynamo.reset()  # each case compiles afresh (not a recompile of the last case's graph)
    x = torch.arange(4, dtype=torch.float32).to("tpu") + RANK
    total = sum(torch.arange(4, dtype=torch.float32) + r for r in range(WORLD))
    if CASE == "same":  # COMPILE_STAGE: one handshake, the result as eager's
        step, graphs = compiled(2.0)
        safe = torch.tpu.spmd_safe(step)
        for _ in range(3):
            out = safe(x)
        torch.testing.assert_close(out.cpu(), (total * 2).sin() + 1)
        info = _handshake.graph_info(graphs[0])
        check(info["collectives"] and "all_reduce" in info["collectives"][0], f"collectives {info}")
        check(info["handshakes"] == 1 and info["spmd_safe"], f"{info}")
    elif CASE == "diverge":  # a rank-dependent constant: both ranks raise, naming both sides
        step, _ = compiled(2.0 if RANK == 0 else 3.0)
        msg = expect_raise(lambda: step(x), "compiled different graphs", "ranks [0]", "ranks [1]",
                           "First difference")
        check("* 2.0" in msg and "* 3.0" in msg, msg)
    elif CASE == "dispatch":  # DISPATCH_STAGE: a handshake per call
        step, graphs = compiled(2.0)
        for _ in range(3):
            out = step(x)
        torch.testing.assert_close(out.cpu(), (total * 2).sin() + 1)
        info = _handshake.graph_info(graphs[0])
        check(info["handshakes"] == 3 and not info["spmd_safe"], f"{info}")
    elif CASE == "missing":  # rank 1 never compiles the graph: rank 0 raises at the timeout
        if RANK == 0:
            step, _ = compiled(2.0)
            expect_raise(lambda: step(x), "rank(s) [1] did not reach the same compilation")
    elif CASE == "off":  # the default: no handshake, diverging graphs run (their sums differ)
        step, graphs = compiled(2.0 if RANK == 0 else 3.0)
        out = step(x)
        torch.testing.assert_close(out.cpu(), (torch.arange(4.) * 2 + (torch.arange(4.) + 1) * 3).sin() + 1)
        check(_handshake.graph_info(graphs[0])["handshakes"] == 0, "handshake with the stage OFF")
    else:
        raise SystemExit(f"unknown case {CASE}")
    if CASE != "missing":
        dist.barrier()


def main():
    timeout = datetime.timedelta(seconds=float(os.environ.get("PG_TIMEOUT", "60")))
    dist.init_process_group("tpu_dist", timeout=timeout)
    for case in CASES.split(","):
        run(case)
    dist.destroy_process_group()
    print(f"OK rank {RANK} {CASES}", flush=True)


if __name__ == "__main__":
    main()
