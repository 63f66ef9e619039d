"""Eager with changing shapes (issue 15, part 5): with eager buckets on, cat
grows a tensor inside a power-of-two capacity and the ops of a KV-cache loop
(cat, elementwise, mm/bmm, softmax) on such padded tensors compile once per
bucket. Small tensors start at a least capacity (128 by default), so a small
cache's first 127 lengths share one bucket. Results are compared with PyTorch
on CPU at every length; the count of programs compiled is compared across
loop lengths."""
import math

import pytest
import torch

import torchtpu  # noqa: F401


@pytest.fixture
def buckets():
    mode = torch.tpu.get_eager_mode()
    least = torch.tpu.get_eager_bucket_min()
    torch.tpu.set_eager_buckets(True)
    yield
    torch.tpu.set_eager_buckets(False, min_capacity=least)
    torch.tpu.set_eager_mode(mode)


def misses():
    torch.tpu.synchronize()  # compiles finish (and are counted) by then
    return torch.tpu.cache_stats()["misses"]


def kv_steps(device, steps, heads, dim, seed=0):
    """Yields (keys, attention output) after each step of a KV-append + attention loop."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(1, heads, 1, dim, generator=g).to(device)
    news = [(torch.randn(1, heads, 1, dim, generator=g).to(device), torch.randn(1, heads, 1, dim, generator=g).to(device))
            for _ in range(3)]
    k = torch.zeros(1, heads, 0, dim, device=device)
    v = torch.zeros(1, heads, 0, dim, device=device)
    for i in range(steps):
        nk, nv = news[i % 3]
        k = torch.cat([k, nk], dim=2)
        v = torch.cat([v, nv], dim=2)
        s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(dim))
        p = torch.softmax(s, dim=-1)
        yield k, torch.matmul(p, v)


@pytest.mark.parametrize("mode", ["strict", "defer_and_fuse"])
def test_kv_loop_matches_cpu_at_every_length(buckets, mode):
    torch.tpu.set_eager_mode(mode)
    steps = 70 if mode == "strict" else 36
    for n, ((kc, oc), (kt, ot)) in enumerate(zip(kv_steps("cpu", steps, 2, 8), kv_steps("tpu", steps, 2, 8)), 1):
        assert kt.shape == kc.shape == (1, 2, n, 8)
        torch.testing.assert_close(kt.cpu(), kc, rtol=0, atol=0, msg=f"keys at length {n}")
        torch.testing.assert_close(ot.cpu(), oc, msg=f"attention at length {n}")


def counted_kv_loop(steps, dim):
    """(programs compiled, misses after each step, the last keys) of a tpu KV loop with 3 heads."""
    before = misses()
    per_step = []
    for k, o in kv_steps("tpu", steps, 3, dim):
        per_step.append(misses())
    o.cpu()
    return per_step[-1] - before, per_step, k


def test_kv_loop_compiles_once_per_bucket(buckets):
    """Every power of two a bucket (min_capacity=1)."""
    torch.tpu.set_eager_mode("strict")
    torch.tpu.set_eager_buckets(True, min_capacity=1)
    # Shapes of their own (3 heads, dims 5 and 7) so no earlier test compiled these programs.
    counts = {}
    for steps, dim in ((16, 5), (64, 7)):
        counts[steps], per_step, _ = counted_kv_loop(steps, dim)
    assert counts[64] <= 1.5 * counts[16], counts
    # Lengths 34..63 share the bucket of capacity 64 that length 32 opened (and 33 finished).
    assert per_step[62] == per_step[33], per_step


def test_small_caches_start_at_the_least_capacity(buckets):
    """The default least capacity (128): lengths 1..127 of a small cache
    are one bucket (64 steps compile what 16 do, nothing after the third
    step); length 128 opens the next, a power of two as before."""
    torch.tpu.set_eager_mode("strict")
    assert torch.tpu.get_eager_bucket_min() == 128
    counts = {}
    for steps, dim in ((16, 9), (64, 11), (140, 13)):  # shapes of their own
        counts[steps], per_step, k = counted_kv_loop(steps, dim)
        assert k.untyped_storage().nbytes() == 3 * dim * (128 if steps < 128 else 256) * 4
        assert per_step[min(steps, 127) - 1] == per_step[2], per_step
    assert counts[64] <= counts[16], counts  # the scale of scores (no dim in its shape) is shared
    assert counts[16] < counts[140] <= 2 * counts[16], counts


def test_large_tensors_keep_powers_of_two(buckets):
    """The least capacity applies while the tensor stays within 65536
    elements: a larger row is raised only as far as that allows, and a row
    of more than 65536 / 16 elements keeps the plain power of two."""
    for row_dims, cap in (((2, 4), 128), ((4, 200), 64), ((4, 4096), 8)):
        a, b = torch.randn(1, row_dims[0], 5, row_dims[1]), torch.randn(1, row_dims[0], 1, row_dims[1])
        c = torch.cat([a.to("tpu"), b.to("tpu")], dim=2)
        assert c.untyped_storage().nbytes() == row_dims[0] * cap * row_dims[1] * 4, row_dims
        torch.testing.assert_close(c.cpu(), torch.cat([a, b], dim=2), rtol=0, atol=0)


def test_a_tensor_bucketed_under_another_least_capacity_still_runs_padded(buckets):
    """A cache grown with min_capacity=1 (capacity 8) meets ops after the
    default is back: read as padded (no compile per length) and equal to CPU."""
    torch.tpu.set_eager_mode("strict")
    torch.tpu.set_eager_buckets(True, min_capacity=1)
    g = torch.Generator().manual_seed(4)
    kc = torch.randn(1, 2, 5, 6, generator=g)
    k = torch.cat([kc[:, :, :4].to("tpu"), kc[:, :, 4:].to("tpu")], dim=2)
    assert k.untyped_storage().nbytes() == 2 * 8 * 6 * 4
    torch.tpu.set_eager_buckets(True, min_capacity=128)
    for n in range(6, 10):
        new = torch.randn(1, 2, 1, 6, generator=g)
        k, kc = torch.cat([k, new.to("tpu")], dim=2), torch.cat([kc, new], dim=2)
        torch.testing.assert_close(torch.softmax(k @ k.transpose(-1, -2), -1).cpu(),
                                   torch.softmax(kc @ kc.transpose(-1, -2), -1))
    with pytest.raises(ValueError, match="min_capacity must be >= 1"):
        torch.tpu.set_eager_buckets(True, min_capacity=0)


def test_padding_never_reaches_a_result(buckets):
    """A prefix view of a larger storage runs padded: NaN and inf past the
    length must not leak into contractions, softmax or what comes back."""
    torch.tpu.set_eager_mode("strict")
    g = torch.Generator().manual_seed(1)
    for n in (3, 5, 6):
        base = torch.full((2, 8, 4), float("nan"))
        base[:, n:, 0] = float("inf")
        data = torch.randn(2, n, 4, generator=g)
        base[:, :n] = data
        x = base.to("tpu")[:, :n]  # a prefix of capacity 8 along dim 1
        y = torch.randn(2, 4, 3, generator=g)
        w = torch.randn(2, 1, n, generator=g)
        cases = {
            "bmm over the padded dim": (lambda a: torch.bmm(a.transpose(1, 2), a), lambda a: torch.bmm(a.transpose(1, 2), a)),
            "bmm keeping it": (lambda a: torch.bmm(a, y.to(a.device)), None),
            "softmax over it": (lambda a: torch.softmax(a, dim=1), None),
            "softmax beside it": (lambda a: torch.log_softmax(a, dim=2), None),
            "elementwise": (lambda a: (a * 2 + 1).exp().neg(), None),
            "then contracted": (lambda a: torch.bmm(w.to(a.device), torch.softmax(a * 0.5, dim=1)), None),
        }
        for name, (fn, _) in cases.items():
            torch.testing.assert_close(fn(x).cpu(), fn(data), msg=f"{name}, length {n}")


def test_mixed_and_declined_operands_fall_back_correctly(buckets):
    """A static operand the length of the padded dim (a mask), a padded
    operand meeting another length, in-place ops: lowered as usual, same results."""
    torch.tpu.set_eager_mode("strict")
    g = torch.Generator().manual_seed(2)
    k = torch.zeros(1, 2, 0, 4, device="tpu")
    kc = torch.zeros(1, 2, 0, 4)
    for n in range(1, 12):
        new = torch.randn(1, 2, 1, 4, generator=g)
        k, kc = torch.cat([k, new.to("tpu")], dim=2), torch.cat([kc, new], dim=2)
        bias = torch.randn(1, 1, 1, n, generator=g)
        cond = torch.rand(1, 2, n, 1, generator=g) > 0.5
        s_t, s_c = k @ k.transpose(-1, -2), kc @ kc.transpose(-1, -2)
        torch.testing.assert_close((s_t + bias.to("tpu")).cpu(), s_c + bias)
        torch.testing.assert_close(torch.where(cond.to("tpu"), k, -k).cpu(), torch.where(cond, kc, -kc))
        t = k * 1.0
        t.mul_(3.0)
        torch.testing.assert_close(t.cpu(), kc * 3.0)
        torch.testing.assert_close(k.contiguous().view(2, n, 4).cpu(), kc.view(2, n, 4))


def test_backward_through_a_growing_cache(buckets):
    torch.tpu.set_eager_mode("strict")
    g = torch.Generator().manual_seed(3)
    q0 = torch.randn(1, 2, 1, 4, generator=g)
    news = [torch.randn(1, 2, 1, 4, generator=g) for _ in range(6)]
    grads = []
    for device in ("cpu", "tpu"):
        q = q0.to(device).detach().requires_grad_()
        leaves = [t.to(device).detach().requires_grad_() for t in news]
        k = torch.zeros(1, 2, 0, 4, device=device)
        total = 0
        for t in leaves:
            k = torch.cat([k, t * 1.5], dim=2)
            total = total + torch.matmul(torch.softmax(torch.matmul(q, k.transpose(-1, -2)), -1), k).sum()
        total.backward()
        grads.append([q.grad.cpu()] + [t.grad.cpu() for t in leaves])
    for a, b in zip(*grads):
        torch.testing.assert_close(b, a)


def test_off_by_default_and_cat_stays_contiguous():
    assert torch.tpu.get_eager_buckets() is False
    a, b = torch.randn(1, 2, 3, 4, device="tpu"), torch.randn(1, 2, 1, 4, device="tpu")
    assert torch.cat([a, b], dim=2).is_contiguous()


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_generate_with_buckets_gives_cpus_greedy_tokens(buckets, family):
    """transformers' generate() with a growing KV cache, Strict with
    buckets: CPU's greedy tokens for a batch of 2 with left padding (the
    attention mask grows by cat too), and for a batch of 1 no program
    compiled per new length once the first decode steps have run."""
    transformers = pytest.importorskip("transformers")
    torch.tpu.set_eager_mode("strict")
    torch.manual_seed(0)
    if family == "gpt2":
        cfg = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=16, vocab_size=64, n_positions=64)
        cls = transformers.GPT2LMHeadModel
    else:
        cfg = transformers.LlamaConfig(num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                                       hidden_size=16, intermediate_size=32, vocab_size=64, max_position_embeddings=64)
        cls = transformers.LlamaForCausalLM
    model = cls(cfg).eval()
    model.config._attn_implementation = "eager"
    ids = torch.randint(3, 64, (2, 5), generator=torch.Generator().manual_seed(1))
    mask = torch.ones_like(ids)
    mask[1, :2] = 0
    kw = dict(do_sample=False, pad_token_id=0, eos_token_id=None)
    with torch.no_grad():
        want = model.generate(ids, attention_mask=mask, max_new_tokens=24, **kw)
        want1 = model.generate(ids[:1], max_new_tokens=40, **kw)
        model.to("tpu")
        got = model.generate(ids.to("tpu"), attention_mask=mask.to("tpu"), max_new_tokens=24, **kw).cpu()
        assert torch.equal(got, want)
        got1 = model.generate(ids[:1].to("tpu"), max_new_tokens=24, **kw).cpu()
        before = misses()
        again = model.generate(ids[:1].to("tpu"), max_new_tokens=40, **kw).cpu()
        assert misses() == before  # lengths 30-45 are in the bucket lengths 6-29 ran in
        assert torch.equal(again, want1) and torch.equal(got1, want1[:, :29])
        # the padded batch's mask chain (a bool copy of the grown mask, indexed by
        # batch and position) runs at the bucket's shape too
        # (llama's grouped-query keys repeat along a stride-0 head dim: torchtpu/_matmul.py
        # folds the repeat instead of copying the cache per length)
        before = misses()
        again2 = model.generate(ids.to("tpu"), attention_mask=mask.to("tpu"), max_new_tokens=40, **kw).cpu()
        assert misses() == before
        torch.testing.assert_close(again2[:, :29], want, rtol=0, atol=0)


def test_index_at_a_bucket_shape_bounds_by_the_logical_length(buckets):
    """index.Tensor of a padded tensor by a batch index and a padded position
    index: equal to CPU at every length with one program for the bucket;
    negative indices wrap by the logical length, and an index past it
    raises CPU's IndexError even though the capacity would hold it."""
    torch.tpu.set_eager_mode("strict")
    g = torch.Generator().manual_seed(5)
    m = torch.randint(0, 2, (3, 4), generator=g)
    mt = m.to("tpu")
    counts = []
    for n in range(5, 12):
        new = torch.randint(0, 2, (3, 1), generator=g)
        m, mt = torch.cat([m, new], dim=1), torch.cat([mt, new.to("tpu")], dim=1)
        b, kv = torch.arange(3)[:, None, None], torch.arange(n)[None, None, :]
        bt, kvt = torch.arange(3, device="tpu")[:, None, None], torch.arange(n, device="tpu")[None, None, :]
        before = misses()
        got = mt.bool()[bt, kvt]
        assert torch.equal(got.cpu(), m.bool()[b, kv])
        assert torch.equal(mt[bt, kvt - n].cpu(), m[b, kv - n])  # negative: wrapped by n, not the capacity
        counts.append(misses() - before)
    assert counts[-1] == 0 and counts[-2] == 0, counts
    with pytest.raises(IndexError, match=f"index {n} is out of bounds for dimension 1 with size {n}"):
        mt[bt, kvt + 1].cpu()
        torch.tpu.synchronize()
    c = mt.to(torch.float64, memory_format=torch.contiguous_format)
    assert c.is_contiguous() and torch.equal(c.cpu(), m.double())


