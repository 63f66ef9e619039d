"""Bounded dynamism for training graphs (torchtpu/_bounded.py): AOTAutograd's
forward and backward graphs of a step with symbolic sizes run padded to
their bucket, one plan per graph per bucket, and the loss and every
parameter's gradient equal CPU eager's for every length. The inputs narrow
tensors laid out at the bound whose tail is huge, so a missing mask (a
weight gradient summed over padded rows, a mean dividing by the bound)
shows as a wrong value. What makes these graphs boundable: sizes the
forward saves for the backward (s0, 4*s0) are outputs made on the host,
inputs it saves are returned as given (views of them replayed), a size used
as a value (a mean's backward divides by its count) is the real size at
run time, and the backward ops that sum over rows (layer norm's and
softmax's backward) read zeros in the padding. Then, per rule, the graphs
of test_compile_bounded trained (slices' and pads' backward, a chunk pad the
forward saves, nll_loss, embedding and grouped-mm experts' backward), with
the tangents' padding poisoned too where their padded dim is the first."""
import copy
import gc

import pytest
import torch
import torch.nn as nn

import test_compile_bounded as B
from torchtpu import _compile

TOL = {"rtol": 1e-5, "atol": 1e-5}
_old = set()


@pytest.fixture(autouse=True)
def fresh():
    torch._dynamo.reset()
    torch.tpu.set_dynamic_buckets(None)
    _old.update(id(g) for g in gc.get_objects() if type(g) is _compile._Graph)
    yield
    torch._dynamo.reset()


def _graphs():
    seen = {}
    for g in gc.get_objects():
        if type(g) is _compile._Graph and id(g) not in _old and g.sizes:
            seen.setdefault(id(g.gm), g)
    return list(seen.values())


def _poisoned(shape, dim, n, bound, seed):
    """(tpu tensor of `shape` with length n along dim, narrowing one laid out
    at `bound` there whose tail is huge; its CPU copy)."""
    full_shape = list(shape)
    full_shape[dim] = bound
    full = torch.randn(full_shape, generator=torch.Generator().manual_seed(seed + n))
    full.narrow(dim, n, bound - n).fill_(3e4)
    return full.to("tpu").narrow(dim, 0, n), full.narrow(dim, 0, n).clone()


def _step(model, x):
    y = model(x)
    loss = y.float().pow(2).mean() + y.float().amax(-1).sum() / 100
    loss.backward()
    return loss


def _train_sweep(model, shape, dim, lengths, compile_kw, mark=None):
    """Compiled steps on tpu vs eager steps on CPU, gradient by gradient;
    returns the plan captures the sweep made."""
    ref = copy.deepcopy(model)
    dev = model.to("tpu")
    step = torch.compile(_step, backend="tpu", **compile_kw)
    before = torch.tpu.plan_stats()["captures"]
    for n in lengths:
        bound = 1 << (n - 1).bit_length()
        x, xc = _poisoned(shape, dim, n, bound, seed=3)
        if mark is not None:
            torch._dynamo.mark_dynamic(x, mark)
        dev.zero_grad()
        ref.zero_grad()
        got = step(dev, x)
        want = _step(ref, xc)
        torch.testing.assert_close(got.cpu(), want, **TOL)
        for (name, p), q in zip(dev.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad.cpu(), q.grad, **TOL, msg=lambda m: f"{name} at length {n}: {m}")
    return torch.tpu.plan_stats()["captures"] - before


LENGTHS = [5, 6, 7, 9, 12, 13, 16, 17, 30, 6]  # buckets 8, 16, 32


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))


def _block():
    torch.manual_seed(0)
    return nn.TransformerEncoderLayer(32, 2, 64, dropout=0.0, batch_first=True)


def test_mlp_training_with_a_symbolic_batch_runs_one_plan_per_bucket():
    captures = _train_sweep(_mlp(), (0, 16), 0, LENGTHS, {"dynamic": True})
    gs = _graphs()
    assert len(gs) == 2 and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]
    assert captures <= 2 * 3, captures  # forward and backward, three buckets (was one plan per length)


def test_transformer_training_with_a_symbolic_sequence_runs_one_plan_per_bucket():
    captures = _train_sweep(_block(), (1, 0, 32), 1, LENGTHS, {"dynamic": True})
    gs = _graphs()
    assert len(gs) == 2 and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]
    assert captures <= 2 * 3, captures


