"""PrivateUse1 ("tpu") kernels of the c10d collective ops.

Every `dist.*` collective on tpu tensors, DDP's reducer and the functional
collectives end in a `c10d::*` op; its tpu kernel here runs the collective
through the path `PATHS[name]` names. Today every collective takes the host
path (`_host`): stage the tpu tensors to host (`_staging`), run the same op on
the host tensors (it dispatches to the group's gloo), copy the results back.
A device path for a collective is a function with the same signature as the
op; putting it in PATHS replaces the staging for that collective only.
"""
import torch
from torch._C._distributed_c10d import Work

from . import _debug, _lifetime, _staging, _work

_c10d = torch.ops.c10d

# name -> index of the output argument (None: no output; in-place ops write
# their input), whether the output's old values matter (in-place), deferred.
_OPS = {
    "allreduce_": (0, True, False),
    "allreduce_coalesced_": (0, True, False),
    "broadcast_": (0, True, False),
    "reduce_": (0, True, False),
    "allgather_": (0, False, False),
    "_allgather_base_": (0, False, False),
    "allgather_coalesced_": (0, False, False),
    "allgather_into_tensor_coalesced_": (0, False, False),
    "reduce_scatter_": (0, False, False),
    "_reduce_scatter_base_": (0, False, False),
    "reduce_scatter_tensor_coalesced_": (0, False, False),
    "gather_": (0, False, False),
    "scatter_": (0, False, False),
    "alltoall_": (0, False, False),
    "alltoall_base_": (0, False, False),
    "send": (None, False, False),
    "recv_": (0, False, True),
    "recv_any_source_": (0, False, True),
    "barrier": (None, False, False),
    "monitored_barrier_": (None, False, False),
}

# data movement: staged as bytes, exact for every dtype
_MOVES = {"broadcast_", "allgather_", "_allgather_base_", "allgather_coalesced_",
          "allgather_into_tensor_coalesced_", "gather_", "scatter_", "alltoall_", "alltoall_base_",
          "send", "recv_", "recv_any_source_"}

_PREMUL_SUM = 8  # c10d::ReduceOp::RedOpType::PREMUL_SUM


def _map(x, fn):
    if isinstance(x, torch.Tensor):
        return fn(x)
    if isinstance(x, (list, tuple)):
        return [_map(v, fn) for v in x]
    return x


def _check_reduce_op(name, args):
    for a in args:
        if isinstance(a, torch.ScriptObject) and a._type().name() == "ReduceOp":
            if a.op() == _PREMUL_SUM:
                raise RuntimeError(
                    f"tpu_dist: c10d::{name} reached the backend with ReduceOp.PREMUL_SUM, whose factor is "
                    "lost on this path; dist.all_reduce(t, op=dist._make_nccl_premul_sum(f)) supports it "
                    "(pre-multiplies on the device, then sums)")


def _host(name, op, args):
    out_idx, inplace, deferred = _OPS[name]
    _check_reduce_op(name, args)
    _lifetime.prune()
    if _debug.enabled():
        _debug.check(name, args)
    pairs = []  # (tpu tensor, host tensor) written back after the collective
    staged = []  # every host tensor given to gloo: kept until gloo lets go (_lifetime)

    def stage(t, is_out):
        if not _staging.is_staged(t):  # a CPU tensor beside tpu ones: an alias, as _lifetime says
            return _lifetime.alias_host_tensors(t, staged)
        h = _staging.to_host(t, copy=(not is_out) or inplace, as_bytes=name in _MOVES)
        staged.append(h)
        if is_out:
            pairs.append((t, h))
        return h

    host_args = [_map(a, lambda t, o=(i == out_idx): stage(t, o)) for i, a in enumerate(args)]
    try:
        return _run(name, op, args, host_args, pairs, out_idx, deferred)
    finally:
        _lifetime.keep(staged)


def _run(name, op, args, host_args, pairs, out_idx, deferred):
    res = op(*host_args)
    ret_work = res[-1] if isinstance(res, tuple) else res
    n_ret = len(op._schema.returns)

    def finish():
        for t, h in pairs:
            _staging.to_device(t, h)

    if name == "monitored_barrier_":
        return None
    if name == "send":
        return ret_work  # gloo's work holds the host copy until it is sent
    inner = Work.unbox(ret_work)
    if deferred:
        work = _work.deferred(inner, finish)
    else:
        inner.wait()
        finish()
        work = _work.completed([t for t, _ in pairs])
    boxed = work.boxed()
    if n_ret == 2:
        return args[out_idx], boxed
    return boxed


def _host_path(name):
    op = getattr(_c10d, name).default
    return lambda args: _host(name, op, args)


# Which path runs each collective on tpu tensors (see the module docstring).
PATHS = {name: _host_path(name) for name in _OPS}


def _kernel(name):
    op = getattr(_c10d, name).default
    schema_args = op._schema.arguments

    def kernel(*args, **kwargs):
        # the dispatcher passes only what the caller gave: fill the defaults
        full = list(args)
        for a in schema_args[len(args):]:
            full.append(kwargs[a.name] if a.name in kwargs else a.default_value)
        return PATHS[name](full)

    kernel.__name__ = f"tpu_{name}"
    return kernel


_lib = None


def register():
    global _lib
    import warnings

    _lib = torch.library.Library("c10d", "IMPL")
    with warnings.catch_warnings():
        # c10d registers forwarding kernels for PrivateUse1 that assume a C++
        # backend; ours replace them (the warning says so once per process).
        warnings.filterwarnings("ignore", message=".*Overriding a previously registered kernel.*")
        warnings.filterwarnings("ignore", message=".*Warning only once for all operators.*")
        for name in _OPS:
            _lib.impl(name, _kernel(name), "PrivateUse1")
