"""`model.to("tpu")` keeps tied weights tied and Parameter objects the same
objects, as `.to("cuda")` does: an optimizer built before the move then trains
the moved model, and a round trip back to CPU keeps them too."""
import copy

import torch

from conftest import to_cpu


class TiedLM(torch.nn.Module):
    def __init__(self, vocab=11, dim=6):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, dim)
        self.mid = torch.nn.Linear(dim, dim)
        self.norm = torch.nn.LayerNorm(dim)
        self.head = torch.nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.emb.weight
        self.register_buffer("scale", torch.full((dim,), 0.5))

    def forward(self, ids):
        h = torch.tanh(self.mid(self.emb(ids))) * self.scale
        return self.head(self.norm(h))


def _model():
    torch.manual_seed(0)
    return TiedLM()


def _ids(device):
    return torch.tensor([[1, 4, 7, 2], [3, 3, 9, 0]], device=device)


def _train(model, opt, device, steps=3):
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        logits = model(_ids(device))
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), _ids(device).roll(1).reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_compatible_shallow_copy_type_cpu_and_tpu():
    cpu, tpu = torch.ones(2), torch.ones(2, device="tpu")
    assert torch._has_compatible_shallow_copy_type(cpu, tpu)
    assert torch._has_compatible_shallow_copy_type(tpu, cpu)
    assert not torch._has_compatible_shallow_copy_type(tpu, torch.ones(2, device="meta"))
    p = torch.nn.Parameter(torch.arange(3.0))
    p.data = torch.full((3,), 2.0, device="tpu")
    assert p.device.type == "tpu" and isinstance(p, torch.nn.Parameter)
    torch.testing.assert_close(p.detach().cpu(), torch.full((3,), 2.0))


def test_to_tpu_keeps_ties_and_parameter_objects():
    model = _model()
    before = list(model.parameters())
    weight = model.emb.weight
    model.to("tpu")
    assert model.head.weight is model.emb.weight
    assert model.emb.weight is weight
    after = list(model.parameters())
    assert len(after) == len(before) and all(a is b for a, b in zip(after, before))
    assert all(p.device.type == "tpu" for p in after)
    assert model.scale.device.type == "tpu"


def test_optimizer_built_before_move_trains_tpu_params():
    ref = _model()
    ref_opt = torch.optim.AdamW(ref.parameters(), lr=0.05)
    ref_losses = _train(ref, ref_opt, "cpu")

    model = _model()
    opt = torch.optim.AdamW(model.parameters(), lr=0.05)  # built on CPU, before the move
    model.to("tpu")
    losses = _train(model, opt, "tpu")
    torch.testing.assert_close(losses, ref_losses, rtol=1e-5, atol=1e-6)
    assert all(p.device.type == "tpu" for g in opt.param_groups for p in g["params"])
    for (name, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        torch.testing.assert_close(to_cpu(p), q, rtol=1e-5, atol=1e-6, msg=name)
    # one gradient for the tied weight, accumulated from both uses
    assert sum(1 for p in model.parameters() if p.grad is not None) == sum(1 for p in ref.parameters() if p.grad is not None)


def test_round_trip_to_cpu_keeps_ties_and_grads():
    model = _model()
    weight = model.emb.weight
    model.to("tpu")
    _train(model, torch.optim.SGD(model.parameters(), lr=0.1), "tpu", steps=1)
    on_tpu = {k: to_cpu(v) for k, v in model.state_dict().items()}
    model.to("cpu")
    assert model.emb.weight is weight and model.head.weight is weight
    assert weight.device.type == "cpu" and weight.grad.device.type == "cpu"
    for k, v in model.state_dict().items():
        torch.testing.assert_close(v, on_tpu[k], rtol=0, atol=0, msg=k)


def test_state_dict_round_trip():
    src = _model()
    src.to("tpu")
    _train(src, torch.optim.SGD(src.parameters(), lr=0.1), "tpu", steps=2)
    sd = src.state_dict()
    assert all(v.device.type == "tpu" for v in sd.values())
    dst = TiedLM().to("tpu")
    weight = dst.emb.weight
    dst.load_state_dict(sd)
    assert dst.emb.weight is weight and dst.head.weight is weight
    for k, v in dst.state_dict().items():
        torch.testing.assert_close(to_cpu(v), to_cpu(sd[k]), rtol=0, atol=0, msg=k)
    cpu = TiedLM()
    cpu.load_state_dict({k: v.cpu() for k, v in sd.items()})
    torch.testing.assert_close(cpu(_ids("cpu")), to_cpu(dst(_ids("tpu"))), rtol=1e-5, atol=1e-6)


def test_deepcopy_of_moved_model_keeps_tie():
    model = _model().to("tpu")
    twin = copy.deepcopy(model)
    assert twin.head.weight is twin.emb.weight and twin.emb.weight is not model.emb.weight
    torch.testing.assert_close(to_cpu(twin(_ids("tpu"))), to_cpu(model(_ids("tpu"))), rtol=0, atol=0)


def test_default_and_swap_conversion_paths_keep_ties():
    old = torch.__future__.get_swap_module_params_on_conversion()
    try:
        for swap in (False, True):  # the default, and PyTorch's opt-in swap_tensors path
            torch.__future__.set_swap_module_params_on_conversion(swap)
            model = _model()
            weight = model.emb.weight
            model.to("tpu")
            assert model.emb.weight is weight and model.head.weight is weight and weight.device.type == "tpu", swap
            model.to("cpu")
            assert model.emb.weight is weight and model.head.weight is weight and weight.device.type == "cpu", swap
    finally:
        torch.__future__.set_swap_module_params_on_conversion(old)