@pytest.mark.parametrize("kw,mark", [({"dynamic": True}, None), ({}, 1)], ids=["dynamic", "mark_dynamic"])
def test_transformer_training_with_a_batch_of_two_runs_one_plan_per_bucket(kw, mark):
    # the activations the forward saves for the backward are [2*s, d] (the
    # linears' inputs): saved split as [2, s, d] (_bounded.split_saved), so the
    # padding lies at the end of s and both graphs run padded
    captures = _train_sweep(_block(), (2, 0, 32), 1, [5, 6, 9, 12, 6], kw, mark=mark)
    gs = _graphs()
    assert len(gs) == 2 and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]
    assert captures <= 2 * 2, captures


def test_training_with_buckets_off_keeps_plans_per_size_and_is_right():
    torch.tpu.set_dynamic_buckets(False)
    try:
        captures = _train_sweep(_block(), (2, 0, 32), 1, [5, 6, 9, 6], {"dynamic": True})
    finally:
        torch.tpu.set_dynamic_buckets(None)
    assert captures == 2 * 3, captures


# Per rule: test_compile_bounded's graphs (and a few more) trained: the rules backward ops need.

def _compiled_pair(cls, seed):
    """(CPU module, the same weights on tpu compiled dynamic=True, the plan counts before any call)."""
    torch.manual_seed(seed)
    ref, dev = cls(), cls()
    dev.load_state_dict(ref.state_dict())
    return ref, dev, torch.compile(dev.to("tpu"), backend="tpu", dynamic=True), torch.tpu.plan_stats()


def _calls_since(before):
    """(calls padded, calls at their own sizes) since `before` (torch.tpu.plan_stats())."""
    after = torch.tpu.plan_stats()
    return after["padded_calls"] - before["padded_calls"], after["size_calls"] - before["size_calls"]


def _grads(fn, x, tangents):
    """fn(x)'s floating outputs that need grad, and the grad of x for the tangents (one per output, each
    given as a function of the output)."""
    outs = fn(x)
    outs = [o for o in (outs if isinstance(outs, (tuple, list)) else (outs,))
            if isinstance(o, torch.Tensor) and o.requires_grad]
    ts = [t(o) for t, o in zip(tangents, outs)]
    grad, = torch.autograd.grad(outs, x, ts)
    return [o.detach().cpu() for o in outs], grad.cpu()


def _train(fn, lengths, bound, seed, rows=False, tol=1e-4):
    """fn compiled dynamic=True on poisoned inputs of each length: outputs and x's gradient equal CPU's.
    Returns (calls padded, calls at their own sizes), forward and backward together."""
    f = torch.compile(fn, backend="tpu", dynamic=True)
    before = torch.tpu.plan_stats()
    for n in lengths:
        x, xc = B._rows(n, bound, seed=seed) if rows else B._poisoned(n, bound, seed=seed)
        x = x.detach().requires_grad_()  # still narrowing the poisoned tensor
        xc = xc.requires_grad_()
        g = torch.Generator().manual_seed(seed)

        def tangent(o, dev):
            t = torch.randn(o.shape, generator=g)
            if dev == "cpu" or not rows or o.dim() == 0:
                return t.to(dev)
            full = torch.full((o.shape[0] + 3,) + tuple(o.shape[1:]), 3e4)
            full[: o.shape[0]] = t
            return full.to(dev)[: o.shape[0]]  # a tangent whose padding is poisoned too

        want = _grads(fn, xc, [lambda o: tangent(o, "cpu")] * 16)
        g.manual_seed(seed)
        got = _grads(f, x, [lambda o: tangent(o, "tpu")] * 16)
        assert len(got[0]) == len(want[0])
        for a, b in zip(got[0] + [got[1]], want[0] + [want[1]]):
            assert a.shape == b.shape
            torch.testing.assert_close(a, b, rtol=tol, atol=tol, equal_nan=True)
    return _calls_since(before)


def _keep_last(x):
    return B._keep_last(x, 1)


def _activations(x):
    """Activations whose backward ops PyTorch does not tag pointwise (qwen3_next's softplus)."""
    F = torch.nn.functional
    y = x / 3e4 + x.clamp(-2, 2)
    return (F.elu(y), F.hardshrink(y), F.hardsigmoid(y), F.hardswish(y), F.hardtanh(y), F.leaky_relu(y),
            F.mish(y), F.softplus(y), F.softshrink(y), F.celu(y), F.selu(y))