def rotary_kv_steps(device, steps, rot, rest, seed=0):
    """A KV loop whose queries and keys are concatenations of a rotated and a passed-through part
    along head_dim (partial rotary embeddings: stablelm, phi), attended over the growing cache."""
    g = torch.Generator().manual_seed(seed)
    dim = rot + rest
    parts = [torch.randn(1, 2, 1, n, generator=g).to(device) for n in (rot, rest, rot, rest, dim)]
    k = v = None
    for i in range(steps):
        scale = 1.0 + i / 8
        q = torch.cat([parts[0] * scale, parts[1]], dim=-1)  # parts: no append
        nk = torch.cat([parts[2] * scale, parts[3]], dim=-1)
        nv = parts[4] * scale
        k = nk if k is None else torch.cat([k, nk], dim=2)
        v = nv if v is None else torch.cat([v, nv], dim=2)
        p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dim), dim=-1)
        yield q, p @ v


@pytest.mark.parametrize("rot,rest", [(4, 12), (6, 6), (10, 6), (14, 2)])
def test_partial_rotary_loop_compiles_per_bucket_not_per_length(buckets, rot, rest):
    """A cat of parts along head_dim stays exact, so the attention runs at the cache's bucket (padding both would give its matmul two padded lengths, and a program per length)."""
    torch.tpu.set_eager_mode("strict")
    before = misses()
    per_step = []
    for n, ((qc, oc), (qt, ot)) in enumerate(zip(rotary_kv_steps("cpu", 40, rot, rest),
                                                  rotary_kv_steps("tpu", 40, rot, rest)), 1):
        torch.testing.assert_close(ot.cpu(), oc, msg=f"attention at length {n}")
        assert qt.untyped_storage().nbytes() == qt.numel() * 4, "the head_dim cat was padded"
        per_step.append(misses())
    assert per_step[-1] == per_step[4], [m - before for m in per_step]  # nothing new past the first steps


