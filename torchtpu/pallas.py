"""torch.tpu.pallas: JAX functions and Pallas kernels as PyTorch operators.

`jax_op(name, fn)` registers a torch.library custom op `name` whose tpu kernel
is `fn` lowered by JAX to StableHLO once per input signature; the core splices
that module into its own programs (csrc/ir/foreign.c, csrc/ops/foreign_module.c),
so the op is an eager op in Strict and one part of a DeferAndFuse region or
compiled graph: one executable, no JAX when it runs. JAX is imported on the
first lowering only (`import torchtpu` never imports it).

This file is glue: it asks JAX for module text, shapes (`jax.eval_shape`) and
gradients (`jax.vjp`), and hands the text to the core.
"""
import contextlib
import functools
import os
import re
import sys
import threading

import torch

from . import _C

__all__ = ["jax_op", "get_pallas_mesh", "JaxOp"]

_TORCH_TO_JAX = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.bfloat16: "bfloat16",
    torch.int8: "int8", torch.int16: "int16", torch.int32: "int32", torch.int64: "int64", torch.uint8: "uint8",
    torch.bool: "bool", torch.complex64: "complex64", torch.complex128: "complex128",
}
_JAX_TO_TORCH = {v: k for k, v in _TORCH_TO_JAX.items()}
_WIDE = (torch.float64, torch.int64, torch.complex128)

_state = threading.local()  # .interpret: lowering for a non-TPU plugin
_patched = False
_op_id = None


def _jax():
    """JAX, imported on first use. It only lowers here and needs no device:
    unless the user chose platforms, it starts on CPU only (on a TPU host it
    must not claim the chip our plugin holds)."""
    if "jax" not in sys.modules and "JAX_PLATFORMS" not in os.environ:
        os.environ["JAX_PLATFORMS"] = "cpu"
    try:
        import jax
    except ImportError as e:  # pragma: no cover - jax is a test dependency here
        raise ImportError("torch.tpu.pallas needs JAX: pip install torchtpu[jax]") from e
    return jax


def _platform():
    """'tpu' when our plugin drives a TPU (Pallas kernels stay Mosaic custom
    calls), else 'cpu' (Pallas kernels lowered in interpret mode)."""
    return "tpu" if torch.tpu.runtime_info().get("platform_name", "").lower() == "tpu" else "cpu"


def _install_interpret_rule():
    """Pallas's lowering, wrapped so that while we lower for a non-TPU plugin
    a kernel runs in Pallas's interpret mode (plain StableHLO: the grid as a
    loop); outside our lowering it is JAX's own. Installed as pallas_call's
    CPU rule and as the module function that pl.kernel/core_map's CPU
    fallback (jax._src.pallas.mpmd) calls."""
    global _patched
    if _patched:
        return
    from jax._src.interpreters import mlir
    from jax._src.pallas import pallas_call as pc

    orig = pc._pallas_call_lowering

    def rule(ctx, *args, interpret, **params):
        if getattr(_state, "interpret", False) and not interpret:
            interpret = True
        return orig(ctx, *args, interpret=interpret, **params)

    pc._pallas_call_lowering = rule
    mlir.register_lowering(pc.pallas_call_p, rule, platform="cpu")
    _patched = True


def _refuse_custom_calls(text, what, platform, hint=""):
    """Raises naming the custom calls in module text, which a non-TPU plugin
    cannot run (JAX runtime calls, Mosaic kernels): only plain StableHLO is
    spliced there."""
    calls = sorted(set(re.findall(r"custom_call\s*@([\w.$-]+)", text)))
    if calls:
        raise NotImplementedError(
            f"{what} calls {', '.join(calls)} (custom calls the {platform} plugin cannot run); only plain "
            f"StableHLO runs on this platform{hint}")


def _jax_dtype(op_name, dt):
    name = _TORCH_TO_JAX.get(dt)
    if name is None:
        raise TypeError(f"{op_name}: dtype {dt} has no JAX counterpart that jax_op supports "
                        f"(supported: {', '.join(str(d) for d in _TORCH_TO_JAX)})")
    return name


def _torch_dtype(op_name, dt):
    r = _JAX_TO_TORCH.get(str(dt))
    if r is None:
        raise TypeError(f"{op_name}: the JAX function returns dtype {dt}, which has no PyTorch dtype here")
    return r


