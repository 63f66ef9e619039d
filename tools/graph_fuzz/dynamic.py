"""Shape-polymorphic programs (the "dynamic" family): a seeded random program
whose statements never bake in the size of its dynamic dim, run at several
lengths of it (check_dynamic.py) through torch.compile(backend="tpu",
dynamic=True) or torch._dynamo.mark_dynamic, so that its graph runs padded to
a bucket (torchtpu/_bounded.py) or, where it cannot, per size.

A dim of a shape is an int (static) or a Python expression in `n`, the
length ("n", "(n)//2", "(n)+3"): the statements read sizes from tensors
(`x.shape[1] // 2`), never as constants. The program's lengths are drawn
with it (values inside one power-of-two bucket and across buckets, one
revisited), so a statement may check that a dim is large enough at every
length. Statements: pointwise ops and broadcasting, reductions over any dim
(sum, mean, amax, logsumexp, var, norms, prod), softmax / log_softmax /
cumsum / cumprod / logcumsumexp / cummax, max / argmax, layer and RMS norm,
products with the dynamic dim as a batch or contraction dim, attention
(q @ k^T, an optional causal mask, softmax over the keys, @ v), slices by
computed sizes, narrow, pad, cat along the dim, masked_fill with a
comparison or a positional mask, sizes as values, gathers and index_select
into the dim, embedding, cross entropy, topk and sort, reshapes that merge
the dim, in-place writes into intermediates (and rarely into an argument).
From seed 60 on, a share of the programs (ERRORS) also index a dynamic dim
with an index out of range at some of their lengths or negative (bad_index:
x[i], index_select, index_put, scatter): CPU raises there, and tpu must
raise the same error (check_dynamic.compare_raise).

Spec: {"id", "family": "dynamic", "inputs": [[name, shape, kind, high, layout, special]],
"src", "grad", "lengths", "how": "dynamic" | "mark" | "auto"} (check_dynamic.py); shapes hold dims as
above; layout "contiguous", "transposed", "strided" or "poisoned" (a tpu view
narrowing a tensor laid out at the bucket's bound along the dynamic dims,
its tail huge, infinite or NaN: a missing mask shows); "high" of an index
input is an int or an expression in n (exclusive bound of its values); its
"special" a dict {"neg": values in [-high, high), "bad": one element's value, an
int or an expression in n} (bad_index), "errors": whether the program has such
indices (CPU may raise at some lengths)."""
import os
import random

from .program import BINARY, SCALAR, UNARY

LENGTHS = (3, 5, 6, 7, 9, 12, 13, 16, 17, 24, 31, 33)
# The share of programs (seed 60 on) with indices out of range at some lengths (_Gen.bad_index); the
# environment's GRAPH_FUZZ_ERRORS overrides it (a run aimed at error paths: replay a program with the same value)
ERRORS = float(os.environ.get("GRAPH_FUZZ_ERRORS", "0.2"))
STATIC = (2, 3, 4, 6)  # 3 and 6 are lengths too: Dynamo's duck sizing ties such dims at that length (a recompile)


def size(dim, n):
    """A dim's value at length n."""
    return dim if isinstance(dim, int) else int(eval(dim, {"n": n}))  # noqa: S307 - our own expressions


def shape_at(shape, n):
    return tuple(size(d, n) for d in shape)


def is_dyn(dim):
    return not isinstance(dim, int)


class _Var:
    def __init__(self, name, shape, kind="float", base=None):
        self.name, self.shape, self.kind, self.base = name, tuple(shape), kind, base