def _sink(x):
    """gpt_oss's attention sinks: a row appended past the sequence ([2, n + 1, 8]), read back at its
    position (y[:, n:n + 1]) and the sequence before it."""
    y = torch.cat([x, x.sum(1, keepdim=True) / 3e4], dim=1)
    n = x.shape[1]
    return y[:, n:n + 1] * 2, y[:, :n].softmax(1)


def _interleaved_rows(x):
    """gpt_oss's experts: positions flattened with a static dim ([2 * n * 2, 4], padding inside the merged
    dim) and interleaved along the static one (1::2): its slice_backward takes the gradient's layout."""
    y = (x @ torch.linspace(-1, 1, 64, device=x.device).reshape(8, 8)).reshape(-1, 4)  # [b * n * 2, 4]
    b, n = x.shape[:2]
    return (y[:, 1::2] * 3).reshape(b, n, 4), y[:, ::2].exp().reshape(b, n, 4)


# (name, function, lengths, bucket bound, what ran per size or failed before)
CASES = [
    ("last_k", _keep_last, (3, 5, 6, 7), 8, "slice_backward of x[:, -1:]: per size"),
    ("first_rows", B._scaled, (3, 6, 5, 7), 8, "slice_backward of (x * 3)[:1]: per size"),
    ("indexer", B._indexer, (3, 6, 5, 9, 15), 16, "slice_backward to Min(16, n), topk and scatter's backward"),
    ("chunk_means", B._chunk_means, (3, 5, 25, 30), 32,
     "a chunk pad (8 - n % 8) % 8 the forward saves, the backward's crop back to n: per size"),
    ("chunked", B._chunked, (3, 5, 7, 25, 30), 32, "as chunk_means, and a permuted new_empty_strided"),
    ("select_writes", B._select_writes, (3, 6, 5, 8), 8, "a saved stride, new_empty_strided: per size"),
    ("pads", B._pads, (3, 6, 5, 8), 8, "constant_pad_nd cropping (a pad's backward): per size"),
    ("moments", B._moments, (3, 6, 5, 8), 8, "var/std's backward scales by 2 / (n - 1), a float: per size"),
    ("activations", _activations, (3, 6, 5, 8), 8, "hardswish, softplus_backward... not known: per size"),
    ("cat_empty", B._cat_with_legacy_empty, (3, 6, 5, 8), 8,
     "KeyError: a size only an expand of the backward uses (read as a pinned value)"),
    ("norms", B._norms, (3, 6, 5, 8), 8,
     "setStorage error: log_sigmoid_forward's buffer was empty on tpu, [2, n, 8] in the graph"),
    ("sink", _sink, (3, 6, 5, 8), 8, "a slice of a symbolic dim that does not start at a static index: per size"),
    ("interleaved_rows", _interleaved_rows, (3, 6, 5, 8), 8,
     "slice_backward of a grad laid out unlike its input (the input's merged dim read as [4n]): per size"),
]


@pytest.mark.parametrize("name,fn,lengths,bound,before", CASES, ids=[c[0] for c in CASES])
def test_training_graphs_run_padded(name, fn, lengths, bound, before):
    padded, sized = _train(fn, lengths, bound, seed=211, tol=1e-3 if name == "chunked" else 1e-4)
    assert sized == 0 and padded == 2 * len(lengths), (padded, sized)
    gs = _graphs()
    assert len(gs) >= 2 and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]


def _row_slices(x):
    """Rows sliced to a symbolic end (n - 2), from a static start (1:), and a crop of the padded dim: their
    backward writes each gradient into zeros of n rows, and what lies past the gradient's real end (the
    tangents' poisoned padding) must read as zero."""
    return (x[:-2] * 2, x[1:] * 3, torch.nn.functional.pad(x, (0, 0, -1, -1)) * 4,
            torch.nn.functional.pad(x, (0, 0, 2, -3), value=1.5))


def test_row_slices_backward_with_poisoned_tangents():
    assert _train(_row_slices, (4, 6, 5, 8), 8, seed=223, rows=True) == (8, 0)


def test_log_sigmoid_buffer_is_the_inputs_shape():
    """CPU's log_sigmoid_forward returns its buffer exp(-|x|) of the input's shape, as the meta function
    says; tpu's was empty, so a compiled graph saving it for the backward failed when padded."""
    x = torch.tensor([-3.0, -0.5, 0.0, 0.7, 5.0, float("nan"), float("inf"), -float("inf")])
    for dt in (torch.float32, torch.float64, torch.bfloat16):
        want = torch.ops.aten.log_sigmoid_forward(x.to(dt))
        got = torch.ops.aten.log_sigmoid_forward(x.to(dt).to("tpu"))
        for a, b in zip(got, want):
            assert a.shape == b.shape and a.dtype == b.dtype
            torch.testing.assert_close(a.cpu(), b, equal_nan=True)


