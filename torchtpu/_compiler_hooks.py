"""What torchtpu tells torch.compile's machinery, once it is imported.

Dynamo and inductor cost a second to import, so torchtpu never imports them:
`install()` acts at once on those already imported, and otherwise leaves a
one-shot import hook that acts right after each module loads.

- torch._dynamo: torchtpu's own Python files (but torchtpu.pallas, whose
  jax_op calls user code puts in graphs) are added to Dynamo's skip list
  (`trace_rules.add`), so a frame of ours that runs while a compiled function
  runs eagerly around a graph break (the CPU fallback's kernel, printing,
  torch.tpu's calls) runs as plain Python instead of being traced by Dynamo,
  which would only graph-break in it again and warn about our internals.

- torch._dynamo's optimizer tracing: Dynamo turns `capturable` on for an
  optimizer whose parameters are all on cuda or xpu (and whose state is not
  made yet), so that its state's `step` counters are made on the device; on
  any other device it leaves the counters on the CPU, and a compiled
  optimizer step (Adam, AdamW, ...) then mixes CPU scalars into the graph,
  which no device program can replay. torch.optim lists the PrivateUse1
  device among those capturable supports; we make Dynamo treat "tpu" as it
  treats cuda there (`_set_capturable`), so a compiled step keeps `step` on
  the device and runs as one program, as on CUDA.

- torch._inductor.codegen.common: torch.compile's default backend (inductor)
  on tpu tensors. PyTorch 2.13 registers device "tpu" with inductor's Pallas
  code generator, whose kernels call `torch_tpu._internal.pallas.
  tpu_torch_pallas`; this repository's `torch_tpu` package implements that
  interface on top of torch.tpu.pallas's spliced StableHLO, so inductor works
  on tpu tensors when JAX is installed (`pip install torchtpu[jax]`). Without
  JAX we register our own device backend for "tpu" through inductor's
  registration API (`register_backend_for_device`, which inductor's built-in
  registration leaves alone once set); its wrapper and scheduling raise
  MESSAGE, naming backend="tpu" and the extra.

- torch._subclasses.fake_impls (imported with torch): fake kernels for tpu
  tensors where PyTorch's Meta kernel refuses what the core lowers
  (`_fake_kernels.py`: aten::_grouped_mm in float32 and float16)."""
import importlib.abc
import importlib.machinery
import sys

MESSAGE = (
    "torch.compile's default backend (inductor) cannot compile for device 'tpu' here: inductor's tpu path "
    "generates Pallas kernels, which need JAX (pip install torchtpu[jax]). "
    "Or use torch.compile(model, backend=\"tpu\"), which compiles each graph to StableHLO programs "
    "run by this device and needs no JAX."
)


def _jax_available():
    """Whether JAX can be imported, without importing it."""
    import importlib.util

    if "jax" in sys.modules:
        return sys.modules["jax"] is not None
    try:
        return importlib.util.find_spec("jax") is not None
    except (ImportError, ValueError):
        return False


def _refuse(*args, **kwargs):
    raise RuntimeError(MESSAGE)


class _Refusing(type):
    def __getattr__(cls, name):  # any question inductor asks of the wrapper class
        _refuse()


class _RefusingWrapper(metaclass=_Refusing):
    """Stands for inductor's wrapper code generator class."""


def _after_inductor_registry(common):
    if not _jax_available():
        common.register_backend_for_device("tpu", _refuse, _RefusingWrapper)


# Modules whose functions user code calls inside compiled functions and that
# Dynamo must trace (jax_op's call reaches a torch.library op).
_TRACED = {"pallas"}


def _skip_our_files(dynamo):
    import os
    import pkgutil

    from torch._dynamo import trace_rules

    package = __name__.split(".")[0]
    root = os.path.dirname(os.path.abspath(__file__))
    for info in pkgutil.iter_modules([root]):
        if info.name not in _TRACED:
            trace_rules.add(f"{package}.{info.name}")


def _capturable_on_tpu(dynamo):
    from torch._dynamo.variables import optimizer

    cls = optimizer.OptimizerVariable
    inner = cls._set_capturable
    if getattr(inner, "_torchtpu", False):
        return

    def _set_capturable(self, tx):
        state = self.value.state
        for group in self.value.param_groups:
            params = group.get("params", [])
            if ("capturable" in group and params and all(p.device.type == "tpu" for p in params)
                    and all(p not in state for p in params)):
                group["capturable"] = True
        return inner(self, tx)

    _set_capturable._torchtpu = True
    cls._set_capturable = _set_capturable


def _after_dynamo(dynamo):
    _skip_our_files(dynamo)
    _capturable_on_tpu(dynamo)


def _after_fake_impls(fake_impls):
    from . import _fake_kernels

    _fake_kernels.install()


_HOOKS = {
    "torch._subclasses.fake_impls": _after_fake_impls,
    "torch._dynamo": _after_dynamo,
    "torch._inductor.codegen.common": _after_inductor_registry,
}
_pending = {}


class _Loader(importlib.abc.Loader):
    def __init__(self, inner, after):
        self._inner, self._after = inner, after

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        self._after(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        after = _pending.pop(fullname, None)
        if after is None:
            return None
        if not _pending:
            _uninstall()
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader, after)
        return spec


_finder = _Finder()


def _uninstall():
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)


def install():
    for name, after in _HOOKS.items():
        module = sys.modules.get(name)
        if module is not None:
            after(module)
        else:
            _pending[name] = after
    if _pending and _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
