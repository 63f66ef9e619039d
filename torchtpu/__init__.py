"""torchtpu: PyTorch device "tpu", backed by a C core that lowers ATen ops to
StableHLO and runs them through any PJRT plugin.

`import torch` loads this package through the `torch.backends` entry point.
"""

_loaded = False


def _autoload():
    """Entry point of the `torch.backends` group: registers device "tpu"."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import _register

    _register.register()


_autoload()
