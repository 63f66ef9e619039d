"""What bounded dynamism (issue 15, parts 4-5) can stand on: the plugin runs
StableHLO's bounded dynamic shapes. A buffer allocated at its bound gets a
logical size at run time (set_dimension_size); reductions, dot_general over
that dimension, get_dimension_size and elementwise ops see only the logical
elements, whatever the padding holds, and one executable serves every size.
Spliced through the foreign-module op (the one jax_op uses), so no JAX."""
import torch

import torchtpu  # noqa: F401
from torchtpu import _C

BOUND = 32
DYN = f"tensor<?x8xf32, #stablehlo.bounds<{BOUND}, ?>>"
ROW = f"tensor<1x?xf32, #stablehlo.bounds<?, {BOUND}>>"

# softmax(q @ K[:n].T) @ V[:n] with K, V allocated at the bound.
ATTENTION = f"""
module @bounded_attention {{
  func.func public @main(%q: tensor<1x8xf32>, %k: tensor<{BOUND}x8xf32>, %v: tensor<{BOUND}x8xf32>,
                         %n: tensor<i32>) -> (tensor<1x8xf32>, tensor<i32>) {{
    %kd = stablehlo.set_dimension_size %k, %n, dim = 0 : (tensor<{BOUND}x8xf32>, tensor<i32>) -> {DYN}
    %vd = stablehlo.set_dimension_size %v, %n, dim = 0 : (tensor<{BOUND}x8xf32>, tensor<i32>) -> {DYN}
    %s = stablehlo.dot_general %q, %kd, contracting_dims = [1] x [1] : (tensor<1x8xf32>, {DYN}) -> {ROW}
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %m = stablehlo.reduce(%s init: %ninf) applies stablehlo.maximum across dimensions = [1] : ({ROW}, tensor<f32>) -> tensor<1xf32>
    %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<1xf32>) -> tensor<1x{BOUND}xf32>
    %len = stablehlo.get_dimension_size %s, dim = 1 : ({ROW}) -> tensor<i32>
    %mbd = stablehlo.set_dimension_size %mb, %len, dim = 1 : (tensor<1x{BOUND}xf32>, tensor<i32>) -> {ROW}
    %sub = stablehlo.subtract %s, %mbd : {ROW}
    %e = stablehlo.exponential %sub : {ROW}
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %den = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : ({ROW}, tensor<f32>) -> tensor<1xf32>
    %o = stablehlo.dot_general %e, %vd, contracting_dims = [1] x [0] : ({ROW}, {DYN}) -> tensor<1x8xf32>
    %db = stablehlo.broadcast_in_dim %den, dims = [0] : (tensor<1xf32>) -> tensor<1x8xf32>
    %r = stablehlo.divide %o, %db : tensor<1x8xf32>
    return %r, %len : tensor<1x8xf32>, tensor<i32>
  }}
}}
"""


def test_bounded_dynamic_attention_ignores_padding_with_one_executable():
    key, nin, nout = _C.foreign_intern(ATTENTION)
    assert (nin, nout) == (4, 2)
    op = _C.op_names().index("_tt_foreign_call")
    g = torch.Generator().manual_seed(0)
    q, k, v = torch.randn(1, 8, generator=g), torch.randn(BOUND, 8, generator=g), torch.randn(BOUND, 8, generator=g)
    misses = []
    for n in (1, 5, 13, 20, BOUND):
        kp, vp = k.clone(), v.clone()
        kp[n:], vp[n:] = 100.0, 1e6  # what the padding holds must not matter
        args = [q.to("tpu"), kp.to("tpu"), vp.to("tpu"), torch.tensor(n, dtype=torch.int32).to("tpu")]
        out, length = _C.call(op, (args, key, "bounded_attention"))
        ref = torch.softmax(q @ k[:n].T, -1) @ v[:n]
        torch.testing.assert_close(out.cpu(), ref, atol=1e-5, rtol=1e-5)
        assert length.cpu().item() == n
        misses.append(torch.tpu.cache_stats()["misses"])
    assert misses[-1] == misses[0], f"a new executable for a new logical size: misses {misses}"
