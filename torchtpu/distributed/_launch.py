"""The launch environment TorchTPU needs beside torchrun's variables:
TORCH_TPU_TOPOLOGY (one slice's chip grid, "2,2,1"),
TORCH_TPU_SLICEBUILDER_ADDRESSES (one host:port per device of the slice, the
ports that build the ICI mesh) and TORCH_TPU_DEVICES_PER_HOST.

On a machine without TPUs they describe a simulated slice of `world_size`
devices (default WORLD_SIZE, else 1) on this host: the topology factors
world_size over x, y, z (2 -> 2,1,1; 4 -> 2,2,1; 8 -> 2,2,2; 16 -> 4,2,2;
6 -> 3,2,1), addresses localhost:8471, localhost:8472, ... and every device on
this host (LOCAL_WORLD_SIZE if set). Variables already set are kept (and
checked against each other). On a TPU host we do not query the cloud's
metadata server: set the variables by hand there.
"""
import os

NAMES = ("TORCH_TPU_TOPOLOGY", "TORCH_TPU_SLICEBUILDER_ADDRESSES", "TORCH_TPU_DEVICES_PER_HOST")
BASE_PORT = 8471


def _has_tpu():
    return os.path.exists("/dev/accel0") or os.path.exists("/dev/vfio/0")


def simulated_topology(n):
    """Prime factors of n, largest first, each multiplying the smallest axis."""
    f, p, m = [], 2, n
    while p * p <= m:
        while m % p == 0:
            f.append(p)
            m //= p
        p += 1
    if m > 1:
        f.append(m)
    axes = [1, 1, 1]
    for q in sorted(f, reverse=True):
        k = axes.index(min(axes))
        axes[k] *= q
    return tuple(axes)


def launch_env(world_size=None, environ=None):
    """The three variables as a dict of strings (nothing is set)."""
    from ._topology import parse_topology

    env = os.environ if environ is None else environ
    if world_size is None:
        world_size = int(env.get("WORLD_SIZE", "0") or 0) or None
    topo_text = env.get("TORCH_TPU_TOPOLOGY")
    if topo_text:
        topo = parse_topology(topo_text)
    else:
        if _has_tpu():
            raise RuntimeError("torch.tpu.distributed: a TPU is present but TORCH_TPU_TOPOLOGY is not set; "
                               "torchtpu does not query the cloud metadata server: export "
                               "TORCH_TPU_TOPOLOGY (e.g. 2,2,1) and TORCH_TPU_SLICEBUILDER_ADDRESSES")
        n = world_size or 1
        if n < 1:
            raise ValueError(f"torch.tpu.distributed: world size {n} must be positive")
        topo = simulated_topology(n)
    per_slice = topo[0] * topo[1] * topo[2]
    addr_text = env.get("TORCH_TPU_SLICEBUILDER_ADDRESSES")
    if addr_text:
        addrs = [a.strip() for a in addr_text.split(",") if a.strip()]
        if len(addrs) != per_slice:
            raise ValueError(f"TORCH_TPU_SLICEBUILDER_ADDRESSES lists {len(addrs)} address(es); "
                             f"TORCH_TPU_TOPOLOGY={','.join(map(str, topo))} has {per_slice} devices "
                             f"(one address per device)")
    else:
        addrs = [f"localhost:{BASE_PORT + i}" for i in range(per_slice)]
    dph_text = env.get("TORCH_TPU_DEVICES_PER_HOST") or env.get("LOCAL_WORLD_SIZE")
    dph = int(dph_text) if dph_text else per_slice
    if dph < 1 or per_slice % dph:
        raise ValueError(f"TORCH_TPU_DEVICES_PER_HOST={dph}: must divide the slice's {per_slice} devices")
    return {
        "TORCH_TPU_TOPOLOGY": ",".join(map(str, topo)),
        "TORCH_TPU_SLICEBUILDER_ADDRESSES": ",".join(addrs),
        "TORCH_TPU_DEVICES_PER_HOST": str(dph),
    }


def set_tpu_launch_env(world_size=None):
    """Sets the three variables in os.environ (those already set are kept) and returns them."""
    env = launch_env(world_size)
    for k, v in env.items():
        os.environ.setdefault(k, v)
    return env


def export_lines(world_size=None):
    """NAME=value lines, shell-quoted, for `eval "$(... | sed 's/^/export /')"`."""
    import shlex

    return [f"{k}={shlex.quote(v)}" for k, v in launch_env(world_size).items()]


def main(argv=None):
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m torch.tpu.distributed",
                                 description="Print the TorchTPU launch variables, one NAME=value a line: "
                                 "eval \"$(python -m torch.tpu.distributed | sed 's/^/export /')\"")
    ap.add_argument("--world-size", "--nproc", type=int, default=None,
                    help="devices of the simulated slice (default: WORLD_SIZE, else 1)")
    args = ap.parse_args(argv)
    try:
        lines = export_lines(args.world_size)
    except (ValueError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0
