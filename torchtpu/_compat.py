"""TorchTPU's API names beside ours, so that scripts written for TorchTPU run
unchanged: torch.tpu.EagerMode (accepted by set_eager_mode / eager_mode),
torch.tpu.Precision / precision / allow_excess_precision, device_of,
default_generators, and the submodules compiler, ops and profiler. A name
with no meaning here yet exists and raises an error saying what is missing.
(torch.tpu.pallas is not set here.)"""
import enum
import sys
import types

import torch

from . import _precision


class EagerMode(enum.StrEnum):
    """TorchTPU's eager modes, as our mode names: DEFER_NEVER = "strict"
    (the default), DEFER_AND_FUSE = "defer_and_fuse",
    DEFER_NEVER_AND_LAUNCH_BLOCKING = "debug" (TORCH_TPU_LAUNCH_BLOCKING).
    A str, so EagerMode.DEFER_AND_FUSE == torch.tpu.get_eager_mode() holds."""

    DEFER_NEVER = "strict"
    DEFER_AND_FUSE = "defer_and_fuse"
    DEFER_NEVER_AND_LAUNCH_BLOCKING = "debug"


def eager_mode_name(mode):
    """Our name for an EagerMode, one of TorchTPU's names as a string
    ("DEFER_AND_FUSE"), or one of ours (returned as given)."""
    if isinstance(mode, EagerMode):
        return mode.value
    if isinstance(mode, str) and mode.upper() in EagerMode.__members__:
        return EagerMode[mode.upper()].value
    return str(mode)


def device_of(obj):
    """As torch.cuda.device_of: the device context of a tensor (tpu:0 for a
    tpu tensor; a no-op context otherwise)."""
    from ._device import device

    return device(0 if getattr(obj, "device", None) is not None and obj.device.type == "tpu" else None)


class _DefaultGenerator:
    """The device's default generator (what torch.tpu.manual_seed seeds),
    as torch.cuda.default_generators[0]: manual_seed, seed, initial_seed,
    get_state, set_state. It is not a torch.Generator, so it cannot be
    passed as generator= to an op: use torch.tpu.Generator() for that."""

    @property
    def device(self):
        return torch.device("tpu", 0)

    def manual_seed(self, seed):
        torch.tpu.manual_seed(seed)
        return self

    def seed(self):
        torch.tpu.seed()
        return self.initial_seed()

    def initial_seed(self):
        return torch.tpu.initial_seed()

    def get_state(self):
        return torch.tpu.get_rng_state()

    def set_state(self, state):
        torch.tpu.set_rng_state(state)
        return self

    def __repr__(self):
        return "<torch.tpu default generator of tpu:0>"


class _Placeholder(types.ModuleType):
    """A TorchTPU submodule with nothing behind it here yet: every attribute
    raises AttributeError naming what is missing and what to use instead."""

    def __init__(self, name, missing, instead):
        super().__init__(name)
        self.__doc__ = f"{name}: {missing}. {instead}"
        self._missing = missing
        self._instead = instead

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise AttributeError(f"{self.__name__}.{attr} is not available in torchtpu: {self._missing}. {self._instead}")


_SUBMODULES = {
    "compiler": (
        "TorchTPU's torch.tpu.compiler (its compile entry points and options) has no counterpart yet",
        "Use torch.compile(model, backend=\"tpu\"), which records the captured graphs into fused executables.",
    ),
    "ops": (
        "TorchTPU's torch.tpu.ops (its TPU-specific custom operators) are not implemented yet",
        "Use the standard torch / torch.nn.functional ops, which all run on device \"tpu\".",
    ),
    "profiler": (
        "TorchTPU's torch.tpu.profiler (device traces, TORCH_TPU_PROFILER_OUTPUT_DIR) is not implemented yet: "
        "the PJRT plugin's profiler extension is not wired to the core",
        "Use torch.profiler for host-side timing, torch.tpu.cache_stats() and torch.tpu.region_stats() for "
        "compile and fusion counters.",
    ),
}


def install(m):
    """Adds the names to the torch.tpu module object m."""
    m.EagerMode = EagerMode
    m.Precision = _precision.Precision
    m.precision = _precision.precision
    m.get_precision = _precision.get_precision
    m.allow_excess_precision = _precision.allow_excess_precision
    m.device_of = device_of
    m.default_generators = (_DefaultGenerator(),)
    for name, (missing, instead) in _SUBMODULES.items():
        sub = _Placeholder(f"torch.tpu.{name}", missing, instead)
        setattr(m, name, sub)
        sys.modules.setdefault(f"torch.tpu.{name}", sub)