def grown(device, steps, rows=3, dim=5, seed=0):
    """A [rows, steps, dim] tensor grown one row at a time along dim 1 (padded with buckets on)."""
    g = torch.Generator().manual_seed(seed)
    parts = [torch.randn(rows, 1, dim, generator=g) for _ in range(steps)]
    t = parts[0].to(device)
    for p in parts[1:]:
        t = torch.cat([t, p.to(device)], dim=1)
    return t


@pytest.mark.parametrize("op", ["div_", "mul_", "add_", "sub_", "masked_fill_", "neg_", "exp_"])
def test_in_place_elementwise_on_a_padded_tensor(buckets, op):
    """An in-place elementwise op on a padded tensor that owns its storage runs at the bucket's shape
    (attention scores scaled in place: falcon's `scores /= sqrt(d)`); whatever it writes into the
    padding, a contraction over the padded dim afterwards still reads zeros there."""
    torch.tpu.set_eager_mode("strict")
    for steps in (6, 9, 13):
        c, t = grown("cpu", steps), grown("tpu", steps)
        assert t.untyped_storage().nbytes() > t.numel() * 4  # padded
        for x in (c, t):
            if op == "masked_fill_":
                x.masked_fill_(x > 0.5, -3.0)
            elif op in ("neg_", "exp_"):
                getattr(x, op)()
            else:
                getattr(x, op)(1.5)
        exact = {} if op == "exp_" else {"rtol": 0, "atol": 0}  # exp: within an ulp of CPU's
        torch.testing.assert_close(t.cpu(), c, **exact)
        # the padding was written too: contractions over the padded dim mask it
        torch.testing.assert_close((t.transpose(1, 2) @ t).cpu(), c.transpose(1, 2) @ c)
        torch.testing.assert_close(torch.softmax(t, dim=1).cpu(), torch.softmax(c, dim=1))
    before = misses()
    for steps in (20, 25, 30):  # one bucket: nothing new to compile
        t = grown("tpu", steps)
        t.div_(1.5)
        t.cpu()
    assert misses() - before <= 2, "the in-place op compiled per length"


