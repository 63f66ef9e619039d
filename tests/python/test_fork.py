"""Fork after the device was used: the child gets CUDA's clear error on its
first tpu use (not a segfault), CPU work in the child and the parent's
device work go on; spawn and DataLoader workers keep working."""
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest
import torch

PY = sys.executable


def run(code, timeout=120):
    # A script file, not -c: spawned children re-import the main module by path.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "script.py")
        with open(path, "w") as f:
            f.write(textwrap.dedent(code))
        p = subprocess.run([PY, path], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def test_forked_child_raises_clear_error_and_parent_keeps_working():
    rc, out, err = run("""
        import os, torch, torchtpu
        a = torch.ones(3, device="tpu") * 2
        pid = os.fork()
        if pid == 0:
            try:
                torch.ones(2, device="tpu")
                code = 3
            except RuntimeError as e:
                code = 0 if "Cannot re-initialize TPU in forked subprocess" in str(e) and "spawn" in str(e) else 5
            try:
                (a + 1).cpu()          # a parent tensor used in the child: the same error
                code = code or 6
            except RuntimeError as e:
                code = code or (0 if "forked subprocess" in str(e) else 7)
            c = torch.arange(4.0) * 2  # CPU work still runs
            os._exit(code if c.sum().item() == 12 else 4)
        _, st = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(st))
        print("parent", (a + 1).sum().item())
    """)
    assert rc == 0, err
    assert "child 0" in out and "parent 9.0" in out, out + err


def test_forked_child_exiting_normally_with_live_tpu_tensors():
    # sys.exit runs atexit handlers and frees the inherited tpu tensors: no crash, no hang.
    rc, out, err = run("""
        import os, sys, torch, torchtpu
        keep = [torch.randn(64, device="tpu") for _ in range(4)]
        torch.tpu.synchronize()
        pid = os.fork()
        if pid == 0:
            del keep[:2]
            sys.exit(0)
        _, st = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(st))
        print("parent", sum(bool(torch.allclose(k.sum().cpu(), k.cpu().sum())) for k in keep))
    """)
    assert rc == 0, err
    assert "child 0" in out and "parent 4" in out, out + err


def test_multiprocessing_fork_pool_child_error_propagates():
    rc, out, err = run("""
        import multiprocessing as mp, torch, torchtpu
        def use_tpu(_):
            try:
                return float(torch.ones(1, device="tpu").sum().item())
            except RuntimeError as e:
                return str(e)
        if __name__ == "__main__":
            x = torch.ones(2, device="tpu")
            with mp.get_context("fork").Pool(2) as pool:
                r = pool.map(use_tpu, range(2))
            print("results", r)
            print("parent", (x * 3).sum().item())
    """)
    assert rc == 0, err
    assert out.count("Cannot re-initialize TPU in forked subprocess") == 2 and "parent 6.0" in out, out + err


def test_spawn_child_uses_tpu():
    rc, out, err = run("""
        import multiprocessing as mp, torch, torchtpu
        def use_tpu(k):
            return float((torch.ones(3, device="tpu") * k).sum().item())
        if __name__ == "__main__":
            x = torch.ones(2, device="tpu")
            with mp.get_context("spawn").Pool(1) as pool:
                print("results", pool.map(use_tpu, [1, 2]))
            print("parent", (x * 3).sum().item())
    """, timeout=240)
    assert rc == 0, err
    assert "results [3.0, 6.0]" in out and "parent 6.0" in out, out + err


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_dataloader_workers_feed_tpu(method):
    rc, out, err = run(f"""
        import torch, torchtpu
        from torch.utils.data import DataLoader, TensorDataset
        if __name__ == "__main__":
            w = torch.ones(4, device="tpu")  # the device is in use before the workers start
            ds = TensorDataset(torch.arange(32.0).reshape(8, 4))
            dl = DataLoader(ds, batch_size=2, num_workers=2, multiprocessing_context="{method}")
            total = sum(float((b.to("tpu") * w).sum().item()) for (b,) in dl)
            print("total", total)
    """, timeout=240)
    assert rc == 0, err
    assert f"total {float(sum(range(32)))}" in out, out + err
