"""torch_tpu._internal.pallas.pallas: the names Helion's Pallas launcher
(helion/runtime/pallas/launcher.py, 1.5.1) imports from TorchTPU, implemented
on torchtpu.pallas.jax_op. Part of the torch_tpu stand-in (see
torch_tpu/__init__.py); never installed beside TorchTPU's own wheel.

- JaxCallable(name=, jit_fn=, trace_key=, mesh=, input_partition_specs=,
  input_output_aliases={in: out}): called with tpu tensors, it runs `jit_fn`
  as a jax_op (lowered once per signature, spliced into our programs; Pallas
  in interpret mode on a non-TPU plugin), copies each aliased result into its
  input (the outputs Helion preallocates) and returns the results in jit_fn's
  output structure. `output_shapes` stays empty, so Helion's launcher keeps
  calling it (it snapshots a direct `call_custom_kernel` path only from
  entries there).
- jax_placeholder(t): the jax.ShapeDtypeStruct of a tensor.
- _get_kernel_invocation_key(trace_key, args, kwargs, static_argnums).
- get_default_pallas_mesh(): torch.tpu.pallas.get_pallas_mesh(("rank",)).

JaxCallable and jax_placeholder need JAX (Helion has imported it already);
without it they raise ImportError saying to `pip install torchtpu[jax]`.
"""
import itertools
import re
import threading

import torch

from torchtpu import pallas as _tp

__all__ = ["JaxCallable", "jax_placeholder", "get_default_pallas_mesh"]

_ids = itertools.count()
_ids_lock = threading.Lock()


def _jax():
    try:
        return _tp._jax()
    except ImportError as e:
        raise ImportError("torch_tpu._internal.pallas: Helion's Pallas kernels need JAX on device 'tpu': "
                          "pip install torchtpu[jax]") from e


def jax_placeholder(t):
    jax = _jax()
    return jax.ShapeDtypeStruct(tuple(int(s) for s in t.shape), _tp._jax_dtype("jax_placeholder", t.dtype))


def _get_kernel_invocation_key(trace_key, args, kwargs, static_argnums):
    static = tuple(static_argnums or ())
    parts = [str(trace_key)]
    for i, a in enumerate(args):
        if i in static:
            parts.append(repr(a))
        elif isinstance(a, torch.Tensor):
            parts.append(f"{a.dtype}{list(a.shape)}")
        else:
            parts.append(type(a).__name__)
    for k in sorted(kwargs or {}):
        parts.append(f"{k}={kwargs[k]!r}")
    return "|".join(parts)


def get_default_pallas_mesh():
    return _tp.get_pallas_mesh(axis_names=("rank",))


class JaxCallable:
    """A JAX function (Helion's jax.jit of its Pallas kernel) run on tpu
    tensors through jax_op."""

    def __init__(self, name, jit_fn, trace_key=None, mesh=None, input_partition_specs=None,
                 input_output_aliases=None, static_argnums=(), output_partition_specs=None, **kwargs):
        if kwargs:
            raise TypeError(f"JaxCallable({name!r}): unsupported arguments {sorted(kwargs)}")
        if mesh is not None and getattr(mesh, "size", 1) > 1:
            raise NotImplementedError(f"JaxCallable({name!r}): a mesh of {mesh.size} devices; only one device "
                                      "per process runs here")
        self.name = name
        self.jit_fn = jit_fn
        self.trace_key = trace_key if trace_key is not None else name
        self.mesh = mesh
        self.input_partition_specs = input_partition_specs
        self.input_output_aliases = dict(input_output_aliases or {})
        self.donate_argnums = list(self.input_output_aliases)
        self.static_argnums = tuple(static_argnums or ())
        if self.static_argnums:
            raise NotImplementedError(f"JaxCallable({name!r}): static_argnums; jax_op takes tensors only")
        self.output_shapes = {}  # kept empty: Helion then always calls __call__
        self.kernel_key_to_mlir_fingerprint = {}
        with _ids_lock:
            n = next(_ids)
        base = re.sub(r"\W", "_", str(name)) or "kernel"
        # A jax_op per callable: lowered once per input signature, never again.
        self.op = _tp.jax_op(f"torch_tpu_helion::{base}_{n}", jit_fn)
        self._trees = {}

    def _out_tree(self, args):
        sig = tuple((tuple(a.shape), a.dtype) for a in args)
        tree = self._trees.get(sig)
        if tree is None:
            jax = _jax()
            with _tp._x64(any(a.dtype in _tp._WIDE for a in args)):
                out = jax.eval_shape(self.jit_fn, *self.op._specs(list(args)))
            tree = jax.tree_util.tree_structure(out)
            self._trees[sig] = tree
        return tree

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"JaxCallable({self.name!r}): keyword arguments {sorted(kwargs)}; tensors only")
        tree = self._out_tree(args)
        r = self.op(*args)
        results = [r] if isinstance(r, torch.Tensor) else list(r)
        for i, o in self.input_output_aliases.items():
            args[i].copy_(results[o])
        return tree.unflatten(results)

    def __repr__(self):
        return f"<JaxCallable {self.name} ({self.op.name})>"
