"""Two hosts on one machine: two network namespaces joined by a veth pair
(addresses of their own, no other interface but lo), torchrun --nnodes=2 with
one process per "host", DDP of the transformer block on tpu_dist (the
dist_worker.py "ddp" case, which also checks against gloo CPU DDP); the
losses must match the single-host 2-process run within 1e-5 relative, and the
traffic must have crossed the veth pair.

Needs root (ip netns): `make test-two-hosts`, not part of `make test`. Nothing
is skipped: without root or without `ip netns` the test fails, saying why."""
import os
import re
import shutil
import socket
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(os.path.dirname(HERE), "python", "dist_worker.py")
TIMEOUT = 240


def sh(*cmd, ns=None, check=True):
    full = (["ip", "netns", "exec", ns] if ns else []) + list(cmd)
    p = subprocess.run(full, capture_output=True, text=True, timeout=30)
    if check and p.returncode:
        pytest.fail(f"`{' '.join(full)}` failed (rc {p.returncode}): {p.stderr.strip()}")
    return p.stdout


@pytest.fixture
def two_hosts():
    if os.geteuid() != 0:
        pytest.fail("needs root: network namespaces (ip netns add) need CAP_SYS_ADMIN; run as root")
    if shutil.which("ip") is None:
        pytest.fail("needs iproute2's `ip` (apt-get install iproute2)")
    tag = os.getpid() % 100000
    net = 10 + tag % 200
    hosts = [(f"ttpu{tag}h{i}", f"tv{tag}h{i}", f"10.213.{net}.{i + 1}") for i in range(2)]
    try:
        for ns, _, _ in hosts:
            sh("ip", "netns", "add", ns)
        sh("ip", "link", "add", hosts[0][1], "type", "veth", "peer", "name", hosts[1][1])
        for ns, dev, addr in hosts:
            sh("ip", "link", "set", dev, "netns", ns)
            sh("ip", "addr", "add", f"{addr}/24", "dev", dev, ns=ns)
            sh("ip", "link", "set", dev, "up", ns=ns)
            sh("ip", "link", "set", "lo", "up", ns=ns)
        yield hosts
    finally:
        for ns, _, _ in hosts:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def ddp_losses(out):
    got = {}
    for m in re.finditer(r"DDP rank (\d+) \(([^)]*)\): tpu_dist (\[[^\]]*\])", out):
        got[(int(m.group(1)), m.group(2))] = eval(m.group(3))  # a list of floats we printed
    return got


def run_all(procs, what):
    deadline = time.time() + TIMEOUT
    outs = []
    for p in procs:
        try:
            outs.append((p.communicate(timeout=max(1, deadline - time.time()))[0], p.returncode))
        except subprocess.TimeoutExpired:
            for q in procs:
                os.killpg(q.pid, 9)
            pytest.fail(f"{what}: still running after {TIMEOUT}s:\n{p.communicate()[0][-3000:]}")
    for out, rc in outs:
        assert rc == 0, f"{what} rc={rc}:\n{out[-4000:]}"
    return "\n".join(o for o, _ in outs)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ddp_across_two_network_namespaces_matches_one_host(two_hosts):
    base = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                                                             "MASTER_PORT")}
    base["OMP_NUM_THREADS"] = "1"
    # one host, two processes on loopback (the reference)
    port = free_port()
    ref = run_all([subprocess.Popen([sys.executable, WORKER, "ddp"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True, start_new_session=True,
                                    env=dict(base, RANK=str(r), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                                             MASTER_PORT=str(port)))
                   for r in range(2)], "one host")
    # two hosts: torchrun in each namespace, the store on host 0's address
    master = two_hosts[0][2]
    before = [int(sh("cat", f"/sys/class/net/{dev}/statistics/tx_bytes", ns=ns)) for ns, dev, _ in two_hosts]
    procs = []
    for node, (ns, dev, addr) in enumerate(two_hosts):
        cmd = ["ip", "netns", "exec", ns, sys.executable, "-m", "torch.distributed.run", "--nnodes=2",
               f"--node_rank={node}", "--nproc_per_node=1", f"--master_addr={master}", "--master_port=29531",
               WORKER, "ddp"]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      start_new_session=True, env=dict(base, GLOO_SOCKET_IFNAME=dev)))
    out = run_all(procs, "two hosts")
    for r in range(2):
        assert f"OK rank {r} ddp" in out, out[-4000:]
    a, b = ddp_losses(out), ddp_losses(ref)
    assert set(a) == set(b) and len(a) == 4, (a, b)
    for k in a:
        for x, y in zip(a[k], b[k]):
            assert abs(x - y) <= 1e-5 * abs(y), f"{k}: two hosts {a[k]} vs one host {b[k]}"
    # the traffic went over the veth pair, and the namespaces have nothing else to send it on
    after = [int(sh("cat", f"/sys/class/net/{dev}/statistics/tx_bytes", ns=ns)) for ns, dev, _ in two_hosts]
    sent = [y - x for x, y in zip(before, after)]
    assert all(s > 100_000 for s in sent), f"bytes sent on the veth pair: {sent}"
    for ns, dev, _ in two_hosts:
        links = sorted(re.findall(r"^\d+: ([^:@]+)", sh("ip", "-o", "link", ns=ns), re.M))
        assert links == sorted(["lo", dev]), f"{ns} has interfaces {links}"
    print(f"two hosts: losses {a}; bytes over the veth pair {sent}")
