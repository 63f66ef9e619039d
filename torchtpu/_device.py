"""The device module `torch.tpu`: availability, seeds, synchronization,
runtime facts. One device per process, as in TorchTPU."""
import atexit
import contextlib
import os
import types

import torch

from . import _C, _plugin

# Index = the core's tt_dtype_t (csrc/base/dtype.h); None = internal only.
DTYPES = (
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64, None, None,
    torch.complex64, torch.complex128,
)

_init_error = None  # (exception type, message) of a failed first init
_initialized = False


def _lazy_init():
    """Loads the PJRT plugin on first use; raises the same error every time after a failure."""
    global _initialized, _init_error
    if _initialized:
        return
    if _init_error is not None:
        raise _init_error[0](_init_error[1])
    # XLA's plugins log INFO lines to stderr unless told otherwise.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    try:
        _C.init(_plugin.default_plugin_path())
    except Exception as e:  # keep the first message: it names the plugin path
        # A mode the environment asks for but we lack stays NotImplementedError.
        _init_error = (NotImplementedError if isinstance(e, NotImplementedError) else RuntimeError, str(e))
        raise _init_error[0](_init_error[1]) from None
    # Background compile threads are joined before the interpreter and the
    # plugin are torn down (a compile still running then would crash).
    atexit.register(_C.stop_compiles)
    _initialized = True
    from . import _precision

    _precision.on_init(_C.runtime_info()["platform_name"])


def is_available():
    try:
        _lazy_init()
        return True
    except RuntimeError:
        return False


def device_count():
    return 1 if is_available() else 0


def current_device():
    return 0


def _invalid_ordinal(index):
    # torch.cuda raises torch.AcceleratorError "CUDA error: invalid device ordinal".
    return torch.AcceleratorError(
        f"TPU error: invalid device ordinal: tpu:{index} was requested, but this process has one tpu device, tpu:0"
    )


def _check_device(device):
    """None, 0, "tpu", "tpu:0" or torch.device("tpu", 0) pass; another tpu
    index raises as CUDA's invalid device ordinal; another type, ValueError."""
    if device is None:
        return
    if isinstance(device, int) and not isinstance(device, bool):
        if device not in (0, -1):  # -1: the current device, as torch.cuda
            raise _invalid_ordinal(device)
        return
    dev = torch.device(device)
    if dev.type != "tpu":
        raise ValueError(f"Expected a tpu device, but got: {dev}")
    if dev.index not in (None, 0):
        raise _invalid_ordinal(dev.index)


def set_device(device):
    """One tpu device per process. Under a launcher (torchrun sets LOCAL_RANK)
    set_device(LOCAL_RANK), as CUDA scripts and DeviceMesh do, selects this
    process's device, tpu:0: local rank n's device is the one this process sees."""
    if _is_local_rank(device):
        return
    _check_device(device)


def _is_local_rank(device):
    import os

    lr = os.environ.get("LOCAL_RANK")
    if lr is None or not lr.isdigit():
        return False
    if isinstance(device, int) and not isinstance(device, bool):
        return device == int(lr)
    if isinstance(device, (str, torch.device)):
        try:
            dev = torch.device(device)
        except (RuntimeError, ValueError):
            return False
        return dev.type == "tpu" and dev.index == int(lr)
    return False


class device:
    """Context manager selecting the device, as torch.cuda.device: one tpu
    device per process, so it checks the index and changes nothing (torch.load
    and activation checkpointing enter it)."""

    def __init__(self, device):
        if device is not None:
            set_device(device)  # checks the index: only 0 exists

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def get_amp_supported_dtype():
    """The dtypes torch.autocast(device_type="tpu") may cast to."""
    return [torch.bfloat16, torch.float16]


def is_bf16_supported(including_emulation=True):
    return True


def synchronize(device=None):
    """Waits for all work launched on the device so far (and flushes a deferred region)."""
    _check_device(device)
    _lazy_init()
    _C.synchronize()


def _is_in_bad_fork():
    """True in a child forked after the parent initialized the device (as torch.cuda._is_in_bad_fork)."""
    return _C.in_bad_fork()


def manual_seed(seed):
    if _C.in_bad_fork():
        # As CUDA's lazy seeding: a forked worker (DataLoader seeds every
        # device in each worker) must not fail here; it cannot use the device.
        return
    _lazy_init()
    seed = int(seed) & 0xFFFF_FFFF_FFFF_FFFF
    _C.set_rng_state(seed, 0)


manual_seed_all = manual_seed


def seed():
    import random
    manual_seed(random.getrandbits(63))


seed_all = seed


def initial_seed():
    _lazy_init()
    return _C.rng_state()[0]


def get_rng_state(device="tpu"):
    _lazy_init()
    s, off = _C.rng_state()
    return torch.tensor([s & 0x7FFF_FFFF_FFFF_FFFF, off, s >> 63], dtype=torch.int64).view(torch.uint8)


def set_rng_state(new_state, device="tpu"):
    _lazy_init()
    v = new_state.clone().view(torch.int64)
    s = int(v[0]) | (int(v[2]) << 63)
    _C.set_rng_state(s, int(v[1]))


