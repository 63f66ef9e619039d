"""torch.tpu.Generator: a generator for tpu random ops (randn, normal_, dropout,
... with generator=). torch.Generator(device="tpu") needs a C++ hook
(PrivateUse1HooksInterface::getNewGenerator) that a C extension cannot
register, so this is a torch.Generator subclass whose (seed, offset) the
binding swaps in for the device's during a call; same seed, same draws, and
two generators never share state with each other or with torch.tpu.manual_seed."""
import random
import weakref

import torch

_DEFAULT_SEED = 67280421310721  # PyTorch's default seed, as the device's


# The dispatcher hands a kernel a fresh torch.Generator wrapper of the same
# C++ generator, not this subclass: the binding finds ours by that handle.
_registry = weakref.WeakValueDictionary()


def _lookup(gen):
    """The torch.tpu.Generator behind gen (any wrapper of it), or None."""
    return gen if isinstance(gen, Generator) else _registry.get(gen._cdata)


class Generator(torch.Generator):
    def __init__(self, device="tpu"):
        if torch.device(device).type != "tpu":
            raise RuntimeError(f"torch.tpu.Generator is for tpu tensors, got device {device!r}")
        super().__init__()
        self._tt_seed = _DEFAULT_SEED
        self._tt_offset = 0
        _registry[self._cdata] = self

    @property
    def device(self):
        return torch.device("tpu", 0)

    def manual_seed(self, seed):
        self._tt_seed = int(seed) & 0xFFFF_FFFF_FFFF_FFFF
        self._tt_offset = 0
        return self

    def seed(self):
        self.manual_seed(random.getrandbits(63))
        return self._tt_seed

    def initial_seed(self):
        return self._tt_seed

    def get_offset(self):
        return self._tt_offset

    def set_offset(self, offset):
        self._tt_offset = int(offset)
        return self

    def get_state(self):
        """(seed, offset) as a uint8 tensor, in torch.tpu.get_rng_state's layout."""
        s = self._tt_seed
        return torch.tensor([s & 0x7FFF_FFFF_FFFF_FFFF, self._tt_offset, s >> 63], dtype=torch.int64).view(torch.uint8)

    def set_state(self, new_state):
        v = new_state.view(torch.int64).tolist()
        if len(v) != 3:
            raise RuntimeError("torch.tpu.Generator.set_state: expected the 24-byte state from get_state()")
        self._tt_seed, self._tt_offset = (v[0] | (v[2] << 63)) & 0xFFFF_FFFF_FFFF_FFFF, v[1]
        return self

    def clone_state(self):
        g = Generator()
        g._tt_seed, g._tt_offset = self._tt_seed, self._tt_offset
        return g

    def __reduce__(self):
        return (_rebuild, (self._tt_seed, self._tt_offset))


def _rebuild(seed, offset):
    return Generator().manual_seed(seed).set_offset(offset)
