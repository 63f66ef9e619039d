"""One rank of the distributed tests (test_dist.py starts N of these).

Every collective runs on tpu tensors over the default group (tpu_dist) and on
the same CPU tensors over a pure gloo group; results must be equal (same gloo
algorithm, same dtype: bit-identical), or match a reference computed locally
from every rank's inputs where gloo lacks the dtype (int16).
Usage: dist_worker.py CASE   (env: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)
"""
import datetime
import functools
import os
import sys

import torch
import torch.distributed as dist

import torchtpu  # noqa: F401

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8,
          torch.int16, torch.int32, torch.int64, torch.bool, torch.complex64, torch.complex128]
OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"]
checks = [0]


def check(cond, what):
    if not cond:
        raise AssertionError(f"rank {RANK}: {what}")
    checks[0] += 1


def same(a, b, what):
    a, b = a.cpu(), b.cpu()
    check(a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b), f"{what}: {a} != {b}")


def inp(dtype, shape, rank, salt=0):
    g = torch.Generator().manual_seed(1000 * rank + salt)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_complex:
        return torch.randint(-4, 5, shape + (2,), generator=g).to(torch.float64).view(torch.complex128).squeeze(-1).to(dtype)
    lo, hi = (0, 7) if dtype == torch.uint8 else (-6, 7)
    return torch.randint(lo, hi, shape, generator=g).to(dtype)


def rop(name):
    return dist._make_nccl_premul_sum(0.5) if name == "PREMUL_SUM" else getattr(dist.ReduceOp, name)


def local_reduce(name, xs):
    """Reference of an int16 reduction from every rank's inputs (wrapping as int16)."""
    st = torch.stack([x.to(torch.int64) for x in xs])
    fn = {"SUM": lambda: st.sum(0), "PRODUCT": lambda: st.prod(0), "MIN": lambda: st.amin(0),
          "MAX": lambda: st.amax(0),
          "BAND": lambda: functools.reduce(torch.bitwise_and, st),
          "BOR": lambda: functools.reduce(torch.bitwise_or, st),
          "BXOR": lambda: functools.reduce(torch.bitwise_xor, st)}[name]
    return fn().to(torch.int16)


def outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001
        return None, e