def get_device_name(device=None):
    _check_device(device)
    _lazy_init()
    info = _C.runtime_info()
    return f"{info['device_kind']} ({info['platform_name']} PJRT)"


class _DeviceProperties:
    """torch.cuda.get_device_properties()'s common fields for tpu:0."""

    def __init__(self):
        from ._memory import total_memory

        info = _C.runtime_info()
        self.name = get_device_name()
        self.type = "tpu"
        self.total_memory = total_memory()
        self.platform_name = info["platform_name"]
        self.platform_version = info["platform_version"]
        self.device_kind = info["device_kind"]
        self.multi_processor_count = os.cpu_count() if info["platform_name"].lower() == "cpu" else 0
        self.is_integrated = info["platform_name"].lower() == "cpu"
        self.major, self.minor = 0, 0

    def __repr__(self):
        return (f"_TpuDeviceProperties(name='{self.name}', total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"platform='{self.platform_name}')")


def get_device_properties(device=None):
    _check_device(device)
    _lazy_init()
    return _DeviceProperties()


def runtime_info():
    """Plugin path, platform name and version, PJRT API version, device kind."""
    _lazy_init()
    return dict(_C.runtime_info())


def cache_stats():
    """Compile cache counters: requests, hits (all tiers) and tier1/2/3_hits,
    misses (= compiles), executables, compile_seconds, load_seconds (tiers 2/3),
    tier2/3_writes, corrupt_entries, write_errors, tier1/2/3_evicted, async_compiles,
    compile_joins, compile_waits, fast_compiles and upgrades (tiered compilation,
    set_tiered_compile), tier2_dir/tier3_dir (None = off)."""
    _lazy_init()
    return dict(_C.cache_stats())


def get_eager_mode():
    """'strict' (default), 'debug' (TORCH_TPU_LAUNCH_BLOCKING=1) or 'defer_and_fuse'."""
    _lazy_init()
    return _C.get_eager_mode()


def set_eager_mode(mode):
    """Switches how ops launch: 'strict' (asynchronous, one op at a time) or
    'debug' (waits for each op; out-of-range indices raise at the op) or
    'defer_and_fuse' (ops recorded and fused into one executable per
    materialization: .cpu(), .item(), printing, synchronize(), a mode switch).
    TorchTPU's torch.tpu.EagerMode values (DEFER_NEVER, DEFER_AND_FUSE,
    DEFER_NEVER_AND_LAUNCH_BLOCKING) name the same three modes."""
    from ._compat import eager_mode_name

    _lazy_init()
    _C.set_eager_mode(eager_mode_name(mode))


class eager_mode(contextlib.ContextDecorator):
    """`with torch.tpu.eager_mode("debug"): ...` runs the block in `mode`, then
    restores the previous one; also a decorator. A class, as PyTorch's grad-mode
    contexts are: entered by hand (`eager_mode(m).__enter__()`), the mode stays
    until `__exit__` -- a generator-based context would restore it whenever
    the object happened to be garbage-collected."""

    def __init__(self, mode):
        self.mode = mode
        self._previous = []  # a stack: the same object may be entered again inside itself

    def __enter__(self):
        previous = get_eager_mode()
        try:
            set_eager_mode(self.mode)
        except BaseException:
            # the switch reads earlier launches' device errors and raises them after switching: the
            # block will not run, so its mode must not stay
            if get_eager_mode() != previous:
                set_eager_mode(previous)
            raise
        self._previous.append(previous)
        return self

    def __exit__(self, *exc):
        set_eager_mode(self._previous.pop())
        return False


def set_eager_buckets(enabled, min_capacity=None):
    """Eager cat grows a tensor in power-of-two buckets (a view of the first
    n elements along the grown dim of a storage sized for the bucket), and
    cat, elementwise ops, dtype copies, mm/bmm, softmax and indexing by a
    position index of the same length on such tensors compile once per
    bucket instead of once per length (a KV cache and an attention mask that
    grow every step).
    Results are CPU's; such tensors are not contiguous (is_contiguous() is
    False, .view() may need .reshape()). Off by default; also
    TORCH_TPU_EAGER_BUCKETS=1.

    min_capacity (default 128, TORCH_TPU_EAGER_BUCKET_MIN): the least
    capacity of the grown dim while the tensor stays within 65536 elements,
    so a small cache's first 127 lengths share one bucket; 1 makes every
    power of two a bucket. None keeps the current value."""
    _lazy_init()
    if min_capacity is not None:
        n = int(min_capacity)
        if n < 1:
            raise ValueError(f"set_eager_buckets: min_capacity must be >= 1, got {min_capacity}")
        _C.set_eager_bucket_min(n)
    _C.set_eager_buckets(bool(enabled))


def get_eager_buckets():
    _lazy_init()
    return _C.get_eager_buckets()


def get_eager_bucket_min():
    """The least capacity eager buckets give a small tensor's grown dim."""
    _lazy_init()
    return _C.get_eager_bucket_min()


