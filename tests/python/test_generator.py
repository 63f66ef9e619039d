"""generator= on tpu random ops: torch.tpu.Generator drives the draws
(same seed, same values; generators independent of each other and of the
device's default state); a generator of another device is refused with
CUDA's error. Also: successive draws of the device state do not overlap."""
import pickle

import pytest
import torch

import torchtpu  # noqa: F401

OPS = {
    "randn": lambda g: torch.randn(64, device="tpu", generator=g),
    "rand": lambda g: torch.rand(64, device="tpu", generator=g),
    "randn_complex": lambda g: torch.randn(64, device="tpu", dtype=torch.complex64, generator=g),
    "normal_": lambda g: torch.empty(64, device="tpu").normal_(generator=g),
    "uniform_": lambda g: torch.empty(64, device="tpu").uniform_(-1, 1, generator=g),
    "exponential_": lambda g: torch.empty(64, device="tpu").exponential_(generator=g),
    "random_": lambda g: torch.empty(64, device="tpu").random_(0, 100, generator=g),
    "bernoulli": lambda g: torch.bernoulli(torch.full((64,), 0.5, device="tpu"), generator=g),
    "multinomial": lambda g: torch.multinomial(torch.ones(64, device="tpu"), 8, generator=g),
    "randperm": lambda g: torch.randperm(64, device="tpu", generator=g),
    "normal_tensor": lambda g: torch.normal(torch.zeros(64, device="tpu"), 1.0, generator=g),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_same_seed_same_values_and_independent_generators(name):
    fn = OPS[name]
    g1, g2 = torch.tpu.Generator().manual_seed(11), torch.tpu.Generator().manual_seed(11)
    torch.tpu.manual_seed(0)
    d0 = fn(None).cpu()
    a = fn(g1).cpu()
    other = torch.tpu.Generator().manual_seed(12)
    fn(other)  # another generator's draw does not move g2
    b = fn(g2).cpu()
    assert torch.equal(a, b)
    assert not torch.equal(fn(g1).cpu(), a)  # the generator advanced
    torch.tpu.manual_seed(0)
    assert torch.equal(fn(None).cpu(), d0)  # the device's state did not move with g1/g2


def test_generator_state_round_trip():
    g = torch.tpu.Generator()
    assert g.device == torch.device("tpu", 0)
    g.manual_seed(3)
    assert g.initial_seed() == 3
    s = g.get_state()
    a = torch.rand(8, device="tpu", generator=g).cpu()
    assert g.get_offset() > 0
    g.set_state(s)
    assert torch.equal(torch.rand(8, device="tpu", generator=g).cpu(), a)
    g.set_state(s)
    h = pickle.loads(pickle.dumps(g))
    assert torch.equal(torch.rand(8, device="tpu", generator=h).cpu(), a)


@pytest.mark.parametrize("call", [lambda g: torch.randn(3, device="tpu", generator=g),
                                  lambda g: torch.empty(3, device="tpu").normal_(generator=g),
                                  lambda g: torch.randperm(4, device="tpu", generator=g)])
def test_generator_of_another_device_is_refused_like_cuda(call):
    with pytest.raises(RuntimeError, match="Expected a 'tpu' device type for generator but found 'cpu'"):
        call(torch.Generator().manual_seed(1))


def test_successive_draws_do_not_overlap():
    """Draw k+1 used to be draw k shifted by one three-fry block."""
    torch.tpu.manual_seed(0)
    a, b = torch.rand(64, device="tpu").cpu(), torch.rand(64, device="tpu").cpu()
    for s in range(1, 8):
        assert not torch.equal(a[s:], b[:-s])
    assert len(set(a.tolist()) & set(b.tolist())) < 4
