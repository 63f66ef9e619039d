"""torch.compile's edges on tpu tensors: the default backend (inductor) says
to use backend="tpu"; mode= and options= of backend="tpu" are accepted with a
meaning or refused naming what is accepted; an op with no TPU lowering inside
a graph raises naming it, or with the CPU fallback runs correctly with one
warning naming it; graph breaks and guard failures give eager's results."""
import warnings

import pytest
import torch

# Custom ops with only a CPU kernel stand for ATen ops with no lowering (as in
# test_fallback.py), so the tests keep testing this as lowerings are added.
_lib = torch.library.Library("tt_compile_edges", "DEF")
_lib.define("shift(Tensor x) -> Tensor")  # no fake kernel: Dynamo breaks the graph at it
_lib.impl("shift", lambda x: x + 1, "CPU")
_lib.define("halve(Tensor x) -> Tensor")  # a fake kernel: it stays inside the captured graph
_lib.impl("halve", lambda x: x * 0.5, "CPU")
torch.library.register_fake("tt_compile_edges::halve", lambda x: torch.empty_like(x), lib=_lib)
torch.library.register_autograd("tt_compile_edges::halve", lambda ctx, g: torch.ops.tt_compile_edges.halve(g),
                                lib=_lib)  # the backward graph holds it too
UNLOWERED = "tt_compile_edges::halve.default"


def _warnings_about(record, text):
    return [str(w.message) for w in record if text in str(w.message)]


def _x():
    return torch.linspace(-2, 2, 12).reshape(3, 4)


def test_inductor_on_tpu_tensors_runs_with_jax():
    """With JAX installed, inductor's tpu path runs through torch_tpu/ (its
    Pallas kernels spliced into our programs) and matches CPU."""
    torch._dynamo.reset()
    f = torch.compile(lambda x: (x * 2).sin())
    torch.testing.assert_close(f(_x().to("tpu")).cpu(), (_x() * 2).sin())


