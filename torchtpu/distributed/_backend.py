"""Registration of "tpu_dist" with c10d, the default backend of device tpu."""
import torch
import torch.distributed as dist

BACKEND_NAME = "tpu_dist"
_registered = False


def is_available():
    return dist.is_available() and dist.is_gloo_available()


def _create(opts, backend_options):
    # extended_api: opts carries store, group rank/size, timeout, group name
    # and the global ranks of the group (what a device path needs for its
    # replica groups).
    from ._process_group import TpuProcessGroup

    return TpuProcessGroup(opts.store, opts.group_rank, opts.group_size, opts.timeout,
                           list(opts.global_ranks_in_group), str(opts.group_id))


def register():
    """Registers the backend and the tpu kernels of the c10d ops (idempotent)."""
    global _registered
    if _registered or not is_available():
        return
    _registered = True
    # devices: tpu tensors (staged) and cpu tensors (straight to gloo), so
    # backend="tpu_dist" alone also serves object collectives and CPU barriers.
    # "tpu" becomes the default: init_process_group() on a tpu process picks it.
    dist.Backend.register_backend(BACKEND_NAME, _create, extended_api=True, devices=["tpu", "cpu"])
    from . import _kernels

    _kernels.register()