class _Gen:
    def __init__(self, rng, lengths, safe=False):
        self.rng, self.lengths, self.safe = rng, lengths, safe
        self.inputs, self.vars, self.ints, self.lines, self.n = [], [], [], [], 0
        self.keep = []  # outputs every program returns (bad_index's)

    # ---------------------------------------------------------------- helpers
    def lo(self, dim):
        """The smallest value of a dim over the program's lengths."""
        return min(size(dim, n) for n in self.lengths)

    def new_input(self, shape, kind="float", high=0, special=0.0):
        v = _Var(f"x{len(self.inputs)}", shape, kind)
        layout = "contiguous"
        if kind == "float":
            r = self.rng.random()
            if any(is_dyn(d) for d in shape) and r < 0.35:
                layout = "poisoned"
            elif len(shape) >= 2 and r < 0.5:
                layout = "transposed"
            elif len(shape) >= 1 and r < 0.6:
                layout = "strided"
            if self.rng.random() < 0.12:
                special = self.rng.choice((0.05, 0.2))
            self.vars.append(v)
        self.inputs.append([v.name, list(shape), kind, high, layout, special])
        return v

    def emit(self, expr, shape, kind="float", base=None):
        v = _Var(f"v{self.n}", shape, kind, base)
        self.n += 1
        self.lines.append(f"    {v.name} = {expr}")
        (self.vars if kind == "float" else self.ints).append(v)
        return v

    def pick(self, min_rank=0, dyn=False):
        c = [v for v in self.vars if len(v.shape) >= min_rank and (not dyn or any(is_dyn(d) for d in v.shape))]
        if not c and dyn:
            c = [v for v in self.vars if len(v.shape) >= min_rank]
        if not c:
            return None
        # favour recent variables: longer chains
        return self.rng.choice(c[-4:] if self.rng.random() < 0.6 else c)

    def dim(self, a, dyn_bias=0.75):
        """A dim of a, a dynamic one more often than not."""
        dyn = [i for i, d in enumerate(a.shape) if is_dyn(d)]
        if dyn and self.rng.random() < dyn_bias:
            return self.rng.choice(dyn)
        return self.rng.randrange(len(a.shape))

    def other(self, shape):
        """A variable broadcastable to shape, or a new input that is."""
        c = [v for v in self.vars if _broadcasts(v.shape, shape)]
        if c and self.rng.random() < 0.6:
            return self.rng.choice(c)
        k = self.rng.randint(0, len(shape))
        sub = tuple(1 if self.rng.random() < 0.25 else d for d in shape[len(shape) - k:])
        return self.new_input(sub)

    # ---------------------------------------------------------------- statements
    def unary(self):
        a = self.pick()
        self.emit(self.rng.choice(UNARY).format(a=a.name), a.shape)

    def binary(self):
        a = self.pick()
        b = self.other(a.shape)
        if self.rng.random() < 0.5:
            a, b = b, a
        self.emit(self.rng.choice(BINARY).format(a=a.name, b=b.name), _broadcast(a.shape, b.shape))

    def scalar(self):
        a = self.pick()
        self.emit(self.rng.choice(SCALAR).format(a=a.name), a.shape)

    def reduction(self):
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        d = self.dim(a)
        keep = self.rng.random() < 0.4
        shape = _reduced(a.shape, (d,), keep)
        op = self.rng.choice(("sum", "mean", "amax", "amin", "logsumexp") + (() if self.safe else
                                                                              ("var", "std", "norm", "prod", "nansum")))
        if op in ("var", "std"):
            corr = self.rng.choice((0, 1)) if self.lo(a.shape[d]) >= 2 else 0
            return self.emit(f"torch.{op}({a.name}, dim={d}, keepdim={keep}, correction={corr})", shape)
        if op == "norm":
            return self.emit(f"torch.linalg.vector_norm({a.name}, dim={d}, keepdim={keep})", shape)
        if op == "prod":
            return self.emit(f"torch.prod({a.name}.clamp(-1.5, 1.5), dim={d}, keepdim={keep})", shape)
        self.emit(f"torch.{op}({a.name}, dim={d}, keepdim={keep})", shape)

    def multi_reduction(self):
        a = self.pick(2, dyn=True)
        if a is None:
            return self.reduction()
        dims = tuple(sorted(self.rng.sample(range(len(a.shape)), 2)))
        keep = self.rng.random() < 0.5
        op = self.rng.choice(("mean", "sum", "amax") + (() if self.safe else ("var",)))
        extra = ", correction=0" if op == "var" else ""
        self.emit(f"torch.{op}({a.name}, dim={dims}, keepdim={keep}{extra})", _reduced(a.shape, dims, keep))

    def full_reduction(self):
        a = self.pick()
        self.emit(f"{a.name}.{self.rng.choice(('sum', 'mean', 'amax', 'amin'))}()", ())

    def along(self):
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        d = self.dim(a)
        ops = ("torch.softmax({a}, {d})", "torch.log_softmax({a}, {d})", "torch.cumsum({a}, {d})",
               "torch.softmax({a}, {d}) * {a}.shape[{d}]")
        if not self.safe:
            ops += ("torch.cumprod({a}.clamp(-1.2, 1.2), {d})", "torch.logcumsumexp({a}, {d})",
                    "torch.cummax({a}, {d}).values", "torch.cummin({a}, {d}).values",
                    "torch.flip({a}, ({d},))", "torch.roll({a}, 1, {d})")
        op = self.rng.choice(ops)
        self.emit(op.format(a=a.name, d=d), a.shape)

    def maxes(self):
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        d = self.dim(a)
        keep = self.rng.random() < 0.3
        shape = _reduced(a.shape, (d,), keep)
        k = self.rng.random()
        if k < 0.3:
            return self.emit(f"torch.max({a.name}, {d}, keepdim={keep}).values", shape)
        if k < 0.45:
            return self.emit(f"torch.min({a.name}, {d}, keepdim={keep}).values", shape)
        # an index is an answer only where the maximum is unique: a NaN-free, tie-free input
        src = f"torch.nan_to_num({a.name}, 0.0, 0.0, 0.0)"
        op = self.rng.choice(("argmax", "argmin"))
        self.emit(f"torch.{op}({src} + 1e-3 * torch.arange({a.name}.numel(), device={a.name}.device, dtype=DT)"
                  f".reshape({a.name}.shape).sin(), {d}, keepdim={keep})", shape, kind="int")

    def norm(self):
        a = self.pick(1)
        if a is None:
            return self.unary()
        k = self.rng.random()
        last = a.shape[-1]
        if self.safe and is_dyn(last):
            return self.emit(f"torch.softmax({a.name}, -1)", a.shape)
        if k < 0.45 or self.safe:
            if not is_dyn(last) and self.rng.random() < 0.7:
                w, b = self.new_input((last,)), self.new_input((last,))
                return self.emit(f"torch.nn.functional.layer_norm({a.name}, {a.name}.shape[-1:], {w.name}, {b.name})",
                                 a.shape)
            return self.emit(f"torch.nn.functional.layer_norm({a.name}, {a.name}.shape[-1:])", a.shape)
        if k < 0.6 and len(a.shape) >= 2:
            return self.emit(f"torch.nn.functional.layer_norm({a.name}, {a.name}.shape[-2:])", a.shape)
        if k < 0.8:
            return self.emit(f"torch.nn.functional.rms_norm({a.name}, {a.name}.shape[-1:], eps=1e-6)", a.shape)
        d = self.dim(a)
        return self.emit(f"torch.nn.functional.normalize({a.name}, dim={d})", a.shape)

    def matmul(self):
        a = self.pick(1)
        if a is None or len(a.shape) > 3:
            return self.binary()
        k = self.rng.random()
        e = self.rng.choice(STATIC)
        if k < 0.4:  # the dynamic dim (if any) a batch dim, or the contraction dim when it is last
            w = self.new_input((a.shape[-1], e))
            return self.emit(f"torch.matmul({a.name}, {w.name})", a.shape[:-1] + (e,))
        if k < 0.55:
            w, bias = self.new_input((e, a.shape[-1])), self.new_input((e,))
            return self.emit(f"torch.nn.functional.linear({a.name}, {w.name}, {bias.name})", a.shape[:-1] + (e,))
        if len(a.shape) < 2:
            return self.binary()
        # contract over dim -2 (the dynamic one when a is [.., n, d]): a^T @ b
        c = [v for v in self.vars if v is not a and len(v.shape) == len(a.shape) and v.shape[:-1] == a.shape[:-1]]
        b = self.rng.choice(c) if c and self.rng.random() < 0.6 else self.new_input(a.shape[:-1] + (e,))
        self.emit(f"{a.name}.transpose(-2, -1) @ {b.name}", a.shape[:-2] + (a.shape[-1], b.shape[-1]))

    def attention(self):
        a = self.pick(2, dyn=True)
        if a is None or len(a.shape) > 3 or not is_dyn(a.shape[-2]):
            return self.matmul()
        d = a.shape[-1]
        k = self.new_input(a.shape) if self.rng.random() < 0.6 else a
        v = self.new_input(a.shape[:-1] + (self.rng.choice(STATIC),))
        scale = f"{a.name}.shape[-1] ** -0.5"
        s = self.emit(f"{a.name} @ {k.name}.transpose(-2, -1) * {scale}", a.shape[:-1] + (a.shape[-2],))
        r = self.rng.random()
        if r < 0.35:  # causal: a key after the query is masked out
            self.lines.append(f"    causal = torch.ones({s.name}.shape[-2], {s.name}.shape[-1], dtype=torch.bool, "
                              f"device={s.name}.device).triu(1)")
            s = self.emit(f"{s.name}.masked_fill(causal, float('-inf'))", s.shape)
        elif r < 0.5:  # keys past the first half masked by their positions
            s = self.emit(f"{s.name}.masked_fill(torch.arange({s.name}.shape[-1], device={s.name}.device) >= "
                          f"({s.name}.shape[-1] + 1) // 2, -1e9)", s.shape)
        p = self.emit(f"torch.softmax({s.name}, -1)", s.shape)
        del d
        self.emit(f"{p.name} @ {v.name}", a.shape[:-1] + (v.shape[-1],))

    def sdpa(self):
        a = self.pick(3, dyn=True)
        if a is None or len(a.shape) != 3 or not is_dyn(a.shape[1]):
            return self.attention()
        kv = self.new_input(a.shape)
        causal = self.rng.random() < 0.5
        self.emit(f"torch.nn.functional.scaled_dot_product_attention({a.name}, {kv.name}, {kv.name}, "
                  f"is_causal={causal})", a.shape)

    def slicing(self):
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        d = self.dim(a, 0.9)
        s = a.shape[d]
        pre = ", ".join([":"] * d)
        pre = pre + ", " if pre else ""
        forms = [(f"{a.name}[{pre}1:]", f"({s})-1", 2), (f"{a.name}[{pre}:-1]", f"({s})-1", 2),
                 (f"{a.name}[{pre}:{a.name}.shape[{d}] // 2]", f"({s})//2", 2),
                 (f"{a.name}.narrow({d}, 0, {a.name}.shape[{d}] - 2)", f"({s})-2", 3),
                 (f"{a.name}.select({d}, 0)", None, 1)]
        forms += [] if self.safe else [
                 (f"{a.name}[{pre}::2]", f"(({s})+1)//2", 2),
                 (f"{a.name}[{pre}{a.name}.shape[{d}] // 2:]", f"({s})-({s})//2", 2),
                 (f"{a.name}.narrow({d}, 1, {a.name}.shape[{d}] - 1)", f"({s})-1", 2),
                 (f"{a.name}[{pre}-2:]", "2", 2), (f"{a.name}.select({d}, -1)", None, 1)]
        expr, new, need = self.rng.choice(forms)
        if self.lo(s) < need:
            return self.unary()
        if new is None:
            return self.emit(expr, a.shape[:d] + a.shape[d + 1:], base=a.base or a)
        if "n" not in new:  # a static dim sliced, or a static count (the last two)
            new = size(new, 0)
        self.emit(expr, a.shape[:d] + (new,) + a.shape[d + 1:], base=a.base or a)

    def pad(self):
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        lo, hi = self.rng.randint(0, 2), self.rng.randint(0, 3)
        last = a.shape[-1]
        new = last + lo + hi if not is_dyn(last) else f"({last})+{lo + hi}"
        val = self.rng.choice(("0.0", "-1.5"))
        self.emit(f"torch.nn.functional.pad({a.name}, ({lo}, {hi}), value={val})", a.shape[:-1] + (new,))

    def cat(self):
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        d = self.dim(a)
        k = self.rng.random()
        if k < 0.3:
            b = a
        else:
            m = a.shape[d] if self.rng.random() < 0.5 else self.rng.choice(STATIC)
            want = a.shape[:d] + (m,) + a.shape[d + 1:]
            c = [v for v in self.vars if v.shape == want]
            b = self.rng.choice(c) if c and self.rng.random() < 0.5 else self.new_input(want)
        if self.rng.random() < 0.4:
            a, b = b, a
        s = _add(a.shape[d], b.shape[d])
        if self.rng.random() < 0.15 and a.shape == b.shape:
            return self.emit(f"torch.stack([{a.name}, {b.name}], {d})", a.shape[:d] + (2,) + a.shape[d:])
        self.emit(f"torch.cat([{a.name}, {b.name}], {d})", a.shape[:d] + (s,) + a.shape[d + 1:])

    def masked(self):
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        k = self.rng.random()
        if k < 0.4:
            b = self.other(a.shape)
            return self.emit(f"{a.name}.masked_fill({a.name} > {b.name}, -1.0)", a.shape)
        d = self.dim(a, 0.9)
        view = ", ".join("-1" if i == d else "1" for i in range(len(a.shape)))
        cmp = self.rng.choice(("<", ">=", "=="))
        pos = f"torch.arange({a.name}.shape[{d}], device={a.name}.device).view({view})"
        if k < 0.75:
            return self.emit(f"{a.name}.masked_fill({pos} {cmp} {a.name}.shape[{d}] // 2, 0.5)", a.shape)
        return self.emit(f"torch.where({pos} {cmp} {a.name}.shape[{d}] - 3, {a.name}, -{a.name})", a.shape)

    def sizes(self):
        """A size used as a value, or a tensor made from sizes."""
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        d = self.dim(a, 0.9)
        k = self.rng.random()
        if k < 0.3:
            return self.emit(f"{a.name} * {a.name}.shape[{d}]", a.shape)
        if k < 0.5:
            return self.emit(f"{a.name}.sum({d}) / {a.name}.shape[{d}]", _reduced(a.shape, (d,), False))
        if k < 0.7:
            return self.emit(f"torch.arange({a.name}.shape[{d}], device={a.name}.device, dtype=DT) / "
                             f"{a.name}.shape[{d}]", (a.shape[d],))
        if k < 0.85:
            return self.emit(f"{a.name} + torch.ones_like({a.name}).cumsum({d})", a.shape)
        return self.emit(f"{a.name}.new_zeros({a.name}.shape) + {a.name}.mean()", a.shape)

    def gathers(self):
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        d = self.dim(a)
        s = a.shape[d]
        k = self.rng.random()
        if self.safe and 0.35 <= k < 0.6:
            k = 0.0
        if k < 0.35:  # static indices into the dim, every one in range at every length
            ln = self.rng.choice((1, 2, 3))
            idx = self.new_input((ln,), "index", self.lo(s))
            return self.emit(f"torch.index_select({a.name}, {d}, {idx.name})", a.shape[:d] + (ln,) + a.shape[d + 1:])
        if k < 0.6:  # an index of a's shape, values in range at this length
            idx = self.new_input(a.shape, "index", s)
            return self.emit(f"torch.gather({a.name}, {d}, {idx.name})", a.shape)
        if k < 0.8 and len(a.shape) == 2:  # a as an embedding table [rows, dim]
            ids = self.new_input((self.rng.choice(STATIC), "n"), "index", a.shape[0])
            return self.emit(f"torch.nn.functional.embedding({ids.name}, {a.name})", ids.shape + (a.shape[1],))
        table = self.new_input((self.rng.choice((5, 7)), self.rng.choice(STATIC)))
        ids = self.new_input(a.shape, "index", table.shape[0])
        return self.emit(f"torch.nn.functional.embedding({ids.name}, {table.name}) * {a.name}.unsqueeze(-1)",
                         a.shape + (table.shape[1],))

    def bad_index(self):
        """Indices into a dynamic dim, one of them out of range at some of the program's lengths (inside the
        bucket or at its bound: n, n+1, -n-1, a constant past the smaller lengths) or negative: CPU raises
        there (index_select and scatter refuse negatives, x[i] and index_put wrap -n..-1), and tpu must raise
        the same error (its device check, read at the call or the .cpu() after it); at the other lengths the
        values must match. x[i] (on any dim), index_select, index_put / x[i] = v, scatter / scatter_add."""
        a = self.pick(1, dyn=True)
        dyn = [i for i, x in enumerate(a.shape) if is_dyn(x)] if a is not None else []
        if not dyn:
            return self.unary()
        d = self.rng.choice(dyn)
        s = a.shape[d]
        lo = self.lo(s)
        if lo < 1:
            return self.unary()
        op = self.rng.choice(("index", "index", "select", "put", "put", "scatter", "scatter"))
        wraps = op in ("index", "put")
        ln = self.rng.choice((1, 2, 3))
        lens = sorted(set(self.lengths))
        r = self.rng.random()
        if r < 0.3:  # a constant valid at the larger lengths only (n=5, 7 share a bucket: index 6 at 5)
            m = self.rng.choice(lens[1:])
            bad = str(size(s, m) - 1) if self.rng.random() < 0.6 or not wraps else str(-size(s, m))
        else:  # out of range at some lengths, a valid index at the others
            forms = ["({s})", "({s})+1", "-({s})-1"] + (["-({s})", "-1"] if self.rng.random() < 0.5 else [])
            val = self.rng.choice(forms).format(s=s)
            at = self.rng.sample(lens, self.rng.randint(1, max(1, len(lens) - 1)))
            ok = self.rng.choice(("0", f"({s})-1", "-1" if wraps else "0"))
            bad = f"({val}) if n in {tuple(sorted(at))} else ({ok})"
        neg = wraps and self.rng.random() < 0.5  # valid negatives too (CPU wraps them)
        high = lo if self.rng.random() < 0.5 else s
        pre = ":, " * d
        spec = {"bad": bad, "neg": neg}
        if self.rng.random() < 0.3:  # as many indices as the dim has positions (padded with it)
            ln = s
        if op in ("index", "select") and self.rng.random() < 0.3:
            # an index computed in the graph from an input and the size (a size as a value, at run time)
            idx = self.new_input((ln,), "index", high, spec)
            comp = f"({idx.name} - {a.name}.shape[{d}] + {a.name}.shape[{d}])"
            shape = a.shape[:d] + (ln,) + a.shape[d + 1:]
            if op == "index":
                v = self.emit(f"{a.name}[{pre}{comp}]", shape)
            else:
                v = self.emit(f"{a.name}.index_select({d}, {comp})", shape)
        elif op == "index":
            shape = (ln,) if self.rng.random() < 0.7 or is_dyn(ln) else (2, ln)
            idx = self.new_input(shape, "index", high, spec)
            v = self.emit(f"{a.name}[{pre}{idx.name}]", a.shape[:d] + shape + a.shape[d + 1:])
        elif op == "select":
            idx = self.new_input((ln,), "index", high, spec)
            v = self.emit(f"torch.index_select({a.name}, {d}, {idx.name})", a.shape[:d] + (ln,) + a.shape[d + 1:])
        elif op == "put":
            idx = self.new_input((ln,), "index", high, spec)
            if d == 0 and self.rng.random() < 0.5:  # accumulate: duplicates sum in any order
                vals = self.new_input((ln,) + a.shape[1:])
                v = self.emit(f"{a.name}.index_put(({idx.name},), {vals.name}, accumulate=True)", a.shape)
            else:  # one value everywhere: duplicates write the same
                v = self.emit(f"{a.name}.clone()", a.shape)
                self.lines.append(f"    {v.name}[{pre}{idx.name}] = {self.rng.choice(('0.75', '-2.0'))}")
        else:
            # laid out as self elsewhere (a padded graph's scatter along its padded dim), or narrower (per size)
            ishape = tuple(ln if k == d else (x if self.rng.random() < 0.7 else 1) for k, x in enumerate(a.shape))
            idx = self.new_input(ishape, "index", high, {**spec, "neg": False})
            if self.rng.random() < 0.5:  # one value: duplicates write the same
                v = self.emit(f"{a.name}.scatter({d}, {idx.name}, {self.rng.choice(('0.5', '-1.0'))})", a.shape)
            else:
                src = self.new_input(ishape)
                v = self.emit(f"{a.name}.scatter_add({d}, {idx.name}, {src.name})", a.shape)
        self.keep.append(v.name)  # returned: a compiled graph drops an op no output reads, and its error

    def loss(self):
        a = self.pick(2, dyn=True)
        if a is None or len(a.shape) != 2:
            b = self.pick(1, dyn=True)
            if b is None:
                return self.unary()
            o = self.other(b.shape)
            fn = self.rng.choice(("mse_loss", "l1_loss", "smooth_l1_loss"))
            return self.emit(f"torch.nn.functional.{fn}({b.name}, {o.name}.expand({b.name}.shape))", ())
        t = self.new_input((a.shape[0],), "index", a.shape[1])
        red = self.rng.choice(("mean", "sum", "none"))
        self.emit(f"torch.nn.functional.cross_entropy({a.name}, {t.name}, reduction='{red}')",
                  (a.shape[0],) if red == "none" else ())

    def order(self):
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        d = self.dim(a)
        k = self.rng.randint(1, min(3, self.lo(a.shape[d])))
        if self.rng.random() < 0.5:
            return self.emit(f"torch.topk({a.name}, {k}, {d}).values", a.shape[:d] + (k,) + a.shape[d + 1:])
        self.emit(f"torch.sort({a.name}, {d}, descending={self.rng.random() < 0.5}).values", a.shape)

    def permute(self):
        """Positions computed from the data (an MoE's sort by expert): a permutation of a dim by a tie-free
        key, rows gathered by it, or by its inverse written by index_put; argmax's positions."""
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        d = self.dim(a)
        key = f"{a.name}.movedim({d}, 0).flatten(1).sum(1)" if len(a.shape) > 1 else a.name
        key = (f"(torch.nan_to_num({key}, 0.0, 0.0, 0.0) + 1e-3 * torch.arange({a.name}.shape[{d}], "
               f"device={a.name}.device, dtype=DT).sin())")
        perm = f"torch.argsort({key}, descending={self.rng.random() < 0.5}, stable=True)"
        r = self.rng.random()
        if r < 0.4:
            return self.emit(f"{a.name}.index_select({d}, {perm})", a.shape)
        if r < 0.8:
            inv = (f"torch.zeros_like({perm}).index_put(({perm},), torch.arange({a.name}.shape[{d}], "
                   f"device={a.name}.device))")
            return self.emit(f"{a.name}.index_select({d}, {inv}) * 0.5 + {a.name}", a.shape)
        # the first position, counted from the end (a negative index: advanced indexing wraps it)
        self.emit(f"{a.name}[{':, ' * d}{perm}[:1] - {a.name}.shape[{d}]]", a.shape[:d] + (1,) + a.shape[d + 1:])

    def reshape(self):
        a = self.pick(2, dyn=True)
        if a is None:
            return self.view()
        d = self.rng.randrange(len(a.shape) - 1)
        merged = _mul(a.shape[d], a.shape[d + 1])
        if self.rng.random() < 0.5:
            return self.emit(f"{a.name}.flatten({d}, {d + 1})", a.shape[:d] + (merged,) + a.shape[d + 2:])
        if d == len(a.shape) - 2:
            return self.emit(f"{a.name}.reshape({a.name}.shape[:-2] + (-1,))", a.shape[:d] + (merged,))
        return self.emit(f"{a.name}.reshape(-1, *{a.name}.shape[{d + 2}:])", (_mul_all(a.shape[:d + 2]),) + a.shape[d + 2:])

    def view(self):
        a = self.pick(1)
        if a is None:
            return self.unary()
        r = len(a.shape)
        k = self.rng.random()
        if k < 0.35 and r >= 2:
            d0, d1 = self.rng.sample(range(r), 2)
            sh = list(a.shape)
            sh[d0], sh[d1] = sh[d1], sh[d0]
            return self.emit(f"{a.name}.transpose({d0}, {d1})", sh, base=a.base or a)
        if k < 0.55 and r >= 2:
            p = list(range(r))
            self.rng.shuffle(p)
            return self.emit(f"{a.name}.permute({tuple(p)})", [a.shape[i] for i in p], base=a.base or a)
        if k < 0.75 and r < 4:
            d = self.rng.randint(0, r)
            return self.emit(f"{a.name}.unsqueeze({d})", a.shape[:d] + (1,) + a.shape[d:], base=a.base or a)
        if k < 0.9 and 1 in a.shape:
            d = a.shape.index(1)
            return self.emit(f"{a.name}.squeeze({d})", a.shape[:d] + a.shape[d + 1:], base=a.base or a)
        if r >= 1 and r < 4:  # expand a new leading dim
            e = self.rng.choice(STATIC)
            return self.emit(f"{a.name}.unsqueeze(0).expand({e}, *{a.name}.shape)", (e,) + a.shape)
        return self.unary()

    def inplace(self):
        c = [v for v in self.vars if v.name.startswith("v")]
        if not c or self.rng.random() < 0.1:
            c = [v for v in self.vars if v.name.startswith("x")]  # an argument (not padded: plans per size)
        a = self.rng.choice(c)
        k = self.rng.random()
        if k < 0.35:
            self.lines.append("    " + self.rng.choice(("{a}.mul_(1.5)", "{a}.add_(0.25)", "{a}.clamp_(-0.5, 1.0)",
                                                         "{a}.relu_()", "{a}.neg_()")).format(a=a.name))
        elif k < 0.55:
            self.lines.append(f"    {a.name}.masked_fill_({a.name} > 0.5, -1.0)")
        elif k < 0.8 and a.shape and any(is_dyn(d) for d in a.shape):
            d = next(i for i, x in enumerate(a.shape) if is_dyn(x))
            pre = ", ".join([":"] * d)
            pre = pre + ", " if pre else ""
            self.lines.append(f"    {a.name}[{pre}:{a.name}.shape[{d}] // 2] = 0.125")
        else:
            b = self.other(a.shape)
            if (b.base or b) is (a.base or a):
                b = self.new_input(a.shape)
            self.lines.append(f"    {a.name}.add_({b.name})")

    def extras(self):
        """Ops bounded dynamism knows to pad that the others rarely reach: repeat and expand of static dims,
        counts of a comparison, rounding casts, indexing by positions, batched products with a bias, a
        reduction over a merged dim, means over all elements, a manual log-softmax."""
        a = self.pick(1, dyn=True)
        if a is None:
            return self.unary()
        r, sh = len(a.shape), a.shape
        k = self.rng.randrange(9)
        d = self.dim(a)
        if k == 0 and r < 4:
            return self.emit(f"{a.name}.unsqueeze(0).repeat(2, {', '.join(['1'] * r)})", (2,) + sh)
        if k == 1:
            return self.emit(f"({a.name} > 0).sum({d}).to(DT)", _reduced(sh, (d,), False))
        if k == 2:
            return self.emit(f"{a.name}.{self.rng.choice(('bfloat16', 'half'))}().to(DT)", sh)
        if k == 3:
            pre = ", ".join([":"] * d)
            pre = pre + ", " if pre else ""
            return self.emit(f"{a.name}[{pre}torch.arange({a.name}.shape[{d}], device={a.name}.device)]", sh)
        if k == 4 and r == 3:
            e = self.rng.choice(STATIC)
            b, c = self.new_input((sh[0], sh[2], e)), self.new_input((sh[0], sh[1], e))
            return self.emit(f"torch.baddbmm({c.name}, {a.name}, {b.name}, beta=0.5)", (sh[0], sh[1], e))
        if k == 5 and r >= 2:
            return self.emit(f"{a.name}.flatten(0, 1).{self.rng.choice(('mean', 'sum', 'amax'))}(0)", sh[2:])
        if k == 6:
            return self.emit(f"{a.name}.sum() / {a.name}.numel()", ())
        if k == 7:
            return self.emit(f"{a.name} - torch.logsumexp({a.name}, {d}, keepdim=True)", sh)
        if r < 4:
            e = self.rng.choice(STATIC)
            return self.emit(f"{a.name}.unsqueeze(-1).expand(*{a.name}.shape, {e}) * 0.5", sh + (e,))
        return self.unary()

    # statements drawn in a "safe" program (ops torchtpu/_bounded.py knows to pad, so that most such
    # graphs run padded: one op it does not know sends a whole graph to plans per size)
    SAFE = {"unary": 8, "binary": 10, "scalar": 4, "reduction": 10, "multi_reduction": 3, "full_reduction": 2,
            "along": 8, "norm": 4, "matmul": 6, "attention": 6, "slicing": 6, "cat": 5, "masked": 5, "sizes": 4,
            "gathers": 3, "reshape": 3, "view": 5, "extras": 6}
    STATEMENTS = (("unary", 8), ("binary", 10), ("scalar", 4), ("reduction", 10), ("multi_reduction", 3),
                  ("full_reduction", 2), ("along", 9), ("maxes", 4), ("norm", 5), ("matmul", 6), ("attention", 5),
                  ("sdpa", 2), ("slicing", 8), ("pad", 2), ("cat", 6), ("masked", 5), ("sizes", 4), ("gathers", 4),
                  ("loss", 2), ("order", 3), ("reshape", 4), ("view", 5), ("inplace", 5),
                  ("extras", 5))


