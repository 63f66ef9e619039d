"""Bounded dynamism for compiled graphs with symbolic sizes (torch.compile
dynamic=True, mark_dynamic, automatic dynamic shapes): one plan per bucket
of sizes instead of one per size.

A graph whose tensors have symbolic sizes (Dynamo's s0, s1, ... passed as
integer arguments) is captured once per bucket: every symbol is replaced by
its bucket's bound (the next power of two by default, set_dynamic_buckets),
the tensor arguments are padded to the bound, and the ops run on the padded
tensors. The padded elements hold anything, so every op that combines
elements along a padded dim is masked with the run-time size, which the
program receives as a 0-d int64 argument per symbol: reductions (sum, mean,
amax, amin, logsumexp, softmax, log_softmax) fill the padding with their
identity, a matmul contracting over a padded dim zeroes both operands there,
and padded indices into an unpadded dim (embedding, index, index_select,
gather) are set to 0, so they stay in range. Ops whose valid elements read
only valid elements need nothing: pointwise ops, views that keep each padded
dim whole, slices from a static start, select at a static index, cat and
repeat that leave the padding at the end, indexing a padded dim by its own
positions (an arange over its symbol), layer norm over unpadded dims, cumsum
along a dim padded at its end, triu/tril, topk/sort/argmax/argmin/unbind
along an unpadded dim, slice_scatter into an unpadded dim, complex views. A
static table's first n rows (x[:n] of a table's static dim) are read up to
the bound, a bucket only while the bound fits the table (Bounding.limits);
a convolution of stride 1 along a padded dim zeroes its input's padding
first, so outputs inside the length read what the static run reads; a cat
of a padded tensor and static rows moves the rows to the real end. Sort,
argmax and argmin along a padded dim fill the padding with what they put
last (a stable sort); integer indices computed from the data into a padded
dim (index, index_select, index_put) hold the static run's positions and
are made padded ones (_Padded.wrapped); histc fills the padding outside its
range; a grouped mm of padded rows needs nothing; a repeat by a symbolic
count puts the copies past it at the end; a scatter along a static dim
writes each row into itself; x[:, -m:] of a dim of n reads from n - m at
run time, a flip of a padded dim n - 1 - j. Where a dim's padding is
inside it (a batch of rows flattened) positions differ between the runs:
sorts and grouped rows work on the dim compacted to the static order and
are laid out back, argmax's result and an arange over the dim are the
static run's positions (_Padded.static_of). Sizes the guards fix are
static (_pinned: a chunked kernel's length padded to whole chunks, whose
count Dynamo's loop over chunks specialises), a size capped at a static one
(min(c, n), max(0, c - n)) is its uncapped size (_unclamped); both hold
only for buckets whose bounds give the same values (Bounding.pins). Topk
along a padded dim (a static k, or all of it) is the stable sort's first k;
a scatter along one writes the static run's positions, its padded indices
into self's padding; the last k of a padded dim (k static, a symbol, or
n's own: a static table's last n rows) read from its end less k at run
time. An integer argument that is no tensor's size (logits_to_keep) is
read at its first call's value, pinned. Masks applied to an op's input
keep its strides (_filled): ops that follow their input's layout give the
static run's. The outputs are the padded results narrowed to the sizes
(views, no copy); an argument that is such a view of a padded result of
this bucket's layout is widened back to it with no copy; any other is
padded on the host (a copy through host memory, no program), so a bucket
compiles one program however many sizes it sees. An output padded along a
dim past its first is compacted in the program (its real elements in C
order at the front of a flat tensor), so the call's output is contiguous
as the static run's; fed to a later call, it is widened back on the
device (gathers of the bound's shape: one program per bucket).

Which dims are padded is read from Dynamo's symbolic shapes on every FX node
(node.meta["val"]): each dim is a product of atoms -- static sizes and
symbols -- in layout order, or one symbol plus a constant (padded at its
end), carried through views and checked against the node's symbolic shape. A graph with anything this module does not know to be
right under padding (an op outside the rules below, a symbol used as a value
other than a pointwise op's scalar, a padded dim merged where its padding is
not at the end, an input written in place, a non-tensor output other than a
size) is not bounded: it keeps plans per exact size (_compile._Graph), as
before. Pure functions of the graph; the bucket setting is process-wide.

Training graphs (AOTAutograd's forward and backward) need four more things,
all here: the sizes the forward saves for the backward (s0, 4*s0) are
outputs made on the host from the call's sizes, and a backward's integer
arguments that are expressions of symbols take the bounds' values; inputs
the forward saves (or views of them) are returned as given, the views
replayed on the host; a size used as a pointwise op's scalar (a mean's
backward divides by its count) is the real size, a 0-d tensor computed in
the program from the size arguments; and the backward ops that sum over
rows (layer norm's weight and bias grads, softmax's) read zeros in the
padding."""
import contextvars
import functools
import operator

import sympy
import torch
from torch.utils._sympy.functions import FloorDiv, Max, Min

from . import _C
from ._dynamic_buckets import bound_of

aten = torch.ops.aten

# The ops whose index checks refuse negative indices (CPU wraps them for x[i] and index_put).
_NONNEG_INDEX_OPS = ("index_select", "index_select_indices", "scatter")


@functools.cache
def _check_bounds_id():
    """The core's _tt_check_bounds(index, size, dim, op): an index check at a run-time size."""
    return _C.op_names().index("_tt_check_bounds")


class Refused(Exception):
    """The graph is not known to be right under padding (the message says why)."""


class _Unify(Refused):
    """Two layouts that would agree were some symbols one (a loss graph's logits [s3*s88, V] and
    labels [s38*s97]: Dynamo gave the two inputs symbols of their own, and its guards fix only the
    products' equality). analyze() reruns the analysis with `pairs` (name -> the name it becomes)
    read as one symbol; a call runs padded only where the symbols' values are equal (Bounding.bounds)."""

    def __init__(self, why, pairs):
        super().__init__(why)
        self.pairs = pairs


# ---------------------------------------------------------------- atoms
# A dim is a tuple of atoms, outermost first: an int (a static factor > 1)
# or a str (a symbol's name). A dim of size 1 is (). A tensor's atoms are a
# tuple of dims.

# Sizes the graph's guards fix, found while analyze() runs: (sympy expression, value). A bucket whose
# bounds give one another value runs at its own sizes (Bounding.bounds). Per thread of analysis.
_PINS = contextvars.ContextVar("torchtpu_bounded_pins", default=None)
# Symbols read as another (_Unify): sympy Symbol -> the Symbol it becomes. Per thread of analysis.
_ALIASES = contextvars.ContextVar("torchtpu_bounded_aliases", default=None)
# Integer arguments that are no tensor argument's size (logits_to_keep): name -> the first call's value.
# Sizes of them are read at that value, pinned (a call with another value runs at its own sizes).
_VALUES = contextvars.ContextVar("torchtpu_bounded_values", default=None)


def _ceil_step(e):
    """c where a size is n rounded up to a multiple of c (n + (c - n % c) % c,
    a chunked kernel's padded length), else None."""
    if not isinstance(e, sympy.Add) or len(e.args) != 2:
        return None
    n = next((x for x in e.args if isinstance(x, sympy.Symbol)), None)
    m = next((x for x in e.args if type(x).__name__ in ("Mod", "PythonMod")), None)
    if n is None or m is None or not isinstance(m.args[1], sympy.Integer):
        return None
    c = m.args[1]
    inner = m.args[0]
    if inner == -n or any(type(x).__name__ in ("Mod", "PythonMod") and x.args == (n, c) and inner == c - x
                          for x in sympy.preorder_traversal(inner)):
        return int(c)
    return None


def _unpadded(d, e):
    """(e', pins): e with each chunk pad (c - n % c) % c whose padded length
    n + pad the guards fix (L) read as L - n: a backward crops the padded
    length back to n (L - pad, written (L // c) * c - pad), which is n. pins:
    the (n + pad, L) the rewrite relies on, for the caller to record in _PINS
    only once e' is the size it uses (a rewrite that still refuses pins nothing)."""
    reps, pins = {}, []
    token = _PINS.set(pins)  # _pinned records here, not in the analysis' list
    try:
        for m in sympy.preorder_traversal(e):
            if type(m).__name__ not in ("Mod", "PythonMod") or m in reps:
                continue
            for n in m.free_symbols:
                if _ceil_step(n + m) is not None:
                    v = _pinned(d, n + m)
                    if v is not None:
                        reps[m] = v - n
                        break
    finally:
        _PINS.reset(token)
    return (sympy.expand(e.xreplace(reps)), pins) if reps else (e, [])


def _pinned(d, e):
    """The value of a size that is none of _expr's forms but that the graph's
    guards fix (Dynamo specialised a count made of it: a loop over a padded
    sequence's chunks fixes their count, so the chunk and padded length are
    static), else None. Recorded in _PINS: the bounds must give it too."""
    if not isinstance(d, torch.SymInt):
        return None
    try:
        v = _fixed(d.node.shape_env, e)
    except Exception:  # noqa: BLE001 -- the guards could not decide: not fixed
        return None
    if v is None:
        return None
    pins = _PINS.get()
    if pins is not None:
        pins.append((e, v))
    return v


