"""torch.compile(model, backend="tpu"): Dynamo captures the model's graphs,
AOTAutograd splits them into a forward and a backward graph of ATen ops (a
graph that needs no autograd skips it: _Inference), and
each graph is captured on its first call into one executable (a plan,
csrc/exec/plan.h): its ops run once through the dispatcher into one region
that nothing closes, which runs as one program; every later call is one call
into the core (_C.plan_run) that checks the arguments against what was
captured, binds their buffers and launches it, with no per-op work. A graph
that cannot be captured (an op that runs on the CPU, a value read on the
host, a data-dependent shape, a non-tpu argument) runs as deferred work from
then on -- recorded op by op and fused into executables exactly as
DeferAndFuse does. A graph with symbolic sizes (dynamic=True) gets its sizes
as integer arguments: it runs padded to a bucket of them, one plan per
bucket (_bounded.py), or, when it cannot run padded, keeps plans per value
of them (_Graph._split).
Found by Dynamo through the "torch_dynamo_backends" entry point, so importing
torchtpu does not import Dynamo.

torch.compile's mode= and options= reach the backend as keyword arguments
(torch._TorchCompileWrapper); what they mean here is in MODES and OPTIONS,
and anything else raises naming what is accepted."""
import contextlib
import functools
import threading

import torch

from . import _C, _bounded, _dynamic_buckets, _input_alias

