"""torch.compile with the default backend (inductor) on tpu tensors: inductor
generates Pallas kernels for device "tpu" and runs them through
torch_tpu._internal.pallas.tpu_torch_pallas (this repo's torch_tpu/), which
splices each kernel's StableHLO into our programs (interpret mode on the CPU
plugin). Compared with PyTorch on CPU in Strict mode."""
import os
import subprocess
import sys

import pytest
import torch

jax = pytest.importorskip("jax")  # a test dependency (Makefile .testdeps): installed, so this runs


def _elementwise(x, y):
    return torch.sin(x) * y + 1


def _row_softmax_sum(x):
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def _reductions(x, y):
    return (x * y).sum(-1), x.abs().mean(0)


CASES = [
    (_elementwise, [(8, 16), (8, 16)]),
    (_row_softmax_sum, [(4, 32)]),
    (_reductions, [(6, 10), (6, 10)]),
]


@pytest.mark.parametrize("fn,shapes", CASES, ids=[c[0].__name__ for c in CASES])
def test_inductor_default_backend_matches_cpu(fn, shapes):
    from torch_tpu._internal.pallas import tpu_torch_pallas

    torch._dynamo.reset()
    g = torch.Generator().manual_seed(len(shapes))
    cpu = [torch.randn(s, generator=g) for s in shapes]
    tpu = [c.to("tpu") for c in cpu]
    with torch.tpu.eager_mode("strict"):
        cf = torch.compile(fn)  # the default backend: inductor, Pallas kernels for device "tpu"
        out = cf(*tpu)
        expected = fn(*cpu)
        outs, exp = (out, expected) if isinstance(out, tuple) else ((out,), (expected,))
        for o, e in zip(outs, exp):
            assert o.device.type == "tpu"
            torch.testing.assert_close(o.cpu(), e, rtol=1e-5, atol=1e-5)
        assert tpu_torch_pallas.registrations > 0

        # A second call with new values: no kernel registered again, nothing compiled again.
        regs, misses = tpu_torch_pallas.registrations, torch.tpu.cache_stats()["misses"]
        cpu2 = [c * 2 - 0.5 for c in cpu]
        out2 = cf(*[c.to("tpu") for c in cpu2])
        expected2 = fn(*cpu2)
        outs2, exp2 = (out2, expected2) if isinstance(out2, tuple) else ((out2,), (expected2,))
        for o, e in zip(outs2, exp2):
            torch.testing.assert_close(o.cpu(), e, rtol=1e-5, atol=1e-5)
        assert tpu_torch_pallas.registrations == regs
        assert torch.tpu.cache_stats()["misses"] == misses


def test_interpret_rule_only_for_lowering_platform_tpu():
    # The rule the shim installs turns pallas_call lowered for "tpu" into
    # plain StableHLO on this (CPU) plugin; the exported module has no Mosaic call.
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    import torch_tpu._internal.pallas  # noqa: F401  (installs the rule)

    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] * 2

    def f(x):
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    exp = jax.export.export(jax.jit(f), platforms=["tpu"])(jax.ShapeDtypeStruct((8, 128), jnp.float32))
    text = exp.mlir_module()
    assert "tpu_custom_call" not in text and "stablehlo.multiply" in text


def test_import_torch_tpu_does_not_import_jax():
    code = ("import sys, torch, torch_tpu\n"
            "assert 'jax' not in sys.modules, sorted(m for m in sys.modules if m.startswith('jax'))\n"
            "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_without_jax_the_call_says_what_to_do():
    # JAX hidden (a None entry in sys.modules makes `import jax` fail).
    code = ("import sys; sys.modules['jax'] = None\n"
            "import torch, torchtpu\n"
            "from torch_tpu._internal.pallas import tpu_torch_pallas\n"
            "try:\n"
            "    tpu_torch_pallas.register_custom_kernel('k', 'key', serialized_mlir_module=b'')\n"
            "except ImportError as e:\n"
            "    print('ERR', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "pip install torchtpu[jax]" in r.stdout and 'backend="tpu"' in r.stdout, r.stdout


def test_call_errors_name_the_kernel():
    from torch_tpu._internal.pallas import tpu_torch_pallas

    with pytest.raises(KeyError, match="no kernel 'nope'"):
        tpu_torch_pallas.call_custom_kernel("nope", "k", inputs=[], output_shapes=[])


def test_jax_callable_writes_aliased_outputs():
    # Helion's launcher calls JaxCallable with its preallocated outputs among
    # the inputs and input_output_aliases {input: output}; a plain pallas_call here.
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    from torch_tpu._internal.pallas.pallas import JaxCallable, jax_placeholder

    def kernel(x_ref, y_ref, _out_in, o_ref, s_ref):
        o_ref[...] = x_ref[...] + y_ref[...]
        s_ref[...] = x_ref[...] * y_ref[...]

    def fn(x, y, out):
        return pl.pallas_call(kernel, out_shape=(jax.ShapeDtypeStruct(x.shape, x.dtype),) * 2,
                              input_output_aliases={2: 0})(x, y, out)

    jc = JaxCallable(name="add_mul", jit_fn=jax.jit(fn), trace_key="t", input_output_aliases={2: 0})
    xc, yc = torch.randn(8, 128), torch.randn(8, 128)
    x, y = xc.to("tpu"), yc.to("tpu")
    out = torch.empty(8, 128, device="tpu")
    res = jc(x, y, out)
    assert isinstance(res, tuple) and len(res) == 2
    torch.testing.assert_close(out.cpu(), xc + yc)  # written through the alias
    torch.testing.assert_close(res[1].cpu(), xc * yc)
    jc(x, y, out)
    assert jc.op.lowerings == 1  # the second call lowers nothing
    assert jax_placeholder(x) == jax.ShapeDtypeStruct((8, 128), jnp.float32)
