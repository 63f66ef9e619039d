"""`DeviceMesh(..., preserve_rank_order=True)`, as TorchTPU's users write it.

torch 2.13's DeviceMesh has no `preserve_rank_order` argument: it always keeps
the rank tensor it is given as is (mesh[i, j] is the rank at position (i, j)),
which is what preserve_rank_order=True asks for. We accept the keyword:
True is that behaviour; False (let the mesh reorder ranks) has no meaning in
torch 2.13 and is refused. If a later torch accepts the keyword itself,
nothing is patched."""
import functools
import inspect


def install():
    from torch.distributed import device_mesh

    cls = getattr(device_mesh, "DeviceMesh", None)
    if cls is None or "preserve_rank_order" in inspect.signature(cls.__init__).parameters:
        return
    if getattr(cls.__init__, "_torchtpu_preserve_rank_order", False):
        return
    orig = cls.__init__

    @functools.wraps(orig)
    def __init__(self, *args, preserve_rank_order=True, **kwargs):
        if not preserve_rank_order:
            raise ValueError("DeviceMesh(preserve_rank_order=False): torch 2.13's DeviceMesh always keeps the "
                             "given rank tensor; pass preserve_rank_order=True or omit it")
        orig(self, *args, **kwargs)

    __init__._torchtpu_preserve_rank_order = True
    cls.__init__ = __init__
