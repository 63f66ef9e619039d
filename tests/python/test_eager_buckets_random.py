"""Random programs over growing tensors with eager buckets on (a small
differential fuzzer for ops/bucket.c): each step grows a cache by cat along
one dim and applies a random chain of the ops that run at a bucket's shape
(elementwise with broadcast operands, dtype copies, where, softmax beside and
along the grown dim, mm/bmm contracting over it or keeping it, indexing by a
position index, prefix slices, transposed views, clone) and of ops that do
not (a reduction, contiguous), comparing every result with CPU. The least
capacity varies (1, 8, the default 128) so recognition of tensors padded
under another setting is exercised too."""
import random

import pytest
import torch

import torchtpu  # noqa: F401


@pytest.fixture
def buckets():
    mode, least = torch.tpu.get_eager_mode(), torch.tpu.get_eager_bucket_min()
    yield
    torch.tpu.set_eager_buckets(False, min_capacity=least)
    torch.tpu.set_eager_mode(mode)


def _close(t, c, what):
    t = t.cpu()
    assert t.shape == c.shape and t.dtype == c.dtype, what
    if c.dtype.is_floating_point:
        torch.testing.assert_close(t, c, rtol=1e-4, atol=1e-5, equal_nan=True, msg=what)
    else:
        assert torch.equal(t, c), what


def _chain(rng, x, n, d, other):
    """Random ops on a tensor x (grown dim d, length n); `other` draws a
    same-shape operand. Returns [(name, fn)], each fn(x, extra) -> tensor."""
    ops = []
    rank = x.dim()
    ones = [1] * rank
    bshape = list(x.shape)
    bshape[d] = 1
    ops.append(("add broadcast", lambda t, e: t + e["bcast"]))
    ops.append(("mul same length", lambda t, e: t * e["same"]))
    ops.append(("sub scalar", lambda t, e: 3.0 - t))
    ops.append(("exp neg", lambda t, e: (t * 0.1).exp().neg()))
    ops.append(("where", lambda t, e: torch.where(t > 0, t, e["same"])))
    ops.append(("to double", lambda t, e: t.to(torch.float64)))
    ops.append(("to bool then where", lambda t, e: torch.where((t > 0.3).to(torch.bool), 1.0, -1.0)))
    ops.append(("softmax along", lambda t, e: torch.softmax(t, dim=d)))
    ops.append(("log_softmax beside", lambda t, e: torch.log_softmax(t, dim=(d + 1) % rank) if rank > 1 else t))
    ops.append(("prefix slice", lambda t, e: t.narrow(d, 0, max(1, t.shape[d] - 1)) * 2))
    ops.append(("transposed", lambda t, e: t.transpose(0, -1) + 1))
    ops.append(("clone", lambda t, e: t.clone()))
    ops.append(("contiguous", lambda t, e: t.contiguous()))
    ops.append(("sum along", lambda t, e: t.sum(d)))
    ops.append(("cumsum along", lambda t, e: t.cumsum(d)))
    ops.append(("cumsum beside", lambda t, e: t.cumsum((d + 1) % rank)))
    # in place on a copy (a padded result owning its storage) and on a view of one
    ops.append(("mul_ in place", lambda t, e: (t * 1.0).mul_(e["bcast"])))
    ops.append(("masked_fill_ in place", lambda t, e: (t + 0.0).masked_fill_(t > 0.2, -2.0)))
    ops.append(("div_ on a prefix view", lambda t, e: (t + 0.0).narrow(d, 0, 1).div_(4.0)))
    ops.append(("amax beside", lambda t, e: t.amax((d + 1) % rank)))
    if rank == 3:
        ops.append(("bmm over", lambda t, e: torch.bmm(t.transpose(1, 2), t) if d == 1 else t))
        ops.append(("bmm keep", lambda t, e: torch.bmm(t, e["right"]) if d == 1 else t))
        ops.append(("matmul scores", lambda t, e: torch.softmax(t @ t.transpose(1, 2), -1) @ t))
        ops.append(("baddbmm keep", lambda t, e: torch.baddbmm(e["bcast"].transpose(1, 2)[:, :1], t.transpose(1, 2), t, alpha=0.5) if d == 1 else t))
        ops.append(("baddbmm over", lambda t, e: torch.baddbmm(torch.ones(1, device=t.device), t.transpose(1, 2), t) if d == 1 else t))
    if rank == 2:
        ops.append(("mm over", lambda t, e: t.t() @ t if d == 0 else t @ t.t()))
        ops.append(("index by position", lambda t, e: t[torch.arange(t.shape[0], device=t.device)[:, None],
                                                       torch.arange(t.shape[1], device=t.device)[None, :]]))
    return ops


@pytest.mark.parametrize("seed", range(12))
def test_random_bucket_programs_match_cpu(buckets, seed):
    rng = random.Random(seed)
    torch.tpu.set_eager_mode(rng.choice(["strict", "strict", "defer_and_fuse"]))
    torch.tpu.set_eager_buckets(True, min_capacity=rng.choice([1, 8, 128]))
    g = torch.Generator().manual_seed(seed)
    rank = rng.choice([2, 3])
    d = rng.randrange(rank)
    shape = [rng.randint(1, 4) for _ in range(rank)]
    shape[d] = rng.randint(1, 3)
    c = torch.randn(*shape, generator=g)
    t = c.to("tpu")
    for step in range(rng.randint(6, 14)):
        reset = step == 4 and rng.random() < 0.5
        if reset:  # a tensor padded under one least capacity read under another
            torch.tpu.set_eager_buckets(True, min_capacity=rng.choice([1, 8, 128]))
        gshape = list(c.shape)
        gshape[d] = rng.choice([1, 1, 2])
        new = torch.randn(*gshape, generator=g)
        # an append is bucketed: a tensor growing by one row, or along a sequence dim (rank 3: the
        # middle one, rank 2: the last), or padded already (a concatenation of parts is not: rotary
        # halves along head_dim); a capacity of a larger least capacity than the one now set may be
        # read as a plain view
        seq = d == rank - 2 if rank >= 3 else d == rank - 1
        append = gshape[d] == 1 or seq or (t.untyped_storage().nbytes() > t.numel() * 4 and not reset)
        c, t = torch.cat([c, new], dim=d), torch.cat([t, new.to("tpu")], dim=d)
        _close(t, c, f"seed {seed} step {step}: the grown tensor")
        padded = t.untyped_storage().nbytes() > t.numel() * 4
        if append:  # the padded path runs
            assert padded, f"seed {seed} step {step}: cat grew no bucket"
        n = c.shape[d]
        bshape = list(c.shape)
        bshape[d] = 1
        extra_c = {"bcast": torch.randn(*bshape, generator=g), "same": torch.randn(*c.shape, generator=g)}
        if rank == 3:
            extra_c["right"] = torch.randn(c.shape[0], c.shape[2], 3, generator=g)
        extra_t = {k: v.to("tpu") for k, v in extra_c.items()}
        ops = _chain(rng, c, n, d, None)
        xc, xt = c, t
        for _ in range(rng.randint(1, 3)):
            name, fn = rng.choice(ops)
            yc, yt = fn(xc, extra_c), fn(xt, extra_t)
            _close(yt, yc, f"seed {seed} step {step} length {n}: {name}")
            if yc.shape == xc.shape and yc.dtype == xc.dtype:  # chain on while the shape allows
                xc, xt = yc, yt