# Inductor's modes. XLA compiles every program with its own fusion and kernel
# choices, and each graph already runs as fused executables with no per-op
# launches to capture, so none of them changes what runs; they are accepted so
# that code written for inductor runs unchanged.
MODES = {
    "default": "each graph is captured once as one executable and replayed from C",
    "reduce-overhead": "same as default: each graph already replays as one captured executable, "
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


def _plan_view(base, dtype, size, stride, offset):
    """A graph output that views a result or an argument (called by _C.plan_run)."""
    if base.dtype != dtype:
        if base.dim() == 0:  # view(dtype) of another element size needs a dim (the real view of a 0-d complex)
            base = base.reshape(1)
        base = base.view(dtype)
    return base.as_strided(size, stride, offset)


def _set_view_fns():
    """_C.plan_run's view functions: _plan_view, and as_strided redispatched
    straight to ADInplaceOrView (which records the view, its version counter
    and its creation mode as eager's as_strided does) and Meta (metadata): a
    quarter of the dispatcher's time. plan_run takes the direct one only for
    a view of the base's dtype, a base not requiring grad (or grad mode off)
    and no forward-AD level open, where autograd's kernel would add nothing."""
    keys = torch._C.DispatchKeySet(torch._C.DispatchKey.ADInplaceOrView) | torch._C.DispatchKeySet(
        torch._C.DispatchKey.Meta)
    direct = functools.partial(torch.ops.aten.as_strided.default._handle.redispatch_boxed, keys)
    _C.plan_set_view_fn(_plan_view, direct, torch.autograd.forward_ad, torch.is_grad_enabled)


def _deferred(gm, args):
    if torch.tpu.get_eager_mode() == "defer_and_fuse":  # already deferring: no cut here
        return gm(*args)
    with torch.tpu.eager_mode("defer_and_fuse"):
        return gm(*args)


# Graphs with integer arguments (a symbolic size under dynamic=True or
# automatic dynamic shapes: Dynamo passes its value, and the graph's ops
# receive sizes computed from it) keep plans per value of those integers: a
# plan's program was traced with them, so it replays only for them. At most
# MAX_SIZE_KEYS values per graph; calls with a further one run op by op.
MAX_SIZE_KEYS = 64

# Plans kept per graph, one per argument signature the graph is called with.
# Dynamo's guards recompile on a new shape, dtype or stride, but not on a new
# storage offset or storage size (x[i] for each i, a batch sliced from a
# larger tensor): each such signature is captured once (mostly into the same
# program, found in the cache: a view's offset is a runtime parameter where
# other views of its shape fit in the storage). Past the limit, calls with a
# signature of their own run op by op.
MAX_PLANS = 8

# Calls of graphs with integer arguments (symbolic sizes), by how they ran:
# "padded_calls" padded to a bucket (_bounded), "size_calls" with plans per
# size or op by op (the graph cannot run padded, or a size has no bucket).
# Read through torch.tpu.plan_stats(); counted under no lock (a statistic).
bounded_stats = {"padded_calls": 0, "size_calls": 0}


def _host_scalar(a):
    return isinstance(a, torch.Tensor) and a.device.type == "cpu" and a.dim() == 0


class _Graph:
    """One graph of AOTAutograd (a forward, with its saved tensors as outputs,
    or a backward): captured into a plan on its first call with a signature,
    replayed after; run op by op as deferred work for good when a capture
    fails (the graph holds something a plan cannot replay)."""

    def __init__(self, gm, settings, name):
        # AOTAutograd passes the arguments as one list (an instance attribute:
        # the wrappers around the backward copy __dict__, not class attributes)
        self._boxed_call = True
        self.no_grad = False  # captures and op-by-op runs with autograd off (_Inference)
        # The graph's one plan once it has one and neither sizes nor host
        # scalars: calls try it before anything else (set once, read unlocked)
        self.first = None
        self.gm = gm
        self.settings = settings
        self.name = name
        self.why = None  # why the graph could not be captured: it runs op by op
        self.lock = threading.Lock()  # one capture at a time; replays need no lock of ours
        # Plans per value of the integer arguments (() for a graph without
        # any), most recently used first; replaced, never mutated, so
        # replays read it unlocked.
        self.plans = {}
        self.sizes = None  # positions of the integer arguments, once the first call has shown them
        self.scalars = None  # positions of 0-d CPU tensor arguments, moved to the device each call
        self.bounding = None  # how a graph with sizes runs padded to buckets of them (_bounded)
        self.unbounded = None  # why it cannot (then it keeps plans per size)

    def _split(self, args):
        """(key, bound): the values of the integer arguments (() when the graph
        has none; None when this call's arguments are not of the first call's
        kinds: its capture is refused by the core then) and the arguments the
        plan binds."""
        sizes = self.sizes
        if sizes is None:  # the first call (racing threads compute the same; rest is set first)
            sizes = tuple(i for i, a in enumerate(args) if type(a) is int)
            self.rest = tuple(i for i in range(len(args)) if i not in set(sizes))
            self.sizes = sizes
        if not sizes:
            return (), args
        if len(args) != len(sizes) + len(self.rest) or any(type(args[i]) is not int for i in sizes):
            return None, args
        return tuple(args[i] for i in sizes), [args[i] for i in self.rest]

    def _refused(self, plans):
        """Whether a call whose key has `plans` runs op by op: the graph
        cannot be captured, the key has its MAX_PLANS, or it is a new key
        past MAX_SIZE_KEYS."""
        return self.why is not None or len(plans) >= MAX_PLANS or (not plans and len(self.plans) >= MAX_SIZE_KEYS)

    def _bounding(self):
        """How the graph runs padded to buckets of its sizes (_bounded), or
        None when it cannot (self.unbounded says why)."""
        if self.bounding is None and self.unbounded is None:
            try:
                self.bounding = _bounded.analyze(self.gm)
            except _bounded.Refused as e:
                self.unbounded = str(e)
        return self.bounding

    def _host_scalars(self, args):
        """Positions of the 0-d CPU tensor arguments (constants Dynamo lifted
        out of the model: torch.tensor(...) scalars, a rotary embedding's
        scaling), found on the first call; () when the graph has none or
        returns a CPU tensor to its caller: one such argument returned as
        given stays the caller's CPU tensor (_call_any), and a forward's
        tensors saved for its backward (a scale computed from such a
        constant, gpt2's sqrt(2 / pi)) are the backward's, which takes them
        on the device as well."""
        pos = self.scalars
        if pos is None:
            outs = [n for n in self.gm.graph.nodes if n.op == "output"]
            phs = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
            pos = tuple(i for i, a in enumerate(args) if _host_scalar(a))
            user = self.gm.meta.get("torchtpu_user_outputs", 1 << 30)
            cpu_out = any(isinstance(o, torch.fx.Node) and isinstance(o.meta.get("val"), torch.Tensor)
                          and o.meta["val"].device.type == "cpu" and k < user
                          and not (o.op == "placeholder" and phs.index(o) in pos)
                          for k, o in enumerate(outs[0].args[0] if outs else ()))
            pos = () if cpu_out else pos
            self.scalars = pos
        return pos

    def __call__(self, args):
        plan = self.first
        if plan is not None:  # the common case, first
            out = _C.plan_run(plan, args, False)
            if out is not None:
                return out
        out = self._call_any(args)
        if self.first is None and not self.sizes and not self.scalars:
            plans = self.plans.get(())
            self.first = plans[0] if plans else None
        return out

    def _call_any(self, args):
        pos = self._host_scalars(args)
        if pos:  # on the device, they are arguments of the plan, not values baked into its program
            dev = next((a.device for a in args if isinstance(a, torch.Tensor) and a.device.type == "tpu"), None)
            if dev is not None:
                moved = [a.to(dev) if i in pos and _host_scalar(a) else a for i, a in enumerate(args)]
                back = {id(m): a for m, a in zip(moved, args) if m is not a}
                out = self._call_sized(moved)  # an argument returned as given is the caller's CPU tensor
                return type(out)(back.get(id(o), o) for o in out) if back else out
        return self._call_sized(args)

    def _call_sized(self, args):
        key, bound = self._split(args)
        if key:
            b = self._bounding()
            kb = b.bounds(args) if b is not None else None
            if kb is not None:
                return self._call_bounded(b, args, *kb)
            bounded_stats["size_calls"] += 1
        return self._call(key, bound, args, lambda: self.gm(*args), False)

    def _call_bounded(self, b, args, key, sizes, bounds):
        """A call padded to its bucket (key): one plan per bucket, outputs
        narrowed to the sizes."""
        padded = b.padded_args(args, bounds)
        device = padded[next(iter(b.inputs))].device
        bound = [padded[i] for i in self.rest] + [b.size_tensor(b.syms[i], args[i], device) for i in b.order]
        try:
            outs = self._call(key, bound, args, lambda: _bounded.run_padded(b, padded, sizes, bounds, device), True)
        except Exception as e:  # not right padded after all: plans per size (raises again if the graph does)
            if self.bounding is not b or _ASYNC_CHECK_NOTE in str(e):
                # a device check's error read at this call's synchronization: this call's indices out of
                # range at the real size (the padded checks say CPU's words) or an earlier op's; either
                # is the user's, and a run per size would not raise it again
                raise
            self.bounding, self.unbounded = None, f"{type(e).__name__}: {e}"
            return self._call_any(args)
        bounded_stats["padded_calls"] += 1
        return b.finish(outs, args, sizes)

    def _call(self, key, bound, args, run, bounded):
        plans = self.plans.get(key, ())
        if plans:
            out = _C.plan_run(plans[0], bound, False)
            if out is not None:
                return out
            for plan in plans[1:]:
                out = _C.plan_run(plan, bound, False)
                if out is not None:
                    with self.lock:
                        now = self.plans.get(key, ())
                        if plan in now:
                            self.plans = {**self.plans, key: [plan] + [p for p in now if p is not plan]}
                    return out
        with _cpu_fallback(self.settings["cpu_fallback"]), _no_grad(self.no_grad):
            if self._refused(plans):
                return _deferred(self.gm, args)
            with self.lock:
                now = self.plans.get(key, ())
                if self._refused(now):
                    return _deferred(self.gm, args)
                if now is not plans:  # another thread captured meanwhile: its plan may fit
                    for plan in now:
                        out = _C.plan_run(plan, bound, False)
                        if out is not None:
                            return out
                return self._capture(run, bound, key, bounded)

    def _capture(self, graph, bound, key, bounded):
        # Offsets of views into the tensors the graph makes are constants of
        # its program (static slices); except in plans kept per value of
        # integer arguments (key, unpadded), where they may follow the value
        # (y[n]): those plans share one program with the offsets as arguments.
        bake = bounded or not key

        def run():
            _C.plan_capture_begin(bake)
            try:
                outs = graph()
            except BaseException:
                _C.plan_capture_abort()
                raise
            plan, why = _C.plan_capture_end(bound, outs, self.name)
            if plan is None and bounded:  # padded, it cannot be one plan: plans per size from now on
                self.bounding, self.unbounded = None, why
            elif plan is None:
                self.why = why
            else:
                self.plans = {**self.plans, key: [plan] + list(self.plans.get(key, ()))}
            return outs

        if torch.tpu.get_eager_mode() == "defer_and_fuse":
            return run()
        with torch.tpu.eager_mode("defer_and_fuse"):  # a failed capture goes on deferring
            return run()


# The words every asynchronously raised device-check error carries (csrc/ops/checks.c).
_ASYNC_CHECK_NOTE = "raised asynchronously at this synchronization point"


def _no_grad(on):
    return torch.no_grad() if on and torch.is_grad_enabled() else contextlib.nullcontext()


class _Inference(_Graph):
    """A graph Dynamo gives that needs no autograd (see _inference_only),
    captured and replayed as it is, without AOTAutograd: its ops run through
    the dispatcher as in eager (in-place ops, views and aliasing between
    arguments with eager's semantics; the plan writes written arguments back
    and returns views of arguments as views), so AOTAutograd's tracing and
    its runtime wrappers (about a quarter of a small graph's call) are not
    needed. Dynamo calls it with the arguments unpacked. Captures run with
    autograd off, as AOTAutograd runs an inference graph: outputs never
    require grad, replayed or not."""

    def __init__(self, gm, settings, name):
        super().__init__(gm, settings, name)
        del self._boxed_call
        self.no_grad = True

    def __call__(self, *args):
        return _Graph.__call__(self, args)


def _inference_only(gm, example_inputs):
    """Whether Dynamo's graph can skip AOTAutograd: nothing needs a gradient
    (autograd is off, or no input requires grad: AOTAutograd's own test for
    an inference graph; Dynamo guards on both, so a call that needs one
    recompiles), every input a plain tensor of static shape (symbolic sizes
    go through AOTAutograd's ATen graphs, which _bounded pads; subclasses
    such as DTensor need its desugaring), and no collectives (the SPMD
    handshake reads AOTAutograd's graphs)."""
    from torch.utils._python_dispatch import is_traceable_wrapper_subclass

    from .distributed import _handshake

    grad = torch.is_grad_enabled()
    for x in example_inputs:
        if not isinstance(x, torch.Tensor) or is_traceable_wrapper_subclass(x):
            return False
        if grad and x.requires_grad:
            return False
        if any(not isinstance(d, int) for d in x.shape) or any(not isinstance(d, int) for d in x.stride()):
            return False
    return not _touches_autograd(gm) and not _handshake.collectives(gm)


# Modules whose functions in a Dynamo graph change autograd's or functorch's
# state, or differentiate: torch.func transforms (grad, vjp, vmap: the graph
# holds their nesting and wrapping calls and an autograd.grad), grad-mode
# switches (torch._C._set_grad_enabled), saved-tensor hooks.
_AUTOGRAD_MODULES = ("torch._functorch", "torch._C._functorch", "torch.autograd", "torch._C._autograd")


def _touches_autograd(gm):
    """Whether Dynamo's graph differentiates or switches grad mode inside
    itself: such a graph needs autograd while it runs even when nothing
    outside it needs a gradient (torch.func.grad_and_value of a loss and an
    in-place parameter update, all in one compiled step), so it keeps
    AOTAutograd, which traces those calls into plain ATen ops. Higher-order
    ops (cond, checkpoint, autograd.Function bodies...) keep it too."""
    from torch._ops import HigherOrderOperator

    for n in gm.graph.nodes:
        if n.op == "call_method" and n.target in ("requires_grad_", "retain_grad", "register_hook"):
            return True
        if n.op != "call_function":
            continue
        t = n.target
        if isinstance(t, HigherOrderOperator) or t is torch._C._set_grad_enabled:
            return True
        mod = getattr(t, "__module__", None) or ""
        if mod.startswith(_AUTOGRAD_MODULES):
            return True
    return False


def _planned_with(settings, kind):
    def compiler(gm, example_inputs):
        _set_view_fns()
        _input_alias.view_outputs_of_written_inputs(gm)  # AOTAutograd rebuilds them from the input
        if kind == "forward":
            ctx = torch._guards.TracingContext.try_get()
            _input_alias.view_outputs_of_mutated_inputs(gm, getattr(ctx, "fw_metadata", None))
        return _Graph(gm, settings, f"{kind} graph {id(gm):#x}")

    return compiler


class _Contained:
    """A dispatch mode on top while AOTAutograd traces a backward with fake
    tpu tensors: a Python exception raised by an op there (a data-dependent
    output such as nonzero's in index_put's backward) is kept here instead of
    leaving Python inside the autograd engine, where PyTorch's Python-defined
    device guard (torch._C._acc.DeviceGuard) restores the tpu stream while
    the error is still pending, its call into Python fails in a noexcept
    destructor and the process aborts (std::terminate). The op returns None
    instead, which fails the node with a C++ error that unwinds cleanly; the
    kept exception is raised once the engine has returned, as it is on CPU
    (where Dynamo then breaks the graph)."""

    def __init__(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        contained = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                if contained.error is not None:
                    return None
                try:
                    return func(*args, **(kwargs or {}))
                except Exception as e:
                    contained.error = e
                    return None

        self.mode = Mode
        self.error = None


def _contained_grad(grad, thread):
    """torch.autograd.grad for AOTAutograd's tracing on this thread (see _Contained)."""

    def run(*args, **kwargs):
        if threading.get_ident() != thread:
            return grad(*args, **kwargs)
        c = _Contained()
        try:
            with c.mode():
                out = grad(*args, **kwargs)
        except Exception as e:
            if c.error is None:
                raise
            raise c.error from e
        if c.error is not None:
            raise c.error
        return out

    return run


def _partition(joint, joint_inputs, **kw):
    """AOTAutograd's default partition; with symbolic sizes, activations saved
    in merged dims leave the forward split, so both graphs can run padded
    (_bounded.split_saved)."""
    from torch._functorch.partitioners import default_partition

    fw, bw = default_partition(joint, joint_inputs, **kw)
    fw.meta["torchtpu_user_outputs"] = kw["num_fwd_outputs"]  # the rest are saved for the backward
    bw.meta["torchtpu_backward"] = True  # its outputs are gradients: no aliasing between them to keep
    if _dynamic_buckets.get_dynamic_buckets() is not False and any(
            isinstance(n.meta.get("val"), torch.SymInt) for n in fw.graph.nodes if n.op == "placeholder"):
        _bounded.split_saved(fw, bw, kw["num_fwd_outputs"])
    return fw, bw


def backend(gm, example_inputs, mode=None, options=None, **kwargs):
    from torch._dynamo.backends.common import aot_autograd

    from .distributed import _handshake

    settings = _settings(mode, options)
    if _inference_only(gm, example_inputs):  # no collectives: the handshake only records the graph
        _set_view_fns()
        return _handshake.wrap(gm, example_inputs, _Inference(gm, settings, f"inference graph {id(gm):#x}"))
    # keep_inference_input_mutations: a graph that writes its inputs (the
    # optimizer's parameters and state, BatchNorm's running statistics) does
    # it inside the graph (copy_ at its end), so the plan writes them back on
    # device with the program's own results; otherwise AOTAutograd's epilogue
    # copies each one back eagerly, one program per mutated input.
    grad = torch.autograd.grad
    torch.autograd.grad = _contained_grad(grad, threading.get_ident())
    try:
        compiled = aot_autograd(fw_compiler=_planned_with(settings, "forward"),
                                bw_compiler=_planned_with(settings, "backward"),
                                partition_fn=_partition,
                                keep_inference_input_mutations=True)(gm, example_inputs, **kwargs)
    finally:
        torch.autograd.grad = grad
    return _handshake.wrap(gm, example_inputs, compiled)  # graphs with collectives: the SPMD handshake