def test_in_place_on_a_view_of_a_padded_tensor_stays_exact(buckets):
    """A view that does not span its padded storage (a slice) is written exactly, never its
    neighbours' elements."""
    torch.tpu.set_eager_mode("strict")
    c, t = grown("cpu", 7), grown("tpu", 7)
    c[:, 2:5].mul_(10.0)
    t[:, 2:5].mul_(10.0)
    c[1].add_(1.0)
    t[1].add_(1.0)
    torch.testing.assert_close(t.cpu(), c, rtol=0, atol=0)


def test_cumsum_along_and_beside_the_padded_dim(buckets):
    torch.tpu.set_eager_mode("strict")
    before = None
    for steps in (5, 8, 11, 14):
        c, t = grown("cpu", steps), grown("tpu", steps)
        torch.testing.assert_close(t.cumsum(1).cpu(), c.cumsum(1))
        torch.testing.assert_close(t.cumsum(2).cpu(), c.cumsum(2))
        torch.testing.assert_close((t > 0).long().cumsum(-2).cpu(), (c > 0).long().cumsum(-2), rtol=0, atol=0)
        if before is None:
            before = misses()
    assert misses() == before, "cumsum compiled per length"


def test_baddbmm_with_a_padded_key_and_bias(buckets):
    """bloom's attention scores: alibi.baddbmm(q, k^T, beta, alpha) with k (and the alibi bias)
    padded along the keys; and probabilities @ values, the contracted dim padded."""
    torch.tpu.set_eager_mode("strict")
    g = torch.Generator().manual_seed(3)
    q = torch.randn(4, 1, 6, generator=g)
    new_programs = []
    for steps in (5, 9, 12, 14):  # one bucket (capacity 128)
        kc = grown("cpu", steps, rows=4, dim=6, seed=steps)
        kt = grown("tpu", steps, rows=4, dim=6, seed=steps)
        bias_t = grown("tpu", steps, rows=4, dim=1, seed=steps + 100).transpose(1, 2)  # [4, 1, T], padded
        bias_c = grown("cpu", steps, rows=4, dim=1, seed=steps + 100).transpose(1, 2)
        p_c = torch.softmax(bias_c, -1)
        p_t = torch.softmax(bias_t, -1)
        torch.tpu.synchronize()
        before = misses()
        got = [bias_t.baddbmm(q.to("tpu"), kt.transpose(1, 2), beta=0.5, alpha=0.25),
               torch.ones(4, 1, 1, device="tpu").baddbmm(q.to("tpu"), kt.transpose(1, 2)),
               torch.ones(4, 1, 6, device="tpu").baddbmm(p_t, kt)]
        new_programs.append(misses() - before)
        ref = [bias_c.baddbmm(q, kc.transpose(1, 2), beta=0.5, alpha=0.25),
               torch.ones(4, 1, 1).baddbmm(q, kc.transpose(1, 2)), torch.ones(4, 1, 6).baddbmm(p_c, kc)]
        for x, y in zip(got, ref):
            torch.testing.assert_close(x.cpu(), y)
    assert new_programs[1:] == [0, 0, 0], f"baddbmm compiled per length: {new_programs}"