def case_collectives(gloo):
    shape = (5, 3)
    for dt in DTYPES:
        for name in OPS:
            x = inp(dt, shape, RANK)
            t = x.to("tpu")
            _, et = outcome(lambda: dist.all_reduce(t, op=rop(name)))
            if dt == torch.int16:
                if name in ("AVG", "PREMUL_SUM"):
                    check(et is not None, f"all_reduce {name} int16 raises")
                else:
                    check(et is None, f"all_reduce {name} int16: {et}")
                    same(t, local_reduce(name, [inp(dt, shape, r) for r in range(WORLD)]), f"all_reduce {name} int16")
                continue
            ref = x.clone()
            if name == "PREMUL_SUM":
                ref, opr = ref * 0.5 if dt.is_floating_point or dt.is_complex else ref, dist.ReduceOp.SUM
                if not (dt.is_floating_point or dt.is_complex):
                    check(et is not None, f"premul_sum {dt} raises")
                    continue
            else:
                opr = rop(name)
            _, ec = outcome(lambda: dist.all_reduce(ref, op=opr, group=gloo))
            check((et is None) == (ec is None), f"all_reduce {name} {dt}: tpu error {et!r}, gloo error {ec!r}")
            if et is None:
                same(t, ref, f"all_reduce {name} {dt}")
    # PREMUL_SUM of reduce_scatter(_tensor): the input is left as it was
    for fn in ("reduce_scatter_tensor", "reduce_scatter"):
        x = inp(torch.float32, (2 * WORLD, 3), RANK, 50)
        t = x.to("tpu")
        o = torch.empty(2, 3, device="tpu")
        if fn == "reduce_scatter_tensor":
            dist.reduce_scatter_tensor(o, t, op=dist._make_nccl_premul_sum(0.25))
        else:
            dist.reduce_scatter(o, list(t.chunk(WORLD)), op=dist._make_nccl_premul_sum(0.25))
        oc = torch.empty(2, 3)
        dist.reduce_scatter_tensor(oc, x * 0.25, group=gloo)
        same(o, oc, f"{fn} PREMUL_SUM")
        same(t, x, f"{fn} PREMUL_SUM input unchanged")
    # in place into a view of a bigger tpu tensor
    base = torch.arange(12.0).reshape(3, 4).to("tpu")
    v = base[1:, 1:3]
    dist.all_reduce(v)
    ref = torch.arange(12.0).reshape(3, 4)
    ref[1:, 1:3] *= WORLD
    same(base, ref, "all_reduce into a view")

    for dt in [torch.float32, torch.bfloat16, torch.int16, torch.bool, torch.complex64, torch.int64]:
        red = dist.ReduceOp.MAX if dt in (torch.bool, torch.complex64) else dist.ReduceOp.SUM
        if dt == torch.complex64:
            red = dist.ReduceOp.SUM
        x = inp(dt, (4, 2), RANK, 1)
        # broadcast
        t = x.to("tpu"); dist.broadcast(t, src=WORLD - 1)
        same(t, inp(dt, (4, 2), WORLD - 1, 1), f"broadcast {dt}")
        # all_gather / all_gather_into_tensor
        outs = [torch.empty(4, 2, dtype=dt, device="tpu") for _ in range(WORLD)]
        dist.all_gather(outs, x.to("tpu"))
        for r in range(WORLD):
            same(outs[r], inp(dt, (4, 2), r, 1), f"all_gather {dt}")
        o = torch.empty(4 * WORLD, 2, dtype=dt, device="tpu")
        dist.all_gather_into_tensor(o, x.to("tpu"))
        same(o, torch.cat([inp(dt, (4, 2), r, 1) for r in range(WORLD)]), f"all_gather_into_tensor {dt}")
        # gather / scatter
        g = [torch.empty(4, 2, dtype=dt, device="tpu") for _ in range(WORLD)] if RANK == 0 else None
        dist.gather(x.to("tpu"), g, dst=0)
        if RANK == 0:
            for r in range(WORLD):
                same(g[r], inp(dt, (4, 2), r, 1), f"gather {dt}")
        s = torch.empty(4, 2, dtype=dt, device="tpu")
        sl = [inp(dt, (4, 2), 100 + r, 1).to("tpu") for r in range(WORLD)] if RANK == 1 else None
        dist.scatter(s, sl, src=1)
        same(s, inp(dt, (4, 2), 100 + RANK, 1), f"scatter {dt}")
        # all_to_all, all_to_all_single with uneven splits
        eq = [inp(dt, (2, 2), RANK, 40 + r) for r in range(WORLD)]  # gloo's all_to_all wants equal sizes
        outs = [torch.empty(2, 2, dtype=dt, device="tpu") for _ in range(WORLD)]
        dist.all_to_all(outs, [i.to("tpu") for i in eq])
        for r in range(WORLD):
            same(outs[r], inp(dt, (2, 2), r, 40 + RANK), f"all_to_all {dt}")
        ins = [inp(dt, (r + 1, 2), RANK, 10 + r) for r in range(WORLD)]
        in_splits = [r + 1 for r in range(WORLD)]
        out_splits = [RANK + 1] * WORLD
        src = torch.cat(ins)
        o = torch.empty(sum(out_splits), 2, dtype=dt, device="tpu")
        dist.all_to_all_single(o, src.to("tpu"), out_splits, in_splits)
        oc = torch.empty(sum(out_splits), 2, dtype=dt)
        if dt != torch.int16:
            dist.all_to_all_single(oc, src, out_splits, in_splits, group=gloo)
            same(o, oc, f"all_to_all_single uneven {dt}")
        else:
            same(o, torch.cat([inp(dt, (RANK + 1, 2), r, 10 + RANK) for r in range(WORLD)]), "all_to_all_single int16")
        if dt == torch.bool:
            continue  # gloo refuses SUM-free bool reduce_scatter checks below only for SUM/MAX
        # reduce / reduce_scatter / reduce_scatter_tensor
        t = x.to("tpu"); c = x.clone()
        dist.reduce(t, dst=1, op=red)
        if dt != torch.int16:
            dist.reduce(c, dst=1, op=red, group=gloo)
            same(t, c, f"reduce {dt}")
        elif RANK == 1:
            same(t, local_reduce("SUM", [inp(dt, (4, 2), r, 1) for r in range(WORLD)]), "reduce int16")
        big = [inp(dt, (WORLD * 2, 2), RANK, 20)]
        o = torch.empty(2, 2, dtype=dt, device="tpu")
        _, et = outcome(lambda: dist.reduce_scatter_tensor(o, big[0].to("tpu"), op=red))
        oc = torch.empty(2, 2, dtype=dt)
        if dt != torch.int16:
            _, ec = outcome(lambda: dist.reduce_scatter_tensor(oc, big[0], op=red, group=gloo))
            check((et is None) == (ec is None), f"reduce_scatter_tensor {dt}: {et!r} vs {ec!r}")
            if et is None:
                same(o, oc, f"reduce_scatter_tensor {dt}")
            outs = [torch.empty(2, 2, dtype=dt, device="tpu")]
            ol = list(big[0].to("tpu").chunk(WORLD))
            _, et = outcome(lambda: dist.reduce_scatter(outs[0], ol, op=red))
            olc = list(big[0].chunk(WORLD)); occ = torch.empty(2, 2, dtype=dt)
            _, ec = outcome(lambda: dist.reduce_scatter(occ, olc, op=red, group=gloo))
            check((et is None) == (ec is None), f"reduce_scatter {dt}: {et!r} vs {ec!r}")
            if et is None:
                same(outs[0], occ, f"reduce_scatter {dt}")


