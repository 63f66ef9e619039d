"""@torch.tpu.spmd_safe and the compilation handshake
(TORCH_TPU_SPMD_HANDSHAKE_STAGE=OFF|COMPILE_STAGE|DISPATCH_STAGE, default OFF).

A graph that torch.compile(backend="tpu") captures with collectives in it
(Dynamo turns `dist.all_reduce` and the functional collectives into
`_c10d_functional` ops) must be the same graph on every rank: a rank whose
code took another branch (`if dist.get_rank() == 0: ...`) would issue other
collectives, or the same ones in another order, and the job would hang. With
the handshake on, the ranks agree before such a graph runs: each writes a
hash of its graph (and the graph's code, for the message) to the process
group's store and reads everyone else's. A mismatch raises RuntimeError
naming the ranks on each side and the first line where their graphs differ;
a rank that never reaches the same compilation (it broke the graph
elsewhere) makes the others raise when the store's timeout (the process
group's, `init_process_group(timeout=...)`) expires -- never a hang.

- COMPILE_STAGE: once, when the graph is compiled.
- DISPATCH_STAGE: at every call of the compiled graph (for code that
  expects rank-specific recompiles; one store round trip per call).

`@torch.tpu.spmd_safe` (a decorator, also a context manager) is the user's
promise that the code is SPMD: every rank runs the same graphs. TorchTPU
keeps the collectives of such code inside the compiled program so that XLA
can overlap them with compute. Here the graph Dynamo captures keeps its
collectives either way, and on the plugins we run (XLA's CPU plugin) each
collective is its own small program staged through host memory, so marked
and unmarked code run the same programs; the mark is recorded on the graphs
compiled under it (`graph_info`), and it does not replace the handshake:
code marked SPMD-safe that is not is still caught when the handshake is on.
"""
import contextlib
import functools
import hashlib
import os
import threading

import torch

ENV = "TORCH_TPU_SPMD_HANDSHAKE_STAGE"
STAGES = ("OFF", "COMPILE_STAGE", "DISPATCH_STAGE")
_PREFIX = "torchtpu/spmd_handshake"

_local = threading.local()
_lock = threading.Lock()
_rounds = {}  # (stage, "compile" | "dispatch") -> rounds done: the number of the next one


def stage():
    """The handshake stage from TORCH_TPU_SPMD_HANDSHAKE_STAGE (read at each compile)."""
    v = os.environ.get(ENV, "OFF").strip().upper() or "OFF"
    if v not in STAGES:
        raise RuntimeError(f"{ENV}={os.environ.get(ENV)!r} is not one of {', '.join(STAGES)}")
    return v


class _SpmdSafe(contextlib.ContextDecorator):
    def __enter__(self):
        _local.depth = getattr(_local, "depth", 0) + 1
        return self

    def __exit__(self, *exc):
        _local.depth -= 1
        return False


def spmd_safe(fn=None):
    """Marks code as SPMD (no rank-dependent control flow around collectives):
    `@torch.tpu.spmd_safe`, `@torch.tpu.spmd_safe()` or `with torch.tpu.spmd_safe():`."""
    if fn is None:
        return _SpmdSafe()
    if not callable(fn):
        raise TypeError(f"spmd_safe: expected a function to decorate, got {type(fn).__name__}")

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with _SpmdSafe():
            return fn(*args, **kwargs)

    return wrapper


def in_spmd_safe():
    return getattr(_local, "depth", 0) > 0


def _is_collective(node):
    t = node.target
    return node.op == "call_function" and isinstance(t, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)) and \
        str(t).split(".", 1)[0] in ("_c10d_functional", "c10d_functional", "c10d", "_dtensor")


def collectives(gm):
    """The collective ops of an FX graph, in program order (names)."""
    return [str(n.target) for n in gm.graph.nodes if _is_collective(n)]


def _describe(gm, example_inputs):
    metas = []
    for x in example_inputs:
        if isinstance(x, torch.Tensor):
            metas.append(f"{x.dtype} {tuple(x.shape)} {tuple(x.stride())}")
        else:
            metas.append(type(x).__name__)
    text = "# inputs: " + "; ".join(metas) + "\n" + gm.code.strip()
    return hashlib.sha256(text.encode()).hexdigest()[:16], text


