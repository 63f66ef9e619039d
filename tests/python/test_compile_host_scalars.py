"""Compiled graphs whose arguments include 0-d CPU tensors (Dynamo lifts a
model's Python floats to them under dynamic shapes -- a scale attribute, a
rotary embedding's attention scaling -- and a model's own torch.tensor(...)
scalars): each call moves them to the device, so the graph is captured into
a plan with them as arguments instead of running op by op, and a new value
reaches the program (nothing is baked in)."""
import gc

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


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.scale = 0.5

    def forward(self, x):
        return self.lin(x) * self.scale + self.scale


def test_a_lifted_float_is_an_argument_of_the_plan():
    torch._dynamo.reset()
    old = _old()
    torch.manual_seed(0)
    ref = Scaled()
    dev = Scaled()
    dev.load_state_dict(ref.state_dict())
    f = torch.compile(dev.to("tpu"), backend="tpu", dynamic=True)
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