def _reduced(shape, dims, keep):
    if keep:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def _add(a, b):
    if not is_dyn(a) and not is_dyn(b):
        return a + b
    return f"({a})+({b})"


def _mul(a, b):
    if not is_dyn(a) and not is_dyn(b):
        return a * b
    return f"({a})*({b})"


def _mul_all(dims):
    out = 1
    for d in dims:
        out = _mul(out, d)
    return out


def _broadcasts(src, dst):
    if len(src) > len(dst):
        return False
    return all(a == 1 or a == b for a, b in zip(reversed(src), reversed(dst)))


def _broadcast(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return tuple(y if x == 1 else x for x, y in zip(a, b))


def _lengths(rng):
    """4-6 lengths: two inside one bucket, others across buckets, one revisited."""
    pool = list(LENGTHS)
    first = rng.choice(pool)
    same = [n for n in pool if n != first and (n - 1).bit_length() == (first - 1).bit_length()]
    out = [first] + ([rng.choice(same)] if same else [])
    out += rng.sample([n for n in pool if n not in out], rng.randint(2, 3))
    out.append(rng.choice(out[:-1]))
    return out


def make_program(seed, index, statements=None):
    rng = random.Random(seed * 1000003 + index + 77)
    lengths = _lengths(rng)
    safe = rng.random() < 0.5
    # from seed 60 on, a share of the programs index a dynamic dim out of range at some lengths (bad_index),
    # most of them "safe" (so that their graphs run padded); drawn apart, so the other programs are those of
    # earlier versions
    erng = random.Random(seed * 7919 + index * 31 + 5)
    errors = seed >= 60 and erng.random() < ERRORS
    safe = safe or (errors and erng.random() < 0.7)
    g = _Gen(rng, lengths, safe)
    b, d = rng.choice(STATIC), rng.choice(STATIC)
    first = rng.choice(((b, "n", d), ("n", d), (b, d, "n"), ("n",), (b, "n"), ("n", "n"), (1, "n", d)))
    g.new_input(first)
    if rng.random() < 0.5:
        g.new_input(rng.choice((first, first[-1:], ("n", 1) if len(first) >= 2 else first)))
    table = tuple(_Gen.SAFE.items()) if safe else _Gen.STATEMENTS
    if seed >= 41:  # from seed 41 on, data-computed positions too (earlier seeds keep their programs)
        table += (("permute", 3),)
    names, weights = zip(*table)
    count = statements or rng.randint(3, 10)
    bad = sorted(erng.sample(range(count), min(count, erng.randint(1, 2)))) if errors else []
    for k in range(count):
        if k in bad:
            g.bad_index()
        getattr(g, rng.choices(names, weights)[0])()
    outs = [v.name for v in g.vars if v.name.startswith("v")][-6:] + [v.name for v in g.ints]
    outs += [k for k in g.keep if k not in outs]
    if not outs:
        outs = [g.vars[-1].name]
    args = ", ".join(i[0] for i in g.inputs)
    body = "\n".join(g.lines) or "    pass"
    ret = ", ".join(outs) + ("," if len(outs) == 1 else "")
    src = f"def f({args}):\n{body}\n    return ({ret})\n"
    r = rng.random()
    how = "mark" if r < 0.25 else "auto" if r < 0.4 else "dynamic"
    grad = rng.random() < 0.3
    return {"id": f"{seed}:{index}", "family": "dynamic", "inputs": g.inputs, "src": src, "grad": grad,
            "lengths": lengths, "how": how, "safe": safe, "errors": bool(bad)}