def test_multi_query_matmul_folds_for_every_batch(buckets):
    """q [B, H, 1, D] @ k^T [B, 1, D, T] (falcon's multi-query attention): with B > 1 PyTorch's
    matmul copies the broadcast keys; the fold reads them in place (no program per length)."""
    torch.tpu.set_eager_mode("strict")
    g = torch.Generator().manual_seed(4)
    q = torch.randn(2, 4, 1, 5, generator=g)
    before = None
    for steps in (6, 9, 12, 15):
        kc = grown("cpu", steps, rows=2, dim=5, seed=steps)[:, None]  # [2, 1, T, 5]
        kt = grown("tpu", steps, rows=2, dim=5, seed=steps)[:, None]
        s_c = torch.softmax(q @ kc.transpose(-1, -2), -1)
        s_t = torch.softmax(q.to("tpu") @ kt.transpose(-1, -2), -1)
        torch.testing.assert_close(s_t.cpu(), s_c)
        torch.testing.assert_close((s_t @ kt).cpu(), s_c @ kc)
        if before is None:
            before = misses()
    assert misses() == before, "multi-query attention compiled per length"


def test_padded_operands_that_must_not_run_padded(buckets):
    """An in-place op whose broadcast result outgrows self raises PyTorch's error; baddbmm with only
    its bias padded (the product's length exact) runs exactly."""
    torch.tpu.set_eager_mode("strict")
    for dev in ("cpu", "tpu"):
        t = grown(dev, 6, dim=1)
        with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
            t.add_(torch.ones(3, 1, 4, device=dev))
    bias_c = grown("cpu", 6, dim=1).transpose(1, 2)  # [3, 1, 6]
    bias_t = grown("tpu", 6, dim=1).transpose(1, 2)
    q, k = torch.randn(3, 1, 2), torch.randn(3, 2, 6)
    torch.testing.assert_close(bias_t.baddbmm(q.to("tpu"), k.to("tpu")).cpu(), bias_c.baddbmm(q, k))


