"""The process group "tpu_dist" creates: one gloo backend serves cpu tensors
directly and tpu tensors through the kernels in `_kernels`."""
import torch
import torch.distributed as dist
from torch._C._distributed_c10d import PrefixStore, ProcessGroupGloo

from . import _lifetime

_PREMUL_SUM = dist.ReduceOp.RedOpType.PREMUL_SUM


class _Gloo(ProcessGroupGloo):
    """The group's gloo backend. `dist.split_group` deep-copies the parent
    backend's `options` for the child before calling the group's
    split_group; gloo's options cannot be copied, and TpuProcessGroup.split_group
    builds the child from the parent's own settings, so there are none to copy."""

    @property
    def options(self):
        return None


class TpuProcessGroup(dist.ProcessGroup):
    def __init__(self, store, rank, size, timeout, global_ranks, group_name):
        super().__init__(rank, size)  # the store-taking constructor refuses Python subclasses
        self.global_ranks = global_ranks or list(range(size))  # replica groups of a device path (c10d gives [] for WORLD)
        self._store, self._timeout = store, timeout  # what split_group builds a child from
        self._splits = 0  # split_group calls on this group (every rank of it makes each call)
        self._gloo = _Gloo(store, rank, size, timeout)
        custom = dist.ProcessGroup.BackendType.CUSTOM
        self._register_backend(torch.device("cpu"), custom, self._gloo)
        self._register_backend(torch.device("tpu"), custom, self._gloo)
        self._set_default_backend(custom)

    def getBackendName(self):
        return "tpu_dist"

    def allreduce(self, tensors, opts=None):
        if opts is None:
            opts = dist.AllreduceOptions()
        factor, opts = _premul_factor(opts, dist.AllreduceOptions)
        if factor is not None:
            for t in tensors:  # in place: the tensors are the outputs
                t.mul_(factor)
        tensors, aliases = _aliased(tensors)
        try:
            return super().allreduce(tensors, opts)
        finally:
            _lifetime.keep(aliases)

    # PREMUL_SUM of reduce_scatter(_tensor) from Python (FSDP's gradient path);
    # C++ callers of these two reach the kernels, which refuse PREMUL_SUM.
    def reduce_scatter_single(self, output, input, opts=None):
        if opts is None:
            opts = dist.ReduceScatterOptions()
        factor, opts = _premul_factor(opts, dist.ReduceScatterOptions)
        if factor is not None:
            input = input * factor  # the caller's input stays as it was
        (output, input), aliases = _aliased((output, input))
        try:
            return super().reduce_scatter_single(output, input, opts)
        finally:
            _lifetime.keep(aliases)

    def reduce_scatter(self, outputs, inputs, opts=None):
        if opts is None:
            opts = dist.ReduceScatterOptions()
        factor, opts = _premul_factor(opts, dist.ReduceScatterOptions)
        if factor is not None:
            inputs = [[t * factor for t in ts] for ts in inputs]
        (outputs, inputs), aliases = _aliased((outputs, inputs))
        try:
            return super().reduce_scatter(outputs, inputs, opts)
        finally:
            _lifetime.keep(aliases)

    def split_group(self, ranks, timeout=None, opts=None, group_name=None, group_desc=None, device_types=None):
        """`dist.split_group`'s step on the parent: the child group over
        `ranks` (ranks of this group, sorted), a TpuProcessGroup of its own
        (gloo over a store prefixed by the child's name); None on a rank
        outside it, as c10d expects. Gloo needs no collective among the
        parent's other ranks."""
        if device_types is not None and {d.type for d in device_types} != {"cpu", "tpu"}:
            raise ValueError(f"tpu_dist: split_group serves both cpu and tpu tensors; backend= may not select "
                             f"{sorted(d.type for d in device_types)}")
        ranks = sorted(ranks)
        # The store prefix: the how-manieth split of this group and the
        # child's ranks, the same on every rank of the child. (c10d's group
        # name is not: it hashes the ranks with state that differs between
        # ranks that made different groups before.)
        self._splits += 1
        if self.rank() not in ranks:
            return None
        store = PrefixStore(f"split{self._splits}/{','.join(map(str, ranks))}/", self._store)
        child = TpuProcessGroup(store, ranks.index(self.rank()), len(ranks),
                                timeout or self._timeout, [self.global_ranks[r] for r in ranks], group_name)
        child._set_group_name(group_name)
        if group_desc:
            child._set_group_desc(group_desc)
        return child

    def shutdown(self):
        _lifetime.prune()
        return super().shutdown()

    # _coalescing_manager(device=...): the host path runs each collective as
    # it is issued (in order), so the coalesced block is complete at its end.
    def _start_coalescing(self, device):
        pass

    def _end_coalescing(self, device):
        from . import _work

        return _work.completed([])


def _aliased(args):
    """`args` with CPU tensors passed as aliases, and the aliases: keep them
    (`_lifetime.keep`) once the call has issued them to gloo (see `_lifetime`:
    the hang this prevents). Prunes what gloo has let go of since."""
    _lifetime.prune()
    aliases = []
    return _lifetime.alias_host_tensors(args, aliases), aliases


def _forwarding(name):
    base = getattr(dist.ProcessGroup, name)

    def method(self, *args, **kwargs):
        (args, kwargs), aliases = _aliased((args, kwargs))
        try:
            return base(self, *args, **kwargs)  # this frame must be the override's (below)
        finally:
            _lifetime.keep(aliases)

    # pybind's trampoline tells a Python override calling its base from a new
    # call by the calling frame: its code name and its first local (self)
    method.__code__ = method.__code__.replace(co_name=name, co_qualname=f"TpuProcessGroup.{name}")
    method.__name__ = method.__qualname__ = name
    return method


# Every collective Python's c10d or C++ (through pybind's trampoline) calls on
# a group: the new names only where the trampoline also looks up a deprecated
# one (all_to_all_single/alltoall_base, ...), so it never finds two overrides.
_FORWARDED = ("allreduce_coalesced", "broadcast", "reduce", "allgather", "allgather_coalesced",
              "all_gather_single", "all_gather_single_coalesced", "reduce_scatter_single_coalesced",
              "gather", "scatter", "alltoall", "all_to_all_single", "send", "recv", "recv_anysource",
              "barrier", "monitored_barrier")
for _name in _FORWARDED:
    setattr(TpuProcessGroup, _name, _forwarding(_name))
del _name


def _premul_factor(opts, options_type):
    """NCCL's meaning of PREMUL_SUM: multiply by the factor, then sum.
    Returns (factor or None, the options to run)."""
    if opts.reduceOp.op != _PREMUL_SUM:
        return None, opts
    factor = opts.reduceOp.__getstate__()[1]
    sum_opts = options_type()
    sum_opts.reduceOp = dist.ReduceOp.SUM
    sum_opts.timeout = opts.timeout
    sum_opts.asyncOp = opts.asyncOp
    return factor, sum_opts
