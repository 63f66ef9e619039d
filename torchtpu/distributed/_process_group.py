"""The process group "tpu_dist" creates: one gloo backend serves cpu tensors
directly and tpu tensors through the kernels in `_kernels`."""
import torch
import torch.distributed as dist
from torch._C._distributed_c10d import ProcessGroupGloo

_PREMUL_SUM = dist.ReduceOp.RedOpType.PREMUL_SUM


class TpuProcessGroup(dist.ProcessGroup):
    def __init__(self, store, rank, size, timeout, global_ranks, group_name):
        super().__init__(rank, size)  # the store-taking constructor refuses Python subclasses
        self.global_ranks = global_ranks  # replica groups of a device path
        self._gloo = ProcessGroupGloo(store, rank, size, timeout)
        custom = dist.ProcessGroup.BackendType.CUSTOM
        self._register_backend(torch.device("cpu"), custom, self._gloo)
        self._register_backend(torch.device("tpu"), custom, self._gloo)
        self._set_default_backend(custom)

    def getBackendName(self):
        return "tpu_dist"

    def allreduce(self, tensors, opts=None):
        if opts is None:
            opts = dist.AllreduceOptions()
        if opts.reduceOp.op == _PREMUL_SUM:
            # NCCL's meaning: multiply by the factor, then sum.
            factor = opts.reduceOp.__getstate__()[1]
            for t in tensors:
                t.mul_(factor)
            sum_opts = dist.AllreduceOptions()
            sum_opts.reduceOp = dist.ReduceOp.SUM
            sum_opts.timeout = opts.timeout
            sum_opts.asyncOp = opts.asyncOp
            opts = sum_opts
        return super().allreduce(tensors, opts)
