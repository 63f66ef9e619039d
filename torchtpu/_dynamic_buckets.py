"""The bucket setting of bounded dynamism (torchtpu/_bounded.py): which bound
a symbolic size of a compiled graph is padded to. Process-wide; read on each
call of a compiled graph, so a change applies to the next call (a new bucket
gets a plan of its own). Kept apart from _bounded so that torch.tpu's
setters import nothing of Dynamo's."""

_buckets = None  # None: powers of two; False: off; a sorted tuple: those bounds


def set_dynamic_buckets(buckets=None):
    """The bounds symbolic sizes of compiled graphs are padded to: None (the
    default) for the next power of two, a list of sizes for the smallest one
    at least the size (a size above the largest gets a plan of its own), or
    False to give every size its own plan."""
    global _buckets
    if buckets is None or buckets is False:
        _buckets = buckets
        return
    try:
        bounds = sorted({int(b) for b in buckets})
    except TypeError:
        raise TypeError(f"torch.tpu.set_dynamic_buckets: expected None, False or a list of sizes, got {buckets!r}") from None
    if not bounds or bounds[0] < 1:
        raise ValueError(f"torch.tpu.set_dynamic_buckets: sizes must be positive integers, got {buckets!r}")
    _buckets = tuple(bounds)


def get_dynamic_buckets():
    return _buckets


def bound_of(n):
    """The bound size n is padded to, or None (n gets a plan of its own)."""
    if _buckets is False or n < 1:
        return None
    if _buckets is None:
        return 1 << (n - 1).bit_length()
    for b in _buckets:
        if b >= n:
            return b
    return None