def _fixed(env, e):
    """_pinned's value of e, or None: a value the guards imply, a length
    rounded up to a multiple whose count of multiples they imply, a product
    of such."""
    hint = e.xreplace(getattr(env, "backed_var_to_val", None) or env.var_to_val)
    if not isinstance(hint, sympy.Integer):
        return None
    if env._maybe_evaluate_static(sympy.Eq(e, hint)) is sympy.true:
        return int(hint)
    step = _ceil_step(e)
    if step is not None and hint % step == 0:
        if env._maybe_evaluate_static(sympy.Eq(FloorDiv(e, step), hint // step)) is sympy.true:
            return int(hint)
    if isinstance(e, FloorDiv) and _fixed(env, e.args[0]) is not None:  # a fixed padded length's half
        return int(hint)
    if isinstance(e, sympy.Mul):
        vals = [_fixed(env, f) for f in e.args]
        if all(x is not None for x in vals):
            return int(hint)
    if isinstance(e, sympy.Add):  # c * (a fixed size), expanded (8*n + 8*((8 - n % 8) % 8))
        c, rest = e.as_content_primitive()
        if c != 1 and _fixed(env, rest) is not None:
            return int(hint)
    return None


def _unclamped(e):
    """e with each Min(c, f) of a static c and an f increasing in one symbol
    (a size capped at c: minimax's 256 positions, an indexer's top-k of
    min(k, n)) read as f, and each Max(c, f) of a decreasing f (mpt's
    max(0, 2048 - n)) read as f. Pinned: a bucket only where the bounds keep
    f on its side of c, so every size of the bucket does too."""
    reps = {}
    for m in sympy.preorder_traversal(e):
        if not isinstance(m, (Min, Max)) or len(m.args) != 2 or m in reps:
            continue
        c = next((x for x in m.args if isinstance(x, sympy.Integer)), None)
        f = next((x for x in m.args if not isinstance(x, sympy.Integer)), None)
        if c is None or f is None or len(f.free_symbols) != 1:
            continue
        sym = next(iter(f.free_symbols))
        slope = sympy.diff(f, sym)
        if f.is_polynomial(sym) and isinstance(slope, sympy.Integer) and slope != 0 and isinstance(m, Min) == (slope > 0):
            reps[m] = f
    if not reps:
        return e
    pins = _PINS.get()
    if pins is not None:
        pins.extend((m - f, 0) for m, f in reps.items())
    return e.xreplace(reps)


def _expr(d):
    """(coefficient, sorted symbol names, addend) of one symbolic or static
    size: a product of symbols times a static size, or one symbol plus a
    static size (addend; 0 otherwise); a size the guards fix is static, a
    size capped at a static one is its uncapped size (_unclamped)."""
    if isinstance(d, int):
        return d, (), 0
    e = d.node.expr if isinstance(d, torch.SymInt) else d
    if isinstance(e, sympy.Integer) or isinstance(e, int):
        return int(e), (), 0
    aliases = _ALIASES.get()
    if aliases and not e.free_symbols.isdisjoint(aliases):
        e = e.xreplace(aliases)
    values = _VALUES.get()
    if values:
        fixed = {x: values[x.name] for x in e.free_symbols if x.name in values}
        if fixed:
            pins = _PINS.get()
            if pins is not None:
                pins.extend((x, v) for x, v in fixed.items())
            e = e.xreplace({x: sympy.Integer(v) for x, v in fixed.items()})
            if isinstance(e, sympy.Integer):
                return int(e), (), 0
    if e.has(Min, Max):
        e = _unclamped(e)
    e, unpad_pins = _unpadded(d, e)
    r = _expr_form(d, e)
    pins = _PINS.get()
    if unpad_pins and pins is not None:
        pins.extend(unpad_pins)
    return r


def _expr_form(d, e):
    """_expr of a size expression e after its rewrites; raises Refused."""
    if isinstance(e, sympy.Integer):
        return int(e), (), 0
    if isinstance(e, sympy.Add):
        c, terms = e.as_coeff_add()
        if isinstance(c, sympy.Integer) and len(terms) == 1 and isinstance(terms[0], sympy.Symbol):
            return 1, (terms[0].name,), int(c)
        why = f"a size {e} that is neither a product of symbols nor a symbol plus a constant"
    else:
        coeff, factors = e.as_coeff_mul()
        syms = tuple(sorted(f.name for f in factors if isinstance(f, sympy.Symbol)))
        if isinstance(coeff, sympy.Integer) and len(syms) == len(factors):
            return int(coeff), syms, 0
        why = f"a size {e} that is not a product of symbols"
        if isinstance(coeff, sympy.Integer) and syms:  # symbols times sizes the guards fix (a batch's chunks)
            c = int(coeff)
            for f in factors:
                v = None if isinstance(f, sympy.Symbol) else _pinned(d, f)
                if v is None and not isinstance(f, sympy.Symbol):
                    raise Refused(why)
                c *= 1 if v is None else v
            return c, syms, 0
    v = _pinned(d, e)
    if v is None:
        raise Refused(why)
    return v, (), 0


def _dim_of_atoms(atoms):
    if len(atoms) == 1 and isinstance(atoms[0], tuple):
        return 1, (atoms[0][0],), atoms[0][1]
    c, syms = 1, []
    for a in atoms:
        if isinstance(a, str):
            syms.append(a)
        elif isinstance(a, tuple):
            raise Refused("a symbol plus a constant merged with another dim")
        else:
            c *= a
    return c, tuple(sorted(syms)), 0


def _affine(sym, add):
    """The dim of size sym + add, padded at its end."""
    return (sym,) if add == 0 else ((sym, add),)


def _atoms_of_expr(d, any_layout=False):
    """Atoms of a dim known only by its size: a static size, one symbol, one
    symbol plus a constant (an affine atom (symbol, constant), alone in its
    dim: its padding is at its end), or one symbol times a static size."""
    c, syms, add = _expr(d)
    if not syms:
        return (c,) if c != 1 else ()  # (0,) for an empty dim
    if c == 1 and len(syms) == 1:
        return _affine(syms[0], add)
    if len(syms) == 1 and not add:
        # n times a static size, laid out with the symbol outermost (its padding at the end: the first
        # n * c elements are the static run's, an arange(c * n)'s included); a use expecting another
        # layout refuses
        return (syms[0], c)
    if any_layout and not add:  # a product of symbols, in one layout of them (the caller's values follow it)
        return syms + ((c,) if c != 1 else ())
    raise Refused(f"a new dim of size {d} whose layout is unknown")


def _single(dim):
    """(symbol, addend) of a dim that is one symbol (plus a constant), padded
    at its end; None for any other dim."""
    if len(dim) != 1:
        return None
    a = dim[0]
    if isinstance(a, str):
        return a, 0
    if isinstance(a, tuple):
        return a
    return None


def _prefix(dim):
    """Whether a padded dim's valid elements come first: one symbol (plus a
    constant), or a symbol outermost with static atoms inside it (an [n, k]
    flattened). Along such a dim the valid count is n times the inside."""
    return _symbolic(dim) and (_single(dim) is not None or (isinstance(dim[0], str) and not _symbolic(dim[1:])))


def _arg(node, pos, name, default=None):
    """An op's argument given by position or by keyword, else its default."""
    return node.args[pos] if len(node.args) > pos else node.kwargs.get(name, default)


def _extreme(dtype, lowest):
    """The lowest (else the highest) value of a dtype: -inf/+inf, the integer
    limits, False/True."""
    if dtype == torch.bool:
        return not lowest
    if dtype.is_floating_point:
        return float("-inf") if lowest else float("inf")
    info = torch.iinfo(dtype)
    return info.min if lowest else info.max


def _sorts_last(dtype, descending):
    """A value a stable sort puts after every other (PyTorch orders NaN as the
    largest); a valid element equal to it stays before it, being earlier."""
    if dtype.is_floating_point and not descending:
        return float("nan")
    return _extreme(dtype, descending)


def _canon_dim(dim):
    """One form per layout: adjacent static atoms multiplied into one."""
    out = []
    for a in dim:
        if isinstance(a, int) and out and isinstance(out[-1], int):
            out[-1] *= a
        elif a != 1:
            out.append(a)
    return tuple(out)


def _canon(atoms):
    if isinstance(atoms, list):
        return [_canon(x) for x in atoms]
    if atoms is None:
        return None
    return tuple(_canon_dim(d) for d in atoms)


def _symbolic(dim):
    return any(isinstance(a, (str, tuple)) for a in dim)


def _tensor_val(node):
    v = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return v if isinstance(v, torch.Tensor) else None


def _is_sym_node(x):
    return isinstance(x, torch.fx.Node) and isinstance(x.meta.get("val"), (torch.SymInt, torch.SymFloat, torch.SymBool))


def _has_sym(x):
    if isinstance(x, (list, tuple)):
        return any(_has_sym(y) for y in x)
    if isinstance(x, dict):
        return any(_has_sym(y) for y in x.values())
    return _is_sym_node(x)


def _reshape(atoms, shape):
    """Atoms of a reshape of `atoms` to `shape` (symbolic sizes): the atoms in
    order, regrouped; static atoms may split or merge, symbols stay whole."""
    queue = [a for dim in atoms for a in dim]
    if 0 in queue:
        raise Refused("a reshape of an empty tensor")
    out = []
    for d in shape:
        need_c, need_s, add = _expr(d)
        if need_c == 0:
            raise Refused("a reshape to an empty shape")
        if add:  # a symbol plus a constant: one atom of its own, kept whole
            if not queue or queue[0] != (need_s[0], add):
                raise Refused(f"a reshape to {tuple(shape)} that splits or merges {d}")
            out.append((queue.pop(0),))
            continue
        need_s = list(need_s)
        dim = []
        while need_c > 1 or need_s:
            if not queue:
                raise Refused(f"a reshape to {tuple(shape)} whose layout is unknown")
            a = queue[0]
            if isinstance(a, tuple):
                raise Refused(f"a reshape to {tuple(shape)} that merges a symbol plus a constant")
            if isinstance(a, str):
                if a not in need_s:
                    raise Refused(f"a reshape to {tuple(shape)} that moves symbol {a} across dims")
                need_s.remove(a)
                dim.append(queue.pop(0))
            elif need_c % a == 0:
                need_c //= a
                dim.append(queue.pop(0))
            elif need_c > 1 and a % need_c == 0:
                dim.append(need_c)
                queue[0] = a // need_c
                need_c = 1
            else:
                raise Refused(f"a reshape to {tuple(shape)} that splits a static size across a symbol")
        out.append(tuple(dim))
    if queue:
        raise Refused(f"a reshape to {tuple(shape)} whose layout is unknown")
    return tuple(out)


def _tail(n, start, end, step, out_size, add=0):
    """The length m of a slice that takes the last m elements of a dim of
    n + add (n a symbol or a static size), else None: x[-m:] of a symbol m
    other than n (Dynamo having guarded m <= n: falcon's), x[-k:] of a
    static k (a generate step's last logits), or x[n - m:] of a static n
    (mpt's alibi[..., max(0, 2048 - m):], read through _unclamped); with an
    addend, x[n + add - m : n + add] (or to its end) of a static m (gpt_oss's
    sink column). The result must have size m."""
    if add:
        return _last_of_affine(n, add, start, end, step, out_size)
    if step != 1 or not (end is None or (isinstance(end, int) and end >= (n if isinstance(n, int) else 2 ** 62))):
        return None
    try:
        size = _expr(out_size)
        if isinstance(start, int):
            ok = isinstance(n, str) and start < 0 and size == (-start, (), 0)
            return -start if ok else None
        if not _is_sym_node(start) or not isinstance(start.meta["val"], torch.SymInt):
            return None
        if isinstance(n, str):
            c, syms, add = _expr(start.meta["val"])
            ok = c == -1 and len(syms) == 1 and not add and syms[0] != n and size == (1, syms, 0)
            return syms[0] if ok else None
        e = start.meta["val"].node.expr
        e = _unclamped(e) if e.has(Min, Max) else e
        m = next(iter(e.free_symbols)) if len(e.free_symbols) == 1 else None
        ok = m is not None and sympy.expand(e - n + m) == 0 and size == (1, (m.name,), 0)
        return m.name if ok else None
    except Refused:
        return None


def _last_of_affine(n, c, start, end, step, out_size):
    """_tail of a dim of n + c (c != 0): a static m from start n + c - m."""
    if step != 1 or not isinstance(out_size, int) or not _is_sym_node(start):
        return None
    try:
        k, syms, add = _expr(start.meta["val"])
        if end is not None and not (isinstance(end, int) and end >= 2 ** 62):
            if not _is_sym_node(end) or _expr(end.meta["val"]) != (1, (n,), c):
                return None
    except Refused:
        return None
    m = c - add
    return m if k == 1 and syms == (n,) and m == out_size and m > 0 else None


def _static_int(x):
    """A size node whose value is static (an integer argument at its pinned
    value: logits_to_keep's -k; a size the guards fix: a chunked scan's
    chunk count, pinned), as that int; anything else as it is."""
    values = _VALUES.get() or {}
    if not (_is_sym_node(x) and isinstance(x.meta["val"], torch.SymInt)):
        return x
    if all(s.name in values for s in x.meta["val"].node.expr.free_symbols):
        return _expr(x.meta["val"])[0]
    v = _pinned(x.meta["val"], x.meta["val"].node.expr)
    return x if v is None else v


def _slice_dim(dim, start, end, step, out_size):
    """Atoms of a slice of a symbolic dim: from a static start >= 0 with step
    1 the result is a prefix of the padded one whatever the end (an end
    relative to the padded end ends the valid part as the real end does)."""
    if start in (None, 0) and step == 1 and (end is None or (isinstance(end, int) and end >= 2 ** 62)):
        return dim  # all of it (x[:, 0] of a flattened batch)
    one = _single(dim)
    if one is None:
        raise Refused("a slice of a dim that merges a symbol with others")
    if (_is_sym_node(start) and isinstance(start.meta["val"], torch.SymInt) and one[1] == 0 and step == 1
            and (end is None or (isinstance(end, int) and end >= 2 ** 62))):
        try:  # x[-n:] of a dim of n: all of it (at the bounds, all of the padded dim)
            whole = _expr(start.meta["val"]) == (-1, (one[0],), 0)
        except Refused:
            whole = False
        if whole:
            return dim
    if _has_sym([start, step]) or step != 1 or (start is not None and start < 0):
        raise Refused("a slice of a symbolic dim that does not start at a static index from its front")
    out = _atoms_of_expr(out_size)
    if _symbolic(out) and _single(out)[0] != one[0]:
        raise Refused("a slice whose size is another symbol's")
    return out


def _bcast(lists, what="indices"):
    """Atoms of the broadcast of several tensors' atoms (right-aligned, a
    size-1 dim takes the other's; two different layouts of a dim refuse)."""
    rank = max(len(x) for x in lists)
    out = []
    for i in range(rank):
        dim = ()
        for atoms in lists:
            j = i - (rank - len(atoms))
            if j < 0 or atoms[j] == ():
                continue
            if dim == ():
                dim = atoms[j]
            elif atoms[j] != dim:
                raise Refused(f"{what} with different layouts of dim {i}")
        out.append(dim)
    return tuple(out)


def _norm_dims(dims, rank):
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({d % rank if rank else 0 for d in dims})


def _broadcast(node, operands):
    return _bcast(operands, f"{node.target}: operands") if operands else ()


# ---------------------------------------------------------------- rules
# rule(node, A) -> atoms of the node's value (a tuple of tensors' atoms for
# ops with several outputs), or raises Refused; A(arg) is an argument's
# atoms. A rule may record an action: how the op runs on padded tensors.

_FILL = {"sum": 0, "nansum": 0, "mean": 0, "amax": float("-inf"), "amin": float("inf"), "logsumexp": float("-inf"),
         "_softmax": float("-inf"), "_log_softmax": float("-inf"), "_safe_softmax": float("-inf")}

# Copies and aliases (pointwise ops are found by their tag).
_SAME = {aten.clone, aten.contiguous, aten.alias, aten.detach, aten.lift_fresh_copy}


# Elementwise ops PyTorch does not tag pointwise (copy: self's shape and dtype, src's values broadcast;
# masked_fill.Tensor: a 0-d value; hardswish; activations' backward: grad and input or result of one shape,
# numbers).
_ELEMENTWISE = {aten.floor_divide, aten.copy, aten.polar, aten.masked_fill, aten.hardswish, aten.log_sigmoid_backward,
                aten.elu_backward, aten.hardshrink_backward, aten.hardsigmoid_backward, aten.hardswish_backward,
                aten.hardtanh_backward, aten.leaky_relu_backward, aten.mish_backward, aten.softplus_backward,
                aten.softshrink_backward}

# Tensors laid out as their first argument, of values that do not read it (a rand_like is not: its
# draws at the bounds' sizes would not be the static run's).
_LIKE = {aten.zeros_like, aten.ones_like, aten.full_like, aten.empty_like}


def _no_syms(node, args):
    if _has_sym(args) or _has_sym(node.kwargs):
        raise Refused(f"{node.target} takes a symbolic size as a value")


class _Analysis:
    def __init__(self, gm, hints):
        self.gm = gm
        self.hints = hints  # symbol name -> its value at the first call (integer arguments)
        self.atoms = {}
        self.actions = {}
        self.iota = {}  # node -> symbol: its values are the positions along that symbol's dim
        self.limits = []  # (_expr, most): a size that must stay <= most at the bounds

    def unify(self, x, y, why):
        """Raises _Unify where dims x and y (atoms) are the same layout but for
        symbols of equal first values (integer arguments both), else Refused(why)."""
        if len(x) != len(y):
            raise Refused(why)
        pairs = {}
        for p, q in zip(x, y):
            if p == q:
                continue
            if not (isinstance(p, str) and isinstance(q, str) and p in self.hints and self.hints.get(q) == self.hints[p]):
                raise Refused(why)
            pairs[q] = p
        raise _Unify(why, pairs) if pairs else Refused(why)

    def A(self, x):
        if not isinstance(x, torch.fx.Node) or x not in self.atoms:
            raise Refused(f"an argument {x!r} with no known layout")
        return self.atoms[x]

    def rule(self, node):
        t = node.target
        a = node.args
        if t in (operator.getitem,):
            src = self.A(a[0])
            if not isinstance(src, list):
                raise Refused("getitem of a tensor")
            return src[a[1]]
        if t in (operator.mul, operator.add, operator.sub, operator.floordiv, operator.mod, operator.neg, torch.sym_max, torch.sym_sum,
                 torch.sym_min, aten.sym_size.int, aten.sym_numel.default, torch.sym_float, operator.truediv):
            if t in (aten.sym_size.int, aten.sym_numel.default):
                self.A(a[0])
            return None  # size arithmetic: in the padded program it computes the bounds' sizes
        if t is aten.sym_stride.int:  # a stride the forward saves (the backward's new_empty_strided): made
            self.A(a[0])  # on the host from the sizes; inside the program its value at the bounds is unused
            if any(u.op != "output" for u in node.users):
                raise Refused("a stride read inside the graph")
            return None
        if not isinstance(t, torch._ops.OpOverload):
            raise Refused(f"a call of {t}")
        p = t.overloadpacket
        val = node.meta.get("val")
        if p in (aten.view, aten._unsafe_view, aten.reshape):
            return _reshape(self.A(a[0]), val.shape)
        if p is aten.expand:
            src = self.A(a[0])
            out = []
            lead = len(val.shape) - len(src)
            for i, d in enumerate(val.shape):
                j = i - lead
                out.append(src[j] if j >= 0 and src[j] != () else _atoms_of_expr(d))
            return tuple(out)
        if p is aten.repeat:
            src = self.A(a[0])
            reps = list(a[1])
            lead = len(reps) - len(src)
            dims = [()] * lead + list(src)
            out = []
            for j, (r, dim) in enumerate(zip(reps, dims)):
                if _is_sym_node(r):
                    # copies by a symbolic count of an unpadded dim (bloom's alibi over a batch): the copy
                    # index is the outer atom, so the padding (copies past the count) is at the end
                    c, syms, add = _expr(r.meta["val"])
                    if c != 1 or len(syms) != 1 or add or _symbolic(dim):
                        raise Refused("repeat by a symbolic count other than one symbol, or of a symbolic dim")
                    out.append((syms[0],) + dim)
                    continue
                if r != 1 and _symbolic(dim):  # r copies of a padded dim: the copy index is the outer atom
                    out.append((r,) + dim)  # (llama4's tokens repeated per expert; the padding is inside)
                    continue
                out.append(dim if r == 1 else _atoms_of_expr(val.shape[j]))
            return tuple(out)
        if p is aten.permute:
            src = self.A(a[0])
            return tuple(src[d % len(src)] for d in a[1])
        if p is aten.transpose:
            src = list(self.A(a[0]))
            i, j = a[1] % len(src), a[2] % len(src)
            src[i], src[j] = src[j], src[i]
            return tuple(src)
        if p is aten.t:
            return tuple(reversed(self.A(a[0])))
        if p is aten.unsqueeze:
            src = list(self.A(a[0]))
            d = a[1] % (len(src) + 1)
            return tuple(src[:d] + [()] + src[d:])
        if p is aten.squeeze:
            src = self.A(a[0])
            return _reshape(src, val.shape)
        if p is aten.select:
            src = self.A(a[0])
            d = a[1] % len(src)
            if not isinstance(a[2], int) or (_symbolic(src[d]) and (a[2] < 0 or not _single(src[d]))):
                raise Refused("select at a symbolic index, or from the end of a symbolic dim")
            return src[:d] + src[d + 1:]
        if p is aten.select_backward:  # zeros of the input's sizes (at the bounds), grad at a static index
            _no_syms(node, a[2:])
            out = tuple(_atoms_of_expr(x) for x in val.shape)
            d = a[2] % len(out)
            if not isinstance(a[3], int) or (_symbolic(out[d]) and (a[3] < 0 or not _single(out[d]))):
                raise Refused("select_backward at a symbolic index, or from the end of a symbolic dim")
            if self.A(a[0]) != out[:d] + out[d + 1:]:
                raise Refused("select_backward of a grad laid out unlike its input")
            return out
        if p is aten.slice_backward:  # zeros of the input's sizes, grad at [start:end] along dim
            grad = self.A(a[0])
            d = a[2] % val.dim()
            # the other dims are the grad's (a merged [b*n*2] keeps its layout; check() compares sizes)
            whole = a[3] in (None, 0) and a[5] == 1 and isinstance(a[4], int) and a[4] >= 2 ** 62  # x[:]
            out = tuple(grad[k] if (k != d or whole) and len(grad) == val.dim() else _atoms_of_expr(x)
                        for k, x in enumerate(val.shape))
            if whole and len(grad) == val.dim():
                return out
            start, step = _static_int(a[3]), _static_int(a[5])
            if (len(grad) != len(out) or _has_sym([a[2], step])
                    or any(grad[k] != out[k] for k in range(len(out)) if k != d)):
                raise Refused("slice_backward of a grad laid out unlike its input")
            if _symbolic(out[d]) or _symbolic(grad[d]) or _has_sym([start]):
                if step != 1:
                    raise Refused("slice_backward along a symbolic dim with a step other than 1")
                if any(_symbolic(x) and not _prefix(x) for x in (out[d], grad[d])):
                    raise Refused("slice_backward along a dim padded inside")
                at = _expr(start.meta["val"]) if _has_sym([start]) else start
                self.actions[node] = ("unslice", d, out[d], grad[d], at)
            return out
        if p is aten.slice:
            src = self.A(a[0])
            d = _arg(node, 1, "dim", 0) % len(src)
            start, end, step = (_static_int(x) for x in (_arg(node, 2, "start"), _arg(node, 3, "end"),
                                                         _arg(node, 4, "step", 1)))
            if not _symbolic(src[d]):
                last = _tail(_size(src[d], {}), start, end, step, val.shape[d])
                if last is not None:  # a static table's last m rows (mpt's alibi[..., 2048 - n:])
                    self.actions[node] = ("tail", d, _size(src[d], {}), last, 0)
                    self.limits.append(((1, (last,), 0), _size(src[d], {})))
                    return src[:d] + ((last,),) + src[d + 1:]
                if _has_sym([start, end, step]):
                    # a static table's first rows up to a size (bert's position ids[:, :n]): at the bounds
                    # the slice reaches the bound, a bucket only while that stays inside the table
                    first = 0 if start is None else start
                    if (_has_sym([start, step]) or step != 1 or not isinstance(first, int) or first < 0
                            or not _is_sym_node(end) or not isinstance(end.meta["val"], torch.SymInt)):
                        raise Refused("slice of a static dim at a symbolic index")
                    self.limits.append((_expr(end.meta["val"]), _size(src[d], {})))
                return src[:d] + (_atoms_of_expr(val.shape[d]),) + src[d + 1:]
            one = _single(src[d])
            tail = _tail(one[0], start, end, step, val.shape[d], one[1]) if one is not None else None
            if tail is not None:  # the last m (or k) of a dim of n + c: read from n + c - m at run time
                self.actions[node] = ("tail", d, one[0], tail, one[1])
                return src[:d] + (_atoms_of_expr(tail) if isinstance(tail, int) else (tail,),) + src[d + 1:]
            return src[:d] + (_slice_dim(src[d], start, end, step, val.shape[d]),) + src[d + 1:]
        if p is aten.convolution:
            # stride 1 along a padded spatial dim, its padding zeroed: an output inside the length reads
            # inputs inside it or beyond it, zeros in both runs (the static run's implicit padding)
            _no_syms(node, a[1:])
            x, w = self.A(a[0]), self.A(a[1])
            stride, transposed = a[3], a[6]
            if transposed or any(_symbolic(d) for d in w) or _symbolic(x[1]):
                raise Refused("a transposed convolution, or one of symbolic channels or weights")
            spatial = []
            for i, dim in enumerate(x[2:]):
                if not _symbolic(dim):
                    spatial.append(_atoms_of_expr(val.shape[2 + i]))
                    continue
                if not _single(dim) or stride[i % len(stride)] != 1:
                    raise Refused("a convolution along a symbolic dim of stride other than 1")
                spatial.append(_atoms_of_expr(val.shape[2 + i]))
                if not _single(spatial[-1]) or _single(spatial[-1])[0] != _single(dim)[0]:
                    raise Refused("a convolution whose output length is not its input's plus a constant")
            if any(_symbolic(d) for d in x[2:]):
                self.actions[node] = ("sanitize", [(0, None, x)])
            return (x[0], _atoms_of_expr(val.shape[1])) + tuple(spatial)
        if p is aten.convolution_backward:
            # the forward's rule (stride 1 along padded spatial dims) with the grad's padding zeroed too:
            # grad_input inside the length reads grads inside it or zeros (the static run's implicit
            # padding), grad_weight sums input * grad over positions whose padding is zero in both
            _no_syms(node, a[2:])
            g, x, w = self.A(a[0]), self.A(a[1]), self.A(a[2])
            stride, transposed = a[4], a[7]
            if transposed or any(_symbolic(d) for d in w) or _symbolic(x[1]) or len(g) != len(x):
                raise Refused("a transposed convolution's backward, or one of symbolic channels or weights")
            for i, dim in enumerate(x[2:]):
                if not _symbolic(dim):
                    continue
                out = g[2 + i]
                if (not _single(dim) or stride[i % len(stride)] != 1 or not _single(out)
                        or _single(out)[0] != _single(dim)[0]):
                    raise Refused("a convolution's backward along a symbolic dim of stride other than 1, or a "
                                  "grad whose length is not the input's plus a constant")
            if g[0] != x[0]:
                raise Refused("a convolution's backward whose grad and input batches differ")
            if any(_symbolic(d) for d in x[2:]):
                self.actions[node] = ("sanitize", [(0, None, g), (1, None, x)])
            return [x if val[0] is not None else None, w if val[1] is not None else None,
                    tuple(_atoms_of_expr(d) for d in val[2].shape) if val[2] is not None else None]
        if p is aten.unbind:
            src = self.A(a[0])
            d = _arg(node, 1, "dim", 0) % len(src)
            if _symbolic(src[d]):
                raise Refused("unbind along a symbolic dim")
            return [src[:d] + src[d + 1:] for _ in val]
        if p in (aten.split, aten.split_with_sizes):
            src = self.A(a[0])
            d = _arg(node, 2, "dim", 0) % len(src)
            if _symbolic(src[d]) or _has_sym(a[1]):
                raise Refused("split along a symbolic dim")
            return [src[:d] + (_atoms_of_expr(v.shape[d]),) + src[d + 1:] for v in val]
        if p is aten.cat:
            parts = [self.A(x) for x in a[0]]
            rank = val.dim()
            kept = [x for x, v in zip(parts, a[0]) if rank == 1 or x != ((0,),)]
            if len(kept) == 1 and len(parts) > 1:  # the others are 1-D empty tensors, which cat skips (xlm's)
                return kept[0]
            d = _arg(node, 1, "dim", 0) % rank
            if any(len(x) != rank for x in parts) or _has_sym(a[1:]):
                raise Refused("cat of operands of another rank")
            if any(x[:d] + x[d + 1:] != parts[0][:d] + parts[0][d + 1:] for x in parts):
                raise Refused("cat of operands with different layouts")
            if (len(parts) == 2 and _single(parts[0][d]) and not _symbolic(parts[1][d])
                    and _single(_atoms_of_expr(val.shape[d]))):
                # a padded tensor and a static one after it (a cache and its new rows): the static rows
                # are moved from the padded end to the real one, so the padding is at the end again
                self.actions[node] = ("append", d, _single(parts[0][d]))
                return parts[0][:d] + (_atoms_of_expr(val.shape[d]),) + parts[0][d + 1:]
            if any(_symbolic(x[d]) for x in parts[:-1]) or (_symbolic(parts[-1][d]) and not _single(parts[-1][d])):
                raise Refused("cat along a symbolic dim of any operand but the last (its padding would be inside)")
            return parts[0][:d] + (_atoms_of_expr(val.shape[d]),) + parts[0][d + 1:]
        if p is aten.stack:
            parts = [self.A(x) for x in a[0]]
            d = _arg(node, 1, "dim", 0) % (len(parts[0]) + 1)
            if any(x != parts[0] for x in parts) or _has_sym(a[1:]):
                raise Refused("stack of operands with different layouts")
            return parts[0][:d] + (_atoms_of_expr(len(parts)),) + parts[0][d:]
        if p is aten.gather:
            _no_syms(node, a[1:2])
            src, idx = self.A(a[0]), self.A(a[2])
            d = a[1] % len(src)
            if _symbolic(src[d]) or any(idx[k] != src[k] for k in range(len(src)) if k != d):
                raise Refused("gather along a symbolic dim, or with indices laid out unlike the source")
            if any(_symbolic(x) for x in idx):  # padded indices hold anything: they read element 0
                self.actions[node] = ("sanitize", [(2, None, idx)])
            return idx
        if p in (aten.scatter, aten.scatter_add, aten.scatter_reduce):
            # along a static dim, an index laid out as self elsewhere (an MoE router's one-hot of its top-k):
            # each row writes its own row; padded indices hold anything: they write element 0 of their row
            _no_syms(node, a[1:2] + a[4:])
            dst, idx = self.A(a[0]), self.A(a[2])
            d = a[1] % len(dst)
            src = self.A(a[3]) if _tensor_val(a[3]) is not None else None
            same = all(idx[k] == dst[k] or not (_symbolic(idx[k]) or _symbolic(dst[k]))
                       for k in range(len(dst)) if k != d)
            along = _symbolic(dst[d])
            if (len(idx) != len(dst) or not same
                    or (along and (not _single(dst[d]) or (_symbolic(idx[d]) and idx[d] != dst[d])))
                    or (not along and _symbolic(idx[d]))
                    or (src is not None and (len(src) != len(idx) or any(src[k] != idx[k] for k in range(len(idx))
                                                                          if _symbolic(src[k]) or _symbolic(idx[k]))))):
                raise Refused(f"{t} along a merged symbolic dim, or with an index or src laid out unlike self")
            if along:
                # along a padded dim (an indexer's mask of its top-k positions): the indices are the static
                # run's positions (the dim's padding is at its end); one out of range at the real size is made
                # the bound (the op's own check raises), padded ones write self's padding
                self.actions[node] = ("scatter_into", d, dst[d], idx)
            elif any(_symbolic(x) for x in idx):
                self.actions[node] = ("sanitize", [(2, None, idx)])
            return dst
        if p in (aten.mm, aten.bmm, aten.addmm, aten.baddbmm):
            _no_syms(node, a[1:] if p in (aten.addmm, aten.baddbmm) else a)
            i = 1 if p in (aten.addmm, aten.baddbmm) else 0
            x, y = self.A(a[i]), self.A(a[i + 1])
            if x[-1] != y[-2] or x[:-2] != y[:-2]:
                raise Refused(f"{t}: operands with different layouts")
            if _symbolic(x[-1]):
                self.actions[node] = ("contract", i, len(x) - 1, i + 1, len(y) - 2, x[-1])
            out = x[:-1] + (y[-1],)
            if i:
                return _broadcast(node, [self.A(a[0]), out])
            return out
        if p is aten.linalg_solve_triangular:
            # systems batched over the leading dims: padded batch elements solve their own (garbage) systems
            _no_syms(node, a[2:])
            m, rhs = self.A(a[0]), self.A(a[1])
            if len(m) < 2 or len(rhs) < 2 or any(_symbolic(d) for d in m[-2:] + rhs[-2:]):
                raise Refused(f"{t} of symbolic matrix dims")
            return _bcast([m[:-2], rhs[:-2]], f"{t}: batch dims") + rhs[-2:]
        if p in (aten.sum, aten.nansum, aten.mean, aten.amax, aten.amin, aten.logsumexp):
            _no_syms(node, a)
            src = self.A(a[0])
            dims = _norm_dims(_arg(node, 1, "dim"), len(src))
            keep = _arg(node, 2, "keepdim", False)
            masked = [d for d in dims if _symbolic(src[d])]
            if masked:
                self.actions[node] = ("reduce", p.__name__.split(".")[-1], dims, masked, src)
            return tuple(() if d in dims else src[d] for d in range(len(src)) if keep or d not in dims)
        if t in (aten.all.default, aten.all.dim, aten.all.dims, aten.any.default, aten.any.dim, aten.any.dims):
            # over a padded dim its padding holds True (all) or False (any)
            _no_syms(node, a[1:])
            src = self.A(a[0])
            dims = _norm_dims(None if t._overloadname == "default" else _arg(node, 1, "dim"), len(src))
            keep = _arg(node, 2, "keepdim", False)
            masked = [d for d in dims if _symbolic(src[d])]
            if masked:
                self.actions[node] = ("fill", masked, src, p is aten.all, None)
            return tuple(() if d in dims else src[d] for d in range(len(src)) if keep or d not in dims)
        if p is aten.linalg_vector_norm:
            # over a padded dim its padding holds what adds nothing: 0 for ord > 0, inf (and 0) and for ord 0
            # (a count of nonzeros); inf for ord < 0 (|inf|^ord is 0; -inf: the smallest |x| is a valid one)
            _no_syms(node, a[1:])
            src = self.A(a[0])
            ord_ = _arg(node, 1, "ord", 2)
            dims = _norm_dims(_arg(node, 2, "dim"), len(src))
            keep = _arg(node, 3, "keepdim", False)
            masked = [d for d in dims if _symbolic(src[d])]
            if masked:
                self.actions[node] = ("fill", masked, src, float("inf") if ord_ < 0 else 0.0, None)
            return tuple(() if d in dims else src[d] for d in range(len(src)) if keep or d not in dims)
        if t in (aten.var.correction, aten.std.correction):
            # over padded dims: the mean and the squared deviations of the valid elements, divided by the
            # real count less the correction
            _no_syms(node, a[1:])
            src = self.A(a[0])
            if _tensor_val(a[0]).is_complex():
                raise Refused(f"{t} of a complex tensor")
            dims = _norm_dims(_arg(node, 1, "dim"), len(src))
            keep = node.kwargs.get("keepdim", False)
            if any(_symbolic(src[d]) for d in dims):
                self.actions[node] = ("moment", dims, src, keep, node.kwargs.get("correction"), p is aten.std)
            return tuple(() if d in dims else src[d] for d in range(len(src)) if keep or d not in dims)
        if p is aten.flip:  # along a padded dim (n + c) element j reads n + c - 1 - j at run time
            _no_syms(node, a[1:])
            src = self.A(a[0])
            dims = _norm_dims(a[1], len(src))
            flipped = [d for d in dims if _symbolic(src[d])]
            if any(_single(src[d]) is None for d in flipped):
                raise Refused("flip of a merged symbolic dim")
            if flipped:
                self.actions[node] = ("flip", [d for d in dims if d not in flipped],
                                      [(d, _single(src[d])) for d in flipped])
            return src
        if p is aten.constant_pad_nd:
            # a static dim: nothing; a padded one (n + c) padded by lo, hi is n + c + lo + hi, its valid end
            # then reads the input's padding, which holds the pad value where hi > 0 (a negative lo or hi
            # crops: the backward of a pad, a slice from a static start). Padded at its end by a size
            # (a chunked kernel's n up to a multiple of its chunk) to a length the guards fix: the same
            # (the size, computed at the bounds, pads to that length: _pinned)
            _no_syms(node, a[2:])
            src, pads = self.A(a[0]), list(a[1])
            out, grown = list(src), []
            for k in range(len(pads) // 2):
                d, lo, hi = len(src) - 1 - k, pads[2 * k], pads[2 * k + 1]
                if _has_sym([lo, hi]):
                    one = _single(src[d])
                    out[d] = _atoms_of_expr(val.shape[d])
                    if lo == 0 and not _symbolic(src[d]) and _prefix(out[d]):
                        continue  # a length the guards fix cropped to n (a chunked kernel's backward): at
                        # the bounds to the bound, the first n elements the static run's
                    if lo != 0 or one is None or _symbolic(out[d]):
                        raise Refused("constant_pad_nd by a size other than at the end of a symbolic dim "
                                      "to a length the guards fix")
                    grown.append(d)
                    continue
                if lo == hi == 0:
                    continue
                if not _symbolic(src[d]):
                    out[d] = _atoms_of_expr(val.shape[d])
                    continue
                one = _single(src[d])
                if one is None:
                    raise Refused("constant_pad_nd of a merged symbolic dim")
                out[d] = _affine(one[0], one[1] + lo + hi)  # lo < 0 crops the front (a slice from -lo)
                if hi > 0:
                    grown.append(d)
            if grown:
                self.actions[node] = ("fill", grown, src, _arg(node, 2, "value", 0), None)
            return tuple(out)
        if p is aten.log_sigmoid_forward:  # elementwise, its buffer too
            src = self.A(a[0])
            return [src, src]
        if p in (aten._softmax, aten._log_softmax, aten._safe_softmax):
            src = self.A(a[0])
            d = a[1] % len(src)
            if _symbolic(src[d]):
                self.actions[node] = ("reduce", p.__name__.split(".")[-1], [d], [d], src)
            return src
        if p is aten.native_layer_norm:
            _no_syms(node, a[1:])
            src = self.A(a[0])
            k = len(a[1])
            if any(_symbolic(d) for d in src[len(src) - k:]):
                raise Refused("layer norm over a symbolic dim")
            for w in a[2:4]:
                if w is not None and any(_symbolic(d) for d in self.A(w)):
                    raise Refused("layer norm with symbolic weights")
            stat = src[:len(src) - k] + ((),) * k
            return [src, stat, stat]
        if p in (aten._softmax_backward_data, aten._log_softmax_backward_data):
            # sums grad (times softmax's output) along dim: zeros in the padding add nothing
            _no_syms(node, a[2:])
            src = self.A(a[1])
            if self.A(a[0]) != src:
                raise Refused(f"{t}: operands with different layouts")
            which = (0, 1) if p is aten._softmax_backward_data else (0,)
            if any(_symbolic(d) for d in src):
                self.actions[node] = ("sanitize", [(j, None, src) for j in which])
            return src
        if p is aten.native_layer_norm_backward:  # rows are independent; weight and bias grads sum over them
            _no_syms(node, a[2:3] + a[5:])
            src, k = self.A(a[1]), len(a[2])
            if any(_symbolic(d) for d in src[len(src) - k:]) or self.A(a[0]) != src:
                raise Refused("layer norm backward over a symbolic dim")
            grads = [src]
            for w in a[5:7]:
                if w is not None and any(_symbolic(d) for d in self.A(w)):
                    raise Refused("layer norm backward with symbolic weights")
                grads.append(self.A(w) if w is not None else ())
            # padded rows hold anything: zeros there (grad, input, mean, rstd) add nothing to the sums
            self.actions[node] = ("sanitize", [(j, None, self.A(a[j])) for j in (0, 1, 3, 4)
                                               if any(_symbolic(d) for d in self.A(a[j]))])
            return grads
        if p is aten.cumsum:
            _no_syms(node, a)
            src = self.A(a[0])
            d = a[1] % len(src)
            if any(isinstance(x, str) for x in src[d][1:]):
                raise Refused("cumsum along a dim whose padding is not at its end")
            return src
        if p in (aten.argmax, aten.argmin) or t in (aten.max.dim, aten.min.dim):
            _no_syms(node, a[1:])
            src = self.A(a[0])
            dim, keep = _arg(node, 1, "dim"), _arg(node, 2, "keepdim", False)
            if dim is None:
                raise Refused(f"{t} over all elements")
            d = dim % len(src)
            if _symbolic(src[d]):
                # the padding holds the value no valid one loses to (the first of equals wins: the padded
                # layout keeps the static order); the position found is made the static run's
                self.actions[node] = ("fill", [d], src, _extreme(_tensor_val(a[0]).dtype, p in (aten.argmax, aten.max)),
                                      None if _prefix(src[d]) else src[d])
            out = tuple(() if k == d else src[k] for k in range(len(src)) if keep or k != d)
            return out if p in (aten.argmax, aten.argmin) else [out, out]
        if p in (aten.topk, aten.sort):
            # along a static dim each row is its own: padded rows give values no result reads
            _no_syms(node, a[2:] if p is aten.topk else a[1:])
            src = self.A(a[0])
            if p is aten.topk:
                d = _arg(node, 2, "dim", -1)
            else:  # sort.stable's arguments are keywords only
                d = node.kwargs.get("dim", -1) if t is aten.sort.stable else _arg(node, 1, "dim", -1)
            d %= len(src)
            if p is aten.topk and _symbolic(src[d]):
                # the k largest (smallest) of a padded dim, k static or all of it (an indexer's top
                # min(c, n), _unclamped): the stable sort below, its first k (the order of equal
                # values is unspecified for topk; ours puts the earlier first)
                out = _atoms_of_expr(val[0].shape[d])
                if not _single(src[d]) or (_symbolic(out) and out != src[d]):
                    raise Refused(f"{t} along a merged symbolic dim, or of another symbolic count")
                largest = _arg(node, 3, "largest", True)
                self.actions[node] = ("sort", d, src, _sorts_last(_tensor_val(a[0]).dtype, largest), largest)
                out = src[:d] + (out,) + src[d + 1:]
                return [out, out]
            if p is aten.topk and _has_sym(a[1]):
                raise Refused(f"{t} of a symbolic count along a static dim")
            if _symbolic(src[d]):
                # a stable sort with the padding filled by a value sorted after every valid one: the
                # first n are the valid elements in the static run's order (ours is stable too); a dim
                # whose padding is inside (a batch of rows flattened) is sorted in the static order
                # (compacted) and its results laid out back
                desc = node.kwargs.get("descending", False) if t is aten.sort.stable else _arg(node, 2, "descending", False)
                self.actions[node] = ("sort", d, src, _sorts_last(_tensor_val(a[0]).dtype, desc), desc)
                return [src, src]
            out = src[:d] + (_atoms_of_expr(val[0].shape[d]),) + src[d + 1:]
            return [out, out]
        if p in (aten.triu, aten.tril):
            _no_syms(node, a)
            src = self.A(a[0])
            if any(len(d) > 1 and _symbolic(d) for d in src[-2:]):
                raise Refused(f"{t} over merged symbolic dims")
            return src
        if p is aten.embedding:
            _no_syms(node, a[2:])
            w, idx = self.A(a[0]), self.A(a[1])
            if any(_symbolic(d) for d in w):
                raise Refused("embedding with a symbolic table")
            if any(_symbolic(d) for d in idx):  # padded ids hold anything: they read row 0
                self.actions[node] = ("sanitize", [(1, None, idx)])
            return idx + (w[-1],)
        if p is aten.embedding_dense_backward:  # rows of grad summed into the table's rows by index
            _no_syms(node, a[2:])
            g, idx = self.A(a[0]), self.A(a[1])
            if g[:-1] != idx or _symbolic(g[-1]) or _arg(node, 4, "scale_grad_by_freq", False):
                raise Refused("embedding_dense_backward of a grad laid out unlike its indices, or scaled by "
                              "frequency")
            if any(_symbolic(d) for d in idx):  # padded rows add a zero row to row 0
                self.actions[node] = ("sanitize", [(0, None, g), (1, None, idx)])
            return tuple(_atoms_of_expr(d) for d in val.shape)
        if p is aten.arange:
            start = 0 if t is aten.arange.default else a[0]
            end = a[-1] if t in (aten.arange.default, aten.arange.start) else None
            if end is None or not isinstance(start, int) or _has_sym(node.kwargs):
                raise Refused("arange other than arange([start,] end) with a static start")
            # values start..bound-1: the first ones are arange(start, n)'s
            atoms = (_atoms_of_expr(val.shape[0], any_layout=start == 0 and t is aten.arange.default),)
            if start == 0 and _is_sym_node(end) and _single(atoms[0]):
                self.iota[node] = _single(atoms[0])[0]
            if not _prefix(atoms[0]) and _symbolic(atoms[0]):  # padding inside: the static run's positions
                self.actions[node] = ("iota", atoms[0])
            return atoms
        if p is aten.scalar_tensor:
            _no_syms(node, a)
            return ()
        if p in (aten.nll_loss_forward, aten.nll_loss_backward):
            # rows [N, C] of a static C: the padded rows' targets are made ignore_index, so they add nothing
            # to the loss, its total weight or the gradient (a padded batch of sequences flattened: N inside)
            fwd = p is aten.nll_loss_forward
            x, tgt = self.A(a[0 if fwd else 1]), self.A(a[1 if fwd else 2])
            weight, reduction, ignore = a[2 if fwd else 3], a[3 if fwd else 4], a[4 if fwd else 5]
            _no_syms(node, a)
            why = "nll_loss of other than rows of a number of classes padded at its end"
            if (len(x) != 2 or (_symbolic(x[1]) and _single(x[1]) is None) or len(tgt) != 1
                    or (weight is not None and self.A(weight) != x[1:])):
                raise Refused(why)
            if tgt[0] != x[0]:  # the classes of a loss graph's logits are a symbol too: padded, never a target
                self.unify(x[0], tgt[0], why)
            if not fwd and reduction == 0 and self.A(a[0]) != x[:1]:
                raise Refused("nll_loss_backward of a grad laid out unlike its rows")
            if _symbolic(x[0]):
                self.actions[node] = ("sanitize", [(1 if fwd else 2, None, tgt, ignore)])
            return [x[:1] if reduction == 0 else (), ()] if fwd else x
        if p is aten.new_empty_strided:  # contiguous: new_empty (strides at the bounds: the bounds' layout)
            _no_syms(node, a[:1])
            if not _row_major(val):
                raise Refused(f"new_empty_strided of a layout other than contiguous: {val.shape} {val.stride()}")
            return tuple(_atoms_of_expr(d) for d in val.shape)
        if p in (aten.full, aten.zeros, aten.ones, aten.empty, aten.new_zeros, aten.new_ones, aten.new_empty,
                 aten.new_full):
            k = 1 if p in (aten.new_zeros, aten.new_ones, aten.new_empty, aten.new_full) else 0
            _no_syms(node, a[:k] + a[k + 1:])  # sizes may be symbolic: they become the bounds
            return _uniform(val, self.A(a[0]) if k else (), _tensor_val(a[0]) if k else None, self.atoms.values())
        if p is aten.eye:  # the identity's top-left n x m block is the identity of n x m (kimi's chunk eye)
            out = tuple(_atoms_of_expr(d) for d in val.shape)
            if any(_symbolic(d) and not _single(d) for d in out):
                raise Refused("eye of a merged symbolic size")
            return out
        if p is aten.index and t is aten.index.Tensor:
            return self._index(node, val)
        if p is aten.index_put:
            return self._index_put(node)
        if p is aten.histc:
            # counts of the valid elements: the padding holds NaN or an integer outside the range, which
            # no bin takes
            _no_syms(node, a[1:])
            src = self.A(a[0])
            lo, hi = _arg(node, 2, "min", 0), _arg(node, 3, "max", 0)
            if any(_symbolic(d) for d in src):
                dtype = _tensor_val(a[0]).dtype
                if lo == hi or dtype == torch.bool or dtype.is_complex:
                    raise Refused("histc over the range of its data")
                if dtype.is_floating_point:
                    out = float("nan")
                else:  # integers (the grouped MoE's expert counts): below the range, truncated as the op does
                    out = int(lo) - 1 if int(lo) > torch.iinfo(dtype).min else int(hi) + 1
                    if not torch.iinfo(dtype).min <= out <= torch.iinfo(dtype).max:
                        raise Refused("histc of integers over their whole range")
                self.actions[node] = ("fill", [d for d in range(len(src)) if _symbolic(src[d])], src, out, None)
            return (_atoms_of_expr(val.shape[0]),)
        if p is aten._grouped_mm:
            # [rows, k] times one [k, n] per group: each row of the result reads its own row
            _no_syms(node, a[2:])
            x, w = self.A(a[0]), self.A(a[1])
            offs, bias = _arg(node, 2, "offs"), _arg(node, 3, "bias")
            if (len(x) == 2 and len(w) == 2 and _symbolic(x[1]) and x[1] == w[0] and not _symbolic(x[0])
                    and not _symbolic(w[1]) and bias is None and offs is not None
                    and not any(_symbolic(d) for d in self.A(offs))):
                # [k, rows] times [rows, n] per group of rows (the experts' weight grads): the rows in the
                # static order, the padding after every group, zeroed
                self.actions[node] = ("kgroups", x[1])
                return tuple(_atoms_of_expr(d) for d in val.shape)
            if (len(x) != 2 or len(w) != 3 or _symbolic(x[1]) or any(_symbolic(d) for d in w) or bias is not None
                    or offs is None or any(_symbolic(d) for d in self.A(offs))):
                raise Refused("a grouped mm other than padded rows times static groups")
            if _symbolic(x[0]) and not _prefix(x[0]):  # groups are runs of rows in the static order
                self.actions[node] = ("rows", x[0])
            return (x[0], _atoms_of_expr(val.shape[1]))
        if p is aten.index_select:  # x.index_select(d, i) is x[(None,) * d + (i,)]
            d = a[1] % len(self.A(a[0]))
            return self._index(node, val, [None] * d + [a[2]], 2)
        if p is aten._to_copy:
            dev = node.kwargs.get("device")
            if dev is not None and torch.device(dev).type != "tpu":
                raise Refused("a copy to another device")
            return self.A(a[0])
        if p is aten.copy_:
            raise Refused("an in-place copy")  # checked separately for static placeholders
        if p is aten.view_as_complex:  # [..., 2] floats -> [...] complex
            src = self.A(a[0])
            if _symbolic(src[-1]):
                raise Refused("view_as_complex of a symbolic last dim")
            return src[:-1]
        if p is aten.view_as_real:
            return self.A(a[0]) + (_atoms_of_expr(2),)
        if p is aten.select_scatter:  # src written at a static index of self (as select reads one)
            _no_syms(node, a[2:])
            dst, src = self.A(a[0]), self.A(a[1])
            d, i = a[2] % len(dst), a[3]
            if not isinstance(i, int) or (_symbolic(dst[d]) and (i < 0 or not _single(dst[d]))):
                raise Refused("select_scatter at a symbolic index, or from the end of a symbolic dim")
            if src != dst[:d] + dst[d + 1:]:
                raise Refused("select_scatter of a src laid out unlike self")
            return dst
        if t in (aten.max.default, aten.min.default):  # over everything: the padding holds what loses
            src = self.A(a[0])
            padded = [d for d in range(len(src)) if _symbolic(src[d])]
            if padded:
                self.actions[node] = ("fill", padded, src, _extreme(_tensor_val(a[0]).dtype, t is aten.max.default), None)
            return ()
        if p is aten.slice_scatter:  # src written into a static slice of self: laid out as self
            _no_syms(node, a[2:])
            dst, src = self.A(a[0]), self.A(a[1])
            d = _arg(node, 2, "dim", 0) % len(dst)
            start, end, step = _arg(node, 3, "start"), _arg(node, 4, "end"), _arg(node, 5, "step", 1)
            whole = start in (None, 0) and step == 1 and (end is None or (isinstance(end, int) and end >= 2 ** 62))
            if ((_symbolic(dst[d]) and not (whole and src == dst)) or len(src) != len(dst)
                    or any(src[k] != dst[k] for k in range(len(dst)) if k != d)):
                raise Refused("slice_scatter along a symbolic dim, or of a src laid out unlike self")
            return dst
        if p in _LIKE:
            _no_syms(node, a[1:])
            return self.A(a[0])
        if p in _SAME:
            _no_syms(node, a[1:])
            return self.A(a[0])
        if (torch.Tag.pointwise in t.tags or p in _ELEMENTWISE) and not t._schema.is_mutable:
            symval = [(k, _expr(x.meta["val"]) if isinstance(x.meta["val"], torch.SymInt) else _Real(x.meta["val"]))
                      for k, x in enumerate(a) if _is_sym_node(x) and isinstance(x.meta["val"], (torch.SymInt, torch.SymFloat))]
            _no_syms(node, [x for k, x in enumerate(a) if k not in {k for k, _ in symval}])
            if symval:  # a size as a value (a mean's backward divides by its count): the real one, at run time
                self.actions[node] = ("symval", symval)
            if t is aten.add.Tensor and len(a) == 2 and a[1] == 0 and a[0] in self.iota and not node.kwargs:
                self.iota[node] = self.iota[a[0]]
            ops = [self.A(x) for x in list(a) + list(node.kwargs.values()) if _tensor_val(x) is not None]
            return _broadcast(node, ops)
        if (isinstance(val, torch.Tensor) and not _has_sym(a) and not _has_sym(node.kwargs)
                and torch.Tag.nondeterministic_seeded not in t.tags and not t._schema.is_mutable
                and not any(_tensor_val(x) is not None for x in _nodes_in(list(a) + list(node.kwargs.values())))
                and not any(isinstance(d, torch.SymInt) for d in val.shape)):
            return tuple(_atoms_of_expr(d) for d in val.shape)  # a constant made from numbers (linspace)
        raise Refused(f"{t} is not known to be right on padded tensors")

    def _index(self, node, val, idxs=None, arg=1):
        """aten.index.Tensor: indices into a symbolic dim are its positions (an
        arange over its symbol, broadcast: each valid element reads a valid
        one, a padded one reads inside the padding), or any integers: the
        static run's positions, which are made padded ones (a negative index
        counts from the real end; one past the real size is made one past
        the bound, so it raises as it does on CPU). Padded indices hold
        anything: they read element 0."""
        src = self.A(node.args[0])
        idxs = list(node.args[1]) if idxs is None else idxs
        used = [i for i, x in enumerate(idxs) if x is not None]
        if not used:
            raise Refused("indexing with no index tensor")
        sanitize, wrap = [], []
        for i in used:
            x = idxs[i]
            ix = self.A(x)
            padded = any(_symbolic(d) for d in ix)
            if padded and _tensor_val(x).dtype == torch.bool:
                raise Refused("a boolean mask index with padding")
            if _symbolic(src[i]):
                one = _single(src[i])
                if one is None or one[1] != 0 or self.iota.get(x) != one[0]:
                    if _tensor_val(x).dtype == torch.bool:
                        raise Refused("a boolean mask index into a symbolic dim")
                    # the op's check at the real size (CPU's words): x[..] counts index tensors, index_select
                    # names self's dim (along dim 1 of a matrix or more, CPU's RuntimeError of its fast path)
                    check = ((used.index(i), "index.Tensor") if arg == 1 else
                             (i, "index_select_indices" if i == 1 and len(src) > 1 else "index_select"))
                    wrap.append((arg, i if arg == 1 else None, src[i], *check, ix))
                elif padded:
                    continue
            if padded:
                sanitize.append((arg, i if arg == 1 else None, ix))
        if sanitize or wrap:
            self.actions[node] = ("index", sanitize, wrap, [])
        b = _bcast([self.A(idxs[i]) for i in used])
        rest = list(src[len(idxs):])
        if used == list(range(used[0], used[-1] + 1)):
            before = [src[i] for i in range(used[0])]
            after = [src[i] for i in range(used[-1] + 1, len(idxs))]
            return tuple(before) + b + tuple(after + rest)
        return b + tuple([src[i] for i in range(len(idxs)) if idxs[i] is None] + rest)

    def _index_put(self, node):
        """self[..., idx, ...] = values (one index tensor): a valid index writes
        the valid element the static run writes (as _index); a padded index
        into the dim it is the padded positions of writes its own position
        there (inside self's padding), so no padded one writes a valid
        element."""
        _no_syms(node, node.args[3:])
        dst, idxs, vals = self.A(node.args[0]), list(node.args[1]), self.A(node.args[2])
        used = [i for i, x in enumerate(idxs) if x is not None]
        if len(used) != 1 or _tensor_val(idxs[used[0]]).dtype == torch.bool:
            raise Refused("index_put other than by one integer index tensor")
        i = used[0]
        ix = self.A(idxs[i])
        padded = any(_symbolic(d) for d in ix)
        wrap, own, zero = [], [], []
        if _symbolic(dst[i]):
            wrap.append((1, i, dst[i], 0, "index_put", ix))
        want = dst[:i] + ix + dst[i + 1:]
        if padded and len(ix) == 1 and ix[0] != dst[i] and _arg(node, 3, "accumulate", False) and vals == want:
            # sums of rows into other rows (the experts' pair grads back to their tokens): a padded index
            # adds a zero row to row 0
            zero = [(1, i, ix), (2, None, vals)]
        elif padded:
            if len(ix) != 1 or ix[0] != dst[i]:
                raise Refused("index_put by padded indices other than along the dim they index")
            own.append((1, i, dst[i]))
        if len(vals) == len(want) == 1 and vals != want and self._relayout_arange(node.args[2], want[0]):
            vals = want
        if _bcast([vals, want], "index_put's values") != want:
            raise Refused("index_put of values laid out unlike the elements they write")
        if wrap or own or zero:
            self.actions[node] = ("index", zero, wrap, own)
        return dst

    def _relayout_arange(self, x, dim):
        """An arange(n * m) read by one op only, which expects it laid out as
        `dim` (of that size; an inverse permutation's positions over a batch
        of rows flattened): its values become the static run's positions of
        that layout. Whether it did."""
        if (not isinstance(x, torch.fx.Node) or x.target is not aten.arange.default or len(x.users) != 1
                or _dim_of_atoms(dim) != _dim_of_atoms(self.atoms[x][0]) or x in self.iota):
            return False
        self.atoms[x] = (dim,)
        self.actions[x] = ("iota", dim)
        return True

    def keep_iota(self, node, atoms):
        """Whether a view, copy or slice of positions (an arange over a symbol)
        still holds positions along that symbol's dim."""
        t = node.target
        if not isinstance(t, torch._ops.OpOverload) or not node.args or node.args[0] not in self.iota:
            return
        s = self.iota[node.args[0]]
        p = t.overloadpacket
        if p not in (aten.unsqueeze, aten.expand, aten.clone, aten.alias, aten.contiguous, aten.view,
                     aten._unsafe_view, aten.reshape, aten.slice, aten.squeeze):
            return
        if not isinstance(atoms, tuple) or [d for d in atoms if _symbolic(d)] != [(s,)]:
            return
        if p is aten.slice and len(node.args) > 2 and node.args[2] not in (None, 0):
            return
        self.iota[node] = s

    def check(self, node, atoms):
        """The rule's atoms agree with the node's symbolic shape."""
        val = node.meta.get("val")
        vals = val if isinstance(val, (list, tuple)) else [val]
        outs = atoms if isinstance(atoms, list) else [atoms]
        for v, at in zip(vals, outs):
            if not isinstance(v, torch.Tensor):
                continue
            if at is None or len(at) != v.dim() or any(_dim_of_atoms(x) != _expr(d) for x, d in zip(at, v.shape)):
                raise Refused(f"{node.target}: layout {at} does not match its shape {tuple(v.shape)}")


class Bounding:
    """How one graph runs padded: built by analyze()."""

    def __init__(self, gm, syms, inputs, outputs, actions, derived, host_outs, limits=(), pins=(), values=None,
                 aliases=None):
        self.gm = gm
        self.aliases = aliases or {}  # symbol name -> the name it is read as: equal values, else per size
        self.limits = tuple(limits)  # (_expr, most): past `most` at the bounds, a call runs at its own sizes
        self.pins = tuple(dict.fromkeys(pins))  # (sympy expression, value): the bounds must give that value
        self._pins_hold = {}  # (key, integer arguments' values) -> whether the pins hold there
        self.values = values or {}  # argument position -> symbol of an integer argument no tensor's size (pinned)
        self.syms = syms  # argument position -> symbol name
        self.inputs = inputs  # argument position -> atoms of a tensor with symbolic dims
        self.outputs = outputs  # per output: None, or per dim (symbol, static inside it, addend) or its static size
        self.actions = actions
        self.derived = derived  # argument position -> a size computed from the symbols: at the bounds
        self.host_outs = host_outs  # output position -> made on the host from the call (finish)
        # outputs viewing another output, made after it (in output order)
        self.outviews = [(k, h[1], h[2]) for k, h in host_outs.items() if h[0] == "outview"]
        self.order = sorted(syms)
        self._n = {}  # (symbol, size) -> 0-d int64 tensor on the device

    def bounds(self, args):
        """(key, sizes, bounds) for a call, or None when a size has no bucket."""
        sizes = {self.syms[i]: args[i] for i in self.order}
        if any(sizes[a] != sizes[c] for a, c in self.aliases.items()):
            return None
        bounds = {}
        for s, n in sizes.items():
            b = bound_of(n)
            if b is None:
                return None
            bounds[s] = b
        key = ("bounded",) + tuple(bounds[self.syms[i]] for i in self.order)
        if any(_value(e, bounds) > most for e, most in self.limits) or not self._pinned_at(key, bounds, args):
            return None
        return key, sizes, bounds

    def _pinned_at(self, key, bounds, args):
        """Whether the bounds (and the integer arguments read at their first
        values) give every pinned size its value; decided once per key."""
        if not self.pins:
            return True
        values = tuple(args[i] for i in self.values)
        ok = self._pins_hold.get((key, values))
        if ok is None:
            at = {**bounds, **{s: args[i] for i, s in self.values.items()}}
            ok = all(e.xreplace({x: sympy.Integer(at[x.name]) for x in e.free_symbols}) == v for e, v in self.pins)
            if len(self._pins_hold) < 4096:
                self._pins_hold[(key, values)] = ok
        return ok

    def size_tensor(self, s, n, device):
        t = self._n.get((s, n))
        if t is None:
            t = torch.tensor(n, dtype=torch.int64).to(device)
            if len(self._n) < 4096:
                self._n[(s, n)] = t
        return t

    def padded_args(self, args, bounds):
        out = list(args)  # integer arguments of no tensor's size keep their values
        for i in self.order:
            out[i] = bounds[self.syms[i]]
        for i, e in self.derived.items():
            out[i] = _value(e, bounds)
        for i, atoms in self.inputs.items():
            out[i] = _pad(args[i], tuple(_size(d, bounds) for d in atoms))
        return out

    def finish(self, outs, args, sizes):
        """The call's outputs: padded results narrowed to the sizes, and the
        outputs made on the host (sizes at their values, inputs as given)."""
        if self.values:  # integer arguments no tensor has as a size, at their values (a backward's expand)
            sizes = {**sizes, **{s: args[i] for i, s in self.values.items()}}
        res = []
        for k, (o, spec) in enumerate(zip(outs, self.outputs)):
            host = self.host_outs.get(k)
            if host is not None and host[0] == "size":
                o = _value(host[1], sizes)
            elif host is not None and host[0] == "outview":
                o = None  # below, once the output it views is made
            elif host is not None:
                o = args[host[1]]
                for op, a, kw in host[2] if host[0] == "view" else ():
                    o = op(o, *_at_sizes(a, sizes), **_at_sizes(kw, sizes))
            elif spec is not None:
                shape = [s if isinstance(s, int) else sizes[s[0]] * s[1] + s[2] for s in spec]
                if _compacts(spec):  # its real elements in C order at the front of a flat tensor (run_padded)
                    o = o.as_strided(shape, _contiguous_strides(shape), 0)
                elif shape != list(o.shape):  # one view for its padded dim, none where nothing is padded
                    o = o.as_strided(shape, o.stride(), o.storage_offset())
            res.append(o)
        for k, base, views in self.outviews:
            o = res[base]
            for op, a, kw in views:
                o = op(o, *_at_sizes(a, sizes), **_at_sizes(kw, sizes))
            res[k] = o
        return type(outs)(res) if isinstance(outs, tuple) else res


def _at(a, table):
    """A symbol's entry in a table of sizes, or a static size itself."""
    return table[a] if isinstance(a, str) else a


def _size(dim, bounds):
    if len(dim) == 1 and isinstance(dim[0], tuple):
        return bounds[dim[0][0]] + dim[0][1]
    n = 1
    for a in dim:
        n *= bounds[a] if isinstance(a, str) else a
    return n


def _uniform(val, like=(), like_val=None, known=()):
    """Atoms of a tensor of one value (zeros, full, empty): a dim that merges
    symbols takes the layout of a dim of the same size of `like` (new_zeros'
    self), else of the first tensor before it with such a dim (a flattened
    batch of tokens: batch outermost), else one of its own. Any layout holds
    the static run's values there; what combines it with other tensors
    checks theirs agree."""
    out = []
    for d in val.shape:
        try:
            out.append(_atoms_of_expr(d))
            continue
        except Refused:
            pass
        e = _expr(d)
        same = [at for at, x in zip(like, like_val.shape if like_val is not None else ())
                if _symbolic(at) and _expr(x) == e]
        for atoms in known if not same else ():
            for at in atoms if isinstance(atoms, tuple) else ():
                try:
                    if len(at) > 1 and _symbolic(at) and _dim_of_atoms(at) == e:
                        same.append(at)
                except Refused:
                    continue
        out.append(same[0] if same else _atoms_of_expr(d, any_layout=True))
    return tuple(out)


def _row_major(val):
    """Whether a (fake) tensor's strides are the row-major ones of its sizes
    in some order of its dims (a permuted contiguous tensor), size-1 dims
    aside: compared as expressions, no guard added; Max(1, n) in a stride is
    n (a dim of size 0 leaves the layout nothing to hold). The same
    expressions at the bounds give the same layout of the bounds' sizes."""
    def ex(x):
        return x.node.expr if isinstance(x, torch.SymInt) else sympy.Integer(x)

    def hint(x):
        return x.node.hint if isinstance(x, torch.SymInt) else x

    if not all(isinstance(hint(x), int) for x in list(val.shape) + list(val.stride())):
        return False
    dims = sorted(range(val.dim()), key=lambda k: (hint(val.stride()[k]), hint(val.shape[k])))
    step = sympy.Integer(1)
    for k in dims:
        d, st = ex(val.shape[k]), ex(val.stride()[k])
        st = st.replace(lambda m: isinstance(m, Max) and len(m.args) == 2 and sympy.Integer(1) in m.args,
                        lambda m: next(x for x in m.args if x != 1))
        if d != 1 and sympy.expand(st - step) != 0:
            return False
        step = step * d
    return True


def _contiguous_strides(shape):
    st, out = 1, []
    for d in reversed(shape):
        out.append(st)
        st *= max(d, 1)
    return tuple(reversed(out))


def _pad(t, shape):
    """t widened to `shape` (each dim at least t's): the same storage when t is
    a narrowed view of a tensor laid out at `shape`, else a zero-padded copy
    made through host memory (no program)."""
    if tuple(t.shape) == shape and t.is_contiguous():
        return t
    strides = _contiguous_strides(shape)
    numel = 1
    for d in shape:
        numel *= d
    room = t.storage_offset() + numel <= t.untyped_storage().nbytes() // t.element_size()
    if (tuple(t.stride()) == strides or all(s == 1 for s in t.shape)) and room:
        return t.as_strided(shape, strides, t.storage_offset())
    if room and t.is_contiguous() and t.device.type != "cpu":
        # a compacted output of a padded run (its storage has the bound's numel): widened on the device,
        # by programs of the bound's shape (the sizes are a tensor argument)
        real = _sizes_tensor(tuple(t.shape), t.device)
        with torch.no_grad():  # an argument of the plan, as a host copy would be
            return _widened(t.as_strided((numel,), (1,), t.storage_offset()), real, shape)
    pad_stats["host_pads"] += 1
    host = torch.zeros(shape, dtype=t.dtype)
    host[tuple(slice(0, n) for n in t.shape)] = t.cpu()
    return host.to(t.device)


# Process-wide: a count (torch.tpu.plan_stats) and a cache of size tensors; written under the GIL by any
# thread, a race at worst makes one tensor twice or loses one count.
pad_stats = {"host_pads": 0}
_SIZES = {}  # (shape, device) -> the shape as a 1-D int64 tensor on the device


def _sizes_tensor(shape, device):
    t = _SIZES.get((shape, device))
    if t is None:
        t = torch.tensor(shape, dtype=torch.int64).to(device)
        if len(_SIZES) < 4096:
            _SIZES[(shape, device)] = t
    return t


def _alias_root(node):
    """The placeholder a chain of views starts from, or None."""
    while isinstance(node, torch.fx.Node):
        if node.op == "placeholder":
            return node
        if node.op != "call_function" or not getattr(node.target, "is_view", False):
            return None
        node = node.args[0]
    return None


def _view_base(node):
    """The node a chain of views starts from (node itself when it is no view)."""
    while (isinstance(node, torch.fx.Node) and node.op == "call_function"
           and getattr(node.target, "is_view", False) and node.args):
        node = node.args[0]
    return node


def _no_shared_views(gm, outs):
    """Refuses a forward two of whose user-visible outputs view one tensor
    the graph makes (x and its expand): AOTAutograd rebuilds one from their base
    with the strides and offset of the tensor returned, and a padded run's
    outputs (each its own tensor, compacted) hold no such layout over the
    other's storage (graph fuzzer dynamic 45:37: a setStorage error). A
    graph without AOTAutograd returns its outputs as they are: two padded
    outputs would not share storage, and a write through one would not show
    in the other (y, y[:, :2]: a wrong answer before), so it is refused too."""
    if gm.meta.get("torchtpu_backward"):  # gradients, which autograd takes as they are
        return
    users = gm.meta.get("torchtpu_user_outputs", len(outs))  # an AOTAutograd forward's (_compile._partition)
    seen = {}
    for o in outs[:users]:
        base = _view_base(o)
        if not isinstance(base, torch.fx.Node) or base.op == "placeholder":
            continue
        if base in seen and (seen[base] is not o or base is not o):
            raise Refused("outputs that view one tensor the graph makes")
        seen.setdefault(base, o)


def _nodes_in(x):
    if isinstance(x, (list, tuple)):
        return [n for y in x for n in _nodes_in(y)]
    return [x] if isinstance(x, torch.fx.Node) else []


def _replay(o, base, computed):
    """The view ops from base to o as (op, args, kwargs), each size node as
    its _expr (read in this analysis: its pins, values and aliases), valued per
    call (Bounding.finish); the sizes' _exprs join `computed`."""
    chain = []
    while o is not base:
        chain.append(o)
        o = o.args[0]
    replay = []
    for n in reversed(chain):
        for x in _nodes_in(list(n.args[1:]) + list(n.kwargs.values())):
            if not (_is_sym_node(x) and isinstance(x.meta["val"], torch.SymInt)):
                raise Refused("an output that views a tensor with a tensor argument")
            computed.append(_expr(x.meta["val"]))
        replay.append((n.target, _size_exprs(n.args[1:]), _size_exprs(n.kwargs)))
    return tuple(replay)


def _size_exprs(x):
    """Arguments of a view with each size node as its _expr (read in analysis)."""
    if isinstance(x, dict):
        return {k: _size_exprs(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_size_exprs(y) for y in x)
    return _SizeOf(_expr(x.meta["val"])) if isinstance(x, torch.fx.Node) else x


class _SizeOf:
    """A size argument of a view replayed on the host (_size_exprs): an _expr."""

    def __init__(self, e):
        self.e = e


def _at_sizes(x, sizes):
    """Arguments of a view (_size_exprs) with each size at its value."""
    if isinstance(x, dict):
        return {k: _at_sizes(v, sizes) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_at_sizes(y, sizes) for y in x)
    return _value(x.e, sizes) if isinstance(x, _SizeOf) else x


class _Formula:
    """A size that is no product of symbols, passed between a forward and its
    backward (a chunked kernel's pad (c - n % c) % c): its value at integer
    sizes, by sympy, kept per sizes. Made on the host (a size the forward
    saves: the real one) or given at the bounds (the backward's argument);
    what reads it inside a graph has a rule of its own."""

    def __init__(self, e):
        self.e = e
        self.names = tuple(sorted(x.name for x in e.free_symbols))
        self._at = {}

    def __call__(self, sizes):
        key = tuple(sizes[n] for n in self.names)
        v = self._at.get(key)
        if v is None:
            v = int(self.e.xreplace({x: sympy.Integer(sizes[x.name]) for x in self.e.free_symbols}))
            if len(self._at) < 4096:
                self._at[key] = v
        return v


class _Real:
    """A float computed from sizes (std's backward scales by 2 / (n - 1)), as a
    pointwise op's scalar: its value at the real sizes, computed in the
    program (float64) from the size arguments."""

    _OPS = {"ToFloat": lambda x: x, "FloatTrueDiv": lambda a, b: a / b, "IntTrueDiv": lambda a, b: a / b}

    def __init__(self, v):
        self.e = v.node.expr
        self.names = tuple(sorted(x.name for x in self.e.free_symbols))
        for m in sympy.preorder_traversal(self.e):
            if not (isinstance(m, (sympy.Symbol, sympy.Number, sympy.Add, sympy.Mul))
                    or (isinstance(m, sympy.Pow) and isinstance(m.exp, sympy.Integer))
                    or type(m).__name__ in self._OPS):
                raise Refused(f"a float {self.e} computed from sizes")

    def __call__(self, sizes):
        def ev(m):
            if isinstance(m, sympy.Symbol):
                return sizes[m.name].to(torch.float64) if isinstance(sizes[m.name], torch.Tensor) else float(sizes[m.name])
            if isinstance(m, sympy.Number):
                return float(m)
            args = [ev(x) for x in m.args]
            if isinstance(m, sympy.Add):
                return functools.reduce(operator.add, args)
            if isinstance(m, sympy.Mul):
                return functools.reduce(operator.mul, args)
            if isinstance(m, sympy.Pow):
                return args[0] ** int(m.exp)
            return self._OPS[type(m).__name__](*args)
        return ev(self.e)


def _expr_or_formula(v):
    try:
        return _expr(v)
    except Refused:
        e = v.node.expr
        if not e.free_symbols or not e.is_integer:
            raise
        return _Formula(e)


def _names(e):
    return e.names if isinstance(e, (_Formula, _Real)) else e[1]


def _value(e, sizes):
    """A size's value (an _expr, or a _Formula at integer sizes) at `sizes`
    (symbol -> int or 0-d tensor)."""
    if isinstance(e, (_Formula, _Real)):
        return e(sizes)
    coeff, names, addend = e
    v = coeff
    for n in names:
        v = v * sizes[n]
    return v + addend


def analyze(gm, atoms_only=False):
    """A Bounding for the graph, or raises Refused saying why it cannot run
    padded. atoms_only: the analysis of its nodes (their atoms), outputs unread."""
    pins = []
    sizes = set()
    for node in gm.graph.nodes:
        v = node.meta.get("val") if node.op == "placeholder" else None
        if isinstance(v, torch.Tensor):  # a sum of symbols (a backward's saved [b, k + n, d] of
            # logits_to_keep's k) leaves its symbols free to be values
            sizes |= {x.name for d in v.shape if isinstance(d, torch.SymInt) and not _sum_of_symbols(d.node.expr)
                      for x in d.node.expr.free_symbols}
    symbols, hints = {}, {}  # name -> Symbol of the integer arguments; -> its value at the first call
    for node in gm.graph.nodes:
        v = node.meta.get("val") if node.op == "placeholder" else None
        if isinstance(v, torch.SymInt) and isinstance(v.node.expr, sympy.Symbol):
            symbols[v.node.expr.name] = v.node.expr
            if isinstance(v.node.hint, int):
                hints[v.node.expr.name] = v.node.hint
    shapes = _new_sizes(gm)  # a backward's expand to the forward's [s0, s1]: a size, padded as any other
    values = {k: v for k, v in hints.items() if k not in sizes and k not in shapes}
    aliases = {}  # name -> name it is read as (_Unify)
    for _ in range(8):
        del pins[:]
        token, vtoken = _PINS.set(pins), _VALUES.set(values)
        atoken = _ALIASES.set({symbols[a]: symbols[c] for a, c in aliases.items()})
        try:
            return _analyze(gm, atoms_only, pins, values, hints, shapes, aliases)
        except _Unify as u:
            if not all(a in symbols and c in symbols and a not in values and c not in values
                       for a, c in u.pairs.items()):
                raise Refused(str(u)) from None
            for a, c in u.pairs.items():
                while c in aliases:
                    c = aliases[c]
                if a != c:
                    aliases = {k: (c if v == a else v) for k, v in aliases.items()}
                    aliases[a] = c
        finally:
            _PINS.reset(token)
            _VALUES.reset(vtoken)
            _ALIASES.reset(atoken)
    raise Refused("symbols read as one another past 8 rounds")


def _sum_of_symbols(e):
    return any(isinstance(x, sympy.Add) and len(x.free_symbols) > 1 for x in sympy.preorder_traversal(e))


def _new_sizes(gm):
    """Names of the integer arguments a graph uses as a size of a tensor it
    makes (an element of a size list: expand, view, new_zeros)."""
    out = set()
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        for x in list(node.args) + list(node.kwargs.values()):
            for y in x if isinstance(x, (list, tuple)) else ():
                v = y.meta.get("val") if isinstance(y, torch.fx.Node) and y.op == "placeholder" else None
                if isinstance(v, torch.SymInt) and isinstance(v.node.expr, sympy.Symbol):
                    out.add(v.node.expr.name)
    return out


def _analyze(gm, atoms_only, pins, values, hints, shapes=(), aliases=None):
    an = _Analysis(gm, hints)
    an.aliases = aliases or {}
    syms, inputs, positions = {}, {}, 0
    derived = {}  # argument position -> _expr of a size computed from symbols (a backward's 4*s0)
    host_outs = {}  # output position -> ("size", _expr) or ("arg", argument position): made on the host
    static_inputs, position_of, computed_views = set(), {}, []
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            v = node.meta.get("val")
            position_of[node] = positions
            if isinstance(v, torch.SymInt):
                e = v.node.expr
                if isinstance(e, sympy.Symbol):
                    syms[positions] = e.name
                else:
                    derived[positions] = _expr_or_formula(v)
                an.atoms[node] = None
            elif isinstance(v, torch.Tensor):
                atoms = tuple(_atoms_of_expr(d) for d in v.shape)
                an.atoms[node] = atoms
                if any(_symbolic(d) for d in atoms):
                    inputs[positions] = atoms
                else:
                    static_inputs.add(node)
            else:
                raise Refused(f"an argument {v!r} that is neither a tensor nor a size")
            positions += 1
        elif node.op == "call_function":
            if node.target is aten.copy_.default and node.args[0] in static_inputs:
                an.A(node.args[1])
                an.atoms[node] = an.atoms[node.args[0]]
                continue
            atoms = _canon(an.rule(node))
            an.check(node, atoms)
            an.keep_iota(node, atoms)
            an.atoms[node] = atoms
        elif node.op == "output":
            if atoms_only:
                return an
            outs = node.args[0]
            if not isinstance(outs, (list, tuple)):
                raise Refused("a graph whose output is not a tuple")
            first = {}  # an output node -> its first position
            for k, o in enumerate(outs):
                if isinstance(o, torch.fx.Node):
                    first.setdefault(o, k)
            of_output = {}  # output position -> the position of the output it views (y, y[:, 1:])
            for k, o in enumerate(outs):
                base = _view_base(o)
                if base is not o and isinstance(base, torch.fx.Node) and base.op != "placeholder" and base in first:
                    of_output[k] = first[base]
            _no_shared_views(gm, [None if k in of_output else o for k, o in enumerate(outs)])
            specs = []
            for k, o in enumerate(outs):
                if o is None:
                    specs.append(None)
                    continue
                if k in of_output:  # the views again, on that output as returned: they share its storage
                    host_outs[k] = ("outview", of_output[k], _replay(o, _view_base(o), computed_views))
                    specs.append(None)
                    continue
                if _is_sym_node(o) and isinstance(o.meta["val"], torch.SymInt):  # a size AOTAutograd saves
                    host_outs[k] = ("size", _expr_or_formula(o.meta["val"]))
                    specs.append(None)
                    continue
                if _tensor_val(o) is None:
                    raise Refused("a graph with a non-tensor output")
                if o.op == "placeholder":  # an input saved for the backward: itself, unpadded
                    host_outs[k] = ("arg", position_of[o])
                    specs.append(None)
                    continue
                root = _alias_root(o)
                if root is not None and any(_symbolic(d) for d in an.atoms[root]):
                    # a view of an input saved for the backward: the views again, on the input as given
                    host_outs[k] = ("view", position_of[root], _replay(o, root, computed_views))
                    specs.append(None)
                    continue
                spec = []
                for dim in an.atoms[o]:
                    if not _symbolic(dim):
                        spec.append(_size(dim, {}))
                    elif _single(dim):  # n + c
                        spec.append((_single(dim)[0], 1, _single(dim)[1]))
                    elif isinstance(dim[0], str) and not _symbolic(dim[1:]):  # n times the static inside
                        spec.append((dim[0], _size(dim[1:], {}), 0))
                    else:
                        raise Refused("an output dim whose padding is not at its end")
                specs.append(spec if any(isinstance(s, tuple) for s in spec) else None)
        elif node.op == "get_attr":  # a constant tensor of the graph
            v = _tensor_val(node)
            if v is None:
                raise Refused("a get_attr node that is not a tensor")
            atoms = tuple(_atoms_of_expr(d) for d in v.shape)
            if any(_symbolic(d) for d in atoms):
                raise Refused("a constant tensor of symbolic size")
            an.atoms[node] = atoms
        else:
            raise Refused(f"a {node.op} node")
    if not inputs:
        raise Refused("no tensor argument has a symbolic size")
    used = {a if isinstance(a, str) else a[0] for dims in inputs.values() for d in dims for a in d
            if isinstance(a, (str, tuple))} | (set(shapes) & set(syms.values()))
    used |= {a for a, c in an.aliases.items() if c in used}  # its value checked against c's per call
    computed = [e for e in derived.values()] + [h[1] for h in host_outs.values() if h[0] == "size"]
    computed += [e for act in an.actions.values() if act[0] == "symval" for _, e in act[1]] + computed_views
    computed += [e for e, _ in an.limits]
    for names in map(_names, computed):
        if not set(names) <= set(syms.values()):
            raise Refused(f"a size of symbols {sorted(set(names) - set(syms.values()))} that are not integer arguments")
        used |= set(names)
    value_args = {i: name for i, name in syms.items() if name in values and name not in used}
    for i in value_args:
        del syms[i]
    for e, _ in pins:
        if not {x.name for x in e.free_symbols} <= set(syms.values()) | set(value_args.values()):
            raise Refused(f"a size {e} the guards fix, of symbols that are not integer arguments")
    missing = used - set(syms.values())
    if missing:
        raise Refused(f"symbols {sorted(missing)} are not integer arguments")
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for i in list(syms):
        if syms[i] not in used:  # a stride's symbol, say: unused, it keeps its value and is no part of the key
            if placeholders[i].users:
                raise Refused(f"a size {syms[i]} that no tensor argument has")
            del syms[i]
    aliases = {a: c for a, c in an.aliases.items() if a in used}
    if not set(aliases.items()) <= {(a, c) for a in syms.values() for c in syms.values()}:
        raise Refused(f"symbols read as one another whose values no call gives: {aliases}")
    return Bounding(gm, syms, inputs, specs, an.actions, derived, host_outs, an.limits, pins, value_args, aliases)


def split_saved(fw, bw, num_fwd_outputs):
    """Activations the forward saves for the backward whose padding would lie
    inside a merged dim (a linear's [b*s, d] input, laid out [b, s, d]) leave
    the forward reshaped to their atoms ([b, s, d]) and are reshaped back at
    the top of the backward: the same values, and both graphs can run padded.
    Returns whether it changed the graphs; graphs it cannot read stay as they are."""
    try:
        an = analyze(fw, atoms_only=True)
    except Refused:
        return False
    out_node = next(n for n in fw.graph.nodes if n.op == "output")
    outs = list(out_node.args[0])
    bw_ph = {n.name: n for n in bw.graph.nodes if n.op == "placeholder"}
    sym_node = {}
    for n in fw.graph.nodes:
        v = n.meta.get("val") if n.op == "placeholder" else None
        if isinstance(v, torch.SymInt) and isinstance(v.node.expr, sympy.Symbol):
            sym_node[v.node.expr.name] = n
    top = next(n for n in bw.graph.nodes if n.op != "placeholder")
    changed = False
    for k in range(num_fwd_outputs, len(outs)):
        o = outs[k]
        v = _tensor_val(o)
        atoms = an.atoms.get(o) if v is not None else None
        if (not isinstance(atoms, tuple) or o.name not in bw_ph or len(atoms) != v.dim()
                or not any(len(d) > 1 and _symbolic(d) for d in atoms)):
            continue
        groups, sizes, vals = [], [], []  # split dims per dim of v; the split's sizes (fw) and values
        for i, d in enumerate(atoms):
            if len(d) <= 1 or not _symbolic(d):
                groups.append([len(sizes)])
                sizes.append(v.shape[i])
                vals.append(v.shape[i])
                continue
            if any(isinstance(a, tuple) or (isinstance(a, str) and a not in sym_node) for a in d):
                break
            # a symbol read as another (_Unify) splits as the one this tensor has
            own = {an.aliases.get(x.name, x.name): x.name for x in v.shape[i].node.expr.free_symbols}
            d = tuple(own.get(a, a) if isinstance(a, str) else a for a in d)
            if any(isinstance(a, str) and a not in sym_node for a in d):
                break
            groups.append(list(range(len(sizes), len(sizes) + len(d))))
            for a in d:
                sizes.append(sym_node[a] if isinstance(a, str) else a)
                vals.append(sym_node[a].meta["val"] if isinstance(a, str) else a)
        else:
            with v.fake_mode:
                split_val = v.reshape(vals)
            with fw.graph.inserting_before(out_node):
                args = []
                for j, x in enumerate(sizes):
                    if isinstance(x, torch.SymInt):  # an unmerged symbolic dim: its size, read from o
                        x = fw.graph.call_function(aten.sym_size.int, (o, _groups_dim(groups, j)))
                        x.meta["val"] = vals[j]
                    args.append(x)
                sp = fw.graph.call_function(aten.reshape.default, (o, args))
                sp.meta["val"] = split_val
            outs[k] = sp
            ph = bw_ph[o.name]
            ph.meta["val"] = split_val
            mine = set()  # the nodes made here that read the split placeholder
            with bw.graph.inserting_before(top):
                merged = []
                for i, g in enumerate(groups):
                    if not isinstance(v.shape[i], torch.SymInt):
                        merged.append(v.shape[i])
                        continue
                    acc = None
                    for j in g:
                        x = split_val.shape[j]
                        if isinstance(x, torch.SymInt):
                            n = bw.graph.call_function(aten.sym_size.int, (ph, j))
                            n.meta["val"] = x
                            mine.add(n)
                            x = n
                        if acc is None:
                            acc = x
                        else:
                            prod = bw.graph.call_function(operator.mul, (acc, x))
                            prod.meta["val"] = (acc.meta["val"] if isinstance(acc, torch.fx.Node) else acc) * (
                                x.meta["val"] if isinstance(x, torch.fx.Node) else x)
                            acc = prod
                    merged.append(acc)
                back = bw.graph.call_function(aten.reshape.default, (ph, merged))
                back.meta["val"] = v
            mine.add(back)
            ph.replace_all_uses_with(back, delete_user_cb=lambda u: u not in mine)
            changed = True
    if changed:
        out_node.args = (tuple(outs) if isinstance(out_node.args[0], tuple) else outs,) + tuple(out_node.args[1:])
        fw.recompile()
        bw.recompile()
    return changed


def _groups_dim(groups, j):
    """The dim of the merged tensor whose split dims hold split dim j."""
    return next(i for i, g in enumerate(groups) if j in g)


class _Padded(torch.fx.Interpreter):
    """Runs the graph on padded arguments, masking what the analysis marked."""

    def __init__(self, b, sizes, bounds, device):
        super().__init__(b.gm)
        self.b = b
        self.bounds = bounds
        self.n = {s: b.size_tensor(s, sizes[s], device) for s in sizes}
        self.device = device
        self._masks = {}

    def dim_mask(self, dim):
        """Which indices of one padded dim are inside the sizes (1-D bool)."""
        m = self._masks.get(dim)
        if m is not None:
            return m
        idx = torch.arange(_size(dim, self.bounds), device=self.device)
        if len(dim) == 1 and isinstance(dim[0], tuple):  # n + c, padded at the end
            m = idx < self.n[dim[0][0]] + dim[0][1]
            self._masks[dim] = m
            return m
        inner = 1
        for a in reversed(dim):
            p = self.bounds[a] if isinstance(a, str) else a
            if isinstance(a, str):
                digit = idx if inner == 1 and len(dim) == 1 else torch.remainder(torch.div(idx, inner, rounding_mode="floor"), p)
                v = digit < self.n[a]
                m = v if m is None else m & v
            inner *= p
        self._masks[dim] = m
        return m

    def count(self, dim):
        """The valid size of one dim: a 0-d int64 tensor, or an int if static."""
        c = 1
        for a in dim:
            if isinstance(a, tuple):
                c = c * (self.n[a[0]] + a[1])
            else:
                c = c * (self.n[a] if isinstance(a, str) else a)
        return c

    def sanitized(self, x, atoms, value=0):
        """x with `value` in its padding (every symbolic dim of atoms)."""
        return _filled(x, ~self.mask(atoms, [d for d in range(len(atoms)) if _symbolic(atoms[d])]), value)

    def wrapped(self, idx, dim, cdim, op, atoms):
        """The static run's integer indices into a padded dim, made padded
        positions: a negative one counts from the real size (for ops where
        CPU wraps it); one out of range at the real size raises CPU's error
        for `op` naming dimension `cdim` and the real size (asynchronously,
        as the op's own check would), and becomes the bound: the op clamps
        or drops it as it does any bad index (its own check, at the bound,
        comes later in the launch, so the error raised is this one). The
        index's own padding (atoms: its layout) is not checked."""
        n = self.count(dim)
        if not isinstance(n, torch.Tensor):
            n = torch.tensor(n, device=idx.device)
        valid = self.sanitized(idx, atoms) if any(_symbolic(d) for d in atoms) else idx
        _C.call(_check_bounds_id(), (valid, n, cdim, op))
        if op not in _NONNEG_INDEX_OPS:
            idx = torch.where(idx < 0, idx + n, idx)
        bad = (idx < 0) | (idx >= n)
        return torch.where(bad, _size(dim, self.bounds), self.padded_of(dim, torch.where(bad, 0, idx)))

    def _radices(self, dim):
        return [(self.bounds[a], self.n[a]) if isinstance(a, str) else (a, a) for a in reversed(dim)]

    def _rebase(self, dim, x, to_static):
        """Positions along a dim read in one run's radices (the bounds, or the
        real sizes) and written in the other's; a dim padded at its end has
        the same positions in both."""
        if _prefix(dim) or not _symbolic(dim):
            return x
        out, scale = 0, 1
        for b, n in self._radices(dim):
            frm, to = (b, n) if to_static else (n, b)
            out = out + torch.remainder(x, frm) * scale
            x, scale = torch.div(x, frm, rounding_mode="floor"), scale * to
        return out

    def static_of(self, dim, pos):
        """The static run's positions of padded positions along a dim (valid
        ones; a padded one gets some position below the bound)."""
        return self._rebase(dim, pos, True)

    def padded_of(self, dim, idx):
        """The padded positions of the static run's positions along a dim (in range)."""
        return self._rebase(dim, idx, False)

    def compacted(self, x, d, dim):
        """x along d in the static order: its valid elements first (the rest
        padding); laid_out() puts them back."""
        if _prefix(dim):
            return x
        j = torch.arange(x.shape[d], device=self.device)
        return x.index_select(d, torch.where(j < self.count(dim), self.padded_of(dim, j), j))

    def laid_out(self, x, d, dim):
        if _prefix(dim):
            return x
        return x.index_select(d, self.static_of(dim, torch.arange(x.shape[d], device=self.device)))

    def mask(self, atoms, dims):
        m = None
        for d in dims:
            md = self.dim_mask(atoms[d]).reshape([-1 if i == d else 1 for i in range(len(atoms))])
            m = md if m is None else m & md
        return m

    def run_node(self, node):
        act = self.b.actions.get(node)
        if act is None:
            return super().run_node(node)
        args, kwargs = self.fetch_args_kwargs_from_env(node)
        args = list(args)
        if act[0] == "symval":  # the size's run-time value, a 0-d tensor computed from the size arguments
            for k, e in act[1]:
                args[k] = _value(e, self.n)
            return node.target.overloadpacket(*args, **kwargs)
        if act[0] in ("sanitize", "index"):
            def put(k, i, x):
                if i is None:
                    args[k] = x
                else:
                    args[k] = list(args[k])
                    args[k][i] = x

            def get(k, i):
                return args[k] if i is None else args[k][i]
            for k, i, atoms, *value in act[1]:  # value: what the padding holds (0 unless given)
                put(k, i, self.sanitized(get(k, i), atoms, *value))
            for k, i, dim, cdim, op, ix in act[2] if act[0] == "index" else ():
                put(k, i, self.wrapped(get(k, i), dim, cdim, op, ix))
            for k, i, dim in act[3] if act[0] == "index" else ():  # padded positions index themselves
                x = get(k, i)
                pos = torch.arange(x.shape[0], device=self.device)
                put(k, i, torch.where(self.dim_mask(dim), x, pos.to(x.dtype)))
            return node.target(*args, **kwargs)
        if act[0] == "scatter_into":
            _, d, dim, idx_atoms = act
            end = _size(dim, self.bounds)
            idx = self.wrapped(args[2], dim, d, "scatter", idx_atoms)  # the padding is at the dim's end: positions as they are
            padded = [k for k in range(len(idx_atoms)) if _symbolic(idx_atoms[k])]
            if padded:
                idx = torch.where(self.mask(idx_atoms, padded), idx, end - 1)
            args[2] = idx
            return node.target(*args, **kwargs)
        if act[0] == "fill":  # the padding along dims holds a value the op passes over
            _, dims, atoms, value, positions = act  # positions: a dim whose found positions become static ones
            out = node.target(_filled(args[0], ~self.mask(atoms, dims), value), *args[1:], **kwargs)
            if positions is None:
                return out
            if isinstance(out, tuple):  # max.dim's (values, indices)
                return type(out)((out[0], self.static_of(positions, out[1])))
            return self.static_of(positions, out)  # argmax's, as the static run's
        if act[0] == "sort":
            _, d, atoms, value, desc = act
            x = self.compacted(args[0], d, atoms[d])
            j = torch.arange(x.shape[d], device=self.device).reshape([-1 if k == d else 1 for k in range(x.dim())])
            x = x.masked_fill(j >= self.count(atoms[d]), value)
            v, i = torch.ops.aten.sort.stable(x, stable=True, dim=d, descending=desc)
            if node.target.overloadpacket is aten.topk:  # its first k (k at the bounds)
                return v.narrow(d, 0, args[1]), i.narrow(d, 0, args[1])
            return self.laid_out(v, d, atoms[d]), self.laid_out(i, d, atoms[d])
        if act[0] == "moment":
            _, dims, atoms, keep, correction, root = act
            valid = self.mask(atoms, [d for d in dims if _symbolic(atoms[d])])
            count = 1
            for d in dims:
                count = count * self.count(atoms[d])
            x = args[0]
            count = torch.as_tensor(count, device=self.device).to(x.dtype)
            mean = x.masked_fill(~valid, 0).sum(dims, keepdim=True) / count
            dev = (x - mean).masked_fill(~valid, 0)
            div = torch.clamp(count - (1 if correction is None else correction), min=0)
            v = (dev * dev).sum(dims, keepdim=keep) / div
            return v.sqrt() if root else v
        if act[0] == "flip":
            _, static, padded = act
            x = args[0].flip(static) if static else args[0]
            for d, (sym, add) in padded:
                j = torch.arange(x.shape[d], device=self.device)
                x = x.index_select(d, torch.clamp(self.n[sym] + add - 1 - j, min=0))
            return x
        if act[0] == "unslice":  # out[j] = grad[j - start] for start <= j < start + the grad's real length
            _, d, out_dim, grad_dim, start = act
            grad, n = args[0], self.count(out_dim)
            if start is None:
                start = 0
            elif isinstance(start, int):  # as slice: a negative start counts from the real end
                start = torch.clamp(n + start, min=0) if start < 0 and isinstance(n, torch.Tensor) else \
                    max(n + start, 0) if start < 0 else start
            else:
                start = _value(start, self.n)
                start = torch.clamp(torch.where(start < 0, start + n, start), min=0)
            j = torch.arange(_size(out_dim, self.bounds), device=self.device) - start
            shape = [1] * grad.dim()
            shape[d] = -1
            valid = ((j >= 0) & (j < self.count(grad_dim))).view(shape)
            if grad.shape[d] == 0:
                return node.target(*args, **kwargs)
            return torch.where(valid, grad.index_select(d, torch.clamp(j, 0, grad.shape[d] - 1)), 0).to(grad.dtype)
        if act[0] == "tail":  # x[-m:] along a dim of n: elements n - m.. (past the bound: the last one, padding)
            _, d, n, m, c = act  # n, m: symbols or static sizes; a dim of n + c
            x = args[0]
            real = _at(n, self.n) + c
            j = torch.arange(_at(m, self.bounds), device=self.device) + (real - _at(m, self.n))
            return x.index_select(d, torch.clamp(j, max=x.shape[d] - 1))
        if act[0] == "iota":  # an arange laid out as a dim with padding inside: the static run's positions
            return self.static_of(act[1], node.target(*args, **kwargs))
        if act[0] == "kgroups":  # groups of the contracted rows, in the static order, the padding zeroed
            dim = act[1]
            keep = torch.arange(_size(dim, self.bounds), device=self.device) < self.count(dim)
            x = torch.where(keep, self.compacted(args[0], 1, dim), 0).to(args[0].dtype)
            w = torch.where(keep[:, None], self.compacted(args[1], 0, dim), 0).to(args[1].dtype)
            return node.target(x, w, *args[2:], **kwargs)
        if act[0] == "rows":  # row groups of a grouped mm, in the static order
            x = self.compacted(args[0], 0, act[1])
            return self.laid_out(node.target(x, *args[1:], **kwargs), 0, act[1])
        if act[0] == "append":  # cat([a, b], d), a padded along d from n + c to its bound + c
            _, d, (sym, add) = act
            out = node.target(*args, **kwargs)
            a = args[0][0]
            have, rows = a.shape[d], out.shape[d] - a.shape[d]
            j = torch.arange(out.shape[d], device=self.device)
            n = self.n[sym] + add  # where b's rows belong
            src = torch.where((j >= n) & (j < n + rows), j - n + have, j)
            return out.index_select(d, src)
        if act[0] == "contract":
            _, i, di, j, dj, dim = act
            for k, d in ((i, di), (j, dj)):
                atoms = [()] * args[k].dim()
                atoms[d] = dim
                args[k] = args[k].masked_fill(~self.mask(atoms, [d]), 0)
            return node.target(*args, **kwargs)
        _, kind, dims, masked, atoms = act
        x = args[0].masked_fill(~self.mask(atoms, masked), _FILL[kind])
        if kind != "mean":
            return node.target(x, *args[1:], **kwargs)
        keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        dtype = node.meta["val"].dtype
        total = torch.sum(x, dims, keepdim=keep, dtype=dtype)
        count = 1
        for d in dims:
            count = count * self.count(atoms[d])
        return total / count.to(dtype)


def _filled(x, where, value):
    """x.masked_fill(where, value) laid out as x (strides kept where x is
    dense): ops that follow their input's layout (constant_pad_nd, a
    convolution) give the static run's strides, which later views rely on."""
    y = x.masked_fill(where, value)
    if y.stride() != x.stride():
        z = torch.empty_like(x)
        if z.stride() == x.stride():
            y = z.copy_(y)
    return y


def run_padded(b, args, sizes, bounds, device):
    """The graph's outputs on the padded arguments (inside a capture); None
    where Bounding.finish makes the output on the host. An output whose real
    elements would not be a contiguous tensor inside the padded one (a dim
    past its first is padded) is compacted: a flat tensor of its numel whose
    front holds them in C order, so the call's output is contiguous, as the
    static run's (user code views it)."""
    run = _Padded(b, sizes, bounds, device)
    outs = run.run(*args)
    res = []
    for k, (o, spec) in enumerate(zip(outs, b.outputs)):
        if k in b.host_outs:
            o = None
        elif spec is not None and _compacts(spec):
            o = _compacted(o, [s if isinstance(s, int) else run.n[s[0]] * s[1] + s[2] for s in spec])
        res.append(o)
    return type(outs)(res) if isinstance(outs, tuple) else res


def _compacts(spec):
    """Whether an output's real elements are not contiguous in its padded
    layout: a padded dim after its first (a [2, n, d] of n < bound)."""
    padded = [k for k, s in enumerate(spec) if isinstance(s, tuple)]
    return len(padded) > 1 or any(s != 1 for s in spec[:padded[0]])


def _compacted(o, real):
    """A flat tensor of o's numel: the elements of o inside the real sizes
    (ints or 0-d tensors), in C order, then anything."""
    flat = o.reshape(-1)
    p = torch.arange(flat.shape[0], device=o.device)
    lin, stride = torch.zeros_like(p), 1
    for d, r in zip(reversed(o.shape), reversed(real)):
        r = torch.clamp(r, min=1) if isinstance(r, torch.Tensor) else max(r, 1)
        lin = lin + (p % r) * stride
        p = torch.div(p, r, rounding_mode="floor")
        stride *= d
    return flat[torch.where(p > 0, 0, lin)]  # past the real numel: element 0


def _widened(flat, real, shape):
    """The inverse of _compacted: a tensor of `shape` whose elements inside
    the real sizes (a 1-D int64 tensor) are the C-order front of `flat`,
    zeros elsewhere."""
    q = torch.arange(flat.shape[0], device=flat.device)
    lin, stride = torch.zeros_like(q), 1
    valid = torch.ones_like(q, dtype=torch.bool)
    for k in reversed(range(len(shape))):
        c = q % shape[k]
        q = q // shape[k]
        valid = valid & (c < real[k])
        lin = lin + c * stride
        stride = stride * real[k]
    got = flat[torch.where(valid, lin, 0)]
    return torch.where(valid, got, torch.zeros((), dtype=got.dtype, device=got.device)).reshape(shape)