def _cross_entropy(x, t):
    """A language model's loss: [2, n] positions' logits flattened to rows (the padding inside the merged
    dim), targets with ignore_index, mean and sum."""
    logits = x @ torch.linspace(-1, 1, 40, device=x.device).reshape(8, 5) + x[..., :5]
    return (torch.nn.functional.cross_entropy(logits.view(-1, 5), t.view(-1), ignore_index=-100),
            torch.nn.functional.cross_entropy(logits.view(-1, 5), t.view(-1).clamp(min=0), reduction="sum"))


def test_cross_entropy_of_flattened_positions_runs_padded():
    """The padded rows' targets are made ignore_index: they add nothing to the loss, its count or the
    gradient. Before: plans per size ("aten.nll_loss_forward.default is not known to be right on padded
    tensors"; every causal LM's training step, `tools/causal_lm_sweep.py --train`)."""
    f = torch.compile(_cross_entropy, backend="tpu", dynamic=True)
    before = torch.tpu.plan_stats()
    for n in (3, 6, 5, 8):
        x, xc = B._poisoned(n, 8, seed=227)
        x, xc = x.detach().requires_grad_(), xc.requires_grad_()
        t = torch.randint(0, 5, (2, n), generator=torch.Generator().manual_seed(n))
        t[0, 0] = t[1, -1] = -100
        got, want = f(x, t.to("tpu")), _cross_entropy(xc, t)
        w = [torch.tensor(0.7), torch.tensor(-1.3)]
        ga, = torch.autograd.grad(got, x, [v.to("tpu") for v in w])
        gb, = torch.autograd.grad(want, xc, w)
        for a, b in zip(list(got) + [ga], list(want) + [gb]):
            torch.testing.assert_close(a.detach().cpu(), b.detach(), rtol=1e-5, atol=1e-5)
    assert _calls_since(before) == (8, 0)


def _causal_lm_loss(logits, labels):
    """transformers' ForCausalLMLoss, a graph of its own (gpt2's: Dynamo breaks between the model and
    its loss): labels padded by one ignored position and shifted, logits of a symbolic vocabulary."""
    labels = torch.nn.functional.pad(labels, (0, 1), value=-100)[..., 1:]
    return torch.nn.functional.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), labels.reshape(-1))


def test_a_loss_graph_whose_logits_and_labels_have_symbols_of_their_own_runs_padded():
    """Without duck shaping (as gpt2's loss graph had them) logits [s3, s88, V] and labels [s38, s97]
    carry symbols of their own, and the guards fix only s3*s88 == s38*s97: the rows are read as one
    layout (s38 as s3, s97 as s88), and a call runs padded where those values are equal, at its own
    sizes elsewhere (labels [4, n] for logits [2, 2n]: the same rows, another layout). Before: plans per
    size ("nll_loss of other than rows of a static number of classes"; gpt2, big_bird, xlm with
    `tools/causal_lm_sweep.py --train`)."""
    f = torch.compile(_causal_lm_loss, backend="tpu", dynamic=True)
    before = torch.tpu.plan_stats()
    cases = [((2, n), (2, n)) for n in (3, 6, 5, 8)] + [((2, 6), (4, 3)), ((2, 7), (2, 7))]
    with torch.fx.experimental._config.patch(use_duck_shape=False):
        for (b, n), (lb, ln) in cases:
            x, xc = _poisoned((b, n, 11), 1, n, 8, seed=233)
            x, xc = x.detach().requires_grad_(), xc.requires_grad_()
            t = torch.randint(0, 11, (lb, ln), generator=torch.Generator().manual_seed(n))
            t[0, 1] = -100
            got, want = f(x, t.to("tpu")), _causal_lm_loss(xc, t)
            ga, = torch.autograd.grad(got, x)
            gb, = torch.autograd.grad(want, xc)
            torch.testing.assert_close(got.detach().cpu(), want.detach(), **TOL)
            torch.testing.assert_close(ga.cpu(), gb, **TOL)
        g = next(g for g in _graphs() if g.bounding is not None and g.bounding.aliases)
    assert len(g.bounding.aliases) == 2
    assert _calls_since(before) == (10, 2)  # forward and backward of 5 calls padded; [4, 3] at its own sizes


