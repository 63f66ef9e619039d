"""torch.compile(model, backend="tpu"): Dynamo captures the model's graphs,
AOTAutograd splits them into a forward and a backward graph of ATen ops, and
each graph runs as deferred work -- recorded op by op and fused into
executables exactly as DeferAndFuse does (compile cache, repeat detection,
chunks included). Found by Dynamo through the "torch_dynamo_backends" entry
point, so importing torchtpu does not import Dynamo."""
import torch


def _fused(gm, example_inputs):
    def run(args):
        if torch.tpu.get_eager_mode() == "defer_and_fuse":  # already deferring: no cut here
            return gm(*args)
        with torch.tpu.eager_mode("defer_and_fuse"):
            return gm(*args)

    run._boxed_call = True  # AOTAutograd passes the arguments as one list
    return run


def backend(gm, example_inputs, **kwargs):
    from torch._dynamo.backends.common import aot_autograd

    return aot_autograd(fw_compiler=_fused, bw_compiler=_fused)(gm, example_inputs, **kwargs)
