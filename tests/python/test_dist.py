"""c10d backend tpu_dist: every collective and dtype against gloo on CPU
tensors, DDP against gloo CPU DDP, subgroups and meshes on 4 processes (torchrun), and
faults. Each test starts its ranks (dist_worker.py) as subprocesses on
loopback with a free port and a timeout, so nothing can hang the suite."""
import os
import socket
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "dist_worker.py")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(world, case, timeout=150, env=None, ranks=None, worker=WORKER):
    port = free_port()
    reinit = ",".join(str(free_port()) for _ in range(3))
    procs = []
    for r in (range(world) if ranks is None else ranks):
        # OMP_NUM_THREADS=1 as torchrun sets: N ranks share 2 cores
        e = dict(os.environ, OMP_NUM_THREADS="1", RANK=str(r), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                 MASTER_PORT=str(port), REINIT_PORTS=reinit, **(env or {}))
        procs.append(subprocess.Popen([sys.executable, worker, case], env=e, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    deadline = time.time() + timeout
    outs = []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            out = p.communicate()[0]
            pytest.fail(f"{case}: ranks still running after {timeout}s:\n{out[-3000:]}")
        outs.append((p.returncode, out))
    return outs


def assert_ok(outs, case):
    for r, (rc, out) in enumerate(outs):
        assert rc == 0 and f"OK rank {r} {case}" in out, f"rank {r} rc={rc}:\n{out[-4000:]}"


def test_every_collective_and_dtype_2_processes():
    # one group lifetime: async p2p, then the debug check, barriers and re-init
    case = "collectives,p2p_async,temporaries,mismatch,init_variants"
    outs = launch(2, case)
    assert_ok(outs, case)
    assert all("MISMATCH" in out for _, out in outs)


def test_ddp_transformer_and_dtensor_match_cpu():
    assert_ok(launch(2, "ddp,dtensor"), "ddp,dtensor")


def test_subgroups_and_mesh_4_processes_under_torchrun():
    # the seeds' launch: torchrun --nproc_per_node=N, one process per device
    port = free_port()
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=4", "--master_addr=127.0.0.1",
           f"--master_port={port}", WORKER, "subgroups"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        pytest.fail(f"torchrun still running after 150s:\n{p.communicate()[0][-3000:]}")
    assert p.returncode == 0, out[-4000:]
    for r in range(4):
        assert f"OK rank {r} subgroups" in out, out[-4000:]


def test_premul_sum_factors_async_and_its_limit():
    assert_ok(launch(2, "premul"), "premul")


def test_split_group_4_processes():
    # init_process_group(device_id="tpu:0"): split_group, a split of a split,
    # a rank in no split, and init_device_mesh (which splits on a bound group)
    assert_ok(launch(4, "split", env={"DIST_DEVICE_ID": "1"}), "split")


def test_gloo_group_beside_a_bound_default_group():
    assert_ok(launch(2, "gloo_group_tpu_tensors", env={"DIST_DEVICE_ID": "1"}), "gloo_group_tpu_tensors")


def test_split_group_needs_a_bound_device():
    assert_ok(launch(2, "split_unbound"), "split_unbound")


def test_rank_that_dies_makes_the_other_raise_within_timeout():
    t0 = time.time()
    outs = launch(2, "rank_dies", timeout=60, env={"DIST_TIMEOUT": "5"})
    rc0, out0 = outs[0]
    assert rc0 == 0 and "RAISED after" in out0, out0[-3000:]
    assert time.time() - t0 < 45


def test_rank_that_stalls_makes_the_collective_raise_within_timeout():
    outs = launch(2, "rank_stalls", timeout=60, env={"DIST_TIMEOUT": "4"})
    rc0, out0 = outs[0]
    assert rc0 == 0 and "RAISED after" in out0, out0[-3000:]
    waited = float(out0.split("RAISED after ")[1].split("s")[0])
    assert 3 <= waited < 20, out0[-2000:]


def test_rank_that_never_arrives_makes_init_raise_within_timeout():
    t0 = time.time()
    outs = launch(2, "collectives", timeout=60, env={"DIST_TIMEOUT": "4"}, ranks=[0])
    rc, out = outs[0]
    assert rc != 0 and ("timed out" in out.lower() or "timeout" in out.lower()), out[-3000:]
    assert time.time() - t0 < 40
