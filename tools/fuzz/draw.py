"""Seeded drawing of argument specs (tensors, scalars, dims, wrong types) for the catalogue."""
import math

from . import values as V


class Draw:
    """One call's random choices; every tensor gets its own value seed."""

    def __init__(self, rng):
        self.r = rng
        self.flags = {}  # per-call: tpu_must_raise, tpu_may_raise, strides, acc

    def choice(self, seq):
        return seq[self.r.randrange(len(seq))]

    def p(self, prob):
        return self.r.random() < prob

    def dtype(self, pool=V.SUPPORTED, refused=0.02):
        if self.p(refused):
            self.flags["tpu_may_raise"] = True
            return self.choice(V.REFUSED)
        return self.choice(pool)

    def shape(self, pool=V.SHAPES):
        return list(self.choice(pool))

    def fill(self):
        return "special" if self.p(0.35) else "normal"

    def tensor(self, shape=None, dtype=None, fill=None, view="any", dev="same", hi=1):
        shape = self.shape() if shape is None else list(shape)
        dtype = self.dtype() if dtype is None else dtype
        if view == "any":
            view = self.choice(("t", "slice", "expand", "overlap")) if self.p(0.3) else None
        if dtype in V.REFUSED:
            self.flags["tpu_may_raise"] = True
        return {"k": "T", "shape": shape, "dtype": dtype, "fill": fill or self.fill(),
                "seed": self.r.randrange(1 << 30), "view": view, "dev": dev, "hi": hi}

    def other(self, shape, dtype):
        """A second operand of an elementwise op: same or broadcast shape, maybe on CPU."""
        k = self.r.random()
        if k < 0.6:
            s = list(shape)
        elif k < 0.75:
            s = []
        elif k < 0.85 and shape:
            s = [1] * len(shape[:-1]) + [shape[-1]]
        else:
            s = self.shape()  # often not broadcastable: both must raise
        dev = "same"
        if self.p(0.06):
            dev = "cpu"
            if s:  # a CPU tensor of more than 0 dims beside a tpu tensor must raise on tpu
                self.flags["tpu_must_raise"] = True
        return self.tensor(s, dtype, dev=dev)

    def scalar(self, kind=None):
        kind = kind or self.choice(("int", "float", "float", "bool", "complex", "special", "big"))
        if kind == "int":
            v = self.r.randint(-5, 5)
        elif kind == "float":
            v = round(self.r.uniform(-4, 4), 3)
        elif kind == "bool":
            v = self.p(0.5)
        elif kind == "complex":
            v = complex(round(self.r.uniform(-2, 2), 2), round(self.r.uniform(-2, 2), 2))
        elif kind == "big":
            v = self.choice((2 ** 31, -2 ** 31 - 1, 2 ** 63 - 1, 300, -129, 70000, 1e300))
        else:
            v = self.choice((math.nan, math.inf, -math.inf, -0.0))
        return {"k": "S", "v": V.encode_scalar(v)}

    def wrong(self):
        return self.choice(({"k": "W", "v": "str"}, {"k": "W", "v": "list"}, {"k": "N"}, {"k": "W", "v": "obj"}))

    def dim(self, ndim, allow_none=False):
        if allow_none and self.p(0.25):
            return None
        if self.p(0.05):
            return ndim + 1  # out of range: both must raise
        n = max(ndim, 1)
        return self.r.randrange(-n, n)
