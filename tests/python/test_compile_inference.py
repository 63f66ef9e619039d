"""torch.compile(backend="tpu") on graphs that need no autograd: Dynamo's
graph is captured as it is, without AOTAutograd (_compile._Inference), so
eager's in-place, view and aliasing semantics must come out of the plan
itself. Each case compares with the same function on CPU, over several
calls (the first captures, the rest replay)."""
import pytest
import torch

import torchtpu  # noqa: F401
from torchtpu import _compile

torch._dynamo.config.cache_size_limit = 64


@pytest.fixture(autouse=True)
def _fresh():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.fixture
def inference_graphs(monkeypatch):
    made = []
    init = _compile._Inference.__init__

    def spy(self, *a, **k):
        init(self, *a, **k)
        made.append(self)

    monkeypatch.setattr(_compile._Inference, "__init__", spy)
    return made


def _same(cpu_fn, args, calls=3, grad=False):
    """Runs cpu_fn eagerly on CPU copies and compiled on tpu copies, `calls`
    times each, comparing the outputs and the (possibly written) arguments
    after every call."""
    cpu = [a.clone() for a in args]
    tpu = [a.clone().to("tpu") for a in args]
    f = torch.compile(cpu_fn, backend="tpu")
    with torch.set_grad_enabled(grad):
        for _ in range(calls):
            want = cpu_fn(*cpu)
            got = f(*tpu)
            want = want if isinstance(want, tuple) else (want,)
            got = got if isinstance(got, tuple) else (got,)
            for w, g in zip(want, got):
                assert g.device.type == "tpu"
                assert g.shape == w.shape and g.stride() == w.stride() and g.dtype == w.dtype
                torch.testing.assert_close(g.cpu(), w, rtol=1e-6, atol=1e-6)
                assert not g.requires_grad
            for c, t in zip(cpu, tpu):
                torch.testing.assert_close(t.cpu(), c, rtol=1e-6, atol=1e-6)
    return tpu, got


def test_small_graph_takes_the_inference_path(inference_graphs):
    def f(a, b):
        return (torch.sin(a * b + 1) - b.exp()).sum(0) / 3

    _same(f, [torch.randn(8, 8), torch.randn(8, 8)])
    assert len(inference_graphs) == 1
    assert inference_graphs[0].plans, "the graph was not captured into a plan"


def test_written_input_is_written_every_call(inference_graphs):
    def f(x):
        x.add_(1)
        return x * 2

    _same(f, [torch.randn(5)])
    assert inference_graphs


def test_write_through_a_view_of_an_input(inference_graphs):
    def f(x):
        x[0].zero_()
        x[:, 1].mul_(3)
        return x.sum()

    _same(f, [torch.randn(4, 3)])
    assert inference_graphs


def test_output_viewing_an_input_shares_its_storage(inference_graphs):
    def f(x):
        return x[1:], x.t()

    tpu, (a, b) = _same(f, [torch.randn(3, 4)])
    tpu[0].fill_(7)  # eager: the outputs view x
    assert torch.equal(a.cpu(), torch.full((2, 4), 7.0)) and torch.equal(b.cpu(), torch.full((4, 3), 7.0))
    assert inference_graphs


def test_outputs_viewing_each_other():
    def f(x):
        y = x + 1
        return y, y.t(), y[0]

    _, (y, yt, y0) = _same(f, [torch.randn(3, 3)])
    y.fill_(2)
    assert torch.equal(yt.cpu(), torch.full((3, 3), 2.0)) and torch.equal(y0.cpu(), torch.full((3,), 2.0))


def test_returning_an_input_returns_it():
    def f(x, y):
        x.mul_(2)
        return x, y + 1

    x = torch.randn(4).to("tpu")
    g = torch.compile(f, backend="tpu")
    with torch.no_grad():
        for _ in range(3):
            out, _ = g(x, torch.ones(4, device="tpu"))
            assert out is x


def test_aliased_arguments_follow_eager():
    def f(a, b):
        a.add_(1)
        return b * 2

    g = torch.compile(f, backend="tpu")
    x = torch.zeros(4).to("tpu")
    y = torch.zeros(4).to("tpu")
    with torch.no_grad():
        assert torch.equal(g(x, y).cpu(), torch.zeros(4))
        assert torch.equal(g(x, x).cpu(), torch.full((4,), 4.0))  # b is a: it sees the write
        assert torch.equal(g(y, y).cpu(), torch.full((4,), 2.0))
        assert torch.equal(g(x, y).cpu(), torch.full((4,), 2.0))


def test_model_under_no_grad(inference_graphs):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32), torch.nn.Linear(32, 4))
    x = torch.randn(8, 16)
    want = m(x).detach()
    mt = torch.compile(m.to("tpu"), backend="tpu")
    with torch.no_grad():
        for _ in range(3):
            got = mt(x.to("tpu"))
            assert not got.requires_grad
            torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-5)
    assert inference_graphs
    # with autograd on and parameters requiring grad, Dynamo recompiles: AOTAutograd's forward and backward
    got = mt(x.to("tpu"))
    assert got.requires_grad
    got.sum().backward()
    assert m[0].weight.grad is not None and m[0].weight.grad.device.type == "tpu"


