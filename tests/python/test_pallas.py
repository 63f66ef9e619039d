"""torch.tpu.pallas.jax_op: JAX functions and Pallas kernels as PyTorch ops on
tpu tensors, compared with PyTorch on CPU in Strict, DeferAndFuse and
torch.compile(backend="tpu"), forward and backward; the module JAX lowers
is spliced into our programs (one executable with its neighbours)."""
import functools
import os
import subprocess
import sys

import pytest
import torch

jax = pytest.importorskip("jax")  # a test dependency (Makefile .testdeps): installed, so this runs
import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

MODES = ["strict", "defer_and_fuse", "compile"]


# The seeds' example, unchanged: no interpret=True (chosen automatically on a
# non-TPU plugin).
def add_vectors_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


@torch.tpu.pallas.jax_op("pallas::add_vectors")
def add_vectors(x: jax.Array, y: jax.Array) -> jax.Array:
    out_shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return pl.pallas_call(add_vectors_kernel, out_shape=out_shape)(x, y)


# A blocked Pallas matmul (a grid of row blocks) with its gradient: JAX
# cannot transpose a pallas_call, so a custom_vjp gives the backward as two
# more Pallas matmuls, and jax.vjp follows it.
def _mm_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32).astype(o_ref.dtype)


def _pallas_mm(x, y, block=8):
    m, k = x.shape
    n = y.shape[1]
    return pl.pallas_call(
        _mm_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // block,),
        in_specs=[pl.BlockSpec((block, k), lambda i: (i, 0)), pl.BlockSpec((k, n), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((block, n), lambda i: (i, 0)),
    )(x, y)


@jax.custom_vjp
def _mm(x, y):
    return _pallas_mm(x, y)


def _mm_fwd(x, y):
    return _pallas_mm(x, y), (x, y)


def _mm_bwd(res, g):
    x, y = res
    return _pallas_mm(g, y.T), _pallas_mm(x.T, g, block=x.shape[1] if x.shape[1] % 8 else 8)


_mm.defvjp(_mm_fwd, _mm_bwd)
pallas_matmul = torch.tpu.pallas.jax_op("pallas::matmul", _mm)
jax_softmax = torch.tpu.pallas.jax_op("jaxfn::softmax", functools.partial(jax.nn.softmax, axis=-1))


def _run(mode, fn, *args):
    if mode == "compile":
        return torch.compile(fn, backend="tpu", fullgraph=True)(*args)
    return fn(*args)  # the caller holds the eager mode (_mode)


def _mode(mode):
    return torch.tpu.eager_mode("defer_and_fuse" if mode == "defer_and_fuse" else "strict")


def _inputs(*shapes, grad=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    cpu = [torch.randn(s, generator=g).requires_grad_(grad) for s in shapes]
    tpu = [c.detach().to("tpu").requires_grad_(grad) for c in cpu]
    return cpu, tpu


@pytest.mark.parametrize("mode", MODES)
def test_add_vectors_seed_example(mode):
    with _mode(mode):
        _add_vectors_seed_example(mode)


def _add_vectors_seed_example(mode):
    x = torch.tensor([1.0, 2.0, 3.0], device="tpu")
    y = torch.tensor([4.0, 5.0, 6.0], device="tpu")
    z = _run(mode, add_vectors, x, y)
    torch.testing.assert_close(z.cpu(), torch.tensor([5.0, 7.0, 9.0]))
    (xc, yc), (xt, yt) = _inputs((5, 7), (5, 7), seed=1)
    torch.testing.assert_close(_run(mode, lambda a, b: add_vectors(a * 2, b).exp(), xt, yt).cpu(), (xc * 2 + yc).exp())


def test_host_tensors_run_jax_itself():
    (xc, yc), _ = _inputs((4,), (4,))
    torch.testing.assert_close(add_vectors(xc, yc), xc + yc)


@pytest.mark.parametrize("mode", MODES)
def test_pallas_matmul_with_gradient(mode):
    with _mode(mode):
        _pallas_matmul_with_gradient(mode)


def _pallas_matmul_with_gradient(mode):
    (ac, bc), (at, bt) = _inputs((16, 24), (24, 8), grad=True, seed=2)
    want = torch.tanh(ac @ bc)
    got = _run(mode, lambda a, b: torch.tanh(pallas_matmul(a, b)), at, bt)
    torch.testing.assert_close(got.cpu(), want.detach(), rtol=1e-5, atol=1e-5)
    w = torch.randn(want.shape, generator=torch.Generator().manual_seed(3))
    (want * w).sum().backward()
    (got * w.to("tpu")).sum().backward()
    torch.testing.assert_close(at.grad.cpu(), ac.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(bt.grad.cpu(), bc.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_jax_softmax_forward_backward(mode):
    with _mode(mode):
        _jax_softmax_forward_backward(mode)


def _jax_softmax_forward_backward(mode):
    (xc,), (xt,) = _inputs((6, 10), grad=True, seed=4)
    want = torch.softmax(xc * 3, dim=-1)
    got = _run(mode, lambda x: jax_softmax(x * 3), xt)
    torch.testing.assert_close(got.cpu(), want.detach())
    w = torch.randn(want.shape, generator=torch.Generator().manual_seed(5))
    (want * w).sum().backward()
    (got * w.to("tpu")).sum().backward()
    torch.testing.assert_close(xt.grad.cpu(), xc.grad)


def test_defer_and_fuse_one_executable_with_neighbours():
    (xc, yc), (xt, yt) = _inputs((3, 11), (3, 11), seed=6)  # shapes no other test compiles
    before = torch.tpu.cache_stats()
    with torch.tpu.eager_mode("defer_and_fuse"):
        z = torch.relu(add_vectors(xt.sin(), yt * 2)) + 1
        s = jax_softmax(z)
        out = s.cpu()
    after = torch.tpu.cache_stats()
    assert after["misses"] - before["misses"] == 1  # sin, mul, the kernel, relu, add, softmax: one program
    # executables added to tier 1 (its entry limit may evict as many after a long run)
    added = (after["executables"] + after["tier1_evicted"]) - (before["executables"] + before["tier1_evicted"])
    assert added == 1
    assert torch.tpu.region_stats()["last_ops"] >= 6
    torch.testing.assert_close(out, torch.softmax(torch.relu(xc.sin() + yc * 2) + 1, -1))


def test_compiled_graph_one_executable():
    (xc, yc), (xt, yt) = _inputs((2, 13), (2, 13), seed=7)
    f = torch.compile(lambda a, b: jax_softmax(add_vectors(a.cos(), b)) * 3, backend="tpu", fullgraph=True)
    before = torch.tpu.cache_stats()
    out = f(xt, yt).cpu()
    mid = torch.tpu.cache_stats()
    assert mid["misses"] - before["misses"] == 1
    x2 = (xt + 1).cpu().to("tpu")
    mid = torch.tpu.cache_stats()
    again = f(x2, yt).cpu()  # same signature: the cached program
    assert torch.tpu.cache_stats()["misses"] == mid["misses"]
    torch.testing.assert_close(again, torch.softmax((xc + 1).cos() + yc, -1) * 3)
    torch.testing.assert_close(out, torch.softmax(xc.cos() + yc, -1) * 3)


def test_same_signature_lowers_once(monkeypatch):
    op = torch.tpu.pallas.jax_op("jaxfn::scaled", lambda x: x * 2.0 + 1.0)
    calls = []
    real_jit = jax.jit
    monkeypatch.setattr(jax, "jit", lambda *a, **k: calls.append(1) or real_jit(*a, **k))
    x = torch.randn(4, 4, device="tpu")
    for mode in ("strict", "defer_and_fuse"):
        with torch.tpu.eager_mode(mode):
            torch.testing.assert_close(op(x).cpu(), x.cpu() * 2 + 1)
    assert op.lowerings == 1 and len(calls) == 1
    op(torch.randn(3, device="tpu"))  # a new signature: lowered again
    assert op.lowerings == 2 and len(calls) == 2


def test_private_functions_of_two_modules_do_not_collide():
    # Both modules define a private @inner (nested jax.jit): renamed per module.
    def inner_a(x):
        return x + 1.0

    def inner_b(x):
        return x * 10.0

    a = torch.tpu.pallas.jax_op("jaxfn::nest_a", lambda x: jax.jit(inner_a)(x) * 2.0)
    b = torch.tpu.pallas.jax_op("jaxfn::nest_b", lambda x: jax.jit(inner_b)(x) - 1.0)
    inner_a.__name__ = inner_b.__name__ = "inner"
    x = torch.randn(5, device="tpu")
    with torch.tpu.eager_mode("defer_and_fuse"):
        r = (a(x) + b(x)).cpu()
    torch.testing.assert_close(r, (x.cpu() + 1) * 2 + x.cpu() * 10 - 1)


def test_dtypes_and_several_outputs():
    op = torch.tpu.pallas.jax_op("jaxfn::split", lambda x, i: (x.astype(jnp.bfloat16) * 2, i + 1, (x > 0)))
    x = torch.randn(6, device="tpu")
    i = torch.arange(6, device="tpu")  # int64 stays int64 (JAX lowers with x64 for it)
    h, j, m = op(x, i)
    assert (h.dtype, j.dtype, m.dtype) == (torch.bfloat16, torch.int64, torch.bool)
    torch.testing.assert_close(h.cpu(), (x.cpu().bfloat16() * 2))
    torch.testing.assert_close(j.cpu(), torch.arange(6) + 1)
    torch.testing.assert_close(m.cpu(), x.cpu() > 0)


def test_errors_name_the_op():
    op = torch.tpu.pallas.jax_op("jaxfn::inv", jnp.linalg.inv)
    with pytest.raises(NotImplementedError, match=r"jaxfn::inv: .*lapack"):
        op(torch.eye(3, device="tpu"))
    u16 = torch.ones(2, dtype=torch.uint16)
    with pytest.raises(TypeError, match=r"pallas::add_vectors: dtype torch.uint16 has no JAX counterpart"):
        add_vectors(u16, u16)
    with pytest.raises(RuntimeError, match=r"two devices, cpu, tpu:0! \(in pallas::add_vectors\)"):
        add_vectors(torch.ones(3, device="tpu"), torch.ones(3))
    with pytest.raises(ValueError, match="namespace::op"):
        torch.tpu.pallas.jax_op("no_namespace", lambda x: x)


def test_mesh_of_one_rank():
    from jax.sharding import PartitionSpec as P

    mesh = torch.tpu.pallas.get_pallas_mesh(axis_names=("x",), mesh_shape=(1,))
    assert mesh.shape == {"x": 1} and [d.id for d in mesh.devices.flat] == [0]

    def body(x):
        return x * 2 + jax.lax.axis_index("x").astype(x.dtype)

    fn = jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_vma=False)
    op = torch.tpu.pallas.jax_op("pallas::rank_scale", fn, mesh=mesh, input_partition_specs=[P("x")],
                                 output_partition_specs=[P("x")])
    x = torch.randn(8, device="tpu")
    torch.testing.assert_close(op(x).cpu(), x.cpu() * 2)  # rank 0
    with pytest.raises(ValueError, match="needs 2 devices"):
        torch.tpu.pallas.get_pallas_mesh(axis_names=("x",), mesh_shape=(2,))


def test_import_torchtpu_does_not_import_jax():
    code = ("import sys, torch, torchtpu\n"
            "x = torch.ones(3, device='tpu') + 1\n"
            "assert torch.tpu.pallas.jax_op is not None\n"
            "assert 'jax' not in sys.modules, sorted(m for m in sys.modules if m.startswith('jax'))\n"
            "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_compile_dynamic_shapes_specialize_the_op():
    op = torch.tpu.pallas.jax_op("jaxfn::tanh2", lambda x: jnp.tanh(x) * 2)
    f = torch.compile(lambda a: op(a) + 1, backend="tpu", dynamic=True)
    for n in (3, 5):  # symbolic sizes reach the fake rule: specialized, one lowering per shape
        a = torch.randn(n, device="tpu")
        torch.testing.assert_close(f(a).cpu(), torch.tanh(a.cpu()) * 2 + 1)
    assert op.lowerings == 2


def test_views_and_scalars():
    op = torch.tpu.pallas.jax_op("jaxfn::sq", lambda x: x * x)
    x = torch.randn(4, 6, device="tpu")
    for v in (x.t(), x[:, 1], x[1:3, ::2], x[0, 0]):
        torch.testing.assert_close(op(v).cpu(), v.cpu() * v.cpu())


def test_complex_half_double():
    op = torch.tpu.pallas.jax_op("jaxfn::cx", lambda z, h, d: (z * 2j, h + 1, d * 2))
    zc = torch.randn(3, dtype=torch.complex64)
    hc, dc = torch.randn(3, dtype=torch.float16), torch.randn(3, dtype=torch.float64)
    for z in (zc.to("tpu"), zc.to("tpu").conj()):  # a conj view's values, not its storage's
        a, b, c = op(z, hc.to("tpu"), dc.to("tpu"))
        assert (a.dtype, b.dtype, c.dtype) == (torch.complex64, torch.float16, torch.float64)
        torch.testing.assert_close(a.cpu(), z.cpu().resolve_conj() * 2j)
        torch.testing.assert_close(b.cpu(), hc + 1)
        torch.testing.assert_close(c.cpu(), dc * 2)


def test_tpu_plugin_keeps_mosaic_custom_calls(monkeypatch):
    # As on a TPU plugin: no interpret mode, the kernel lowered for "tpu" is a
    # Mosaic custom call, interned as is (running it needs a TPU).
    import torchtpu.pallas as tp

    monkeypatch.setattr(tp, "_platform", lambda: "tpu")
    texts = []
    real = tp._C.foreign_intern
    monkeypatch.setattr(tp._C, "foreign_intern", lambda text: texts.append(text) or real(text))
    op = torch.tpu.pallas.jax_op("pallas::add_vectors_tpu", add_vectors.fn)
    x = torch.ones(8, 128, device="tpu")
    low = op._lower([x, x])
    assert "stablehlo.custom_call @tpu_custom_call" in texts[0] and "stablehlo.while" not in texts[0]
    assert low.outs == [((8, 128), torch.float32)]


def test_unused_argument_and_user_backward():
    op = torch.tpu.pallas.jax_op("jaxfn::first_twice", lambda x, unused: x * 2.0)
    x = torch.randn(4, device="tpu", requires_grad=True)
    y = torch.randn(4, device="tpu")
    torch.testing.assert_close(op(x, y).cpu(), x.detach().cpu() * 2)  # JAX keeps the unused argument

    def backward(ctx, grads):  # a PyTorch backward replaces jax.vjp's: here 10x the true one
        return ([grads[0] * 20.0, None],)

    op.register_autograd(backward)
    op(x, y).sum().backward()
    torch.testing.assert_close(x.grad.cpu(), torch.full((4,), 20.0))


@pytest.mark.parametrize("mode", ["strict", "defer_and_fuse"])
def test_same_shaped_kernels_stay_apart(mode):
    # Two modules of one signature: the module key is in every cache key and
    # the repeated-ops heuristic's cuts keep them apart.
    a = torch.tpu.pallas.jax_op(f"jaxfn::inc_{mode}", lambda x: x + 1.0)
    b = torch.tpu.pallas.jax_op(f"jaxfn::triple_{mode}", lambda x: x * 3.0)
    x = torch.randn(5, device="tpu")
    y, ref = x, x.cpu()
    with torch.tpu.eager_mode(mode):
        for i in range(8):
            y = a(y) if i % 2 == 0 else b(y)
            ref = ref + 1 if i % 2 == 0 else ref * 3
        torch.testing.assert_close(y.cpu(), ref)
