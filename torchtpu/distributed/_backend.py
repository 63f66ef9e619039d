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
    import sys

    from ._process_group import TpuProcessGroup

    pg = TpuProcessGroup(opts.store, opts.group_rank, opts.group_size, opts.timeout,
                         list(opts.global_ranks_in_group), str(opts.group_id))
    # init_process_group(device_id=...) binds the device on the group c10d
    # made before calling us, and ours replaces that group: bind it here too
    # (dist.split_group needs it). The options c10d passes do not carry it;
    # the caller, c10d's _new_process_group_helper, has it as `device_id`.
    caller = sys._getframe(1)
    if caller.f_code.co_name == "_new_process_group_helper":
        device_id = caller.f_locals.get("device_id")
        if isinstance(device_id, torch.device) and device_id.type == "tpu":
            pg.bound_device_id = device_id
    return pg


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
    # gloo takes tpu tensors as it takes CUDA ones, through host memory (our
    # c10d tpu kernels stage them and call the group's gloo): with "tpu" among
    # gloo's devices a gloo group has a backend for tpu, so
    # new_group(backend="gloo") works beside a default group bound to the
    # device (c10d asks the new group for the bound device's backend), and
    # init_process_group("gloo") runs tpu tensors.
    gloo_devices = dist.Backend.backend_capability.get(dist.Backend.GLOO)
    if gloo_devices is not None and "tpu" not in gloo_devices:
        gloo_devices.append("tpu")
    from . import _kernels

    _kernels.register()