@contextlib.contextmanager
def _x64(enabled):
    """64-bit inputs keep their width (JAX's default would narrow them)."""
    jax = _jax()
    if not enabled or jax.config.jax_enable_x64:
        yield
        return
    with jax.enable_x64(True):
        yield


class _Lowered:
    __slots__ = ("key", "outs")

    def __init__(self, key, outs):
        self.key, self.outs = key, outs  # outs: [(shape, torch dtype)]


class JaxOp:
    """A JAX function registered as the PyTorch operator `name`. Calling it
    with tensors runs the operator; `.lowerings` counts JAX lowerings done."""

    def __init__(self, name, fn, mesh=None, input_partition_specs=None, output_partition_specs=None):
        if "::" not in name:
            raise ValueError(f"jax_op: name must be 'namespace::op', got {name!r}")
        if type(fn).__module__.startswith("helion") and hasattr(fn, "jax_fn"):
            fn = fn.jax_fn  # a @helion.kernel(backend="pallas"): its JAX form (Kernel.jax_fn)
        self.name, self.fn = name, fn
        self.mesh = mesh
        self.input_partition_specs, self.output_partition_specs = input_partition_specs, output_partition_specs
        self.lowerings = 0
        self._lowered = {}
        self._shapes = {}
        self._lock = threading.Lock()
        self._bwd = {}
        functools.update_wrapper(self, fn, updated=())  # name and doc only: fn's attributes stay its own
        self._op = torch.library.custom_op(name, mutates_args=(), schema="(Tensor[] args) -> Tensor[]")(self._host)
        self._op.register_kernel("tpu")(self._device)
        self._op.register_fake(self._fake)
        self._op.register_autograd(self._backward, setup_context=self._setup_context)

    # -- what JAX is asked -------------------------------------------------
    def _jax_fn(self):
        return self.fn

    def _specs(self, args):
        jax = _jax()
        for i, a in enumerate(args):
            if not isinstance(a, torch.Tensor):
                raise TypeError(f"{self.name}: argument {i} is {type(a).__name__}; jax_op takes tensors only "
                                "(bind Python values into the JAX function with functools.partial)")
        specs = self.input_partition_specs if self.mesh is not None else None
        if specs is not None and len(specs) != len(args):
            raise ValueError(f"{self.name}: {len(specs)} input_partition_specs for {len(args)} tensors")
        return [jax.ShapeDtypeStruct(self._scale(tuple(int(d) for d in a.shape), specs[i] if specs else None, True),
                                     _jax_dtype(self.name, a.dtype)) for i, a in enumerate(args)]

    def _scale(self, shape, spec, up):
        """A rank's local shape to the global one the JAX function sees (up),
        or back: each dimension partitioned over mesh axes times (divided by)
        their sizes."""
        if spec is None or self.mesh is None:
            return shape
        shape = list(shape)
        for d, axes in enumerate(tuple(spec)):
            if axes is None:
                continue
            n = 1
            for ax in (axes if isinstance(axes, tuple) else (axes,)):
                n *= self.mesh.shape[ax]
            if not up and shape[d] % n:
                raise ValueError(f"{self.name}: output dimension {d} of size {shape[d]} does not split over {n} ranks")
            shape[d] = shape[d] * n if up else shape[d] // n
        return tuple(shape)

    def _signature(self, args):
        # int() of a symbolic size specializes it (a guard): JAX lowers static
        # shapes, so a dynamic-shape graph recompiles per shape of this op.
        return tuple((tuple(int(d) for d in a.shape), a.dtype) for a in args)

    def _out_meta(self, args):
        sig = self._signature(args)
        meta = self._shapes.get(sig)
        if meta is None:
            jax = _jax()
            with _x64(any(a.dtype in _WIDE for a in args)):
                out = jax.eval_shape(self._jax_fn(), *self._specs(args))
            leaves = jax.tree_util.tree_leaves(out)
            if not leaves:
                raise RuntimeError(f"{self.name}: the JAX function returns no arrays")
            ospecs = self.output_partition_specs if self.mesh is not None else None
            meta = [(self._scale(tuple(o.shape), ospecs[i] if ospecs and i < len(ospecs) else None, False),
                     _torch_dtype(self.name, o.dtype)) for i, o in enumerate(leaves)]
            self._shapes[sig] = meta
        return meta

    def _lower(self, args):
        """Module text for this signature, lowered and interned once."""
        sig = self._signature(args)
        low = self._lowered.get(sig)
        if low is not None:
            return low
        with self._lock:
            low = self._lowered.get(sig)
            if low is not None:
                return low
            jax = _jax()
            platform = _platform()
            if self.mesh is not None and self.mesh.size > 1:
                raise NotImplementedError(
                    f"{self.name}: a mesh of {self.mesh.size} devices; this engine runs one device per process "
                    "and tpu_dist (one process per rank) is not there yet: only a 1-device mesh runs")
            if platform != "tpu":
                _install_interpret_rule()
            prev = getattr(_state, "interpret", False)
            _state.interpret = platform != "tpu"
            try:
                with _x64(any(a.dtype in _WIDE for a in args)):
                    traced = jax.jit(self._jax_fn(), keep_unused=True).trace(*self._specs(args))
                    text = traced.lower(lowering_platforms=(platform,)).as_text()
            finally:
                _state.interpret = prev
            self.lowerings += 1
            if platform != "tpu":
                _refuse_custom_calls(text, f"{self.name}: its lowered module", platform)
            key, nin, nout = _C.foreign_intern(text)
            if nin != len(args):
                raise RuntimeError(f"{self.name}: JAX lowered {nin} arguments for {len(args)} tensors")
            low = _Lowered(key, self._out_meta(args))
            self._lowered[sig] = low
            return low

    # -- the operator's kernels --------------------------------------------
    def _device(self, args):
        global _op_id
        if _op_id is None:
            _op_id = _C.op_names().index("_tt_foreign_call")
        devs = {a.device for a in args}
        if len(devs) > 1:  # PyTorch's message, naming this op rather than the core's _tt_foreign_call
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                               f"{', '.join(sorted(str(d) for d in devs))}! (in {self.name})")
        low = self._lower(args)
        r = _C.call(_op_id, (list(args), low.key, self.name))
        return [r] if isinstance(r, torch.Tensor) else list(r)

    def _host(self, args):
        """CPU (and other non-tpu) tensors: JAX runs the function itself."""
        jax = _jax()
        import numpy as np

        self._specs(args)  # the same argument checks as on tpu
        with _x64(any(a.dtype in _WIDE for a in args)):
            xs = [jax.numpy.asarray(a.detach().cpu().numpy()) if a.dtype != torch.bfloat16 else
                  jax.numpy.asarray(a.detach().float().cpu().numpy()).astype("bfloat16") for a in args]
            _install_interpret_rule()
            prev = getattr(_state, "interpret", False)
            _state.interpret = True
            try:
                out = jax.jit(self._jax_fn())(*xs)
            finally:
                _state.interpret = prev
            leaves = jax.tree_util.tree_leaves(out)
        dev = args[0].device if args else torch.device("cpu")
        res = []
        for o in leaves:
            dt = _torch_dtype(self.name, o.dtype)
            arr = np.asarray(o.astype("float32") if dt == torch.bfloat16 else o)
            res.append(torch.from_numpy(arr.copy()).to(dtype=dt, device=dev))
        return res

    def _fake(self, args):
        dev = args[0].device if args else torch.device("tpu")
        return [torch.empty(s, dtype=d, device=dev) for s, d in self._out_meta(args)]

    # -- autograd ------------------------------------------------------------
    def _setup_context(self, ctx, inputs, output):
        (args,) = inputs
        ctx.save_for_backward(*args)
        ctx.meta = [(tuple(o.shape), o.dtype) for o in output]

    def _backward(self, ctx, grads):
        args = ctx.saved_tensors
        diff = [a.dtype.is_floating_point or a.dtype.is_complex for a in args]
        if not any(diff):
            return ([None] * len(args),)
        cts = [g if g is not None else torch.zeros(s, dtype=d, device=args[0].device)
               for g, (s, d) in zip(grads, ctx.meta)]
        bwd = self._vjp_op(len(args))
        res = bwd(*args, *cts)
        res = [res] if isinstance(res, torch.Tensor) else list(res)
        it = iter(res)
        return ([next(it) if d else None for d in diff],)

    def _vjp_op(self, nargs):
        """The backward as a second jax_op: jax.vjp of the function (through
        a jax.custom_vjp where the function defines one), taking the primals
        and the outputs' cotangents, returning the inexact primals' grads."""
        op = self._bwd.get(nargs)
        if op is None:
            jax = _jax()
            fn = self._jax_fn()
            jnp = jax.numpy

            def vjp_fn(*xs):
                primals, cts = xs[:nargs], xs[nargs:]
                out, pull = jax.vjp(fn, *primals)
                leaves, treedef = jax.tree_util.tree_flatten(out)
                cts = [c if jnp.issubdtype(o.dtype, jnp.inexact) else
                       jnp.zeros(o.shape, dtype=jax.dtypes.float0) for o, c in zip(leaves, cts)]
                grads = pull(jax.tree_util.tree_unflatten(treedef, cts))
                return tuple(g for g, p in zip(grads, primals) if jnp.issubdtype(p.dtype, jnp.inexact))

            ns, _, name = self.name.partition("::")
            op = JaxOp(f"{ns}::{name}_vjp{nargs}", vjp_fn)
            self._bwd[nargs] = op
        return op

    def register_autograd(self, backward, setup_context=None):
        """A backward written in PyTorch replaces the jax.vjp one (torch.library's
        register_autograd contract: backward(ctx, grads) -> grads of `args`, a list)."""
        self._op.register_autograd(backward, setup_context=setup_context or self._setup_context)

    def __call__(self, *args):
        outs = self._op(list(args))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def __repr__(self):
        return f"<jax_op {self.name} ({self.fn.__name__ if hasattr(self.fn, '__name__') else self.fn})>"