def chunked_kv_steps(device, steps, rows, first=5, dim=8, seed=0):
    """A KV cache that starts as a prompt's keys (no cat) and grows by `rows` rows a step (speculative
    decoding's candidates, chunked prefill), attended by `rows` queries."""
    g = torch.Generator().manual_seed(seed)
    k = torch.randn(1, 2, first, dim, generator=g).to(device)
    v = torch.randn(1, 2, first, dim, generator=g).to(device)
    for _ in range(steps):
        nk, nv, q = (torch.randn(1, 2, rows, dim, generator=g).to(device) for _ in range(3))
        k = torch.cat([k, nk], dim=2)
        v = torch.cat([v, nv], dim=2)
        p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dim), dim=-1)
        yield k, p @ v


@pytest.mark.parametrize("rows", [2, 3])
def test_a_cache_grown_by_chunks_compiles_per_bucket(buckets, rows):
    """A cat of several rows along the sequence dim onto an exact tensor is an append too: before, only a one-row
    append (or an empty or padded cache) was bucketed, and this loop compiled 5 programs per step."""
    torch.tpu.set_eager_mode("strict")
    before = misses()
    per_step = []
    for n, ((kc, oc), (kt, ot)) in enumerate(zip(chunked_kv_steps("cpu", 30, rows), chunked_kv_steps("tpu", 30, rows))):
        torch.testing.assert_close(kt.cpu(), kc, rtol=0, atol=0, msg=f"keys at step {n}")
        torch.testing.assert_close(ot.cpu(), oc, msg=f"attention at step {n}")
        per_step.append(misses() - before)
    assert per_step[-1] == per_step[2], per_step


def test_a_channel_cat_stays_exact(buckets):
    """cat along a dim that is not a sequence's ([B, C, H, W] along C: a U-Net's skip connection) is not an append."""
    torch.tpu.set_eager_mode("strict")
    a, b = torch.randn(1, 4, 3, 3), torch.randn(1, 6, 3, 3)
    got = torch.cat([a.to("tpu"), b.to("tpu")], dim=1)
    assert got.untyped_storage().nbytes() == got.numel() * 4, "the channel cat was padded"
    torch.testing.assert_close(got.cpu(), torch.cat([a, b], dim=1), rtol=0, atol=0)
