"""The skinny StableHLO collective programs (csrc/dist) on N CPU devices of one
process, through torchtpu._C._collective_selftest (a private client made and
dropped per call), compared with numpy on the host: every ReduceOp, float,
half, integer, bool and complex dtypes, the whole world and subgroups (the
seeds' (4, 0, 1, 3) / (5, 2, 6, 7) split), and the errors of splits StableHLO
cannot express."""
import numpy as np
import pytest
import torch

import torchtpu
import torchtpu._plugin

_C = torchtpu._C
PLUGIN = torchtpu._plugin.default_plugin_path()
SEEDS = [[4, 0, 1, 3], [5, 2, 6, 7]]
OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"]
DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.int32,
          torch.int64, torch.uint8, torch.bool, torch.complex64]
TOL = {torch.float16: 2e-3, torch.bfloat16: 1e-2, torch.float32: 1e-6, torch.float64: 1e-12,
       torch.complex64: 1e-6}


def rank_input(dtype, rank, shape):
    n = int(np.prod(shape))
    i = np.arange(n)
    v = (rank * 7 + i * 3) % 11
    if dtype == torch.bool:
        return torch.from_numpy((rank + i) % 3 == 0).reshape(shape)
    if dtype == torch.uint8:
        return torch.from_numpy((v % 4).astype(np.uint8)).reshape(shape)
    if dtype.is_complex:
        return torch.complex(torch.tensor(v - 5.0), torch.tensor((v * 5 % 7) - 3.0)).to(dtype).reshape(shape)
    if dtype.is_floating_point:
        return torch.tensor(v - 5 + 0.5 * (rank % 2)).to(dtype).reshape(shape)
    return torch.tensor(v - 5).to(dtype).reshape(shape)


def to_bytes(t):
    t = t.contiguous().reshape(-1)
    if t.numel() == 0:
        return b""
    return t.view(torch.uint8).numpy().tobytes() if t.dtype != torch.bool else t.numpy().tobytes()


def from_bytes(b, dtype, shape):
    if dtype == torch.bool:
        return torch.from_numpy(np.frombuffer(b, dtype=np.bool_).copy()).reshape(shape)
    raw = torch.frombuffer(bytearray(b), dtype=torch.uint8)
    return raw.view(dtype).reshape(shape)


def wide(t):
    """Host value in the widest type of its kind, as numpy."""
    if t.dtype.is_complex:
        return t.to(torch.complex128).numpy()
    if t.dtype.is_floating_point:
        return t.to(torch.float64).numpy()
    return t.to(torch.int64).numpy()


def reference_reduce(op, dtype, members, factors):
    """The group reduction of the members' tensors, computed with numpy."""
    xs = [wide(m) for m in members]
    if op == "PREMUL_SUM":
        xs = [x * f for x, f in zip(xs, factors)]
    if dtype == torch.bool:
        b = [x != 0 for x in xs]
        fn = {"SUM": np.logical_or, "MAX": np.logical_or, "BOR": np.logical_or,
              "PRODUCT": np.logical_and, "MIN": np.logical_and, "BAND": np.logical_and,
              "BXOR": np.logical_xor}[op]
        acc = b[0]
        for x in b[1:]:
            acc = fn(acc, x)
        return acc
    fn = {"SUM": np.add, "AVG": np.add, "PREMUL_SUM": np.add, "PRODUCT": np.multiply,
          "MIN": np.minimum, "MAX": np.maximum, "BAND": np.bitwise_and, "BOR": np.bitwise_or,
          "BXOR": np.bitwise_xor}[op]
    acc = xs[0]
    for x in xs[1:]:
        acc = fn(acc, x)
    if op == "AVG":
        acc = acc / len(xs)
    return acc


