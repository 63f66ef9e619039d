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
# atan2's and copysign's second operands are never a zero or NaN: the sign of
# a zero result (a one-term dot product of -0 is -0 in XLA, +0 in CPU's BLAS)
# and a NaN's sign bit are the platform's, and these two ops make them visible.
BINARY = ("torch.add({a}, {b})", "torch.sub({a}, {b})", "torch.mul({a}, {b})", "torch.div({a}, torch.abs({b}) + 0.5)",
          "torch.maximum({a}, {b})", "torch.minimum({a}, {b})", "torch.atan2({a}, {b} * 2 + 1e-3)",
          "torch.where({a} > {b}, {a}, {b} * 2)", "torch.add({a}, {b}, alpha=-0.5)", "torch.hypot({a}, {b})",
          "torch.lerp({a}, {b}, 0.25)", "torch.copysign({a}, torch.nan_to_num({b}) * 2 + 1e-3)")
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
        if layout == "alias":
            v.base = next(x for x in self.vars if x.name == self.inputs[high][0])
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

    def other_for(self, shape, target=None):
        """An existing variable broadcastable to `shape`, or a new input; for
        an in-place write into `target`, never one sharing its memory (CPU
        refuses a partial overlap it can see and, where it cannot (an
        expanded source), reads elements it has already written: its answer
        then depends on its loop order)."""
        root = target and (target.base or target)
        c = [v for v in self.vars if _broadcasts(v.shape, shape) and (root is None or (v.base or v) is not root)]
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
            return self.emit(f"{a.name}.reshape(-1)", (n,), base=base)  # a view when viewable, else a copy
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
            b = self.other_for(a.shape, a)
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
            b = self.other_for(sub, a)
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
        """Rounding casts; a float into int32 only from finite values in range
        (NaN and out-of-range values convert to whatever the hardware gives)."""
        a = self.pick()
        op = self.rng.choice(("{a}.half().to(DT)", "{a}.bfloat16().to(DT)", "({a} > 0).to(DT)",
                              "torch.nan_to_num({a}).clamp(-1e6, 1e6).to(torch.int32).to(DT)", "torch.round({a} * 4) / 4"))
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

    def scatter(self):
        a = self.pick(1, writable=True)
        if a is None:
            return self.unary()
        d = self.rng.randrange(len(a.shape))
        k = self.rng.random()
        if k < 0.35:  # gather along d: an index of a's shape with values in range
            idx = self.new_input(a.shape, "index", a.shape[d])
            return self.emit(f"torch.gather({a.name}, {d}, {idx.name})", a.shape)
        if k < 0.7:  # scatter_add / scatter reduce into a copy (duplicates accumulate)
            idx = self.new_input(a.shape, "index", a.shape[d])
            src = self.other_for(a.shape)
            red = self.rng.choice(("", ", reduce='sum'", ", reduce='amax'", ", reduce='prod'", ", reduce='mean'"))
            fn = "scatter_add" if not red else "scatter_reduce"
            expr = (f"{a.name}.clone().{fn}({d}, {idx.name}, {src.name}.expand({a.shape})"
                    + (f"{red}, include_self={self.rng.random() < 0.5})" if red else ")"))
            return self.emit(expr, a.shape)
        if k < 0.85:  # index_put_ with accumulate, on the tensor itself (through any view)
            ln = self.rng.choice((1, 2, 4))
            idx = self.new_input((ln,), "index", a.shape[0])
            val = self.other_for((ln,) + a.shape[1:], a)
            acc = self.rng.random() < 0.6
            self.lines.append(f"    {a.name}.index_put_(({idx.name},), {val.name}.expand({(ln,) + a.shape[1:]}), "
                              f"accumulate={acc})")
            return None
        m = self.other_for(a.shape)  # masked_scatter from a source of a's shape
        src = self.new_input(a.shape)
        return self.emit(f"{a.name}.masked_scatter({m.name} > 0, {src.name})", a.shape)

    def nn(self):
        a = self.pick(1)
        if a is None:
            return self.unary()
        k = self.rng.random()
        n = a.shape[-1]
        if k < 0.3:
            w, b = self.new_input((n,)), self.new_input((n,))
            return self.emit(f"torch.nn.functional.layer_norm({a.name}, ({n},), {w.name}, {b.name})", a.shape)
        if k < 0.45 and len(a.shape) >= 2:
            c = a.shape[1]
            groups = self.rng.choice([g for g in (1, 2, 4) if c % g == 0])
            return self.emit(f"torch.nn.functional.group_norm({a.name}, {groups})", a.shape)
        if k < 0.6:
            return self.emit(f"torch.nn.functional.rms_norm({a.name}, ({n},), eps=1e-6)", a.shape)
        if k < 0.75 and len(a.shape) == 2:
            t = self.new_input((a.shape[0],), "index", n)
            red = self.rng.choice(("mean", "sum", "none"))
            shape = (a.shape[0],) if red == "none" else ()
            return self.emit(f"torch.nn.functional.cross_entropy({a.name}, {t.name}, reduction='{red}')", shape)
        if k < 0.85:
            b = self.other_for(a.shape)
            loss = self.rng.choice(("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"))
            return self.emit(f"torch.nn.functional.{loss}({a.name}, {b.name}.expand({a.shape}))", ())
        idx = self.new_input((self.rng.choice((1, 3, 5)),), "index", a.shape[0])
        if len(a.shape) == 2:
            return self.emit(f"torch.nn.functional.embedding({idx.name}, {a.name})", (idx_len(self, idx),) + a.shape[1:])
        return self.unary()

    def misc(self):
        a = self.pick()
        r, s = len(a.shape), a.shape
        k = self.rng.random()
        if k < 0.15 and r >= 2:
            return self.emit(f"torch.{self.rng.choice(('tril', 'triu'))}({a.name}, {self.rng.randint(-1, 1)})", s)
        if k < 0.25 and r >= 1:
            reps = tuple(self.rng.choice((1, 2)) for _ in s)
            return self.emit(f"{a.name}.repeat({reps})", tuple(x * y for x, y in zip(s, reps)))
        if k < 0.35 and r >= 1:
            lo, hi = self.rng.randint(0, 2), self.rng.randint(0, 2)
            mode = self.rng.choice(("constant", "reflect", "replicate")) if r >= 2 and s[-1] > 2 else "constant"
            if mode == "reflect" and (lo >= s[-1] or hi >= s[-1]):
                mode = "constant"
            return self.emit(f"torch.nn.functional.pad({a.name}, ({lo}, {hi}), mode='{mode}')",
                             s[:-1] + (s[-1] + lo + hi,))
        if k < 0.45:
            lo, hi = self.other_for(s), self.other_for(s)
            return self.emit(f"torch.clamp({a.name}, min={lo.name}, max={hi.name})", _broadcast(_broadcast(s, lo.shape), hi.shape))
        if k < 0.6 and not a.expanded:
            b, c = self.other_for(s, a), self.other_for(s, a)
            op = self.rng.choice((f"{a.name}.addcmul_({b.name}, {c.name}, value=0.5)",
                                  f"{a.name}.addcdiv_({b.name}, torch.abs({c.name}) + 1, value=-0.25)",
                                  f"{a.name}.lerp_({b.name}, 0.3)", f"{a.name}.clamp_min_(0.1)"))
            self.lines.append("    " + op)
            return None
        if k < 0.7 and r >= 1:
            d = self.rng.randrange(r)
            op = self.rng.choice(("torch.logcumsumexp({a}, {d})", "torch.cummin({a}, {d}).values"))
            return self.emit(op.format(a=a.name, d=d), s)
        if k < 0.8 and r >= 2:
            dims = tuple(sorted(self.rng.sample(range(r), 2)))
            keep = self.rng.random() < 0.5
            shape = tuple(1 if i in dims else x for i, x in enumerate(s)) if keep else tuple(
                x for i, x in enumerate(s) if i not in dims)
            op = self.rng.choice(("mean", "sum", "nansum", "std", "amax"))
            return self.emit(f"torch.{op}({a.name}, dim={dims}, keepdim={keep})", shape)
        if k < 0.9 and r == 3:
            b = self.new_input((s[0], s[2], self.rng.choice(DIMS)))
            if self.rng.random() < 0.5:
                return self.emit(f"torch.bmm({a.name}, {b.name})", (s[0], s[1], b.shape[2]))
            return self.emit(f"torch.einsum('bij,bjk->bik', {a.name}, {b.name})", (s[0], s[1], b.shape[2]))
        return self.emit(f"torch.where({a.name} > 0, {a.name}, 0.0)", s)

    STATEMENTS = (("unary", 14), ("binary", 16), ("scalar", 6), ("reduction", 8), ("full_reduction", 2),
                  ("along", 6), ("view", 14), ("inplace", 14), ("matmul", 4), ("linear", 3), ("cat", 4),
                  ("index", 4), ("cast", 3), ("integer", 3), ("scatter", 4), ("nn", 4), ("misc", 6))


def idx_len(g, idx):
    return tuple(i for i in g.inputs if i[0] == idx.name)[0][1][0]


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
