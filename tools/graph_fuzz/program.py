"""A seeded random program: a few float32 inputs, a chain of ATen-level
statements over them (pointwise, broadcasting, reductions, views, in-place
writes through views and into the inputs, matrix products, concatenation,
indexing, rounding casts), returned as Python source of one function.

The same (seed, index) always gives the same program. Each statement keeps
the shapes valid by construction (it reads the shapes of earlier variables),
so CPU runs every program; what a tpu mode does differently is ours.

Spec: {"id": "S:I", "inputs": [[name, shape, kind, high, layout, special]], "src": "def f(...): ...",
"grad": whether the runs also differentiate it}
kind "float" (randn, scaled) or "index" (randint(0, high)); layout
"contiguous", "transposed", "strided" or "alias" (the float input numbered
`high`, passed again); special: the fraction of elements set to zeros,
infinities and NaN. `DT` in the
source is the floating dtype the program computes in (float32; float64 for
the reference run), bound by the runner.
"""
import random

DIMS = (1, 2, 3, 4, 5, 8)
UNARY = ("torch.neg({a})", "torch.abs({a})", "torch.relu({a})", "torch.sigmoid({a})", "torch.tanh({a})",
         "torch.sin({a})", "torch.cos({a})", "torch.exp({a}.clamp(-20, 20))", "torch.log1p(torch.abs({a}))",
         "torch.sqrt(torch.abs({a}))", "torch.rsqrt(torch.abs({a}) + 1)", "torch.floor({a})",
         "torch.square({a})", "torch.nn.functional.gelu({a})", "torch.nn.functional.silu({a})",
         "torch.erf({a})", "torch.atan({a})", "torch.sign({a})", "({a} * {a}).clamp(max=4.0)")
BINARY = ("torch.add({a}, {b})", "torch.sub({a}, {b})", "torch.mul({a}, {b})", "torch.div({a}, torch.abs({b}) + 0.5)",
          "torch.maximum({a}, {b})", "torch.minimum({a}, {b})", "torch.atan2({a}, {b})",
          "torch.where({a} > {b}, {a}, {b} * 2)", "torch.add({a}, {b}, alpha=-0.5)", "torch.hypot({a}, {b})",
          "torch.lerp({a}, {b}, 0.25)", "torch.copysign({a}, torch.nan_to_num({b}))")
SCALAR = ("{a} * 2.5", "{a} + 1", "{a} - 0.75", "{a} / 3", "2 - {a}", "{a} ** 2", "torch.clamp({a}, -1.0, 0.5)")
INPLACE_SCALAR = ("{a}.mul_(1.5)", "{a}.add_(0.25)", "{a}.clamp_(-0.5, 1.0)", "{a}.relu_()", "{a}.neg_()",
                  "{a}.zero_()", "{a}.sigmoid_()")


class _Var:
    def __init__(self, name, shape, kind="float", base=None, expanded=False):
        self.name, self.shape, self.kind, self.base, self.expanded = name, tuple(shape), kind, base, expanded


