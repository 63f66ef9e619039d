"""torch.compile(model, backend="tpu"): Dynamo captures the model's graphs,
AOTAutograd splits them into a forward and a backward graph of ATen ops, and
each graph runs as deferred work -- recorded op by op and fused into
executables exactly as DeferAndFuse does (compile cache, repeat detection,
chunks included). Found by Dynamo through the "torch_dynamo_backends" entry
point, so importing torchtpu does not import Dynamo.

torch.compile's mode= and options= reach the backend as keyword arguments
(torch._TorchCompileWrapper); what they mean here is in MODES and OPTIONS,
and anything else raises naming what is accepted."""
import contextlib

import torch

# Inductor's modes. XLA compiles every program with its own fusion and kernel
# choices, and each graph already runs as fused executables with no per-op
# launches to capture, so none of them changes what runs; they are accepted so
# that code written for inductor runs unchanged.
MODES = {
    "default": "each graph runs as fused deferred executables",
    "reduce-overhead": "same as default: the graph's ops already run as a few fused executables, "
                       "nothing is launched op by op (inductor's CUDA graphs have no equivalent to add)",
    "max-autotune": "same as default: XLA chooses its kernels and tilings itself, there is nothing to autotune",
    "max-autotune-no-cudagraphs": "same as default (see max-autotune)",
}

OPTIONS = {
    "cpu_fallback": "bool: while this function's graphs run, ops with no TPU lowering run on the CPU "
                    "(one warning per op, as torch.tpu.set_cpu_fallback(True)); False: they raise "
                    "NotImplementedError naming the op. Default: the process-wide setting",
}


def _accepted(table):
    return ", ".join(repr(k) for k in table)


def _settings(mode, options):
    """The backend's settings from torch.compile's mode= and options=; raises
    RuntimeError for what this backend does not understand."""
    if mode is not None and mode not in MODES:
        raise RuntimeError(f"torch.compile(backend=\"tpu\"): unrecognized mode={mode!r}, should be one of: "
                           f"{_accepted(MODES)}")
    options = dict(options or {})
    unknown = sorted(k for k in options if k not in OPTIONS)
    if unknown:
        raise RuntimeError(f"torch.compile(backend=\"tpu\"): unrecognized options {unknown}; accepted: "
                           f"{_accepted(OPTIONS)} (inductor's options do not apply to this backend)")
    fallback = options.get("cpu_fallback")
    if fallback is not None and not isinstance(fallback, bool):
        raise RuntimeError(f"torch.compile(backend=\"tpu\"): options['cpu_fallback'] must be a bool, got {fallback!r}")
    return {"cpu_fallback": fallback}


@contextlib.contextmanager
def _cpu_fallback(enabled):
    if enabled is None or enabled == torch.tpu.get_cpu_fallback():
        yield
        return
    torch.tpu.set_cpu_fallback(enabled)
    try:
        yield
    finally:
        torch.tpu.set_cpu_fallback(not enabled)


def _fused_with(settings):
    def fused(gm, example_inputs):
        def run(args):
            with _cpu_fallback(settings["cpu_fallback"]):
                if torch.tpu.get_eager_mode() == "defer_and_fuse":  # already deferring: no cut here
                    return gm(*args)
                with torch.tpu.eager_mode("defer_and_fuse"):
                    return gm(*args)

        run._boxed_call = True  # AOTAutograd passes the arguments as one list
        return run

    return fused


def backend(gm, example_inputs, mode=None, options=None, **kwargs):
    from torch._dynamo.backends.common import aot_autograd

    from .distributed import _handshake

    fused = _fused_with(_settings(mode, options))
    compiled = aot_autograd(fw_compiler=fused, bw_compiler=fused)(gm, example_inputs, **kwargs)
    return _handshake.wrap(gm, example_inputs, compiled)  # graphs with collectives: the SPMD handshake
