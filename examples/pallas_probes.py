"""Probes of third-party kernel libraries through torch.tpu.pallas.jax_op
(README, "Custom kernels"). Neither library is a torchtpu dependency:

  Helion: pip install --no-deps helion==1.5.1    (never let it touch torch)
  Tokamax: a separate venv (it pulls flax, optax, orbax, ...):
    python -m venv --system-site-packages /tmp/tokvenv && /tmp/tokvenv/bin/pip install tokamax==0.0.12
    PYTHONPATH=/tmp/tokvenv/lib/python3.11/site-packages python examples/pallas_probes.py

Each part runs if its library imports and says why otherwise (`make helion-probe`
runs the Helion part with Helion from HELION_PATH, default /tmp/helion_pkgs)."""
import os

import torch

os.environ.setdefault("HELION_AUTOTUNE_EFFORT", "none")


def _helion_kernel():
    global hl
    import helion
    import helion.language as hl  # a module global: Helion refuses closures

    @helion.kernel(backend="pallas")
    def add_vectors(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        for tile in hl.tile(out.size()):
            out[tile] = x[tile] + y[tile]
        return out

    return add_vectors


def helion_add_vectors():
    add_vectors = _helion_kernel()
    x = torch.tensor([1.0, 2.0, 3.0], device="tpu")
    y = torch.tensor([4.0, 5.0, 6.0], device="tpu")
    # Called directly: Helion's launcher runs it through torch_tpu._internal
    # (this repo's torch_tpu/: JaxCallable on jax_op).
    z = add_vectors(x, y)
    assert z.device.type == "tpu", z.device
    torch.testing.assert_close(z.cpu(), torch.tensor([5.0, 7.0, 9.0]))
    print("helion direct call:", z)
    # 1024 elements: a grid of 128-element tiles. (1000 fails in Pallas's
    # interpret mode, directly and through jax_op alike: Helion's ragged last
    # tile is a dynamically shaped copy in its emit_pipeline.)
    xc, yc = torch.randn(1024), torch.randn(1024)
    xt, yt = xc.to("tpu"), yc.to("tpu")
    torch.testing.assert_close(add_vectors(xt, yt).cpu(), xc + yc)
    misses = torch.tpu.cache_stats()["misses"]
    torch.testing.assert_close(add_vectors(xt, yt).cpu(), xc + yc)  # no JAX lowering, no compile
    assert torch.tpu.cache_stats()["misses"] == misses, "the repeated call compiled again"
    print("helion direct call, 1024 elements twice: matches CPU, compiled once")
    op = torch.tpu.pallas.jax_op("helion::add_vectors", add_vectors)  # its Kernel.jax_fn
    print("helion via jax_op:", op(x, y))


def tokamax_ragged_dot():
    import tokamax
    from jax._src.pallas.mosaic import tpu_info
    from tokamax._src.ops.ragged_dot.pallas_mosaic_tpu import PallasMosaicTpuRaggedDot

    # Two shims for the kernel's TPU-only checks (see README).
    PallasMosaicTpuRaggedDot.supported_on = lambda self, device: True
    tpu_info.registry["cpu"] = lambda: tpu_info.get_tpu_info_for_chip(tpu_info.ChipVersion.TPU_V5E, 1)
    kernel = PallasMosaicTpuRaggedDot(interpret=True)
    op = torch.tpu.pallas.jax_op("tokamax::ragged_dot",
                                 lambda lhs, rhs, gs: tokamax.ragged_dot(lhs, rhs, gs, implementation=[kernel]))
    lhs, rhs = torch.randn(256, 128), torch.randn(2, 128, 128)
    gs = torch.tensor([96, 160], dtype=torch.int32)
    got = op(lhs.to("tpu"), rhs.to("tpu"), gs.to("tpu")).cpu()
    want = torch.cat([lhs[:96] @ rhs[0], lhs[96:] @ rhs[1]])
    print("tokamax ragged_dot (Mosaic TPU kernel, interpret): max abs error", (got - want).abs().max().item())


if __name__ == "__main__":
    for probe in (helion_add_vectors, tokamax_ragged_dot):
        try:
            probe()
        except ImportError as e:
            print(f"{probe.__name__}: not installed ({e})")