def set_tiered_compile(threshold):
    """Tiered compilation: a new program is first compiled quickly (XLA's
    backend optimization level 0: same values, slower code); once found in
    the compile cache `threshold` times and the program set is steady, it is
    compiled again optimized in the background and swapped in. 0 turns it
    off (the default; also TORCH_TPU_TIERED_COMPILE=N). Only optimized
    executables reach the persistent cache. cache_stats() counts
    fast_compiles and upgrades."""
    _lazy_init()
    _C.set_tiered_compile(int(threshold))


def get_tiered_compile():
    _lazy_init()
    return _C.get_tiered_compile()


def region_stats():
    """Counters of the deferred region: flushes, nodes/outputs/ops of the last one, repeat cuts."""
    _lazy_init()
    return dict(_C.region_stats())


def set_launch_timing(enabled):
    """Measures the device time of every program launched from now on, for
    benchmarks: while on, each launch waits until its program is done (the
    host no longer runs ahead of the device) and the time from handing the
    program to the plugin until its results are ready is summed. Turning it
    on or off waits for the work in flight and zeroes the sums. Transfers are
    not counted. Measure wall time in a round with it off."""
    _lazy_init()
    _C.set_launch_timing(bool(enabled))


def launch_timing():
    """{"enabled", "launches", "seconds"}: the programs timed since launch
    timing was last turned on (torch.tpu.set_launch_timing) and their summed
    launch-to-ready time."""
    _lazy_init()
    return dict(_C.launch_timing())


def plan_stats():
    """Compiled graphs (torch.compile(backend="tpu")): graphs captured as one
    executable, captures abandoned (those graphs run op by op), replays, and
    the replays deferred into one program with the work around them (a
    training step's graphs: README, "One program per step"); calls of graphs
    with symbolic sizes that ran padded to a bucket ("padded_calls") and that
    ran per size ("size_calls", torchtpu/_compile.py), and their tensor
    arguments padded through host memory ("host_pads": not a narrowed or
    compacted output of a padded call, torchtpu/_bounded.py)."""
    _lazy_init()
    from ._bounded import pad_stats
    from ._compile import bounded_stats
    return {**dict(_C.plan_stats()), **bounded_stats, **pad_stats}


def set_cpu_fallback(enabled):
    """Runs ops with no TPU lowering on the CPU (inputs copied out, results
    copied back), warning once per op. Off by default; TORCH_TPU_CPU_FALLBACK=1
    turns it on when the device starts."""
    _lazy_init()
    _C.fallback_set_enabled(bool(enabled))


def get_cpu_fallback():
    _lazy_init()
    return _C.fallback_enabled()


def fallback_counts():
    """{"aten::op.overload": runs} of the ops that ran on the CPU through the fallback."""
    return _C.fallback_counts()


def reset_fallback_counts():
    """Forgets the counts; each op warns again on its next fallback."""
    _C.fallback_reset()


def is_initialized():
    return _initialized and not _C.in_bad_fork()


def module():
    m = types.ModuleType("torch.tpu")
    for name in (
        "is_available", "device_count", "current_device", "set_device", "synchronize", "manual_seed",
        "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state", "set_rng_state",
        "get_device_name", "get_device_properties", "runtime_info", "cache_stats", "_is_in_bad_fork",
        "is_initialized", "_lazy_init", "get_eager_mode",
        "set_eager_mode", "eager_mode", "set_eager_buckets", "get_eager_buckets", "get_eager_bucket_min", "set_tiered_compile", "get_tiered_compile", "region_stats", "plan_stats",
        "set_launch_timing", "launch_timing",
        "set_cpu_fallback", "get_cpu_fallback", "fallback_counts", "reset_fallback_counts",
        "device", "get_amp_supported_dtype", "is_bf16_supported",
    ):
        setattr(m, name, globals()[name])
    from . import _memory, _streams

    for name in _memory.NAMES:
        setattr(m, name, getattr(_memory, name))
    for name in ("Stream", "Event", "current_stream", "default_stream", "set_stream", "stream", "StreamContext"):
        setattr(m, name, getattr(_streams, name))
    from ._dynamic_buckets import get_dynamic_buckets, set_dynamic_buckets

    m.set_dynamic_buckets, m.get_dynamic_buckets = set_dynamic_buckets, get_dynamic_buckets
    m.OutOfMemoryError = torch.OutOfMemoryError
    from ._generator import Generator
    m.Generator = Generator
    from . import _compat

    _compat.install(m)
    from . import pallas  # JAX itself is imported on first use only

    m.pallas = pallas
    from .distributed._topology import topology_aware_mesh

    m.topology_aware_mesh = topology_aware_mesh
    from .distributed._handshake import spmd_safe

    m.spmd_safe = spmd_safe
    return m


class Hooks(torch._C._acc.PrivateUse1Hooks):
    def is_available(self):
        return is_available()

    def has_primary_context(self, dev_id):
        return _initialized

    def is_built(self):
        return True


class Guard(torch._C._acc.DeviceGuard):
    def type_(self):
        return torch._C._autograd.DeviceType.PrivateUse1
