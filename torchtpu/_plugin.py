"""Where the default PJRT plugin lives. Imports nothing from torch."""
import importlib.util
import os

_CPU_PLUGIN = ("xla_plugins", "xla_cpu_pjrt", "xla_cpu_pjrt.so")


def default_plugin_path():
    """The packaged XLA CPU plugin (dependency `xla-cpu-pjrt`), or None."""
    try:  # raises, not None, when the parent package is missing too
        spec = importlib.util.find_spec(".".join(_CPU_PLUGIN[:2]))
    except ImportError:
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        path = os.path.join(loc, _CPU_PLUGIN[2])
        if os.path.exists(path):
            return path
    return None
