"""The offsets of views into the tensors a compiled graph makes are constants
of its program (csrc/exec/lower_env.c env_fixed): a view read at a known
offset is a static slice instead of a padded copy and a dynamic slice
(csrc/views/view.c digit_box). Values must be those of CPU PyTorch; plans
kept per value of an integer argument still share one program (the offset
stays an argument there); Python numbers stay runtime arguments (XLA would
fold a constant divisor into a product with its rounded reciprocal)."""
import random

import pytest
import torch
import torch.nn.functional as F

TOL = dict(atol=1e-5, rtol=1e-5)


def _view_recipe(rng, shape):
    """A random strided view of a contiguous tensor of `shape`: a
    permutation, per dimension a narrow and a step, maybe an index: every
    kind of block view graph readers meet (unbind, narrow, select,
    transpose, chunk). Drawn outside the graph (Dynamo does not trace
    random), applied inside by _apply."""
    perm = rng.sample(range(len(shape)), len(shape))
    dims = [shape[p] for p in perm]
    cuts = []
    for n in dims:
        start = rng.randrange(n)
        stop = rng.randrange(start + 1, n + 1)
        cuts.append((start, stop - start, rng.choice((1, 1, 2))))
    sizes = [-(-length // step) for _, length, step in cuts]
    pick = None
    if len(sizes) > 1 and rng.random() < 0.5:
        d = rng.randrange(len(sizes))
        pick = (d, rng.randrange(sizes[d]))
    return perm, cuts, pick


def _apply(recipe, y):
    perm, cuts, pick = recipe
    v = y.permute(*perm)
    for d, (start, length, step) in enumerate(cuts):
        v = v.narrow(d, start, length)[(slice(None),) * d + (slice(None, None, step),)]
    if pick is not None:
        v = v.select(*pick)
    return v


def _shape(rng):
    return tuple(rng.randint(1, 5) for _ in range(rng.randint(2, 4)))


@pytest.mark.parametrize("seed", range(6))
def test_random_views_read_and_written_in_a_graph(seed):
    """Views of a tensor the graph made (so their offsets are baked), read
    and written in place, against CPU: 12 views per seed, each compiled."""
    rng = random.Random(seed)
    for _ in range(12):
        shape = _shape(rng)
        recipe = _view_recipe(rng, shape)

        def f(x, w, recipe=recipe):
            y = x * 2 + 1  # made by the graph: its views' offsets are constants
            v = _apply(recipe, y)
            r = v * 3
            v.mul_(w)  # a write through the view
            return r, y

        x = torch.randn(shape)
        w = torch.tensor(1.5)
        want = f(x, w)
        torch._dynamo.reset()  # one code object, a new recipe each time: past Dynamo's recompile limit
        got = torch.compile(f, backend="tpu", fullgraph=True)(x.to("tpu"), w.to("tpu"))
        for a, b in zip(want, got):
            torch.testing.assert_close(b.cpu(), a, **TOL)


def test_unbind_of_qkv_in_a_compiled_attention_block():
    """k and v of qkv.unbind(0) start inside a row of the qkv projection's
    output: read as static slices, forward and backward match CPU."""
    torch.manual_seed(0)
    b, t, d, h = 2, 5, 12, 3
    qkv_w = torch.randn(3 * d, d) * 0.2

    def block(x, w):
        qkv = F.linear(x, w).view(b, t, 3, h, d // h).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)

    x = torch.randn(b, t, d)
    w = qkv_w.clone().requires_grad_()
    want = block(x, w)
    want.square().sum().backward()
    wt = qkv_w.to("tpu").requires_grad_()
    fc = torch.compile(block, backend="tpu")
    for _ in range(2):
        wt.grad = None
        got = fc(x.to("tpu"), wt)
        got.square().sum().backward()
        torch.testing.assert_close(got.cpu(), want.detach(), **TOL)
        torch.testing.assert_close(wt.grad.cpu(), w.grad, **TOL)


def test_python_numbers_stay_runtime_values_so_division_is_exact():
    """x / c in a graph is CPU's division bit for bit: as a constant, XLA
    would multiply by the rounded 1 / c (a third to a half of the values 1
    ulp off); in every dtype the number keeps its rounding."""

    def f(x, xb, xh, xi):
        # (no product feeding a sum: XLA CPU contracts those into one FMA)
        return x / 3.0, x / 41.0, x / 0.1, xb / 3.0, xh / 7.0, xi * 1000003 + (2**40 + 7)

    x = torch.randn(20000)
    args = (x, torch.randn(64).bfloat16(), torch.randn(64).half(), torch.randint(-9, 9, (64,)))
    want = f(*args)
    got = torch.compile(f, backend="tpu", fullgraph=True)(*[a.to("tpu") for a in args])
    for a, b in zip(want, got):
        assert a.dtype == b.dtype
        assert torch.equal(b.cpu(), a), (a, b)


def test_plans_per_integer_argument_share_one_program():
    """An integer argument Dynamo made symbolic, with every tensor shape
    static, gets a plan per value: the offsets that follow it stay program
    arguments, so the plans after the first symbolic one compile nothing new."""

    def f(x, n):
        y = x * 2  # made by the graph: y[n]'s offset follows n
        return (y * n + 1).sum(0) + y[n]

    fc = torch.compile(f, backend="tpu")
    x = torch.randn(40, 3)
    xt = x.to("tpu")
    seen = []
    for n in (2, 3, 4, 5, 6, 7):
        torch.testing.assert_close(fc(xt, n).cpu(), f(x, n), **TOL)
        seen.append(torch.tpu.cache_stats()["requests"] - torch.tpu.cache_stats()["tier1_hits"])
    # n = 2: the static graph; n = 3: the symbolic one (a new program); then none
    assert seen[2:] == [seen[1]] * 4, seen
    assert torch.tpu.plan_stats()["size_calls"] >= 5


def test_counts_stay_runtime_values_in_a_compiled_graph():
    """Means, norms and avg_pool divide by a count XLA must not see as a
    constant (it would multiply by the rounded reciprocal: ones(3, 41)'s mean
    0.99999994, a constant row's layer norm off 0): a runtime number in
    compiled graphs too."""

    def f(x, c):
        return (x.mean(1), F.layer_norm(c, (41,)), F.avg_pool1d(x.unsqueeze(0), 41), x.var(1),
                F.group_norm(c.view(3, 1, 41), 1))

    x = torch.ones(3, 41)
    c = torch.full((3, 41), 0.3)
    want = f(x, c)
    got = torch.compile(f, backend="tpu", fullgraph=True)(x.to("tpu"), c.to("tpu"))
    for a, b in zip(want, got):
        assert torch.equal(b.cpu(), a), (a, b)