def case_p2p_async(gloo):
    peer = (RANK + 1) % WORLD
    prev = (RANK - 1) % WORLD
    for dt in [torch.float32, torch.int16, torch.bfloat16, torch.bool]:
        x = inp(dt, (6,), RANK, 30)
        y = torch.empty(6, dtype=dt, device="tpu")
        if RANK % 2 == 0:
            dist.send(x.to("tpu"), peer); dist.recv(y, prev)
        else:
            dist.recv(y, prev); dist.send(x.to("tpu"), peer)
        same(y, inp(dt, (6,), prev, 30), f"send/recv {dt}")
        y = torch.empty(6, dtype=dt, device="tpu")
        rw = dist.irecv(y, prev); sw = dist.isend(x.to("tpu"), peer)
        sw.wait(); rw.wait()
        same(y, inp(dt, (6,), prev, 30), f"isend/irecv {dt}")
        y = torch.empty(6, dtype=dt, device="tpu")
        ops = [dist.P2POp(dist.irecv, y, prev), dist.P2POp(dist.isend, x.to("tpu"), peer)]
        for w in dist.batch_isend_irecv(ops):
            w.wait()
        same(y, inp(dt, (6,), prev, 30), f"batch_isend_irecv {dt}")
    # async work objects
    t = torch.ones(8, device="tpu") * (RANK + 1)
    w = dist.all_reduce(t, async_op=True)
    check(w.wait() is True or w.wait() is None, "wait")
    check(w.is_completed(), "is_completed")
    fut = w.get_future().wait()
    check(isinstance(fut, list) and fut[0].device.type == "tpu", f"future value {fut}")
    same(t, torch.full((8,), float(sum(range(1, WORLD + 1)))), "async all_reduce")
    ws = [dist.broadcast(torch.full((3,), float(RANK), device="tpu"), src=0, async_op=True) for _ in range(3)]
    for w in ws:
        w.wait()
    dist.barrier()
    dist.barrier(async_op=True).wait()
    dist.group.WORLD.monitored_barrier(datetime.timedelta(seconds=30), True)
    checks[0] += 1
    # coalescing manager: all_reduce and all_gather_into_tensor batched
    a = torch.full((4,), float(RANK), device="tpu"); b = torch.full((2,), float(RANK) * 2, device="tpu")
    with dist._coalescing_manager(async_ops=True) as cm:
        dist.all_reduce(a); dist.all_reduce(b)
    cm.wait()
    s = float(sum(range(WORLD)))
    same(a, torch.full((4,), s), "coalesced all_reduce a"); same(b, torch.full((2,), 2 * s), "coalesced b")
    a = torch.full((4,), float(RANK), device="tpu")
    with dist._coalescing_manager(device=torch.device("tpu"), async_ops=True) as cm:
        dist.all_reduce(a); dist.broadcast(b, src=1)
    cm.wait()
    same(a, torch.full((4,), s), "coalesced (device) all_reduce"); same(b, torch.full((2,), 2 * s), "coalesced broadcast")
    outs = [torch.empty(2 * WORLD, device="tpu"), torch.empty(WORLD, device="tpu")]
    with dist._coalescing_manager():
        dist.all_gather_into_tensor(outs[0], torch.full((2,), float(RANK), device="tpu"))
        dist.all_gather_into_tensor(outs[1], torch.full((1,), float(RANK) + 10, device="tpu"))
    same(outs[0], torch.arange(WORLD, dtype=torch.float32).repeat_interleave(2), "coalesced all_gather_into_tensor")
    same(outs[1], torch.arange(WORLD, dtype=torch.float32) + 10, "coalesced all_gather_into_tensor b")
    # functional collectives (what DTensor and torch.compile call)
    import torch.distributed._functional_collectives as fc
    W = dist.group.WORLD
    x = torch.arange(4.0) + RANK
    same(fc.all_reduce(x.to("tpu"), "sum", W), sum(torch.arange(4.0) + r for r in range(WORLD)), "fc.all_reduce")
    same(fc.all_reduce(x.to("tpu"), "max", W), torch.arange(4.0) + WORLD - 1, "fc.all_reduce max")
    same(fc.all_gather_tensor(x.to("tpu"), 0, W), torch.cat([torch.arange(4.0) + r for r in range(WORLD)]), "fc.all_gather")
    big = torch.arange(2.0 * WORLD) * (RANK + 1)
    ref = torch.arange(2.0 * WORLD) * sum(range(1, WORLD + 1))
    same(fc.reduce_scatter_tensor(big.to("tpu"), "sum", 0, W), ref[2 * RANK:2 * RANK + 2], "fc.reduce_scatter")
    a2a = fc.all_to_all_single(torch.arange(float(WORLD)).to("tpu") + 10 * RANK, None, None, W)
    same(a2a, torch.arange(float(WORLD)) * 10 + RANK, "fc.all_to_all_single")
    same(fc.broadcast(x.to("tpu"), 1, W), torch.arange(4.0) + 1, "fc.broadcast")