def run(kind, op, dtype, shape, world, groups=None, pairs=None, dim=0, concat_dim=0, channel=0,
        factors=None, root=0):
    inputs = [rank_input(dtype, r, shape) for r in range(world)]
    fac_bytes = None
    if factors is not None:
        fac_bytes = [to_bytes(torch.tensor(f, dtype=dtype)) for f in factors]
    outs = _C._collective_selftest(PLUGIN, kind, op, dtype, tuple(shape), dim, concat_dim, world,
                                   groups, pairs, channel, [to_bytes(x) for x in inputs], fac_bytes,
                                   root)
    return inputs, outs


def full_groups(world, groups):
    return _C._replica_groups(world, groups)


def check_close(got, want, dtype, what):
    got_w = wide(got)
    if dtype == torch.bool:
        np.testing.assert_array_equal(got_w != 0, want, err_msg=what)
    elif dtype.is_floating_point or dtype.is_complex:
        tol = TOL[dtype]
        np.testing.assert_allclose(got_w, want, rtol=tol, atol=tol, err_msg=what)
    else:
        # Integers wrap to their width, as on the device.
        np.testing.assert_array_equal(got_w, torch.from_numpy(np.asarray(want)).to(dtype).to(torch.int64).numpy(), err_msg=what)


def allowed(op, dtype):
    if dtype == torch.bool:
        return op not in ("AVG", "PREMUL_SUM")
    if dtype.is_complex:
        return op in ("SUM", "AVG", "PREMUL_SUM")
    if op in ("BAND", "BOR", "BXOR"):
        return not dtype.is_floating_point
    if op == "AVG":
        return dtype.is_floating_point
    return True


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_all_reduce_every_op_seeds_split(dtype):
    world, shape = 8, (3, 2)
    groups = full_groups(world, SEEDS)
    assert groups == SEEDS
    for op in OPS:
        factors = [0.5 * (r + 1) if (dtype.is_floating_point or dtype.is_complex) else r % 3 + 1
                   for r in range(world)] if op == "PREMUL_SUM" else None
        if not allowed(op, dtype):
            with pytest.raises(ValueError, match=op):
                run("all_reduce", op, dtype, shape, world, SEEDS, factors=factors)
            continue
        inputs, outs = run("all_reduce", op, dtype, shape, world, SEEDS, factors=factors)
        for g in groups:
            want = reference_reduce(op, dtype, [inputs[m] for m in g],
                                    None if factors is None else [factors[m] for m in g])
            for m in g:
                check_close(from_bytes(outs[m], dtype, shape), want, dtype, f"{op} rank {m}")


@pytest.mark.parametrize("op,dtype", [("SUM", torch.float32), ("MAX", torch.float32),
                                      ("SUM", torch.int32), ("BXOR", torch.int32),
                                      ("BAND", torch.int64), ("PRODUCT", torch.float16)],
                         ids=str)
def test_reduce_scatter(op, dtype):
    world, shape, dim = 8, (2, 8), 1
    inputs, outs = run("reduce_scatter", op, dtype, shape, world, SEEDS, dim=dim)
    for g in SEEDS:
        total = reference_reduce(op, dtype, [inputs[m] for m in g], None)
        for pos, m in enumerate(g):
            want = np.split(total, len(g), axis=dim)[pos]
            check_close(from_bytes(outs[m], dtype, (2, 2)), want, dtype, f"rank {m}")


@pytest.mark.parametrize("world,groups", [(4, None), (8, SEEDS), (8, [[6, 1]])],
                         ids=["world4", "seeds8", "pairs8"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16], ids=str)
def test_all_gather(world, groups, dtype):
    shape, dim = (2, 3), 1
    full = full_groups(world, groups) if groups else [list(range(world))]
    inputs, outs = run("all_gather", "SUM", dtype, shape, world, groups, dim=dim)
    for g in full:
        want = np.concatenate([wide(inputs[m]) for m in g], axis=dim)
        for m in g:
            got = from_bytes(outs[m], dtype, want.shape)
            np.testing.assert_array_equal(wide(got), want)


