"""all_reduce latency and bandwidth, tpu_dist on tpu tensors vs gloo on CPU
tensors, same processes, same run. Usage:
    python bench/bench_dist.py [world=2]
Starts `world` ranks on loopback; prints one row per size with the ratio.
On XLA's CPU plugin tpu_dist stages through host memory over gloo, so the
ratio is the staging cost (device->host, host->device copies, Python glue)."""
import os
import socket
import subprocess
import sys
import time

SIZES = [1 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]


def worker():
    import torch
    import torch.distributed as dist
    import torchtpu  # noqa: F401

    dist.init_process_group("tpu_dist")
    gloo = dist.new_group(backend="gloo")
    rank = dist.get_rank()
    if rank == 0:
        print(f"{'bytes':>10} {'gloo cpu us':>12} {'tpu_dist us':>12} {'ratio':>7} {'tpu_dist GB/s':>14}")
    for size in SIZES:
        n = size // 4
        reps = max(3, min(50, (4 << 20) // size * 5))
        res = {}
        for name, dev, group in (("gloo", "cpu", gloo), ("tpu", "tpu", None)):
            x = torch.ones(n, device=dev)
            dist.all_reduce(x, group=group)  # warm up (compiles the copies)
            if dev == "tpu":
                torch.tpu.synchronize()
            dist.barrier(group=gloo)
            t0 = time.perf_counter()
            for _ in range(reps):
                dist.all_reduce(x, group=group)
            if dev == "tpu":
                torch.tpu.synchronize()
            res[name] = (time.perf_counter() - t0) / reps
        if rank == 0:
            g, t = res["gloo"], res["tpu"]
            print(f"{size:>10} {g * 1e6:>12.0f} {t * 1e6:>12.0f} {t / g:>7.2f} {size / t / 1e9:>14.3f}", flush=True)
    ddp_step(gloo, rank)
    dist.destroy_process_group()


def ddp_step(gloo, rank, steps=5):
    """DDP training step of the transformer block (tests/python/models.py):
    tpu_dist on tpu vs gloo DDP on CPU, same processes."""
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
    import models

    res = {}
    for name, dev, group in (("gloo", "cpu", gloo), ("tpu", "tpu", None)):
        torch.manual_seed(0)
        m = DDP(models.make("transformer").to(dev), process_group=group)
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        x, y = models.batch("transformer", seed=rank)
        x, y = x.to(dev), y.to(dev)

        def step():
            opt.zero_grad()
            models.loss_fn("transformer", m(x), y).backward()
            opt.step()

        step(); step()  # warm up (compiles)
        if dev == "tpu":
            torch.tpu.synchronize()
        dist.barrier(group=gloo)
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        if dev == "tpu":
            torch.tpu.synchronize()
        res[name] = (time.perf_counter() - t0) / steps
    if rank == 0:
        g, t = res["gloo"], res["tpu"]
        print(f"DDP step, transformer block: gloo cpu {g * 1e3:.1f} ms, tpu_dist {t * 1e3:.1f} ms, ratio {t / g:.2f}")


def main():
    world = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = [subprocess.Popen([sys.executable, __file__, "--worker"],
                              # one intra-op thread per rank, as torchrun sets
                              env=dict(os.environ, OMP_NUM_THREADS="1", RANK=str(r), WORLD_SIZE=str(world),
                                       MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port)))
             for r in range(world)]
    print(f"all_reduce SUM float32, {world} processes, loopback")
    for p in procs:
        p.wait(timeout=300)


if __name__ == "__main__":
    worker() if "--worker" in sys.argv else main()