def case_temporaries(gloo):
    # collectives on tensors that die right after the call, back to back: gloo's
    # worker releasing a finished collective's tensors must never need the GIL
    # (torchtpu/distributed/_lifetime.py); before, this hung nearly every run
    from torchtpu.distributed import _lifetime
    for _ in range(1500):
        dist.all_reduce(torch.ones(2))
    for _ in range(200):
        dist.all_reduce(torch.ones(2, device="tpu"))
    obj = [None] * WORLD
    dist.all_gather_object(obj, RANK)
    check(obj == list(range(WORLD)), f"all_gather_object {obj}")
    dist.barrier()
    check(_lifetime.held() <= 8, f"{_lifetime.held()} tensors still held after the loop")


def case_subgroups(gloo):
    # the 4-process case: new_group, split_group, device mesh dimensions
    evens, odds = dist.new_group([0, 2]), dist.new_group([1, 3])
    mine = evens if RANK % 2 == 0 else odds
    t = torch.full((3,), float(RANK), device="tpu")
    dist.all_reduce(t, group=mine)
    same(t, torch.full((3,), float(RANK % 2 + RANK % 2 + 2)), "new_group all_reduce")
    o = [torch.empty(1, device="tpu") for _ in range(2)]
    dist.all_gather(o, torch.full((1,), float(RANK), device="tpu"), group=mine)
    same(torch.cat(o), torch.tensor([float(RANK % 2), float(RANK % 2 + 2)]), "new_group all_gather")
    # split_group: case_split (it needs init_process_group(device_id=...))
    from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
    mesh = init_device_mesh("tpu", (2, 2), mesh_dim_names=("dp", "tp"))
    t = torch.full((1,), float(RANK), device="tpu")
    dist.all_reduce(t, group=mesh["tp"].get_group())
    same(t, torch.full((1,), float(4 * (RANK // 2) + 1)), "mesh tp all_reduce")
    t = torch.full((1,), float(RANK), device="tpu")
    dist.all_reduce(t, group=mesh["dp"].get_group())
    same(t, torch.full((1,), float(2 * (RANK % 2) + 2)), "mesh dp all_reduce")
    m2 = DeviceMesh("tpu", torch.arange(WORLD).reshape(2, 2))
    check(m2.device_type == "tpu", "DeviceMesh('tpu')")
    src = torch.arange(10.0) + 100 * RANK
    in_splits = [1, 2, 3, 4]
    out_splits = [RANK + 1] * WORLD
    o = torch.empty(sum(out_splits), device="tpu")
    dist.all_to_all_single(o, src.to("tpu"), out_splits, in_splits)
    oc = torch.empty(sum(out_splits))
    dist.all_to_all_single(oc, src, out_splits, in_splits, group=gloo)
    same(o, oc, "all_to_all_single uneven, 4 ranks")


def case_premul(gloo):
    # PREMUL_SUM's factor as a Python float, a CPU scalar tensor and a tpu
    # scalar tensor; async_op=True; reduce_scatter_tensor; where the factor
    # cannot reach the backend (the c10d op's ReduceOp), a clear error
    x = inp(torch.float32, (4, 2), RANK, 60)
    ref = x * 0.25
    dist.all_reduce(ref, group=gloo)
    for factor in (0.25, torch.tensor(0.25), torch.tensor(0.25, device="tpu")):
        t = x.to("tpu")
        work = dist.all_reduce(t, op=dist._make_nccl_premul_sum(factor), async_op=True)
        work.wait()
        same(t, ref, f"all_reduce PREMUL_SUM({factor!r}) async")
        o = torch.empty(4 // WORLD, 2, device="tpu")
        work = dist.reduce_scatter_tensor(o, x.to("tpu"), op=dist._make_nccl_premul_sum(factor), async_op=True)
        work.wait()
        same(o, ref.chunk(WORLD)[RANK], f"reduce_scatter_tensor PREMUL_SUM({factor!r}) async")
    t = x.to("tpu").to(torch.bfloat16)
    dist.all_reduce(t, op=dist._make_nccl_premul_sum(0.5))
    r = x.to(torch.bfloat16) * 0.5
    dist.all_reduce(r, group=gloo)
    same(t, r, "all_reduce PREMUL_SUM bfloat16")
    try:
        dist.all_reduce_coalesced([x.to("tpu")], op=dist._make_nccl_premul_sum(0.5))
    except RuntimeError as e:
        check("PREMUL_SUM" in str(e) and "factor" in str(e), str(e))
    else:
        check(False, "all_reduce_coalesced PREMUL_SUM did not raise")


def case_split(gloo):
    # 4 processes, the default group bound to tpu:0 (DIST_DEVICE_ID=1)
    check(dist.group.WORLD.bound_device_id == torch.device("tpu", 0), f"bound {dist.group.WORLD.bound_device_id}")
    pairs = dist.split_group(split_ranks=[[0, 2], [1, 3]])
    check(pairs is not None and pairs.size() == 2 and pairs.rank() == RANK // 2, f"split_group pair {pairs}")
    check(dist.get_process_group_ranks(pairs) == [RANK % 2, RANK % 2 + 2], f"ranks {dist.get_process_group_ranks(pairs)}")
    t = torch.full((3,), float(RANK + 1), device="tpu")
    dist.all_reduce(t, group=pairs)
    same(t, torch.full((3,), float(2 * (RANK % 2) + 4)), "split_group all_reduce")
    o = torch.empty(2, 2, device="tpu")
    dist.all_gather_into_tensor(o, torch.full((1, 2), float(RANK), device="tpu"), group=pairs)
    same(o, torch.tensor([[RANK % 2] * 2, [RANK % 2 + 2] * 2], dtype=torch.float32), "split_group all_gather")
    o = torch.empty(1, device="tpu")
    dist.reduce_scatter_tensor(o, torch.tensor([1.0, 10.0], device="tpu") * (RANK + 1), group=pairs)
    same(o, torch.tensor([(1.0 if RANK < 2 else 10.0) * (2 * (RANK % 2) + 4)]), "split_group reduce_scatter_tensor")
    c = torch.full((2,), float(RANK))  # cpu tensors on the split group: straight to its gloo
    dist.all_reduce(c, group=pairs)
    same(c, torch.full((2,), float(2 * (RANK % 2) + 2)), "split_group cpu all_reduce")
    # a rank outside every split gets None; a split of a split
    three = dist.split_group(split_ranks=[[0, 1, 2]])
    check((three is None) == (RANK == 3), f"split_group [[0, 1, 2]] on rank {RANK}: {three}")
    if three is not None:
        t = torch.ones(1, device="tpu")
        dist.all_reduce(t, group=three)
        same(t, torch.full((1,), 3.0), "split_group of three")
        one = dist.split_group(parent_pg=three, split_ranks=[[0, 1], [2]])
        t = torch.full((1,), float(RANK), device="tpu")
        dist.all_reduce(t, group=one)
        same(t, torch.full((1,), 1.0 if RANK < 2 else 2.0), "split_group of a split group")
    # init_device_mesh on a bound default group makes its dimensions with split_group
    from torch.distributed.device_mesh import init_device_mesh
    mesh = init_device_mesh("tpu", (2, 2), mesh_dim_names=("dp", "tp"))
    t = torch.full((1,), float(RANK), device="tpu")
    dist.all_reduce(t, group=mesh["tp"].get_group())
    same(t, torch.full((1,), float(4 * (RANK // 2) + 1)), "bound mesh tp all_reduce")
    t = torch.full((1,), float(RANK), device="tpu")
    dist.all_reduce(t, group=mesh["dp"].get_group())
    same(t, torch.full((1,), float(2 * (RANK % 2) + 2)), "bound mesh dp all_reduce")
    dist.barrier()


def case_gloo_group_tpu_tensors(gloo):
    # a gloo group beside the bound default group (DIST_DEVICE_ID=1) runs tpu tensors through host memory
    check(dist.group.WORLD.bound_device_id == torch.device("tpu", 0), f"bound {dist.group.WORLD.bound_device_id}")
    t = torch.full((3,), float(RANK + 1), device="tpu")
    dist.all_reduce(t, group=gloo)
    same(t, torch.full((3,), float(sum(range(1, WORLD + 1)))), "all_reduce of tpu tensors over a gloo group")
    out = [torch.zeros(2, dtype=torch.int64, device="tpu") for _ in range(WORLD)]
    dist.all_gather(out, torch.full((2,), RANK, dtype=torch.int64, device="tpu"), group=gloo)
    for r, o in enumerate(out):
        same(o, torch.full((2,), r, dtype=torch.int64), f"all_gather over gloo, rank {r}'s part")
    c = torch.full((2,), float(RANK))
    dist.all_reduce(c, op=dist.ReduceOp.MAX, group=gloo)  # CPU tensors: gloo itself
    same(c, torch.full((2,), float(WORLD - 1)), "CPU all_reduce over the same gloo group")
    dist.barrier(group=gloo)


def case_split_unbound(gloo):
    # without init_process_group(device_id=...), c10d's own error
    try:
        dist.split_group(split_ranks=[[0], [1]])
    except RuntimeError as e:
        check("No device associated with the default pg" in str(e), str(e))
    else:
        check(False, "split_group on an unbound default group did not raise")


def case_init_variants(gloo):
    # after the default group of main(): destroy, then start again three ways
    # each new group rendezvous on a fresh port: a rank that re-inits first
    # could otherwise meet the other rank's previous store, not yet destroyed
    ports = os.environ.get("REINIT_PORTS", "").split(",")
    for k, how in enumerate(("cpu:gloo,tpu:tpu_dist", None, "tpu_dist")):
        dist.barrier()
        dist.destroy_process_group()
        if ports[0]:
            os.environ["MASTER_PORT"] = ports[k]
        dist.init_process_group(backend=how)
        t = torch.full((2,), float(RANK + 1), device="tpu")
        dist.all_reduce(t)
        same(t, torch.full((2,), float(sum(range(1, WORLD + 1)))), f"all_reduce after init({how})")
        c = torch.full((2,), float(RANK + 1))
        dist.all_reduce(c)
        same(c, torch.full((2,), float(sum(range(1, WORLD + 1)))), f"cpu all_reduce after init({how})")
    from torch.distributed.device_mesh import DeviceMesh
    m = DeviceMesh("tpu", list(range(WORLD)))
    t = torch.ones(1, device="tpu")
    dist.all_reduce(t, group=m.get_group())
    same(t, torch.full((1,), float(WORLD)), "DeviceMesh('tpu') group")
    obj = [None] * WORLD
    dist.all_gather_object(obj, {"rank": RANK})
    check(obj == [{"rank": r} for r in range(WORLD)], f"all_gather_object {obj}")


def case_mismatch(gloo):
    # TORCH_TPU_DIST_DEBUG=1: shapes that differ across ranks raise, naming both
    os.environ["TORCH_TPU_DIST_DEBUG"] = "1"
    t = torch.ones(3 + RANK, device="tpu")
    try:
        dist.all_reduce(t)
    except RuntimeError as e:
        check("mismatch" in str(e) and "rank 0" in str(e) and "rank 1" in str(e), str(e))
        print("MISMATCH", str(e).splitlines()[0], flush=True)
    else:
        check(False, "a shape mismatch did not raise")
    t = torch.ones(3, device="tpu", dtype=torch.float32 if RANK == 0 else torch.float64)
    try:
        dist.broadcast(t, 0)
    except RuntimeError as e:
        check("float64" in str(e) and "float32" in str(e), str(e))
    else:
        check(False, "a dtype mismatch did not raise")
    t = torch.full((2,), float(RANK), device="tpu")
    dist.all_reduce(t)  # agreeing calls pass the check
    same(t, torch.full((2,), float(sum(range(WORLD)))), "all_reduce under the debug check")
    del os.environ["TORCH_TPU_DIST_DEBUG"]


def case_rank_dies(gloo):
    t = torch.ones(4, device="tpu")
    dist.all_reduce(t)
    if RANK == 1:
        os._exit(0)  # dies without a word, mid-run
    import time
    t0 = time.time()
    try:
        dist.all_reduce(t)
        dist.all_reduce(t)
    except Exception as e:  # noqa: BLE001
        print(f"RAISED after {time.time() - t0:.1f}s: {type(e).__name__}: {str(e).splitlines()[0][:120]}", flush=True)
        os._exit(0)
    os._exit(3)


def _ddp_losses(device, group, hook, steps=3):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import models
    from torch.nn.parallel import DistributedDataParallel as DDP
    torch.manual_seed(0)
    model = models.make("transformer").to(device)
    ddp = DDP(model, process_group=group, bucket_cap_mb=0.02, gradient_as_bucket_view=True)
    if hook is not None:
        ddp.register_comm_hook(group, hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    losses = []
    for step in range(steps):
        opt.zero_grad()
        x, y = models.batch("transformer", seed=100 * step + RANK)
        with ddp.no_sync():  # a first micro-batch accumulates locally
            models.loss_fn("transformer", ddp(x[:4].to(device)), y[:4].to(device)).backward()
        loss = models.loss_fn("transformer", ddp(x[4:].to(device)), y[4:].to(device))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().cpu() for p in model.parameters()]


def case_ddp(gloo):
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    for hook in (None, default_hooks.allreduce_hook):
        ref, ref_p = _ddp_losses("cpu", gloo, hook)
        got, got_p = _ddp_losses("tpu", dist.group.WORLD, hook)
        name = getattr(hook, "__name__", "no hook")
        for a, b in zip(got, ref):
            check(abs(a - b) <= 1e-5 * abs(b), f"DDP ({name}) loss {got} vs gloo CPU {ref}")
        for a, b in zip(got_p, ref_p):
            check(torch.allclose(a, b, rtol=1e-5, atol=1e-6), f"DDP ({name}) parameters differ: {(a - b).abs().max()}")
        print(f"DDP rank {RANK} ({name}): tpu_dist {got} gloo CPU {ref}", flush=True)


def case_dtensor(gloo):
    """DTensor on a tpu mesh: placements, redistribute, and tensor-parallel
    Linear layers (ColwiseParallel/RowwiseParallel) against the CPU module."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
    mesh = init_device_mesh("tpu", (WORLD,))
    full = torch.arange(4.0 * WORLD * 3).reshape(4 * WORLD, 3)
    d = distribute_tensor(full.to("tpu"), mesh, [Shard(0)])
    same(d.to_local(), full.chunk(WORLD)[RANK], "Shard(0) local")
    same(d.redistribute(mesh, [Replicate()]).to_local(), full, "Shard(0) -> Replicate")
    same(d.redistribute(mesh, [Shard(1)]).full_tensor(), full, "Shard(0) -> Shard(1) full_tensor")
    same((d * 2).sum().full_tensor(), (full * 2).sum(), "Partial sum")
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
    m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
    m.load_state_dict(ref.state_dict())
    m = parallelize_module(m.to("tpu"), mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(7))
    out = m(x.to("tpu"))
    r = ref(x)
    check(torch.allclose(out.cpu(), r, rtol=1e-5, atol=1e-6), f"tensor parallel forward {out.cpu()} vs {r}")
    out.sum().backward(); r.sum().backward()
    g = m[0].weight.grad.full_tensor().cpu()
    check(torch.allclose(g, ref[0].weight.grad, rtol=1e-5, atol=1e-6), "tensor parallel weight grad")


def case_rank_stalls(gloo):
    t = torch.ones(4, device="tpu")
    dist.all_reduce(t)
    import time
    if RANK == 1:
        time.sleep(10)  # alive, but never arrives at the next collective
        os._exit(0)
    t0 = time.time()
    try:
        dist.all_reduce(t)
    except Exception as e:  # noqa: BLE001
        print(f"RAISED after {time.time() - t0:.1f}s: {type(e).__name__}: {str(e).splitlines()[0][:120]}", flush=True)
        os._exit(0)
    os._exit(3)


def case_topo_mesh(gloo):
    # the seeds' launch: TORCH_TPU_* exported from `python -m torch.tpu.distributed`
    # (a simulated 2,2,1 slice for 4 ranks), a mesh from topology_aware_mesh
    from torch.distributed.device_mesh import DeviceMesh

    check(os.environ.get("TORCH_TPU_TOPOLOGY") == "2,2,1", f"TORCH_TPU_TOPOLOGY={os.environ.get('TORCH_TPU_TOPOLOGY')}")
    check(len(os.environ["TORCH_TPU_SLICEBUILDER_ADDRESSES"].split(",")) == 4, "one address per device")
    ring = torch.tpu.topology_aware_mesh(mesh_shape=(4,))
    same(ring, torch.tensor([0, 1, 3, 2]), "ring of 2,2,1")
    mesh = DeviceMesh("tpu", mesh=ring, mesh_dim_names=("tp",), preserve_rank_order=True)
    check(tuple(mesh.get_coordinate()) == ([0, 1, 3, 2].index(RANK),), f"coordinate {mesh.get_coordinate()}")
    t = torch.full((2,), float(RANK + 1), device="tpu")
    dist.all_reduce(t, group=mesh.get_group("tp"))
    same(t, torch.full((2,), 10.0), "all_reduce over the topology-aware tp mesh")
    m2 = DeviceMesh("tpu", mesh=torch.tpu.topology_aware_mesh(mesh_shape=(2, 2)), mesh_dim_names=("dp", "tp"),
                    preserve_rank_order=True)
    t = torch.full((1,), float(RANK), device="tpu")
    dist.all_reduce(t, group=m2["tp"].get_group())
    same(t, torch.full((1,), float(4 * (RANK // 2) + 1)), "2-D mesh tp all_reduce")
    try:
        DeviceMesh("tpu", mesh=ring, preserve_rank_order=False)
        check(False, "preserve_rank_order=False accepted")
    except ValueError as e:
        check("preserve_rank_order" in str(e), str(e))


def main():
    case = sys.argv[1]
    timeout = datetime.timedelta(seconds=float(os.environ.get("DIST_TIMEOUT", "60")))
    device_id = torch.device("tpu", 0) if os.environ.get("DIST_DEVICE_ID") else None
    dist.init_process_group(backend="tpu_dist", timeout=timeout, device_id=device_id)
    # c10d binds new groups to the default group's device; gloo has tpu among
    # its devices (torchtpu/distributed/_backend.py), so this works bound or not
    gloo = dist.new_group(backend="gloo")
    for c in case.split(","):
        globals()["case_" + c](gloo)
    dist.destroy_process_group()
    print(f"OK rank {RANK} {case} {checks[0]} checks", flush=True)


if __name__ == "__main__":
    main()