def test_batchnorm_running_stats_in_train_mode_without_grad(inference_graphs):
    torch.manual_seed(0)
    bn = torch.nn.BatchNorm1d(6)
    bt = torch.nn.BatchNorm1d(6).to("tpu")
    g = torch.compile(bt, backend="tpu")
    with torch.no_grad():
        for i in range(3):
            x = torch.randn(10, 6) * (i + 1)
            torch.testing.assert_close(g(x.to("tpu")).cpu(), bn(x), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(bt.running_mean.cpu(), bn.running_mean, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(bt.running_var.cpu(), bn.running_var, rtol=1e-5, atol=1e-6)
    assert bt.num_batches_tracked.item() == 3
    assert inference_graphs


def test_grad_on_but_nothing_requires_grad(inference_graphs):
    def f(a):
        return a.cos() * 2

    _same(f, [torch.randn(6)], grad=True)
    assert inference_graphs


def test_dropout_draws_new_masks():
    f = torch.compile(lambda x: torch.nn.functional.dropout(x, 0.5, True), backend="tpu")
    x = torch.ones(2000).to("tpu")
    with torch.no_grad():
        a, b = f(x).cpu(), f(x).cpu()
    assert not torch.equal(a, b)
    assert set(a.unique().tolist()) <= {0.0, 2.0}


def test_dynamic_sizes_keep_aotautograd(inference_graphs):
    def f(x):
        return x.softmax(-1)

    g = torch.compile(f, backend="tpu", dynamic=True)
    with torch.no_grad():
        for n in (5, 9, 17):
            x = torch.randn(3, n)
            torch.testing.assert_close(g(x.to("tpu")).cpu(), f(x))
    assert not inference_graphs


def test_inference_mode_and_a_buffer_written_in_forward(inference_graphs):
    class Counter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)
            self.register_buffer("count", torch.zeros(()))

        def forward(self, x):
            self.count += 1
            return self.lin(x).relu() * self.count

    torch.manual_seed(0)
    m, mt = Counter(), Counter()
    mt.load_state_dict(m.state_dict())
    g = torch.compile(mt.to("tpu"), backend="tpu")
    x = torch.randn(3, 4)
    with torch.inference_mode():
        for _ in range(3):
            want, got = m(x), g(x.to("tpu"))
            assert got.is_inference()
            torch.testing.assert_close(got.cpu(), want, rtol=1e-6, atol=1e-6)
    assert mt.count.item() == 3
    assert inference_graphs


def test_torch_func_grad_inside_the_graph_keeps_aotautograd(inference_graphs):
    """A whole functional training step in one graph: torch.func's
    grad_and_value of a loss and an in-place SGD update. No input requires
    grad, but the graph differentiates inside itself (functorch's wrapping
    and an autograd.grad call), so it must not be captured with autograd off
    (the gradients came out zero and only the update's other terms ran)."""
    from torch.func import functional_call, grad_and_value

    torch.manual_seed(0)
    base = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.GELU(), torch.nn.Linear(8, 3))
    x, y = torch.randn(5, 6), torch.randint(0, 3, (5,))
    runs = {}
    for dev, compiled in (("cpu", False), ("tpu", True)):
        model = __import__("copy").deepcopy(base).to(dev)
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss_of(p, x, y):
            return torch.nn.functional.cross_entropy(functional_call(model, p, (x,)), y)

        def step(params, x, y):
            grads, loss = grad_and_value(loss_of)(params, x, y)
            for k in params:
                params[k].mul_(0.99).sub_(grads[k], alpha=0.5)
            return loss

        f = torch.compile(step, backend="tpu") if compiled else step
        losses = [f(params, x.to(dev), y.to(dev)).item() for _ in range(4)]
        runs[dev] = losses, {k: v.cpu() for k, v in params.items()}
    assert runs["tpu"][0] == pytest.approx(runs["cpu"][0], rel=1e-5)
    assert runs["cpu"][0][3] < runs["cpu"][0][0] - 1e-3  # the step does learn
    for k, v in runs["cpu"][1].items():
        torch.testing.assert_close(runs["tpu"][1][k], v, rtol=1e-5, atol=1e-6)
    assert not inference_graphs


def test_grad_mode_switched_inside_the_graph_keeps_aotautograd(inference_graphs):
    """enable_grad inside a function compiled and called under no_grad: its
    output needs a gradient, which the inference path never gives."""
    w0, x0 = torch.randn(3, 4), torch.randn(2, 3)

    def f(x, w):
        with torch.enable_grad():
            return (x @ w).tanh()

    grads = []
    for dev, fn in (("cpu", f), ("tpu", torch.compile(f, backend="tpu"))):
        w = w0.detach().to(dev).requires_grad_()
        with torch.no_grad():
            out = fn(x0.to(dev), w)
        assert out.requires_grad
        out.sum().backward()
        grads.append(w.grad.cpu())
    torch.testing.assert_close(grads[1], grads[0])
    assert not inference_graphs


def test_vmap_inside_a_no_grad_graph_matches_eager():
    def f(x, w):
        return torch.func.vmap(lambda r: (r * w).sin().sum())(x)

    _same(f, [torch.randn(4, 5), torch.randn(5)])
