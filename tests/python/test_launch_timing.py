"""torch.tpu.set_launch_timing / launch_timing: the device time of the
programs launched (csrc/exec/stats.h, timed in csrc/exec/run.c), as bench/ reads it."""
import time

import torch


def test_off_by_default_and_counts_nothing():
    t = torch.tpu.launch_timing()
    assert t == {"enabled": False, "launches": 0, "seconds": 0.0}
    (torch.ones(3, device="tpu") * 2).cpu()
    assert torch.tpu.launch_timing()["launches"] == 0


def test_counts_every_launch_and_its_time_fits_in_the_wall_time():
    a = torch.randn(512, 512, device="tpu")
    (a @ a).cpu()  # compiled before timing
    with torch.tpu.eager_mode("strict"):
        torch.tpu.set_launch_timing(True)
        try:
            t0 = time.perf_counter()
            for _ in range(5):
                b = a @ a
            torch.tpu.synchronize()
            wall = time.perf_counter() - t0
            t = torch.tpu.launch_timing()
        finally:
            torch.tpu.set_launch_timing(False)
    assert t["enabled"] and t["launches"] == 5, t
    # each launch waited for its program: their summed time is inside the loop's wall time
    assert 0 < t["seconds"] <= wall, (t, wall)
    assert torch.tpu.launch_timing() == {"enabled": False, "launches": 0, "seconds": 0.0}
    torch.testing.assert_close(b.cpu(), a.cpu() @ a.cpu(), rtol=1e-4, atol=1e-3)


def test_a_compiled_graph_is_one_launch_per_call():
    torch._dynamo.reset()
    f = torch.compile(lambda x: (x.sin() * 2 + x.cos()).sum(0), backend="tpu")
    x = torch.randn(64, 64, device="tpu")
    f(x)
    torch.tpu.set_launch_timing(True)
    try:
        outs = [f(x) for _ in range(4)]
        t = torch.tpu.launch_timing()
    finally:
        torch.tpu.set_launch_timing(False)
    assert t["launches"] == 4, t
    want = (x.cpu().sin() * 2 + x.cpu().cos()).sum(0)
    for o in outs:
        torch.testing.assert_close(o.cpu(), want, rtol=1e-5, atol=1e-5)
