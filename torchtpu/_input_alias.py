"""Outputs of a compiled graph that view an input the graph writes, rebuilt
as views of that input.

`x.neg_(); return x.reshape(-1)` (x strided) or `x[:k] = 0; return x[1:]`
(x narrowing a larger tensor): AOTAutograd's graph computes v, x's new value
laid out row-major, and returns a view of v. The output is a view of x in
eager, so AOTAutograd's runtime wrapper rebuilds it from x once x holds v:
with static shapes by replaying the views on x, but with symbolic sizes from
the returned tensor's base and strides, read over x's storage, where they
mean other elements when x's own layout is not v's (x strided, or narrowing a
larger tensor; or v a padded result of a bounded graph, laid out at the
bucket's size): a wrong answer, or an as_strided out of x's bounds
(pytorch/pytorch#103650; graph fuzzer, dynamic family, 2:147, 3:65, 28:79).
Returning the same views applied to x itself gives the wrapper a tensor laid
out over x's storage, which it rebuilds right.

Two kinds of graph write an input: an inference graph copies v into x at its
end (copy_(x, v), AOTAutograd's keep_inference_input_mutations), so the view
of x holds v when the graph returns; a training graph's forward returns v
(its first outputs, one per written input) and the wrapper copies it into x
before it rebuilds the outputs that alias x -- the only outputs rewritten
there, as their returned values are never read (views of x would hold x's
old values until the wrapper's copy). Pure graph rewriting."""
import torch

aten = torch.ops.aten


def _is_view(node):
    return node.op == "call_function" and getattr(node.target, "is_view", False) and bool(node.args)


def _symbolic(placeholders):
    return any(isinstance(n.meta.get("val"), torch.SymInt) for n in placeholders)


def _rewrite(gm, written, positions):
    """The outputs at `positions` that are views of a node in `written` (value
    node -> the placeholder that receives it) become the same views of the
    placeholder. Returns how many changed."""
    g = gm.graph
    out = next((n for n in g.nodes if n.op == "output"), None)
    if not written or out is None:
        return 0
    outs = out.args[0]
    seq = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    changed = 0
    for k in positions:
        o = seq[k]
        if not isinstance(o, torch.fx.Node):
            continue
        chain, x = [], o
        while x not in written and _is_view(x):
            chain.append(x)
            x = x.args[0]
        if x not in written or not chain:
            continue
        prev = written[x]
        with g.inserting_before(out):
            for v in reversed(chain):
                node = g.call_function(v.target, (prev,) + tuple(v.args[1:]), dict(v.kwargs))
                node.meta = dict(v.meta)
                prev = node
        seq[k] = prev
        changed += 1
    if changed:
        new = type(outs)(seq) if isinstance(outs, (tuple, list)) else seq[0]
        out.args = (new,) + tuple(out.args[1:])
        gm.recompile()
    return changed


def view_outputs_of_written_inputs(gm):
    """An inference graph (copy_ into its inputs), rewritten in place (only a
    graph with symbolic sizes: with static ones the wrapper replays the
    views); returns how many outputs it changed."""
    g = gm.graph
    placeholders = [n for n in g.nodes if n.op == "placeholder"]
    if not _symbolic(placeholders):
        return 0
    written = {}
    for n in g.nodes:
        if n.op == "call_function" and n.target is aten.copy_.default and n.args[0].op == "placeholder":
            written[n.args[1]] = n.args[0]
    out = next((n for n in g.nodes if n.op == "output"), None)
    if out is None:
        return 0
    outs = out.args[0]
    return _rewrite(gm, written, range(len(outs) if isinstance(outs, (tuple, list)) else 1))


def _same_shape(a, b):
    va, vb = a.meta.get("val"), b.meta.get("val")
    return (isinstance(va, torch.Tensor) and isinstance(vb, torch.Tensor) and va.dtype == vb.dtype
            and len(va.shape) == len(vb.shape) and all(str(p) == str(q) for p, q in zip(va.shape, vb.shape)))


def view_outputs_of_mutated_inputs(gm, meta):
    """A training graph's forward, rewritten in place from AOTAutograd's
    ViewAndMutationMeta `meta` (the tracing context's fw_metadata): the user
    outputs that alias an input the forward returns a new value for. Only with
    symbolic sizes; nothing changes when the graph's inputs or outputs do not
    line up with `meta` (synthetic bases, say). Returns how many changed."""
    g = gm.graph
    placeholders = [n for n in g.nodes if n.op == "placeholder"]
    out = next((n for n in g.nodes if n.op == "output"), None)
    if meta is None or out is None or not _symbolic(placeholders):
        return 0
    from torch._functorch._aot_autograd.schemas import OutputType

    outs = out.args[0]
    if not isinstance(outs, (tuple, list)):
        return 0
    mutated = list(meta.mutated_inp_runtime_indices)
    nouts = len(meta.output_info)
    if len(meta.input_info) > len(placeholders) or len(mutated) + nouts > len(outs):
        return 0
    if any(meta.input_info[i].mutates_metadata for i in mutated):  # x.t_(): the output is a view, not a value
        return 0
    written = {}
    for k, i in enumerate(mutated):
        v, x = outs[k], placeholders[i]
        if not isinstance(v, torch.fx.Node) or not _same_shape(v, x):
            return 0
        written[v] = x
    positions = [len(mutated) + j for j, info in enumerate(meta.output_info)
                 if info.output_type == OutputType.alias_of_input and info.base_idx in mutated]
    return _rewrite(gm, written, positions)
