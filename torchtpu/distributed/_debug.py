"""Debug check (TORCH_TPU_DIST_DEBUG=1, or TORCH_DISTRIBUTED_DEBUG=DETAIL):
before each collective on tpu tensors the ranks exchange what they are about
to run (op, reduce op, dtypes, shapes that must agree) over the group's gloo;
a difference raises on every rank, naming the ranks and their calls, instead
of a hang or a wrong answer."""
import os

import torch
from torch._C._distributed_c10d import ProcessGroup

from . import _lifetime

_WIDTH = 512
# ops whose first argument (in-place) or second (the input) must agree in shape
_SHAPE_ARG = {"allreduce_": 0, "allreduce_coalesced_": 0, "broadcast_": 0, "reduce_": 0,
              "allgather_": 1, "_allgather_base_": 1, "reduce_scatter_": 0,
              "_reduce_scatter_base_": 1, "allgather_into_tensor_coalesced_": 1,
              "reduce_scatter_tensor_coalesced_": 1}
_SKIP = {"send", "recv_", "recv_any_source_", "barrier", "monitored_barrier_"}


def enabled():
    return os.environ.get("TORCH_TPU_DIST_DEBUG", "0") not in ("0", "") or \
        os.environ.get("TORCH_DISTRIBUTED_DEBUG", "").upper() == "DETAIL"


def _tensors(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _tensors(v)]
    return []


def describe(name, args):
    parts = [name]
    for a in args:
        if isinstance(a, torch.ScriptObject) and a._type().name() == "ReduceOp":
            parts.append(f"op={a.op()}")
    parts.append("dtypes=" + ",".join(sorted({str(t.dtype).replace("torch.", "") for a in args for t in _tensors(a)})))
    if name in _SHAPE_ARG:
        parts.append("shapes=" + ";".join(str(tuple(t.shape)) for t in _tensors(args[_SHAPE_ARG[name]])))
    return " ".join(parts)


def check(name, args):
    if name in _SKIP:
        return
    pg_so = next(a for a in args if isinstance(a, torch.ScriptObject) and a._type().name() == "ProcessGroup")
    pg = ProcessGroup.unbox(pg_so)
    gloo = pg._get_backend(torch.device("cpu"))
    me = describe(name, args)
    buf = torch.zeros(_WIDTH, dtype=torch.uint8)
    enc = me.encode()[:_WIDTH]
    buf[:len(enc)] = torch.tensor(list(enc), dtype=torch.uint8)
    outs = [torch.empty(_WIDTH, dtype=torch.uint8) for _ in range(pg.size())]
    gloo.allgather([outs], [buf]).wait()
    _lifetime.keep(outs + [buf])  # gloo's worker may not have let go of them yet
    calls = [bytes(o.tolist()).rstrip(b"\0").decode(errors="replace") for o in outs]
    if len(set(calls)) > 1:
        lines = "; ".join(f"rank {r} calls {c}" for r, c in enumerate(calls))
        raise RuntimeError(f"tpu_dist: collective mismatch across ranks of group {pg.group_name!r}: {lines}")