class _Embed(torch.nn.Module):
    """Token ids through an embedding table (its gradient: the rows of the ids' gradients summed), one with a
    padding_idx."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Embedding(11, 8)
        self.b = torch.nn.Embedding(11, 8, padding_idx=3)

    def forward(self, ids):
        return (self.a(ids) * self.b(ids)).sum() + self.b(ids).sum()  # the backward expands its grad: its
        # padding holds that grad too


def test_embedding_backward_runs_padded():
    """The padded ids and their gradient rows (an expanded sum's grad: not zero in the padding) add a zero
    row to row 0. Before: plans per size ("aten.embedding_dense_backward.default is not known to be right on padded
    tensors": llama, mistral, qwen2 with `tools/causal_lm_sweep.py --train`)."""
    ref, dev, f, before = _compiled_pair(_Embed, 229)
    for n in (3, 6, 5, 8):
        full = torch.randint(0, 11, (2, 8), generator=torch.Generator().manual_seed(n))
        full[0, 0] = 3  # a padding_idx among the real ids
        ids = full[:, :n].contiguous()
        out = f(full.to("tpu")[:, :n])  # the padded ids are real ids: they would add into their rows
        want = ref(ids)
        w = torch.tensor(0.375)
        got_g = torch.autograd.grad(out, list(dev.parameters()), w.to("tpu"))
        want_g = torch.autograd.grad(want, list(ref.parameters()), w)
        torch.testing.assert_close(out.detach().cpu(), want.detach(), rtol=1e-5, atol=1e-5)
        for a, b in zip(got_g, want_g):
            torch.testing.assert_close(a.cpu(), b, rtol=1e-5, atol=1e-5)
    assert _calls_since(before) == (8, 0)


class _ShortConv(torch.nn.Module):
    """qwen3_next's short convolution: depthwise and causal (padding k - 1, the first n outputs kept), its
    output weighted per position."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(8, 8, 4, padding=3, groups=8)

    def forward(self, x):
        full = self.conv((x * 2 + 1).transpose(1, 2))  # [2, 8, n + 3]; its input's padding is not zero
        y = full[..., : x.shape[1]]
        return ((torch.nn.functional.silu(y).transpose(1, 2) * torch.linspace(-1, 1, 8, device=x.device)).sum()
                + full.sum() / 4)  # its grad, an expand, fills the padding of the conv's grad too


def test_convolution_backward_runs_padded():
    """grad_input reads the grad's real positions (its padding zeroed) and the weight's and bias' grads sum
    input * grad where both are real. Before: plans per size ("aten.convolution_backward.default is not
    known to be right on padded tensors": qwen3_next with `tools/causal_lm_sweep.py --train`)."""
    ref, dev, f, before = _compiled_pair(_ShortConv, 239)
    for n in (3, 6, 5, 8):
        x, xc = B._poisoned(n, 8, seed=239)
        x, xc = x.detach().requires_grad_(), xc.requires_grad_()
        out, want = f(x), ref(xc)
        got_g = torch.autograd.grad(out, [x] + list(dev.parameters()))
        want_g = torch.autograd.grad(want, [xc] + list(ref.parameters()))
        torch.testing.assert_close(out.detach().cpu(), want.detach(), rtol=1e-4, atol=1e-3)
        for a, b in zip(got_g, want_g):
            torch.testing.assert_close(a.cpu(), b, rtol=1e-4, atol=1e-3)
    assert _calls_since(before) == (8, 0)


class _MoEParams(torch.nn.Module):
    """test_compile_bounded's grouped-mm experts, its output summed with a weight per position (the backward
    expands that grad over the padding too)."""

    def __init__(self):
        super().__init__()
        self.moe = B._GroupedMoE()

    def forward(self, x):
        out = self.moe(x)[0]
        return (out * torch.linspace(-1, 1, 8, device=x.device)).sum()


def test_grouped_mm_experts_backward_runs_padded():
    """The experts' weight grads are grouped mms contracting the (token, expert) pairs (in the static order,
    the padding zeroed), the pairs' grads are summed back into their tokens by index_put with accumulate
    (a padded pair adds a zero row to row 0), and zeros of the flattened tokens take the tokens' layout.
    Before: plans per size ("a new dim of size 2*s27*s52 whose layout is unknown"; mixtral's training step,
    `tools/causal_lm_sweep.py --train`)."""
    ref, dev, f, before = _compiled_pair(_MoEParams, 233)
    for n in (3, 6, 5, 8):
        x, xc = B._poisoned(n, 8, seed=233)
        x, xc = x.detach().requires_grad_(), xc.requires_grad_()
        got = torch.autograd.grad(f(x), [x] + list(dev.parameters()))
        want = torch.autograd.grad(ref(xc), [xc] + list(ref.parameters()))
        for a, b in zip(got, want):
            torch.testing.assert_close(a.cpu(), b, rtol=1e-4, atol=1e-4)
    assert _calls_since(before) == (8, 0)


def _interleaved(x):
    """An interleaved rotary embedding's halves (cohere's x[..., ::2], x[..., 1::2]) along the static dim."""
    y = x @ torch.linspace(-1, 1, 48, device=x.device).reshape(8, 6)  # a static last dim (dynamic=True: x's is not)
    a, b = y[..., ::2], y[..., 1::2]
    return torch.stack([-b * 2, a], dim=-1).flatten(-2) * y.sum(1, keepdim=True)


def test_strided_slices_of_a_static_dim_backward_runs_padded():
    """Before: plans per size ("slice_backward of a step other than 1"; cohere's training step)."""
    assert _train(_interleaved, (3, 6, 5, 8), 8, seed=239) == (8, 0)


@pytest.mark.parametrize("keep", [0, 2])
def test_the_last_positions_kept_backward_runs_padded(keep):
    """transformers' logits_to_keep (an integer argument, symbolic under dynamic=True): the forward keeps
    x[:, -k:] and saves for the backward tensors whose sizes are a sum of two symbols (k + n); k is read at
    its first value (pinned) there as in the forward. Before: plans per size ("a size s55 +
    s70 that is neither a product of symbols nor a symbol plus a constant"; bloom, falcon, gpt2's training
    step)."""
    f = torch.compile(lambda x, k: B._keep_last(x, k) * x[:, :1], backend="tpu", dynamic=True)
    before = torch.tpu.plan_stats()
    for n in (3, 6, 5, 8):
        x, xc = B._poisoned(n, 8, seed=241)
        x, xc = x.detach().requires_grad_(), xc.requires_grad_()
        got, want = f(x, keep), B._keep_last(xc, keep) * xc[:, :1]
        w = torch.randn(want.shape, generator=torch.Generator().manual_seed(n))
        ga, = torch.autograd.grad(got, x, w.to("tpu"))
        gb, = torch.autograd.grad(want, xc, w)
        torch.testing.assert_close(got.detach().cpu(), want.detach(), **TOL)
        torch.testing.assert_close(ga.cpu(), gb, **TOL)
    assert _calls_since(before) == (8, 0)


def _and_its_expand(x, w):
    v = x.transpose(-2, -1) @ w
    m = (x.transpose(-2, -1) @ x).masked_fill(x[:1].t() > 0.5, -1.0)
    return v, v.unsqueeze(0).expand(6, *v.shape), v.unsqueeze(0).expand(6, *v.shape)[1:], m, m.narrow(1, 0, m.shape[1] - 2)


def test_outputs_that_view_one_tensor_with_grad():
    """Graph fuzzer 45:37 and 45:41 (--family dynamic): two outputs view one tensor (v and its expand, m and
    its narrow); AOTAutograd rebuilds one from their base with the strides and offset of the tensor the
    graph returned, and a padded run's compacted output has its own: a setStorage error at every length, or
    (45:41) the narrow's elements read from the wrong places, silently. Such a forward keeps plans per
    size; outputs and gradients equal CPU's."""
    f = torch.compile(_and_its_expand, backend="tpu", dynamic=True)
    for n in (33, 17, 6, 17):
        x = torch.randn(6, n, generator=torch.Generator().manual_seed(n))
        w = torch.randn(6, 3, generator=torch.Generator().manual_seed(n + 1))
        res = []
        for dev in ("cpu", "tpu"):
            xl, wl = x.to(dev).requires_grad_(), w.to(dev).requires_grad_()
            outs = (f if dev == "tpu" else _and_its_expand)(xl * 1, wl * 1)
            grads = torch.autograd.grad([o.sum() * (k + 1) for k, o in enumerate(outs)], [xl, wl])
            res.append([o.detach().cpu() for o in outs] + [g.cpu() for g in grads])
        for a, b in zip(res[1], res[0]):
            torch.testing.assert_close(a, b, **TOL)
