"""Float32 matmul precision: torch.set_float32_matmul_precision, the
thread-local torch.tpu.precision block, torch.tpu.Precision (TorchTPU's
enum) and torch.tpu.allow_excess_precision.

Each op call pushes its mode to the core (bindings/precision.c): this
thread's torch.tpu.precision block if any, else PyTorch's global setting.
Every float32 dot_general and convolution the op lowers to carries the mode
(so it is in the compile-cache key); hlo/emit_contract.c turns it into
precision_config on a TPU and into written-out bf16 passes elsewhere."""
import contextlib
import enum
import threading
import warnings

import torch

from . import _C

_MODES = ("medium", "high", "highest")


class Precision(enum.StrEnum):
    """TorchTPU's matmul precision enum: DEFAULT = "medium" (one bf16 pass,
    TorchTPU's default), HIGH = "high" (three passes), HIGHEST = "highest"
    (six passes on a TPU; IEEE float32 elsewhere). A str, so
    torch.set_float32_matmul_precision(torch.tpu.Precision.HIGH) works too."""

    DEFAULT = "medium"
    HIGH = "high"
    HIGHEST = "highest"


def _mode_name(mode):
    if isinstance(mode, Precision):
        return mode.value
    if isinstance(mode, str) and mode.lower() in _MODES:
        return mode.lower()
    if isinstance(mode, str) and mode.upper() in Precision.__members__:
        return Precision[mode.upper()].value
    raise ValueError(
        f"torch.tpu.precision: expected torch.tpu.Precision.DEFAULT, HIGH or HIGHEST or one of "
        f"'medium', 'high', 'highest', got {mode!r}"
    )


_is_tpu = False
_warned = set()
_warn_lock = threading.Lock()


def _warn_cost(mode):
    """On a TPU, high and highest warn once each (their ~3x and ~6x MXU cost)."""
    if not _is_tpu or mode not in ("high", "highest"):
        return
    with _warn_lock:
        if mode in _warned:
            return
        _warned.add(mode)
    cost = "3" if mode == "high" else "6"
    warnings.warn(
        f"float32 matmul precision '{mode}' on TPU runs each float32 matmul and convolution as {cost} bf16 "
        f"MXU passes (about {cost}x the cost of 'medium', TorchTPU's default); use it only where precision "
        f"limits convergence (torch.tpu.precision scopes it to a block)",
        UserWarning,
        stacklevel=3,
    )


@contextlib.contextmanager
def precision(mode):
    """`with torch.tpu.precision(torch.tpu.Precision.HIGHEST): ...` runs the
    float32 matmuls and convolutions of the block, on this thread only, in
    `mode` (a torch.tpu.Precision or "medium", "high", "highest"), whatever
    the global torch.set_float32_matmul_precision says; nesting restores the
    enclosing mode on exit. Ops recorded in DeferAndFuse or run by a
    torch.compile'd function inside the block take the block's mode, and so
    does a backward pass started inside it (its ops run on PyTorch's
    autograd worker thread, which takes the block of the thread that called
    backward() or torch.autograd.grad)."""
    name = _mode_name(mode)
    _warn_cost(name)
    previous = _C._set_precision_override(name)
    try:
        yield
    finally:
        _C._set_precision_override(previous)


def get_precision():
    """The mode the next float32 matmul on this thread gets ("medium", "high" or "highest")."""
    return _C._matmul_precision()


def fallback_mode():
    """PyTorch's setting when torch.get_float32_matmul_precision() refuses
    to answer (the legacy allow_tf32 API and the new fp32_precision API were
    mixed): the new API's generic torch.backends.fp32_precision ("tf32" ->
    high, "bf16" -> medium, otherwise highest)."""
    try:
        generic = torch.backends.fp32_precision
    except Exception:
        return "highest"
    return {"tf32": "high", "bf16": "medium"}.get(generic, "highest")


def allow_excess_precision(enabled=None):
    """TorchTPU's flag, named after XLA's `xla_allow_excess_precision`
    (true by default): the compiler may keep a value in more precision than
    the program's type says (skip a float32 -> bfloat16 -> float32 round
    trip, keep a fused bf16 intermediate in float32), so results can be
    slightly more precise than, and differ from, a step-by-step evaluation.
    Called without an argument it returns the flag. False asks every program
    compiled from then on to keep each rounding it writes (the core passes
    xla_allow_excess_precision=false in the PJRT compile options, and the
    setting is part of the compile-cache key); deferred work runs first.
    Process-wide, as the compile options are. Returns the previous value."""
    from . import _device

    _device._lazy_init()
    previous = _C.allow_excess_precision()
    if enabled is not None:
        _C.set_allow_excess_precision(bool(enabled))
    return previous


_set_original = None
_user_set = False


def _set_float32_matmul_precision(precision):
    """torch.set_float32_matmul_precision, noted as the user's choice: from
    then on it rules also where the platform default differs (a TPU)."""
    global _user_set
    _set_original(precision.value if isinstance(precision, Precision) else precision)
    _user_set = True
    _C._set_precision_unset_default(None)
    _warn_cost(str(precision).lower())


def install():
    """Wraps torch.set_float32_matmul_precision (once); torch.autograd.backward
    and grad carry a thread's block to autograd's threads (torchtpu/_backward.py)."""
    global _set_original
    if _set_original is not None:
        return
    _set_original = torch.set_float32_matmul_precision
    _set_float32_matmul_precision.__doc__ = _set_original.__doc__
    _set_float32_matmul_precision.__wrapped__ = _set_original
    torch.set_float32_matmul_precision = _set_float32_matmul_precision


def on_init(platform_name):
    """After the plugin loads: on a TPU, medium is the default while the
    user has set nothing (TorchTPU's default); elsewhere PyTorch's own."""
    global _is_tpu
    _is_tpu = platform_name.lower() == "tpu"
    if _is_tpu and not _user_set:
        _C._set_precision_unset_default("medium")
    elif _is_tpu:
        try:
            current = torch.get_float32_matmul_precision()
        except RuntimeError:
            current = fallback_mode()
        _warn_cost(current)