def jax_op(name, fn=None, *, mesh=None, input_partition_specs=None, output_partition_specs=None):
    """Registers the JAX function `fn` (Pallas kernels included) as the
    PyTorch operator `name` ("namespace::op") for tpu tensors, in every eager
    mode and under torch.compile. A call, or a decorator when `fn` is None.

    The function takes and returns JAX arrays; it is lowered to StableHLO
    once per input signature (shapes and dtypes). On a non-TPU plugin Pallas
    kernels run in interpret mode, on TPU as Mosaic kernels. Gradients come
    from jax.vjp (define a jax.custom_vjp for kernels JAX cannot
    differentiate), or from `register_autograd` on the returned op."""
    if fn is None:
        return lambda f: JaxOp(name, f, mesh, input_partition_specs, output_partition_specs)
    return JaxOp(name, fn, mesh, input_partition_specs, output_partition_specs)


def get_pallas_mesh(axis_names=("x",), mesh_shape=None):
    """A JAX Mesh over the process group's ranks in rank order: logical
    device p is rank p (da(0, p) = p), so kernels address ranks.

    In one process the mesh has JAX's local devices, the first
    prod(mesh_shape) of them in id order (JAX's CPU platform has one unless
    XLA_FLAGS=--xla_force_host_platform_device_count=N)."""
    jax = _jax()
    import numpy as np

    axis_names = tuple(axis_names)
    world = torch.distributed.get_world_size() if torch.distributed.is_available() and \
        torch.distributed.is_initialized() else 1
    if mesh_shape is None:
        mesh_shape = (world,) + (1,) * (len(axis_names) - 1)
    mesh_shape = tuple(int(s) for s in mesh_shape)
    if len(mesh_shape) != len(axis_names):
        raise ValueError(f"get_pallas_mesh: {len(axis_names)} axis names for a mesh of shape {mesh_shape}")
    size = int(np.prod(mesh_shape))
    if world > 1:
        raise NotImplementedError(
            f"get_pallas_mesh: a mesh across {world} processes needs the tpu_dist process group's devices; "
            "only single-process meshes are supported so far")
    devices = sorted(jax.devices(), key=lambda d: d.id)
    if size > len(devices):
        raise ValueError(f"get_pallas_mesh: mesh shape {mesh_shape} needs {size} devices, this process has "
                         f"{len(devices)} (world size {world})")
    return jax.sharding.Mesh(np.array(devices[:size]).reshape(mesh_shape), axis_names)