class _Gen:
    def __init__(self, rng):
        self.rng, self.inputs, self.vars, self.lines, self.n = rng, [], [], [], 0

    # ---------------------------------------------------------------- helpers
    def shape(self, lo=0, hi=3):
        return tuple(self.rng.choice(DIMS) for _ in range(self.rng.randint(lo, hi)))

    def new_input(self, shape, kind="float", high=0):
        """An argument of the program. A float one is contiguous, or a
        transposed or strided view of a larger tensor, or (an alias) a
        previous float argument of the same shape passed again; some carry
        special values (zeros, infinities, NaN)."""
        v = _Var(f"x{len(self.inputs)}", shape, kind)
        layout, special = "contiguous", 0.0
        if kind == "float":
            same = [i for i in self.inputs if i[2] == "float" and tuple(i[1]) == tuple(shape) and i[4] != "alias"]
            r = self.rng.random()
            if same and r < 0.1:
                layout = "alias"
                high = self.inputs.index(self.rng.choice(same))
            elif len(shape) >= 2 and r < 0.3:
                layout = "transposed"
            elif len(shape) >= 1 and r < 0.45:
                layout = "strided"
            if self.rng.random() < 0.15:
                special = self.rng.choice((0.1, 0.3))
        self.inputs.append([v.name, list(shape), kind, high, layout, special])
        if kind == "float":
            self.vars.append(v)
        return v

    def emit(self, expr, shape, kind="float", base=None, expanded=False):
        v = _Var(f"v{self.n}", shape, kind, base, expanded)
        self.n += 1
        self.lines.append(f"    {v.name} = {expr}")
        if kind == "float":
            self.vars.append(v)
        else:
            self.terminal.append(v)
        return v

    def pick(self, min_rank=0, writable=False):
        c = [v for v in self.vars if len(v.shape) >= min_rank and not (writable and v.expanded)]
        return self.rng.choice(c) if c else None

    def broadcastable_to(self, shape):
        """A shape that broadcasts to `shape`: a suffix of it with some dims 1."""
        k = self.rng.randint(0, len(shape))
        return tuple(1 if self.rng.random() < 0.3 else d for d in shape[len(shape) - k:])

    def other_for(self, shape):
        """An existing variable broadcastable to `shape`, or a new input."""
        c = [v for v in self.vars if _broadcasts(v.shape, shape)]
        if c and self.rng.random() < 0.6:
            return self.rng.choice(c)
        return self.new_input(self.broadcastable_to(shape))

    # ---------------------------------------------------------------- statements
    def unary(self):
        a = self.pick()
        self.emit(self.rng.choice(UNARY).format(a=a.name), a.shape)

    def binary(self):
        a = self.pick()
        b = self.other_for(a.shape)
        if self.rng.random() < 0.5:
            a, b = b, a
        self.emit(self.rng.choice(BINARY).format(a=a.name, b=b.name), _broadcast(a.shape, b.shape))

    def scalar(self):
        a = self.pick()
        self.emit(self.rng.choice(SCALAR).format(a=a.name), a.shape)

    def reduction(self):
        a = self.pick(1)
        if a is None:
            return self.unary()
        d = self.rng.randrange(len(a.shape))
        keep = self.rng.random() < 0.4
        op = self.rng.choice(("sum", "mean", "amax", "amin", "prod", "logsumexp", "var", "std", "norm"))
        shape = tuple(1 if i == d else s for i, s in enumerate(a.shape)) if keep else a.shape[:d] + a.shape[d + 1:]
        if op in ("var", "std"):
            self.emit(f"torch.{op}({a.name}, dim={d}, keepdim={keep}, correction=0)", shape)
        elif op == "norm":
            self.emit(f"torch.linalg.vector_norm({a.name}, dim={d}, keepdim={keep})", shape)
        elif op == "prod":
            self.emit(f"torch.prod({a.name}.clamp(-2, 2), dim={d}, keepdim={keep})", shape)
        else:
            self.emit(f"torch.{op}({a.name}, dim={d}, keepdim={keep})", shape)

    def full_reduction(self):
        a = self.pick()
        self.emit(f"{a.name}.{self.rng.choice(('sum', 'mean', 'amax'))}()", ())

    def along(self):
        a = self.pick(1)
        if a is None:
            return self.unary()
        d = self.rng.randrange(len(a.shape))
        op = self.rng.choice(("torch.softmax({a}, {d})", "torch.log_softmax({a}, {d})", "torch.cumsum({a}, {d})",
                              "torch.cummax({a}, {d})[0]", "torch.flip({a}, ({d},))", "torch.roll({a}, 1, {d})"))
        self.emit(op.format(a=a.name, d=d), a.shape)

    def view(self):
        a = self.pick()
        r, s = len(a.shape), a.shape
        base = a.base or a
        choice = self.rng.choice(("t", "perm", "unsq", "sq", "slice", "narrow", "flat", "expand", "select", "diag"))
        if choice == "t" and r >= 2:
            d0, d1 = self.rng.sample(range(r), 2)
            sh = list(s)
            sh[d0], sh[d1] = sh[d1], sh[d0]
            return self.emit(f"{a.name}.transpose({d0}, {d1})", sh, base=base, expanded=a.expanded)
        if choice == "perm" and r >= 2:
            p = list(range(r))
            self.rng.shuffle(p)
            return self.emit(f"{a.name}.permute({tuple(p)})", [s[i] for i in p], base=base, expanded=a.expanded)
        if choice == "unsq" and r < 4:
            d = self.rng.randint(0, r)
            return self.emit(f"{a.name}.unsqueeze({d})", s[:d] + (1,) + s[d:], base=base, expanded=a.expanded)
        if choice == "sq" and 1 in s:
            return self.emit(f"{a.name}.squeeze()", [x for x in s if x != 1], base=base, expanded=a.expanded)
        if choice == "slice" and r >= 1:
            d = self.rng.randrange(r)
            start, step = self.rng.randint(0, max(0, s[d] - 1)), self.rng.choice((1, 1, 2))
            n = len(range(start, s[d], step))
            idx = ", ".join([":"] * d + [f"{start}::{step}"])
            return self.emit(f"{a.name}[{idx}]", s[:d] + (n,) + s[d + 1:], base=base, expanded=a.expanded)
        if choice == "narrow" and r >= 1:
            d = self.rng.randrange(r)
            ln = self.rng.randint(1, s[d])
            st = self.rng.randint(0, s[d] - ln)
            return self.emit(f"{a.name}.narrow({d}, {st}, {ln})", s[:d] + (ln,) + s[d + 1:], base=base,
                             expanded=a.expanded)
        if choice == "flat" and r >= 2:
            n = 1
            for x in s:
                n *= x
            return self.emit(f"{a.name}.reshape(-1)", (n,))  # a copy when not viewable: not tracked as a view
        if choice == "expand" and 1 in s:
            sh = tuple(self.rng.choice(DIMS) if x == 1 else x for x in s)
            return self.emit(f"{a.name}.expand({sh})", sh, base=base, expanded=True)
        if choice == "select" and r >= 1:
            d = self.rng.randrange(r)
            i = self.rng.randrange(s[d])
            return self.emit(f"{a.name}.select({d}, {i})", s[:d] + s[d + 1:], base=base, expanded=a.expanded)
        if choice == "diag" and r == 2:
            return self.emit(f"{a.name}.diagonal()", (min(s),), base=base, expanded=a.expanded)
        return self.unary()

    def inplace(self):
        a = self.pick(writable=True)
        if a is None:
            return self.unary()
        k = self.rng.random()
        if k < 0.4:
            self.lines.append("    " + self.rng.choice(INPLACE_SCALAR).format(a=a.name))
        elif k < 0.6:
            b = self.other_for(a.shape)
            op = self.rng.choice(("add_", "mul_", "sub_", "copy_", "maximum"))
            if op == "maximum":
                self.lines.append(f"    {a.name}.copy_(torch.maximum({a.name}, {b.name}))")
            else:
                self.lines.append(f"    {a.name}.{op}({b.name})")
        elif k < 0.75:
            self.lines.append(f"    {a.name}.masked_fill_({a.name} > 0.5, -1.0)")
        elif len(a.shape) >= 1:
            d = self.rng.randrange(len(a.shape))
            ln = self.rng.randint(1, a.shape[d])
            st = self.rng.randint(0, a.shape[d] - ln)
            sub = a.shape[:d] + (ln,) + a.shape[d + 1:]
            b = self.other_for(sub)
            idx = ", ".join([":"] * d + [f"{st}:{st + ln}"])
            self.lines.append(f"    {a.name}[{idx}] = {b.name}")
        else:
            self.lines.append(f"    {a.name}.fill_(0.5)")

    def matmul(self):
        a = self.pick(2)
        if a is None or len(a.shape) > 3:
            return self.binary()
        n = self.rng.choice(DIMS)
        if self.rng.random() < 0.5:
            w = self.new_input((a.shape[-1], n))
        else:  # a transposed weight, as nn.Linear holds it
            w = self.new_input((n, a.shape[-1]))
            return self.emit(f"{a.name} @ {w.name}.t()", a.shape[:-1] + (n,))
        self.emit(f"torch.matmul({a.name}, {w.name})", a.shape[:-1] + (n,))

    def linear(self):
        a = self.pick(1)
        if a is None:
            return self.unary()
        n = self.rng.choice(DIMS)
        w = self.new_input((n, a.shape[-1]))
        bias = self.new_input((n,))
        self.emit(f"torch.nn.functional.linear({a.name}, {w.name}, {bias.name})", a.shape[:-1] + (n,))

    def cat(self):
        a = self.pick(1)
        if a is None:
            return self.unary()
        d = self.rng.randrange(len(a.shape))
        m = self.rng.choice(DIMS)
        b_shape = a.shape[:d] + (m,) + a.shape[d + 1:]
        c = [v for v in self.vars if v.shape == b_shape]
        b = self.rng.choice(c) if c and self.rng.random() < 0.5 else self.new_input(b_shape)
        if self.rng.random() < 0.2 and b.shape == a.shape:
            return self.emit(f"torch.stack([{a.name}, {b.name}], {d})", a.shape[:d] + (2,) + a.shape[d:])
        self.emit(f"torch.cat([{a.name}, {b.name}], {d})", a.shape[:d] + (a.shape[d] + m,) + a.shape[d + 1:])

    def index(self):
        a = self.pick(1)
        if a is None:
            return self.unary()
        d = self.rng.randrange(len(a.shape))
        ln = self.rng.choice((1, 2, 3, 5))
        idx = self.new_input((ln,), "index", a.shape[d])
        op = self.rng.random()
        if op < 0.5:
            self.emit(f"torch.index_select({a.name}, {d}, {idx.name})", a.shape[:d] + (ln,) + a.shape[d + 1:])
        elif op < 0.75 and d == 0:
            self.emit(f"{a.name}[{idx.name}]", (ln,) + a.shape[1:])
        else:  # index_add_ into a copy (duplicates in idx accumulate)
            src = self.other_for(a.shape[:d] + (ln,) + a.shape[d + 1:])
            src_full = a.shape[:d] + (ln,) + a.shape[d + 1:]
            self.emit(f"{a.name}.clone().index_add_({d}, {idx.name}, {src.name}.expand({src_full}))", a.shape)

    def cast(self):
        a = self.pick()
        op = self.rng.choice(("{a}.half().to(DT)", "{a}.bfloat16().to(DT)", "({a} > 0).to(DT)",
                              "{a}.to(torch.int32).to(DT)", "torch.round({a} * 4) / 4"))
        self.emit(op.format(a=a.name), a.shape)

    def integer(self):
        a = self.pick(1)
        if a is None:
            return self.unary()
        d = self.rng.randrange(len(a.shape))
        op = self.rng.choice(("torch.argmax({a}, {d})", "torch.argmin({a}, {d})", "({a} > 0).sum({d})",
                              "torch.sort({a}, dim={d}, stable=True).indices"))
        s = a.shape[:d] + a.shape[d + 1:] if op.startswith(("torch.argm", "(")) else a.shape
        self.emit(op.format(a=a.name, d=d), s, kind="int")

    STATEMENTS = (("unary", 14), ("binary", 16), ("scalar", 6), ("reduction", 8), ("full_reduction", 2),
                  ("along", 6), ("view", 14), ("inplace", 14), ("matmul", 4), ("linear", 3), ("cat", 4),
                  ("index", 4), ("cast", 3), ("integer", 3))


def _broadcasts(src, dst):
    if len(src) > len(dst):
        return False
    return all(a == 1 or a == b for a, b in zip(reversed(src), reversed(dst)))


def _broadcast(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return tuple(max(x, y) if 1 in (x, y) else x for x, y in zip(a, b))


def make_program(seed, index, statements=None):
    rng = random.Random(seed * 1000003 + index)
    g = _Gen(rng)
    g.terminal = []
    for _ in range(rng.randint(1, 3)):
        g.new_input(g.shape())
    names, weights = zip(*_Gen.STATEMENTS)
    for _ in range(statements or rng.randint(3, 12)):
        getattr(g, rng.choices(names, weights)[0])()
    outs = [v.name for v in g.vars if v.name.startswith("v")][-8:] + [v.name for v in g.terminal]
    args = ", ".join(i[0] for i in g.inputs)
    body = "\n".join(g.lines) or "    pass"
    ret = ", ".join(outs) + ("," if len(outs) == 1 else "")
    src = f"def f({args}):\n{body}\n    return ({ret})\n"
    grad = rng.random() < 0.4  # drawn last: the programs before it do not depend on it
    return {"id": f"{seed}:{index}", "inputs": g.inputs, "src": src, "grad": grad}