@pytest.mark.parametrize("split,concat", [(0, 1), (1, 0), (0, 0)])
def test_all_to_all(split, concat):
    world, groups, dtype = 8, SEEDS, torch.int32
    shape = (4, 4)
    inputs, outs = run("all_to_all", "SUM", dtype, shape, world, groups, dim=split,
                       concat_dim=concat)
    for g in groups:
        for pos, m in enumerate(g):
            parts = [np.split(wide(inputs[k]), len(g), axis=split)[pos] for k in g]
            want = np.concatenate(parts, axis=concat)
            np.testing.assert_array_equal(wide(from_bytes(outs[m], dtype, want.shape)), want)


@pytest.mark.parametrize("root", [0, 1, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int8, torch.bool, torch.complex64], ids=str)
def test_broadcast(root, dtype):
    inputs, outs = run("broadcast", "SUM", dtype, (2, 3), 8, SEEDS, root=root)
    for g in SEEDS:
        for m in g:
            np.testing.assert_array_equal(wide(from_bytes(outs[m], dtype, (2, 3))),
                                          wide(inputs[g[root]]))


def test_collective_permute_send_recv():
    world, dtype, shape = 4, torch.float32, (5,)
    pairs = [[0, 3], [3, 1], [1, 0]]  # rank 2 receives nothing: zeros
    inputs, outs = run("collective_permute", "SUM", dtype, shape, world, pairs=pairs)
    src = {t: s for s, t in pairs}
    for r in range(world):
        want = wide(inputs[src[r]]) if r in src else np.zeros(shape)
        np.testing.assert_array_equal(wide(from_bytes(outs[r], dtype, shape)), want)


@pytest.mark.parametrize("channel", [0, 1, 2])
def test_channel_modes(channel):
    inputs, outs = run("all_reduce", "SUM", torch.float32, (4,), 8, SEEDS, channel=channel)
    for g in SEEDS:
        want = sum(wide(inputs[m]) for m in g)
        for m in g:
            np.testing.assert_allclose(wide(from_bytes(outs[m], torch.float32, (4,))), want)


@pytest.mark.parametrize("kind,shape", [("all_reduce", (0,)), ("all_gather", (0, 2)),
                                        ("all_gather", (2, 0)), ("all_to_all", (4, 0))])
def test_empty_tensors(kind, shape):
    inputs, outs = run(kind, "SUM", torch.float32, shape, 4)
    assert all(len(o) == 0 for o in outs)


def test_zero_dim_all_reduce():
    inputs, outs = run("all_reduce", "MAX", torch.int64, (), 4)
    want = max(int(x) for x in inputs)
    assert [int(from_bytes(o, torch.int64, ())) for o in outs] == [want] * 4


def test_split_errors():
    with pytest.raises(ValueError, match="same size"):
        _C._replica_groups(8, [[0, 1, 2]])
    with pytest.raises(ValueError, match="subgroup 1 has 2 ranks but subgroup 0 has 3"):
        _C._replica_groups(5, [[0, 1, 2], [3, 4]])
    with pytest.raises(ValueError, match="outside the world of 4"):
        _C._replica_groups(4, [[0, 4]])
    with pytest.raises(ValueError, match="must not overlap"):
        _C._replica_groups(4, [[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="source of pairs 0 and 1"):
        run("collective_permute", "SUM", torch.float32, (2,), 4, pairs=[[0, 1], [0, 2]])
    with pytest.raises(ValueError, match="divide evenly"):
        run("reduce_scatter", "SUM", torch.float32, (3,), 8, SEEDS)


def test_engine_untouched_by_selftest_client():
    """A private 8-device client comes and goes; the engine's tpu device and
    its results stay as they were."""
    dev = torch.device("tpu")
    a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    before = (a.to(dev) * 2 + 1).cpu()  # the engine starts before the private client
    n_devices = _C.runtime_info()["num_devices"]
    run("all_reduce", "SUM", torch.float32, (3,), 8, SEEDS)
    after = (a.to(dev) * 2 + 1).cpu()
    torch.testing.assert_close(before, a * 2 + 1)
    torch.testing.assert_close(after, a * 2 + 1)
    assert _C.runtime_info()["num_devices"] == n_devices
