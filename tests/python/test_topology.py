"""Launch environment (TORCH_TPU_TOPOLOGY, TORCH_TPU_SLICEBUILDER_ADDRESSES,
TORCH_TPU_DEVICES_PER_HOST, python -m torch.tpu.distributed,
set_tpu_launch_env) and torch.tpu.topology_aware_mesh on simulated
topologies, against layouts worked out by hand from the rule in
torchtpu/distributed/_topology.py (local id = x + X*(y + Y*z); the last mesh
dim takes x first; snake or comb ring order; slices over the leading dims)."""
import os
import socket
import subprocess
import sys

import pytest
import torch

import torchtpu  # noqa: F401
from torchtpu.distributed import _launch

HERE = os.path.dirname(os.path.abspath(__file__))
tam = torch.tpu.topology_aware_mesh


def lay(t):
    return t.tolist()


def hops(a, b, topo, wrap):
    n = topo[0] * topo[1] * topo[2]
    if a // n != b // n:
        return None  # different slices: DCN
    ca = (a % n % topo[0], a % n // topo[0] % topo[1], a % n // (topo[0] * topo[1]))
    cb = (b % n % topo[0], b % n // topo[0] % topo[1], b % n // (topo[0] * topo[1]))
    d = 0
    for k, (u, v) in enumerate(zip(ca, cb)):
        e = abs(u - v)
        d += min(e, topo[k] - e) if wrap[k] else e
    return d


def test_2x2x1():
    assert lay(tam((2, 2), topology="2,2,1")) == [[0, 1], [2, 3]]  # tp along x, dp along y
    assert lay(tam((4,), topology="2x2x1")) == [0, 1, 3, 2]  # the 2x2 ring: 0-1-3-2-0
    assert lay(tam((1, 4), topology=(2, 2, 1))) == [[0, 1, 3, 2]]
    assert lay(tam((4, 1), topology=(2, 2, 1))) == [[0], [1], [3], [2]]


def test_2x2x2():
    # the seeds' example: dp=4, tp=2 on 8 chips: tp = x; dp snakes over y, z
    assert lay(tam((4, 2), topology="2,2,2")) == [[0, 1], [2, 3], [6, 7], [4, 5]]
    assert lay(tam((2, 4), topology="2,2,2")) == [[0, 1, 3, 2], [4, 5, 7, 6]]
    # one dim over the whole cube: the reflected Gray code, a closed ring
    assert lay(tam((8,), topology="2,2,2")) == [0, 1, 3, 2, 6, 7, 5, 4]
    assert lay(tam((2, 2, 2), topology="2,2,2")) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


def test_4x4x4():
    # default: every axis of 4 wraps around (a torus): tp = x ring, dp snakes over y, z
    # and the snake closes through z's wraparound
    starts = [0, 4, 8, 12, 28, 24, 20, 16, 32, 36, 40, 44, 60, 56, 52, 48]
    assert lay(tam((16, 4), topology="4,4,4")) == [[s + i for i in range(4)] for s in starts]
    # no wraparound, (8, 8): tp = x and half of y (snake 0..3 then 7..4, closed);
    # dp = the other half of y (stride 2: ids +8) and z: its snake would end 3 hops
    # from its start, so the comb cycle is used
    lay88 = lay(tam((8, 8), topology="4,4,4", wraparound=(False, False, False)))
    tp = [0, 1, 2, 3, 7, 6, 5, 4]
    dp = [0, 8, 24, 40, 56, 48, 32, 16]
    assert lay88 == [[d + t for t in tp] for d in dp]
    # a 4x4x4 mesh keeps the axes: identity
    assert lay(tam((4, 4, 4), topology="4,4,4")) == torch.arange(64).reshape(4, 4, 4).tolist()


def test_2x4_wraparound_changes_the_ring():
    # 8 chips, x=2, y=4: y wraps: the snake closes through the wrap link
    assert lay(tam((8,), topology="2,4,1", wraparound=(False, True, False))) == [0, 1, 3, 2, 4, 5, 7, 6]
    # no wraparound: the snake would end 3 hops from its start: comb cycle
    assert lay(tam((8,), topology="2,4,1", wraparound=(False, False, False))) == [0, 1, 3, 5, 7, 6, 4, 2]
    assert lay(tam((2, 4), topology="2,4,1", wraparound=(False, True, False))) == [[0, 1, 3, 2], [4, 5, 7, 6]]
    # both are rings of one-hop steps (the closing step included)
    for wrap in ((False, True, False), (False, False, False)):
        r = lay(tam((8,), topology="2,4,1", wraparound=wrap))
        assert all(hops(r[i], r[(i + 1) % 8], (2, 4, 1), wrap) == 1 for i in range(8))


def test_dim_sharing_an_axis_4x3():
    # tp=6 on x=4, y=3: 2 chips of x and all of y; the snake (0,1,5,4,8,9) would end
    # 3 hops from its start, the comb over the 2x3 block closes; dp = x's other half (+2)
    assert lay(tam((2, 6), topology="4,3,1")) == [[0, 4, 8, 9, 5, 1], [2, 6, 10, 11, 7, 3]]


def test_two_slices_over_dcn():
    # 2 slices of 2,2,1: the leading dim goes over DCN (ranks 0-3 slice 0, 4-7 slice 1)
    assert lay(tam((2, 4), topology="2,2,1", world_size=8)) == [[0, 1, 3, 2], [4, 5, 7, 6]]
    assert lay(tam((2, 2, 2), topology="2,2,1", world_size=8)) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    # dp=4 is 2 slices x 2 chips of y (the slice is its slow digit)
    assert lay(tam((4, 2), topology="2,2,1", world_size=8)) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    # 2 slices of 2,2,2, (4, 4): tp = 2x2 ring in x,y; dp = slice x z
    assert lay(tam((4, 4), topology="2,2,2", num_slices=2)) == [[0, 1, 3, 2], [4, 5, 7, 6], [8, 9, 11, 10],
                                                              [12, 13, 15, 14]]
    # the heavy dim never crosses a slice
    r = tam((2, 4), topology="2,2,1", world_size=8)
    assert all(hops(a, b, (2, 2, 1), (0, 0, 0)) is not None for row in r.tolist() for a, b in zip(row, row[1:]))


def test_device_coords_renumber():
    # ranks placed on the 2,2,1 chips in another order: rank 0 at (1,1,0), rank 1 at (0,0,0), ...
    coords = [(1, 1, 0), (0, 0, 0), (1, 0, 0), (0, 1, 0)]
    # our layout [0,1,3,2] names chips (0,0),(1,0),(1,1),(0,1): ranks 1, 2, 0, 3
    assert lay(tam((4,), topology="2,2,1", device_coords=coords)) == [1, 2, 0, 3]
    # two slices given by a 4th coordinate: slice 1 holds ranks 0-3 here
    coords2 = [(x, y, 0, 1) for y in range(2) for x in range(2)] + [(x, y, 0, 0) for y in range(2) for x in range(2)]
    assert lay(tam((2, 4), topology="2,2,1", device_coords=coords2)) == [[4, 5, 7, 6], [0, 1, 3, 2]]
    with pytest.raises(ValueError, match="the same chip"):
        tam((4,), topology="2,2,1", device_coords=[(0, 0, 0)] * 4)
    with pytest.raises(ValueError, match="outside"):
        tam((4,), topology="2,2,1", device_coords=[(0, 0, 0), (1, 0, 0), (0, 1, 0), (2, 1, 0)])


def test_topology_from_the_environment(monkeypatch):
    monkeypatch.setenv("TORCH_TPU_TOPOLOGY", "2,2,2")
    monkeypatch.delenv("TORCH_TPU_SLICEBUILDER_ADDRESSES", raising=False)
    assert lay(tam(mesh_shape=(4, 2), world_size=8)) == [[0, 1], [2, 3], [6, 7], [4, 5]]
    monkeypatch.setenv("WORLD_SIZE", "16")  # two slices of 2,2,2
    assert tam(mesh_shape=(4, 4)).tolist()[3] == [12, 13, 15, 14]
    monkeypatch.delenv("TORCH_TPU_TOPOLOGY")
    monkeypatch.setenv("WORLD_SIZE", "4")  # simulated: 2,2,1
    assert lay(tam(mesh_shape=(4,))) == [0, 1, 3, 2]


def test_errors_are_clear():
    with pytest.raises(ValueError, match="has 6 ranks, the world has 8"):
        tam((2, 3), topology="2,2,2", world_size=8)
    with pytest.raises(ValueError, match="not a whole number of slices"):
        tam((6,), topology="2,2,1", world_size=6)
    with pytest.raises(ValueError, match="3 slice\\(s\\) of \\(2, 1, 1\\) make 6 ranks, the world has 4"):
        tam((4,), topology="2,1,1", num_slices=3)
    with pytest.raises(ValueError, match="must be positive"):
        tam((0, 2), topology="2,1,1")
    with pytest.raises(ValueError, match="TORCH_TPU_TOPOLOGY"):
        tam((4,), topology="2,two")


def test_simulated_launch_env():
    assert _launch.simulated_topology(1) == (1, 1, 1)
    assert _launch.simulated_topology(4) == (2, 2, 1)
    assert _launch.simulated_topology(8) == (2, 2, 2)
    assert _launch.simulated_topology(16) == (4, 2, 2)
    assert _launch.simulated_topology(6) == (3, 2, 1)
    env = _launch.launch_env(4, environ={})
    assert env == {"TORCH_TPU_TOPOLOGY": "2,2,1",
                   "TORCH_TPU_SLICEBUILDER_ADDRESSES": "localhost:8471,localhost:8472,localhost:8473,localhost:8474",
                   "TORCH_TPU_DEVICES_PER_HOST": "4"}
    # set variables are kept and checked
    env = _launch.launch_env(environ={"TORCH_TPU_TOPOLOGY": "2x2x2", "TORCH_TPU_DEVICES_PER_HOST": "4"})
    assert env["TORCH_TPU_TOPOLOGY"] == "2,2,2" and env["TORCH_TPU_DEVICES_PER_HOST"] == "4"
    assert len(env["TORCH_TPU_SLICEBUILDER_ADDRESSES"].split(",")) == 8
    with pytest.raises(ValueError, match="lists 2 address"):
        _launch.launch_env(environ={"TORCH_TPU_TOPOLOGY": "2,2,1", "TORCH_TPU_SLICEBUILDER_ADDRESSES": "a:1,b:2"})
    with pytest.raises(ValueError, match="DEVICES_PER_HOST=3"):
        _launch.launch_env(environ={"TORCH_TPU_TOPOLOGY": "2,2,1", "TORCH_TPU_DEVICES_PER_HOST": "3"})


def test_set_tpu_launch_env(monkeypatch):
    for k in _launch.NAMES:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("TORCH_TPU_DEVICES_PER_HOST", "1")
    env = torch.tpu.distributed.set_tpu_launch_env()
    assert os.environ["TORCH_TPU_TOPOLOGY"] == "2,1,1" == env["TORCH_TPU_TOPOLOGY"]
    assert os.environ["TORCH_TPU_SLICEBUILDER_ADDRESSES"] == "localhost:8471,localhost:8472"
    assert os.environ["TORCH_TPU_DEVICES_PER_HOST"] == "1"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_seeds_launch_line_then_torchrun_4_processes():
    # eval "$(python -m torch.tpu.distributed | sed 's/^/export /')"; torchrun ...
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCH_TPU_TOPOLOGY")
           and k not in _launch.NAMES and k != "WORLD_SIZE"}
    env["OMP_NUM_THREADS"] = "1"
    py = sys.executable
    script = (f'set -e; eval "$({py} -m torch.tpu.distributed --world-size 4 | sed \'s/^/export /\')"; '
              f'echo "TOPO=$TORCH_TPU_TOPOLOGY"; '
              f'{py} -m torch.distributed.run --nproc_per_node=4 --master_addr=127.0.0.1 '
              f'--master_port={free_port()} {os.path.join(HERE, "dist_worker.py")} topo_mesh')
    p = subprocess.Popen(["bash", "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        pytest.fail(f"still running after 150s:\n{p.communicate()[0][-3000:]}")
    assert p.returncode == 0, out[-4000:]
    assert "TOPO=2,2,1" in out, out[-2000:]
    for r in range(4):
        assert f"OK rank {r} topo_mesh" in out, out[-4000:]


def test_python_dash_m_both_names():
    env = {k: v for k, v in os.environ.items() if k not in _launch.NAMES}
    env["WORLD_SIZE"] = "8"
    for mod in ("torch.tpu.distributed", "torchtpu.distributed"):
        out = subprocess.run([sys.executable, "-m", mod], env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        lines = out.stdout.splitlines()
        assert lines[0] == "TORCH_TPU_TOPOLOGY=2,2,2", out.stdout
        assert lines[1].startswith("TORCH_TPU_SLICEBUILDER_ADDRESSES=localhost:8471,") and lines[1].count(",") == 7
        assert lines[2] == "TORCH_TPU_DEVICES_PER_HOST=8"
        assert "Warning" not in out.stderr, out.stderr
    bad = subprocess.run([sys.executable, "-m", "torch.tpu.distributed"], capture_output=True, text=True,
                         env=dict(env, TORCH_TPU_TOPOLOGY="2,2,1", TORCH_TPU_SLICEBUILDER_ADDRESSES="a:1"),
                         timeout=120)
    assert bad.returncode == 2 and "lists 1 address" in bad.stderr