def _group():
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized() or dist.get_world_size() < 2:
        return None
    return dist


def _first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<end of graph>"
        y = lb[i] if i < len(lb) else "<end of graph>"
        if x != y:
            return i + 1, x.strip(), y.strip()
    return 0, "", ""


def _exchange(dist, what, digest, text, names):
    """One round: writes this rank's graph, reads every rank's; raises on a
    mismatch or when a rank does not arrive within the store's timeout."""
    store = dist.distributed_c10d._get_default_store()
    rank, world = dist.get_rank(), dist.get_world_size()
    with _lock:
        n = _rounds.get(what, 0)
        _rounds[what] = n + 1
    key = f"{_PREFIX}/{what[0]}/{what[1]}/{n}"
    store.set(f"{key}/{rank}", f"{digest}\n{text}")
    seen = {}
    for r in range(world):
        try:
            store.wait([f"{key}/{r}"])
        except Exception as e:  # the store's timeout (DistStoreError and friends)
            missing = [q for q in range(world) if q != rank and q not in seen and
                       not store.check([f"{key}/{q}"])]
            raise RuntimeError(
                f"torch.compile(backend=\"tpu\"): SPMD handshake ({ENV}={what[0]}) of graph {what[1]} "
                f"(round {n}): rank(s) {missing} did not reach the same compilation within the process group's "
                f"timeout; their code took another path (a rank-dependent branch, or a graph break on some ranks "
                f"only). This rank's graph {digest} has collectives {', '.join(names)}. ({type(e).__name__}: {e})"
            ) from None
        v = store.get(f"{key}/{r}").decode()
        seen[r] = v.split("\n", 1)
    digests = {}
    for r, (d, _) in seen.items():
        digests.setdefault(d, []).append(r)
    if len(digests) == 1:
        return
    mine = digests[digest]
    other_digest, others = next((d, rs) for d, rs in digests.items() if d != digest)
    line, a, b = _first_difference(text, seen[others[0]][1])
    sides = "; ".join(f"ranks {rs} compiled graph {d}" for d, rs in sorted(digests.items(), key=lambda kv: kv[1]))
    raise RuntimeError(
        f"torch.compile(backend=\"tpu\"): SPMD handshake ({ENV}={what[0]}) of graph {what[1]} (round {n}) "
        f"failed: the ranks compiled different graphs with collectives ({sides}). First difference, line {line}: "
        f"rank {mine[0]}: {a!r} vs rank {others[0]}: {b!r}. Code around collectives must be the same on every rank "
        f"(no branches on dist.get_rank()); rank-specific recompiles expected? use DISPATCH_STAGE.")


def graph_info(gm):
    """What the backend recorded on a compiled graph (tests, debugging)."""
    return getattr(gm, "_tt_spmd", None)


def wrap(gm, example_inputs, compiled):
    """The backend's hook: returns the callable that runs `compiled` (the
    graph's compiled form), handshaking first as the stage says."""
    names = collectives(gm)
    gm._tt_spmd = {"collectives": names, "spmd_safe": in_spmd_safe(), "handshakes": 0}
    if not names:
        return compiled
    st = stage()
    dist = _group()
    if st == "OFF" or dist is None:
        return compiled
    digest, text = _describe(gm, example_inputs)
    info = gm._tt_spmd
    if st == "COMPILE_STAGE":
        _exchange(dist, ("COMPILE_STAGE", "compile"), digest, text, names)
        info["handshakes"] += 1
        return compiled
    # DISPATCH_STAGE: the n-th run of a graph with collectives on one rank
    # pairs with the n-th on every other, whenever each compiled it.
    what = ("DISPATCH_STAGE", "dispatch")

    @functools.wraps(compiled)
    def run(*args, **kwargs):
        _exchange(dist, what, digest, text, names)
        info["handshakes"] += 1
        return compiled(*args, **kwargs)

    return run