@pytest.mark.parametrize("mode", [None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"])
def test_modes_are_accepted_and_compute_the_same(mode):
    torch._dynamo.reset()
    f = torch.compile(lambda x: torch.nn.functional.gelu(x @ x.t()) + 1, backend="tpu", mode=mode)
    x = _x()
    torch.testing.assert_close(f(x.to("tpu")).cpu(), torch.nn.functional.gelu(x @ x.t()) + 1)


@pytest.mark.parametrize("kwargs, words", [
    ({"mode": "fastest"}, ["unrecognized mode='fastest'", "'reduce-overhead'", "'max-autotune'"]),
    ({"options": {"triton.cudagraphs": True}}, ["unrecognized options ['triton.cudagraphs']", "'cpu_fallback'"]),
    ({"options": {"cpu_fallback": "yes"}}, ["options['cpu_fallback'] must be a bool"]),
])
def test_unknown_mode_and_options_raise_naming_the_accepted(kwargs, words):
    torch._dynamo.reset()
    f = torch.compile(lambda x: x.sin(), backend="tpu", **kwargs)
    with pytest.raises(Exception) as e:
        f(_x().to("tpu"))
    for w in words:
        assert w in str(e.value), str(e.value)


def _halve(x):
    return torch.ops.tt_compile_edges.halve(x.sin()) * 2 + 1


def test_unlowered_op_in_a_graph_raises_naming_it():
    torch._dynamo.reset()
    assert torch.tpu.get_cpu_fallback() is False
    with pytest.raises(NotImplementedError, match=f"'{UNLOWERED}' is not implemented for TPU yet"):
        torch.compile(_halve, backend="tpu")(_x().to("tpu"))


def test_unlowered_op_in_a_graph_with_cpu_fallback_option_warns_once():
    torch._dynamo.reset()
    torch.tpu.reset_fallback_counts()
    f = torch.compile(_halve, backend="tpu", options={"cpu_fallback": True})
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        outs = [f(_x().to("tpu")) for _ in range(3)]
    for out in outs:
        torch.testing.assert_close(out.cpu(), _halve(_x()))
    ours = _warnings_about(w, UNLOWERED)
    assert len(ours) == 1 and "running it on the CPU" in ours[0], ours
    assert not _warnings_about(w, "torchtpu"), [str(m.message) for m in w]
    assert torch.tpu.get_cpu_fallback() is False  # the option is scoped to the compiled function's graphs
    torch.tpu.reset_fallback_counts()


def test_unlowered_op_in_forward_and_backward_graphs_with_the_fallback():
    torch._dynamo.reset()
    torch.tpu.reset_fallback_counts()
    f = torch.compile(_halve, backend="tpu", options={"cpu_fallback": True})
    x = _x().requires_grad_()
    xt = _x().to("tpu").requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (f(xt) ** 2).sum().backward()
    (_halve(x) ** 2).sum().backward()
    torch.testing.assert_close(xt.grad.cpu(), x.grad)
    assert torch.tpu.fallback_counts()[UNLOWERED] == 2  # once in the forward graph, once in the backward
    torch.tpu.reset_fallback_counts()


def test_graph_break_at_an_op_dynamo_cannot_trace_runs_it_through_the_fallback():
    torch._dynamo.reset()
    torch.tpu.set_cpu_fallback(True)
    torch.tpu.reset_fallback_counts()
    try:
        def f(x):
            return torch.ops.tt_compile_edges.shift(x.cos()) * 3

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = torch.compile(f, backend="tpu")(_x().to("tpu"))
        torch.testing.assert_close(out.cpu(), (_x().cos() + 1) * 3)
        ours = _warnings_about(w, "tt_compile_edges::shift")
        assert len(ours) == 1, ours
        # Dynamo skips torchtpu's own files: no warnings about tracing our internals
        assert not _warnings_about(w, "torchtpu._C"), [str(m.message) for m in w]
    finally:
        torch.tpu.set_cpu_fallback(False)
        torch.tpu.reset_fallback_counts()


def test_graph_breaks_on_side_effects_and_host_round_trips():
    torch._dynamo.reset()
    seen = []

    def f(x):
        y = x.cos()
        seen.append(1)  # a Python side effect
        print("between graphs")
        z = torch.from_numpy(y.cpu().numpy()).to("tpu")  # a host round trip
        return z + y

    out = torch.compile(f, backend="tpu")(_x().to("tpu"))
    torch.testing.assert_close(out.cpu(), _x().cos() * 2)
    assert seen == [1]


def test_guard_failures_recompile_for_shape_dtype_and_layout():
    torch._dynamo.reset()
    f = torch.compile(lambda a: (a * 2).sum(0) - a.mean(), backend="tpu")
    for a in (torch.randn(3, 4), torch.randn(5, 4), torch.randn(3, 4).half(), torch.randn(4, 3).t(),
              torch.randn(3, 4).to(torch.bfloat16)):
        want = (a * 2).sum(0) - a.mean()
        got = f(a.to("tpu")).cpu()
        assert got.dtype == want.dtype and got.shape == want.shape
        tol = {} if a.dtype == torch.float32 else {"atol": 3e-2, "rtol": 3e-2}
        torch.testing.assert_close(got, want, **tol)


def test_hooks_act_at_once_when_dynamo_and_inductor_were_imported_first():
    import os
    import subprocess
    import sys

    # JAX hidden: inductor's tpu path cannot run, and says what to do
    code = """
import sys
sys.modules["jax"] = None
import torch, torch._dynamo, torch._inductor.codegen.common as common
assert "torchtpu" not in sys.modules
import torchtpu
from torch._dynamo import trace_rules
assert trace_rules.check_file(torchtpu._device.__file__).skipped
assert not trace_rules.check_file(torchtpu.pallas.__file__).skipped
torch._dynamo.reset()
try:
    torch.compile(lambda x: x.sin() * 2)(torch.ones(3, device="tpu"))
except Exception as e:
    assert 'backend="tpu"' in str(e) and "torchtpu[jax]" in str(e), e
    print("refused")
"""
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0", TF_CPP_MIN_LOG_LEVEL="2")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip().endswith("refused"), p.stderr[-3000:]
