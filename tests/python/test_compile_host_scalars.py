"""Compiled graphs whose arguments include 0-d CPU tensors (Dynamo lifts a
model's Python floats to them under dynamic shapes -- a scale attribute, a
rotary embedding's attention scaling -- and a model's own torch.tensor(...)
scalars): each call moves them to the device, so the graph is captured into
a plan with them as arguments instead of running op by op, and a new value
reaches the program (nothing is baked in)."""
import gc
import math

import torch
import transformers

from torchtpu import _compile

TOL = {"rtol": 1e-5, "atol": 1e-5}


def _graphs(old):
    seen = {}
    for g in gc.get_objects():
        if type(g) is _compile._Graph and id(g) not in old:
            seen.setdefault(id(g.gm), g)
    return list(seen.values())


def _old():
    return {id(g) for g in gc.get_objects() if type(g) is _compile._Graph}


def _pair(cls):
    """(graphs before, CPU module, the same weights on tpu, that compiled dynamic=True)."""
    torch._dynamo.reset()
    old = _old()
    torch.manual_seed(0)
    ref, dev = cls(), cls()
    dev.load_state_dict(ref.state_dict())
    return old, ref, dev, torch.compile(dev.to("tpu"), backend="tpu", dynamic=True)


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.scale = 0.5

    def forward(self, x):
        return self.lin(x) * self.scale + self.scale


def test_a_lifted_float_is_an_argument_of_the_plan():
    old, ref, dev, f = _pair(Scaled)
    with torch.no_grad():
        for n, scale in ((3, 0.5), (5, 0.5), (3, 0.25), (6, -2.0)):
            ref.scale = dev.scale = scale
            x = torch.randn(n, 8)
            torch.testing.assert_close(f(x.to("tpu")).cpu(), ref(x), **TOL)
    gs = _graphs(old)
    assert gs and all(g.why is None and g.plans and g.scalars for g in gs), [(g.why, g.scalars) for g in gs]


def test_a_dynamic_llama_is_captured_per_length():
    torch._dynamo.reset()
    old = _old()
    cfg = transformers.LlamaConfig(vocab_size=100, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                                   hidden_size=32, intermediate_size=64, max_position_embeddings=64)
    torch.manual_seed(0)
    ref = transformers.LlamaForCausalLM(cfg).eval()
    dev = transformers.LlamaForCausalLM(cfg).eval()
    dev.load_state_dict(ref.state_dict())
    f = torch.compile(dev.to("tpu"), backend="tpu", dynamic=True)
    before = torch.tpu.plan_stats()
    with torch.no_grad():
        for n in (5, 9, 5):
            ids = torch.randint(0, 100, (2, n), generator=torch.Generator().manual_seed(n))
            got = f(input_ids=ids.to("tpu"), use_cache=False).logits.cpu()
            torch.testing.assert_close(got, ref(input_ids=ids, use_cache=False).logits, **TOL)
    after = torch.tpu.plan_stats()
    assert after["capture_failures"] == before["capture_failures"]
    assert after["replays"] - before["replays"] >= 1  # the second 5
    assert any(g.scalars for g in _graphs(old))


class NewGelu(torch.nn.Module):
    """gpt2's tanh GELU (transformers' NewGELUActivation): under dynamic shapes Dynamo lifts math.pi to a
    0-d CPU tensor argument, and the forward computes sqrt(2 / pi) from it on the CPU and saves it for the
    backward."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.lin(x)
        return 0.5 * y * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (y + 0.044715 * torch.pow(y, 3.0))))


def test_a_cpu_scale_saved_for_the_backward_is_captured():
    """The forward computes a scale from a lifted 0-d CPU tensor and saves it for the backward (a CPU tensor
    among the forward's outputs): the scalar goes to the device all the same, and the backward takes the
    saved scale there. Before: "argument 13 is not a tpu tensor", the forward op by op for good (gpt2's
    training step, `tools/causal_lm_sweep.py --train`)."""
    old, ref, dev, f = _pair(NewGelu)
    before = torch.tpu.plan_stats()
    for seed in range(3):
        x = torch.randn(4, 8, generator=torch.Generator().manual_seed(seed))
        got = f(x.to("tpu"))
        want = ref(x)
        w = torch.randn(4, 8, generator=torch.Generator().manual_seed(seed + 9))
        got_g = torch.autograd.grad(got, list(dev.parameters()), w.to("tpu"))
        want_g = torch.autograd.grad(want, list(ref.parameters()), w)
        torch.testing.assert_close(got.detach().cpu(), want.detach(), **TOL)
        for a, b in zip(got_g, want_g):
            torch.testing.assert_close(a.cpu(), b, **TOL)
    after = torch.tpu.plan_stats()
    gs = _graphs(old)
    assert len(gs) == 2 and all(g.why is None and g.plans for g in gs), [(g.why, g.scalars) for g in gs]
    assert any(g.scalars for g in gs)
    assert after["capture_failures"] == before["capture_failures"] and after["replays"] - before["replays"] >= 4
