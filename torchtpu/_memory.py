"""torch.tpu's memory API, with torch.cuda's names and meanings. The numbers
are the core's own counters (csrc/api/storage.c): bytes of the device buffers
behind live tensors' storages, their peak since the last reset, and totals.
There is no caching allocator in between, so "reserved" is what the plugin's
allocator reports holding when it says (PJRT_Device_MemoryStats), else the
allocated bytes; "total" is the plugin's bytes_limit, or for XLA's CPU plugin
(whose device memory is host memory) the host's physical memory."""
import collections
import os

from . import _C


def _check(device):
    from ._device import _lazy_init, _check_device

    _check_device(device)
    _lazy_init()


def _raw(device=None):
    _check(device)
    return _C.memory_stats()


def _reserved(m):
    return max(m["live_bytes"], m["device_bytes_reserved"], m["device_bytes_in_use"])


def memory_allocated(device=None):
    """Bytes held by tensors' device buffers now."""
    return _raw(device)["live_bytes"]


def max_memory_allocated(device=None):
    """The most bytes held at once since start or the last reset_peak_memory_stats()."""
    return _raw(device)["peak_bytes"]


def memory_reserved(device=None):
    return _reserved(_raw(device))


def max_memory_reserved(device=None):
    m = _raw(device)
    return max(m["peak_bytes"], m["device_peak_bytes_reserved"], m["device_peak_bytes_in_use"], _reserved(m))


def reset_peak_memory_stats(device=None):
    _check(device)
    _C.reset_peak_memory()


def reset_max_memory_allocated(device=None):
    reset_peak_memory_stats(device)


reset_max_memory_cached = reset_max_memory_allocated


def reset_accumulated_memory_stats(device=None):
    """torch.cuda's name; our totals are since start and are not reset."""
    _check(device)


def empty_cache():
    """Nothing is cached: a tensor's device buffer is given back to the plugin
    when its storage dies. Kept so code written for CUDA runs."""
    _check(None)


def _host_memory():
    """(available, total) bytes of host memory."""
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024, total
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), total


def _device_is_host():
    return _C.runtime_info()["platform_name"].lower() == "cpu"


def mem_get_info(device=None):
    """(free, total) bytes of device memory, as torch.cuda.mem_get_info."""
    m = _raw(device)
    if m["device_bytes_limit"] > 0:
        total = m["device_bytes_limit"]
        return max(total - max(m["device_bytes_in_use"], m["live_bytes"]), 0), total
    if _device_is_host():
        return _host_memory()
    raise RuntimeError("mem_get_info: the PJRT plugin reports no memory limit for tpu:0 (PJRT_Device_MemoryStats)")


def total_memory():
    m = _C.memory_stats()
    if m["device_bytes_limit"] > 0:
        return m["device_bytes_limit"]
    return _host_memory()[1] if _device_is_host() else 0


def memory_stats(device=None):
    """torch.cuda.memory_stats()'s keys (one pool, "all"; the large/small pool
    split of CUDA's caching allocator does not exist here), sorted."""
    m = _raw(device)
    reserved = _reserved(m)
    peak_reserved = max(m["peak_bytes"], m["device_peak_bytes_reserved"], reserved)
    stats = {
        "allocated_bytes.all.current": m["live_bytes"],
        "allocated_bytes.all.peak": m["peak_bytes"],
        "allocated_bytes.all.allocated": m["allocated_bytes"],
        "allocated_bytes.all.freed": m["freed_bytes"],
        "allocation.all.current": m["live_buffers"],
        "allocation.all.peak": m["peak_buffers"],
        "allocation.all.allocated": m["num_allocs"],
        "allocation.all.freed": m["num_frees"],
        "active_bytes.all.current": m["live_bytes"],
        "active_bytes.all.peak": m["peak_bytes"],
        "active.all.current": m["live_buffers"],
        "active.all.peak": m["peak_buffers"],
        "reserved_bytes.all.current": reserved,
        "reserved_bytes.all.peak": peak_reserved,
        "num_device_alloc": m["num_allocs"],
        "num_device_free": m["num_frees"],
        "num_alloc_retries": 0,
        "num_ooms": 0,
    }
    return collections.OrderedDict(sorted(stats.items()))


def _fmt(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return str(n)


def memory_summary(device=None, abbreviated=False):
    """A readable table of memory_stats()."""
    s = memory_stats(device)
    rows = [
        ("Allocated memory", "allocated_bytes", True),
        ("Active memory", "active_bytes", True),
        ("Reserved memory", "reserved_bytes", True),
        ("Allocations", "allocation", False),
    ]
    lines = ["|" + "=" * 75 + "|", "|{:^75}|".format("torchtpu memory summary, device tpu:0"), "|" + "-" * 75 + "|",
             "|{:<25}|{:>16}|{:>16}|{:>15}|".format("Metric", "Current", "Peak", "Total allocated")]
    for label, key, as_bytes in rows:
        f = _fmt if as_bytes else str
        total = s.get(f"{key}.all.allocated")
        lines.append("|{:<25}|{:>16}|{:>16}|{:>15}|".format(
            label, f(s[f"{key}.all.current"]), f(s[f"{key}.all.peak"]), f(total) if total is not None else "-"))
    lines.append("|" + "=" * 75 + "|")
    return "\n".join(lines) + "\n"


NAMES = (
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
    "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached",
    "reset_accumulated_memory_stats", "empty_cache", "mem_get_info", "memory_stats", "memory_summary",
)
