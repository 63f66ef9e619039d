"""A view's offset is a runtime operand of the program when other views of
its shape fit elsewhere in the base (x[i], x[i:j], x[:, j], x[i::k]): a loop
writing or reading row i of a buffer compiles once, not once per i. Values
are compared with CPU; the compile counts come from torch.tpu.cache_stats()."""
import pytest
import torch

import torchtpu  # noqa: F401


@pytest.fixture(autouse=True)
def _restore_mode():
    yield
    torch.tpu.set_eager_mode("strict")


def misses():
    return torch.tpu.cache_stats()["misses"]


LOOPS = {
    "write_row": lambda x, v, i: x.__setitem__(i, v[0]),
    "read_row": lambda x, v, i: x[i] * 2,
    "select": lambda x, v, i: x.select(1, i % 6) + 1,
    "slice": lambda x, v, i: x[i:i + 3].sum(0),
    "write_column": lambda x, v, i: x[:, i % 6].copy_(v[1, i % 6].expand(x.shape[0], 4)),
    "read_column": lambda x, v, i: x[:, i % 6, 1] * 3,
    "step_slice": lambda x, v, i: x[i % 5::5] - 1,
    "write_step_slice": lambda x, v, i: x[i % 5::5].add_(1),
    "transposed_row": lambda x, v, i: x.transpose(0, 1)[i % 6].t().mul_(2),
    "inplace_row": lambda x, v, i: x[i].mul_(0.5).add_(v[0]),
    "int_index": lambda x, v, i: x[i, i % 6, i % 4] + 0,
}


def run_loop(body, dev, indices):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(25, 6, 4, generator=g).to(dev)
    v = torch.randn(2, 6, 4, generator=g).to(dev)
    outs = [body(x, v, i) for i in indices]
    return x, [o for o in outs if o is not None]


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_loop_over_i_matches_cpu_and_compiles_once(name):
    body = LOOPS[name]
    run_loop(body, "tpu", [0, 1, 24])  # warm up: offset 0, and a block that needs padding at the end
    torch.tpu.synchronize()
    before = misses()
    indices = list(range(2, 22))
    x, outs = run_loop(body, "tpu", indices)
    torch.tpu.synchronize()
    compiled = misses() - before
    cx, couts = run_loop(body, "cpu", indices)
    torch.testing.assert_close(x.cpu(), cx)
    for o, c in zip(outs, couts):
        torch.testing.assert_close(o.cpu(), c)
    assert compiled == 0, f"{compiled} programs compiled for {len(indices)} offsets"


def test_offsets_at_the_end_of_the_base():
    """A column of the last rows ends inside the base but its block does not:
    the padding is sized without the offset, and the values stay right."""
    got, want = [], []
    for dev, out in (("tpu", got), ("cpu", want)):
        x = torch.arange(60.0).reshape(10, 6).to(dev)
        for j in range(6):
            out.append(x[7:, j] * 1)
            x[7:, j] = -j
        out.append(x.clone())
    for a, b in zip(got, want):
        torch.testing.assert_close(a.cpu(), b)


def test_defer_and_fuse_keeps_fusing_and_reuses_programs():
    def step(x, v, i):
        x[i] = v * i
        return (x[i] + x[i - 1]).sum()

    def loop(dev, n=12):
        x = torch.zeros(16, 8, device=dev)
        v = torch.ones(8, device=dev)
        return x, [step(x, v, i) for i in range(1, n)]

    torch.tpu.set_eager_mode("defer_and_fuse")
    x, outs = loop("tpu")
    before_flushes = torch.tpu.region_stats()["flushes"]
    got = torch.stack(outs).cpu()  # one materialization for the whole loop
    stats = torch.tpu.region_stats()
    assert stats["flushes"] - before_flushes <= 2
    cx, couts = loop("cpu")
    torch.testing.assert_close(got, torch.stack(couts))
    torch.testing.assert_close(x.cpu(), cx)
    # the same loop again, other offsets: the fused program is found in the cache
    x2 = torch.zeros(16, 8, device="tpu")
    v2 = torch.ones(8, device="tpu")
    m0 = misses()
    outs2 = [step(x2, v2, i) for i in range(1, 12)]
    torch.stack(outs2).cpu()
    assert misses() - m0 <= 1
    torch.testing.assert_close(x2.cpu(), cx)
