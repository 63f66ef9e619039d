"""Outputs of a compiled graph that view an input the graph writes, rebuilt
as views of that input.

`x.neg_(); return x.reshape(-1)` (x strided) or `x[:k] = 0; return x[1:]`
(x narrowing a larger tensor): AOTAutograd's graph writes x with copy_(x, v)
and returns a view of v, the new value, laid out row-major. The output is a
view of x in eager, so AOTAutograd's runtime wrapper rebuilds it from x: with
static shapes by replaying the views on x, but with symbolic sizes from the
returned tensor's base and strides, read over x's storage, where they mean
other elements (x's own layout is not row-major): a wrong answer with every
backend (pytorch/pytorch#103650; graph fuzzer, dynamic family, 2:147 and
3:65). Returning the same views applied to x itself, after the write, gives
the wrapper a tensor laid out over x's storage, which it rebuilds right.
Pure graph rewriting; the values do not change (x holds v after the copy)."""
import torch

aten = torch.ops.aten


def _is_view(node):
    return node.op == "call_function" and getattr(node.target, "is_view", False) and bool(node.args)


def view_outputs_of_written_inputs(gm):
    """Rewrites gm in place (only a graph with symbolic sizes: with static ones
    the wrapper replays the views); returns how many outputs it changed."""
    g = gm.graph
    placeholders = [n for n in g.nodes if n.op == "placeholder"]
    if not any(isinstance(n.meta.get("val"), torch.SymInt) for n in placeholders):
        return 0
    written = {}  # value node -> the placeholder it is copied into
    for n in g.nodes:
        if n.op == "call_function" and n.target is aten.copy_.default and n.args[0].op == "placeholder":
            written[n.args[1]] = n.args[0]
    out = next((n for n in g.nodes if n.op == "output"), None)
    if not written or out is None:
        return 0
    changed = 0

    def rebuilt(o):
        nonlocal changed
        if not isinstance(o, torch.fx.Node):
            return o
        chain, x = [], o
        while x not in written and _is_view(x):
            chain.append(x)
            x = x.args[0]
        if x not in written or not chain:
            return o
        prev = written[x]
        with g.inserting_before(out):
            for v in reversed(chain):
                node = g.call_function(v.target, (prev,) + tuple(v.args[1:]), dict(v.kwargs))
                node.meta = dict(v.meta)
                prev = node
        changed += 1
        return prev

    outs = out.args[0]
    new = type(outs)(rebuilt(o) for o in outs) if isinstance(outs, (tuple, list)) else rebuilt(outs)
    if changed:
        out.args = (new,) + tuple(out.args[1:])
        gm.recompile()
    return changed
