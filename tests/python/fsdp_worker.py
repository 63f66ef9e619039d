"""One rank of the FSDP2 tests (test_fsdp.py starts N of these).

`fully_shard` on tpu over tpu_dist trains the transformer block a few steps;
the same FSDP2 training on CPU over gloo and the unsharded model trained on
the full batch (every rank's batch) on CPU are the references.
Usage: fsdp_worker.py CASE[,CASE]  (env as dist_worker.py)
"""
import datetime
import os
import sys

import torch
import torch.distributed as dist

import torchtpu  # noqa: F401

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402
from dist_worker import RANK, WORLD, check, checks  # noqa: E402

KIND = "transformer"
STEPS = int(os.environ.get("FSDP_STEPS", "3"))


def _fsdp_model(device, mesh, reshard):
    from torch.distributed.fsdp import fully_shard

    torch.manual_seed(0)
    model = models.make(KIND).to(device)
    for m in (model.block, model.head):
        fully_shard(m, mesh=mesh, reshard_after_forward=reshard)
    fully_shard(model, mesh=mesh, reshard_after_forward=reshard)
    return model


def _unsharded_bytes(module):
    """Bytes held by the unsharded parameters of one fully_shard module (0
    once FSDP2 has freed them with untyped_storage().resize_(0))."""
    group = module._get_fsdp_state()._fsdp_param_group
    return sum(p._unsharded_param.untyped_storage().nbytes() for p in group.fsdp_params
               if hasattr(p, "_unsharded_param"))


def _train(model, device, opt_kind, ranks, after_forward=None):
    """Per step: the mean loss over `ranks`' batches (each rank's batch is
    seeded by its rank), then the optimizer step."""
    params = list(model.parameters())
    # AdamW's eps of 1e-4: the key bias's gradient is zero up to rounding
    # (softmax ignores it), and eps=1e-8 would turn that noise into full steps
    opt = (torch.optim.AdamW(params, lr=0.01, weight_decay=0.01, eps=1e-4) if opt_kind == "adamw"
           else torch.optim.SGD(params, lr=0.1, momentum=0.9))
    losses = []
    for step in range(STEPS):
        opt.zero_grad()
        xs, ys = zip(*(models.batch(KIND, seed=100 * step + r) for r in ranks))
        x, y = torch.cat(xs).to(device), torch.cat(ys).to(device)
        loss = models.loss_fn(KIND, model(x), y)
        if after_forward is not None:
            after_forward(step)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _full(model):
    from torch.distributed.tensor import DTensor

    return {k: (v.full_tensor() if isinstance(v, DTensor) else v).detach().cpu() for k, v in model.state_dict().items()}


def _close(a, b, rtol, atol):
    return a.shape == b.shape and torch.allclose(a, b, rtol=rtol, atol=atol)


def _fsdp_case(gloo, reshard, opt_kind):
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import DTensor

    name = f"reshard_after_forward={reshard} {opt_kind}"
    tpu_mesh = DeviceMesh.from_group(dist.group.WORLD, "tpu")
    cpu_mesh = DeviceMesh.from_group(gloo, "cpu")
    model = _fsdp_model("tpu", tpu_mesh, reshard)
    p = next(model.parameters())
    check(isinstance(p, DTensor) and p.device.type == "tpu", f"{name}: sharded parameter {type(p)} on {p.device}")
    rows = torch.empty(p.shape[0]).chunk(WORLD)  # torch.chunk's split: the last shards may be short
    want = len(rows[RANK]) if RANK < len(rows) else 0
    check(p.to_local().shape[0] == want, f"{name}: local shard {p.to_local().shape} of {p.shape}")
    freed = []

    def after_forward(step):  # the block's unsharded parameters: freed after forward or kept
        freed.append(_unsharded_bytes(model.block) == 0)

    got = _train(model, "tpu", opt_kind, [RANK], after_forward)
    check(freed == [reshard] * STEPS, f"{name}: unsharded block parameters freed after forward: {freed}")
    check(_unsharded_bytes(model.block) == 0, f"{name}: unsharded parameters freed after backward")
    ref_model = _fsdp_model("cpu", cpu_mesh, reshard)
    ref = _train(ref_model, "cpu", opt_kind, [RANK])
    torch.manual_seed(0)
    single = models.make(KIND)
    single_losses = _train(single, "cpu", opt_kind, list(range(WORLD)))
    for a, b in zip(got, ref):
        check(abs(a - b) <= 1e-5 * abs(b), f"{name}: FSDP2 tpu losses {got} vs gloo CPU {ref}")
    # the mean of every rank's loss is the full batch's loss
    mean = torch.tensor(got, device="tpu")
    dist.all_reduce(mean, op=dist.ReduceOp.AVG)
    for a, b in zip(mean.cpu().tolist(), single_losses):
        check(abs(a - b) <= 1e-5 * abs(b), f"{name}: mean FSDP2 loss {mean.cpu().tolist()} vs full batch {single_losses}")
    g, r, s = _full(model), _full(ref_model), single.state_dict()
    for k in s:
        check(_close(g[k], r[k], 1e-5, 1e-6), f"{name}: {k} differs from gloo CPU FSDP2 by {(g[k] - r[k]).abs().max()}")
        check(_close(g[k], s[k], 1e-4, 1e-5), f"{name}: {k} differs from the full-batch model by {(g[k] - s[k]).abs().max()}")
    print(f"FSDP2 rank {RANK} ({name}): tpu_dist {got} gloo CPU {ref} full batch {single_losses}", flush=True)


def case_fsdp_reshard(gloo):
    _fsdp_case(gloo, True, "sgd")


def case_fsdp_keep(gloo):
    _fsdp_case(gloo, False, "adamw")


def main():
    case = sys.argv[1]
    timeout = datetime.timedelta(seconds=float(os.environ.get("DIST_TIMEOUT", "60")))
    dist.init_process_group(backend="tpu_dist", timeout=timeout)
    gloo = dist.new_group(backend="gloo")
    for c in case.split(","):
        globals()["case_" + c](gloo)
    dist.destroy_process_group()
    print(f"OK rank {RANK} {case} {checks[0]} checks", flush=True)


if __name__ == "__main__":
    main()
