"""View and in-place semantics: each scenario runs the same code on CPU and on
"tpu" and compares every alias it returns (values, shapes, and for views the
strides and storage offset), gradients included; error scenarios must raise
the exception CPU raises."""
import pytest
import torch
import torch.nn.functional as F

import torchtpu  # noqa: F401

SCENARIOS = {}
ERRORS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def error(fn):
    ERRORS[fn.__name__] = fn
    return fn


class Maker:
    """Deterministic inputs built on CPU, then moved to the scenario's device."""

    def __init__(self, dev):
        self.dev = dev
        self.seed = 0

    def __call__(self, *shape, dtype=torch.float32, grad=False):
        self.seed += 1
        g = torch.Generator().manual_seed(self.seed)
        if dtype == torch.bool:
            x = torch.rand(shape, generator=g) > 0.5
        elif dtype.is_floating_point:
            x = torch.randn(shape, generator=g).to(dtype)
        else:
            x = torch.randint(-9, 10, shape, generator=g).to(dtype)
        x = x.to(self.dev)
        return x.requires_grad_() if grad else x

    def arange(self, *shape, dtype=torch.float32):
        n = 1
        for s in shape:
            n *= s
        return torch.arange(n, dtype=dtype).reshape(shape).to(self.dev)

    def tensor(self, data, **kw):
        return torch.tensor(data, **kw).to(self.dev)


def check_same(cpu, tpu, path="result"):
    if isinstance(cpu, dict):
        assert isinstance(tpu, dict) and cpu.keys() == tpu.keys(), path
        for k in cpu:
            check_same(cpu[k], tpu[k], f"{path}[{k!r}]")
    elif isinstance(cpu, (list, tuple)):
        assert isinstance(tpu, (list, tuple)) and len(cpu) == len(tpu), path
        for i, (c, t) in enumerate(zip(cpu, tpu)):
            check_same(c, t, f"{path}[{i}]")
    elif isinstance(cpu, torch.Tensor):
        assert isinstance(tpu, torch.Tensor), path
        assert tpu.device.type == "tpu", f"{path}: on {tpu.device}"
        if cpu._is_view():
            assert tpu._is_view(), f"{path}: not a view on tpu"
            assert (tpu.stride(), tpu.storage_offset()) == (cpu.stride(), cpu.storage_offset()), path
        torch.testing.assert_close(tpu.detach().cpu(), cpu.detach(), equal_nan=True, msg=lambda m: f"{path}: {m}")
    else:
        assert cpu == tpu, f"{path}: {tpu!r} != {cpu!r}"


def run(fn):
    cpu = fn(Maker("cpu"))
    tpu = fn(Maker("tpu"))
    check_same(cpu, tpu)


# ---- reads through views of every kind -------------------------------------------

@scenario
def read_view_chain(m):
    x = m(4, 6)
    a = x.view(2, 12).t().reshape(3, 8)  # reshape of a transpose copies
    b = x.view(24)[3:19:2].view(2, 4).t()
    c = x.t()[1:5].unsqueeze(0)[..., ::2].squeeze(0)
    return {"a": a, "b": b, "c": c, "c2": c * 2}


@scenario
def read_transpose_permute_movedim(m):
    x = m(2, 3, 4, 5)
    return {"t": x.transpose(1, 3), "p": x.permute(3, 1, 0, 2), "mv": x.movedim(0, -1),
            "mvs": torch.movedim(x, (0, 1), (2, 3)), "sw": x.swapaxes(0, 2), "T": x[0, 0].T, "mT": x.mT}


@scenario
def read_expand_broadcast(m):
    x = m(3, 1)
    e = x.expand(3, 4)
    f = x.expand(2, 3, 5)
    return {"e": e, "f": f, "sum": e + f[1, :, :4], "ea": m(1, 4).expand_as(e)}


@scenario
def read_slice_steps_negative_index(m):
    x = m(7, 9)
    return {"a": x[::2, 1::3], "b": x[-3:, -1], "c": x[5:1:-1] if False else x[1:5], "d": x[:, 8:], "e": x[2:2]}


@scenario
def read_select_narrow(m):
    x = m(3, 4, 5)
    return {"s": x.select(1, 2), "n": x.narrow(2, 1, 3), "nn": x.narrow(0, -2, 2).select(-1, -1), "i": x[1][2][3]}


@scenario
def read_diagonal(m):
    x = m(4, 5, 6)
    return {"d": x.diagonal(), "d1": x.diagonal(1, 1, 2), "dm": x.diagonal(-2, 0, 2), "dd": torch.diagonal(x[0].t(), 1)}


@scenario
def read_unfold(m):
    x = m(10, 3)
    return {"u": x.unfold(0, 3, 2), "u2": x.t().unfold(1, 4, 4), "u3": x.unfold(0, 1, 1)}


@scenario
def read_split_chunk_unbind(m):
    x = m(6, 5)
    return {"split": x.split(2), "sws": x.split_with_sizes([1, 3, 1], 1), "chunk": x.chunk(4, 1),
            "unbind": x.unbind(1), "tsplit": x.tensor_split(3, 0), "hsplit": torch.hsplit(x, [2, 4])}


@scenario
def read_flatten_unflatten_squeeze(m):
    x = m(2, 1, 3, 1, 4)
    return {"f": x.flatten(), "f2": x.flatten(1, 3), "u": x.flatten().unflatten(0, (4, 6)),
            "sq": x.squeeze(), "sq1": x.squeeze(1), "sqs": x.squeeze((1, 3)), "us": x.unsqueeze(-1)}


@scenario
def read_as_strided_overlapping(m):
    x = m(10)
    return {"win": x.as_strided((4, 3), (2, 1)), "off": x.as_strided((2, 2), (3, 2), 1),
            "rev": torch.as_strided(x, (3,), (3,), 1)}


@scenario
def read_alias_detach_view_as(m):
    x = m(3, 4)
    return {"alias": torch.ops.aten.alias(x), "det": x.detach(), "va": x.view_as(m(12, 1)),
            "uv": torch.ops.aten._unsafe_view(x, [4, 3]), "rs": x.reshape(-1)}


@scenario
def read_noncontiguous_into_ops(m):
    x = m(6, 8)
    y = x[::2, 1::2]
    return {"mm": y @ x.t()[1::2, :3], "sum": y.sum(0), "sm": torch.softmax(x.t(), 0), "cat": torch.cat([y, y.t()[:3].t()], 1)}


@scenario
def read_scalar_views(m):
    x = m(3, 3)
    v = x[1, 2]
    return {"v": v, "item": v.item(), "vv": v.view(1, 1), "e": v.expand(2, 2)}


# ---- writes through views land in the base and every sibling --------------------

@scenario
def write_setitem_int_column(m):
    x = m(4, 5)
    row, col = x[1], x[:, 3]
    x[:, 0] = 0
    x[2] = 7.5
    x[-1, -1] = -1
    return {"x": x, "row": row, "col": col}


@scenario
def write_setitem_slices_steps(m):
    x = m(6, 8)
    v = x[1:5]
    x[::2, 1::3] = m(3, 3)
    x[1:4, -3:] = 2.0
    v[:, ::4] *= 10
    return {"x": x, "v": v}


@scenario
def write_setitem_ellipsis_none(m):
    x = m(2, 3, 4)
    x[..., 1] = m(2, 3)
    x[None, 1, ..., 2] = -3.0
    x[0, ...] += 1
    return {"x": x}


@scenario
def write_setitem_bool_mask(m):
    x = m(4, 5)
    t = x.t()
    x[x > 0] = 0.0
    t[t < -1] = m(5, 4)[t < -1]
    row = x[2]
    row[m(5) > 0] = 9.0
    return {"x": x, "t": t, "row": row}


@scenario
def write_setitem_index_tensors(m):
    x = m(5, 6)
    view = x[:, 1:]
    i = m.tensor([0, 2, 4])
    j = m.tensor([1, 3, 0])
    x[i] = 1.0
    x[i, j] = m(3)
    view[m.tensor([1, 3]), 2:4] = -5.0
    x[:, m.tensor([5, 0])] = m(5, 2)
    return {"x": x, "view": view}


@scenario
def write_index_put_accumulate(m):
    x = m(4, 3)
    col = x[:, 1]
    idx = m.tensor([0, 0, 2, 3, 3, 3])
    col.index_put_((idx,), m(6), accumulate=True)
    x.index_put_((m.tensor([1, 1]), m.tensor([0, 2])), m.tensor([1.0, 2.0]), accumulate=True)
    return {"x": x, "col": col}


@scenario
def write_setitem_int_tensor_dtypes(m):
    out = {}
    for dt in (torch.int32, torch.int64, torch.bool, torch.bfloat16, torch.float16):
        x = m(3, 4, dtype=dt)
        s = x[:, 1:3]
        x[1] = x[0]
        s[2] = s[0]
        out[str(dt)] = (x, s)
    return out


@scenario
def write_copy_dtypes_and_devices(m):
    x = m(4, 6)
    v = x[1:3, ::2]
    v.copy_(m(2, 3, dtype=torch.int64))  # int -> float into a strided view
    x[3].copy_(torch.arange(6.0))  # CPU -> device view
    y = m(2, 6, dtype=torch.bfloat16)
    x[:2].copy_(y.t().t())
    host = torch.zeros(3, 2)
    host.copy_(x[1:, 4:])  # device view -> host
    ints = m(4, 6, dtype=torch.int32)
    ints.t()[1].copy_(x.t()[2])  # float -> int, truncation
    return {"x": x, "v": v, "host": host.to(m.dev), "ints": ints}


@scenario
def write_copy_broadcast_into_view(m):
    x = m(3, 4, 5)
    x[:, 1].copy_(m(5))
    x[2].copy_(m(4, 1))
    x.t_() if False else None
    return {"x": x}


@scenario
def write_fill_zero(m):
    x = m(4, 4)
    d = x.diagonal()
    d.fill_(3.0)
    x[0].zero_()
    x.t()[1:, 2].fill_(m.tensor(-2.0))
    return {"x": x, "d": d}


@scenario
def write_inplace_arith_on_views(m):
    x = m(5, 6)
    a, b = x[1:4, 1:4], x.t()[::2]
    a.add_(1.0)
    a.mul_(m(3, 1))
    b.sub_(m(5), alpha=2)
    b.div_(2.0)
    x[0].pow_(2)
    x[-1].addcmul_(m(6), m(6), value=0.5)
    x[:, -1].neg_()
    return {"x": x, "a": a, "b": b}


@scenario
def write_inplace_unary_on_views(m):
    x = m(4, 6)
    x[:, ::2].exp_()
    x[1].sigmoid_()
    x.t()[3].tanh_()
    x[2:, 1::2].abs_().sqrt_()
    x[0].relu_()
    return {"x": x}


@scenario
def write_masked_fill_scatter_clamp(m):
    x = m(4, 5)
    v = x[:, 1:4]
    v.masked_fill_(v > 0.5, -7.0)
    x[2].clamp_(-0.5, 0.5)
    x.t()[0].clamp_(min=0.0)
    x[3].scatter_(0, m.tensor([4, 0]), m.tensor([100.0, 200.0]))
    x[:2, :2].scatter_add_(1, m.tensor([[1, 1], [0, 0]]), m(2, 2))
    return {"x": x, "v": v}


@scenario
def write_index_add_on_views(m):
    x = m(5, 4)
    v = x.t()
    x[1:].index_add_(0, m.tensor([0, 0, 3]), m(3, 4), alpha=2)
    return {"x": x, "v": v}


@scenario
def write_through_view_seen_by_sibling_views(m):
    base = m(6, 6)
    a = base[1:4, 1:4]
    b = base[2:5, ::2]
    c = base.t()[2]
    d = base.view(36)[10:20]
    a.fill_(1.0)
    b.mul_(3.0)
    c.add_(100.0)
    return {"base": base, "a": a, "b": b, "c": c, "d": d}


@scenario
def write_into_base_read_through_views(m):
    base = m(4, 6)
    views = [base[1], base[:, 2], base.t(), base.view(2, 12), base[::2, ::3], base.diagonal(), base.unfold(1, 2, 2)]
    base.mul_(2.0)
    base[1:3] = 0.0
    base.add_(m(6))
    return {"base": base, "views": views}


@scenario
def write_chain_of_views_of_views(m):
    x = m(4, 5, 6)
    v = x.transpose(0, 2)[1:5].unsqueeze(1)[..., ::2].squeeze(1)
    w = v.narrow(1, 1, 2).select(2, 0)
    w.mul_(-1.0)
    v[0] = 42.0
    u = x.permute(2, 0, 1).flatten(1)[::3, 4:]
    u.add_(1.0)
    return {"x": x, "v": v, "w": w, "u": u}


@scenario
def write_split_chunk_unbind_pieces(m):
    x = m(6, 4)
    parts = x.split(2)
    parts[1].fill_(1.0)
    cols = x.chunk(2, 1)
    cols[0].mul_(10.0)
    rows = x.unbind(0)
    rows[5].zero_()
    sws = x.split_with_sizes([3, 1], 1)
    sws[1].add_(0.5)
    return {"x": x, "parts": parts, "cols": cols, "rows": rows, "sws": sws}


@scenario
def write_squeeze_unsqueeze_flatten(m):
    x = m(3, 1, 4)
    x.squeeze(1)[1] = 5.0
    x.unsqueeze(0)[0, 2, 0, 3] = -5.0
    x.flatten()[::5].fill_(0.0)
    x.view(12).unflatten(0, (2, 6))[1, 1:3] = 8.0
    return {"x": x}


@scenario
def write_alias_detach_view_as(m):
    x = m(3, 4)
    x.detach().mul_(2.0)
    torch.ops.aten.alias(x)[0].fill_(1.0)
    x.view_as(m(4, 3)).t()[1].zero_()
    x.reshape(12)[5] = 9.0  # reshape of a contiguous tensor is a view
    return {"x": x}


@scenario
def write_unfold_nonoverlapping(m):
    x = m(12)
    u = x.unfold(0, 3, 3)
    u[1].fill_(0.0)
    u[:, 2] += 10.0
    v = x.unfold(0, 2, 4)
    v.mul_(-1.0)
    return {"x": x, "u": u, "v": v}


@scenario
def write_diagonal_offsets(m):
    x = m(5, 5)
    x.diagonal(1).fill_(1.0)
    x.diagonal(-2).mul_(0.0)
    y = m(2, 3, 3)
    y.diagonal(0, 1, 2).add_(m(2, 3))
    return {"x": x, "y": y}


@scenario
def write_as_strided_gather_scatter(m):
    x = m(20)
    a = x.as_strided((3, 2), (5, 3), 1)  # not a block: scattered elements
    a.fill_(0.5)
    b = x.as_strided((2, 2), (7, 2), 2)
    b.add_(m(2, 2))
    return {"x": x, "a": a, "b": b}


@scenario
def write_permute_write_reads_back(m):
    x = m(2, 3, 4)
    p = x.permute(2, 0, 1)
    p[1:3] = m(2, 2, 3)
    p.mul_(m(4, 1, 3))
    return {"x": x, "p": p}


@scenario
def write_storage_offset_tail(m):
    x = m(10)
    tail = x[7:]
    tail.copy_(m(3))
    x[9:].fill_(-1.0)
    return {"x": x, "tail": tail}


@scenario
def write_zero_size_and_scalar_views(m):
    x = m(3, 4)
    x[1:1] = 5.0
    x[2:2, :].mul_(2.0)
    s = x[0, 0]
    s.fill_(11.0)
    s += 1.0
    return {"x": x, "s": s}


@scenario
def write_inplace_ops_with_aliased_inputs(m):
    x = m(4, 4)
    x.add_(x)  # full overlap is allowed
    x[0].add_(x[1])  # disjoint rows of one storage
    x[:, 2].mul_(x[:, 3])
    x.t()[1].copy_(x[2].clone())
    return {"x": x}


@scenario
def write_foreach_on_views(m):
    x = m(4, 6)
    parts = list(x.split(2))
    torch._foreach_mul_(parts, 3.0)
    torch._foreach_add_(parts, [m(2, 6), m(2, 6)])
    return {"x": x, "parts": parts}


@scenario
def write_setitem_from_view_of_same_base(m):
    x = m(4, 5)
    x[0] = x[3]
    x[:, 1] = x[:, 4] * 2
    x[2:] = x[:2].clone()
    return {"x": x}


@scenario
def write_nested_setitem_on_views(m):
    x = m(3, 4, 5)
    y = x[1]
    y[::2, 1:][y[::2, 1:] > 0] = 0.0
    x[0][1][2] = 3.0
    return {"x": x, "y": y}


@scenario
def write_uniform_fill_through_overlapping_views(m):
    x = m(3, 1)
    x.expand(3, 4).fill_(2.0)
    y = m(1, 5)
    y.expand(2, 5).zero_()
    z = m(10)
    z.as_strided((3, 3), (1, 1), 1).fill_(-1.0)
    w = m(4, 1)
    torch._foreach_zero_([w.expand(4, 3)])
    return {"x": x, "y": y, "z": z, "w": w}


@scenario
def write_out_into_view(m):
    x = m(4, 6)
    torch.add(m(2, 6), 1.0, out=x[1:3])
    torch.mul(m(4), 2.0, out=x.t()[0])
    return {"x": x}


@scenario
def write_int_and_bool_views(m):
    x = m(4, 4, dtype=torch.int64)
    x[1] += 3
    x.t()[2] *= 2
    x[x < 0] = 0
    b = m(4, 4, dtype=torch.bool)
    b[0] = True
    b.t()[1].logical_not_()
    b[2:, 2:] |= m(2, 2, dtype=torch.bool)
    return {"x": x, "b": b}


@scenario
def write_bf16_half_views(m):
    x = m(4, 6, dtype=torch.bfloat16)
    x[1:3].mul_(2.5)
    x.t()[0].add_(1)
    h = m(4, 6, dtype=torch.float16)
    h[:, 1::2] = m(4, 3)
    return {"x": x, "h": h}


@scenario
def write_in_place_view_ops_metadata(m):
    x = m(3, 4)
    y = x.view(3, 4)
    y.t_()
    y[0].fill_(1.0)
    z = x.view(12)
    z.unsqueeze_(0).squeeze_(0)
    z[5:7] = 0.0
    w = x[:, :2]
    w.transpose_(0, 1)
    w[1] = -1.0
    w.as_strided_((2,), (1,))
    w.mul_(3.0)
    return {"x": x, "y": y, "z": z, "w": w}


# ---- .data, set_, resize ----------------------------------------------------------

@scenario
def data_assignment_and_inplace_on_data(m):
    w = m(3, 4, grad=True)
    keep = w.data
    w.data.mul_(0.5)
    w.data[0] = 1.0
    loss = (w * 2).sum()
    loss.backward()
    new = m(2, 2)
    w.data = new
    w.data.add_(1.0)
    return {"w": w.detach().clone(), "keep": keep, "new": new, "grad": w.grad}


@scenario
def set_to_other_tensor(m):
    x = m(3, 4)
    y = m(2, 5)
    x.set_(y)
    x[0] = 0.0
    return {"x": x, "y": y, "shape": tuple(x.shape)}


@scenario
def set_to_storage_with_offset(m):
    src = m(10)
    x = m(1)
    x.set_(src.untyped_storage(), 2, (2, 3), (3, 1))
    x[1, 1] = 99.0
    y = torch.empty(0, device=m.dev).set_(src.untyped_storage())
    return {"src": src, "x": x, "y": y}


@scenario
def set_empty_and_resize(m):
    x = m(4)
    x.set_()
    n = x.numel()
    x.resize_(3).fill_(2.0)
    return {"x": x, "n": n}


# ---- dtype views (bitcast) ----------------------------------------------------------

@scenario
def view_dtype_same_size(m):
    x = m(3, 4)
    i = x.view(torch.int32)
    back = i.view(torch.float32)
    h = m(2, 4, dtype=torch.bfloat16).view(torch.int16)
    return {"i": i, "back": back, "h": h}


@scenario
def view_dtype_write_through(m):
    x = m(2, 4)
    i = x.view(torch.int32)
    i[0] = 0x3F800000  # 1.0f
    i[1, ::2] &= 0x7FFFFFFF  # abs of every other element
    x[1, 1] = -2.0
    return {"x": x, "i": i}


@scenario
def view_dtype_size_changing(m):
    x = m(2, 4)
    b = x.view(torch.uint8)
    h = x.view(torch.bfloat16)
    d = x.view(torch.float64)
    h[:, 1::2] = 0  # clears the low halves of every float
    return {"x": x, "b": b, "h": h, "d": d, "b_t": m(4, 3, dtype=torch.int16).view(torch.int8).t()}


# ---- autograd interplay -------------------------------------------------------------

@scenario
def grad_through_view_writes(m):
    a = m(4, 5, grad=True)
    b = m(5, grad=True)
    y = a * 1.0
    y[1] = b * 2
    y[:, 0] *= b[:4]
    y.t()[2].exp_()
    (y * m(4, 5)).sum().backward()
    return {"y": y, "ga": a.grad, "gb": b.grad}


@scenario
def grad_inplace_on_leaf_view_via_clone(m):
    w = m(3, 4, grad=True)
    x = w.clone()
    v = x[:, 1:3]
    v.mul_(2.0)
    v.add_(x[:, 3:].detach())
    x.sum().backward()
    return {"x": x, "g": w.grad}


@scenario
def grad_retain_grad_on_views(m):
    w = m(4, 4, grad=True)
    h = w * 3.0
    v = h[1:3]
    v.retain_grad()
    h.retain_grad()
    (v.pow(2).sum() + h.sum()).backward()
    return {"gw": w.grad, "gv": v.grad, "gh": h.grad}


@scenario
def grad_view_of_view_backward(m):
    w = m(2, 3, 4, grad=True)
    y = w.transpose(0, 2).unfold(0, 2, 2).diagonal(0, 1, 2).flatten()
    (y * m(y.numel())).sum().backward()
    return {"y": y, "g": w.grad}


@scenario
def grad_index_put_and_masked(m):
    w = m(5, 3, grad=True)
    v = m(2, 3, grad=True)
    y = w.clone()
    y[m.tensor([0, 3])] = v
    y = y.masked_fill(y > 1.0, 0.0)
    (y * m(5, 3)).sum().backward()
    return {"y": y, "gw": w.grad, "gv": v.grad}


@scenario
def grad_setitem_chain_narrow_pieces(m):
    w = m(6, grad=True)
    y = w.clone()
    parts = [y.narrow(0, i, 2) for i in (0, 2, 4)]
    parts[0].mul_(2.0)
    parts[2].add_(parts[1].detach())
    out = torch.cat([p * (i + 1) for i, p in enumerate(parts)])
    out.sum().backward()
    return {"out": out, "g": w.grad}


@scenario
def grad_version_counter_bumps(m):
    x = m(3, 4)
    v0 = x._version
    x[0] = 1.0
    v1 = x._version
    x.t().mul_(2.0)
    x.data.add_(1.0)
    view = x[1:]
    view.zero_()
    return {"versions": (v0, v1, x._version, view._version)}


@scenario
def tied_embedding_lm_head(m):
    torch.manual_seed(0)
    emb = torch.nn.Embedding(11, 6).to(m.dev)
    head = torch.nn.Linear(6, 11, bias=False).to(m.dev)
    # Tied after the move: Module.to() on a non-CPU/CUDA backend makes new
    # Parameters (PyTorch's shallow-copy rule), as with XLA.
    head.weight = emb.weight
    opt = torch.optim.AdamW(emb.parameters(), lr=0.1)
    tok = m.tensor([[1, 4, 7], [2, 2, 10]])
    losses = []
    for _ in range(3):
        opt.zero_grad()
        logits = head(emb(tok))
        loss = F.cross_entropy(logits.flatten(0, 1), tok.flatten())
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return {"w": emb.weight.detach(), "head": head.weight.detach(), "grad": emb.weight.grad, "losses": losses}


@scenario
def flat_buffer_parameter_views_adamw(m):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2)).to(m.dev)
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    off = 0
    for p in model.parameters():
        n = p.numel()
        p.data = flat[off:off + n].view_as(p)
        off += n
    opt = torch.optim.AdamW(model.parameters(), lr=0.05, foreach=False)
    x, y = m(8, 4), m(8, 2)
    for _ in range(3):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    flat.add_(0.0)
    return {"flat": flat, "params": [p.detach() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()]}


@scenario
def flat_buffer_parameter_views_adamw_foreach_and_flat_grads(m):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 3)).to(m.dev)
    params = list(model.parameters())
    flat = torch.cat([p.detach().reshape(-1) for p in params])
    gflat = torch.zeros_like(flat)
    off = 0
    for p in params:
        n = p.numel()
        p.data = flat[off:off + n].view_as(p)
        p.grad = gflat[off:off + n].view_as(p)
        off += n
    opt = torch.optim.AdamW(params, lr=0.05, foreach=True)
    x = m(6, 3)
    for _ in range(2):
        for p in params:
            p.grad.zero_()
        model(x).pow(2).mean().backward()
        opt.step()
    return {"flat": flat, "gflat": gflat, "params": [p.detach() for p in params]}


@scenario
def sgd_momentum_on_view_params_and_zero_grad(m):
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 3).to(m.dev)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    for _ in range(2):
        lin(m(4, 3)).sum().backward()
        opt.step()
        lin.weight.grad.zero_()
        lin.bias.grad = None
    with torch.no_grad():
        lin.weight[0] = 0.0
        lin.weight.t()[1].mul_(2.0)
    return {"w": lin.weight.detach(), "b": lin.bias.detach(), "g": lin.weight.grad}


@scenario
def no_grad_param_writes_then_backward(m):
    w = m(3, 3, grad=True)
    with torch.no_grad():
        w[1].fill_(0.0)
        w.diagonal().add_(1.0)
    (w @ m(3, 2)).sum().backward()
    return {"w": w.detach(), "g": w.grad}


@scenario
def inplace_in_autograd_graph_ok_when_not_saved(m):
    a = m(4, grad=True)
    b = a * 2  # mul by a constant saves nothing of b
    b[1:3].add_(1.0)
    c = b + 1  # add saves nothing: in-place after it is fine
    c.mul_(3.0)
    c.sum().backward()
    return {"c": c, "g": a.grad}


# ---- error cases: must raise what CPU raises ------------------------------------

@error
def err_write_into_expanded(m):
    x = m(3, 1).expand(3, 4)
    x.add_(1.0)


@error
def err_copy_into_expanded(m):
    m(1, 4).expand(3, 4).copy_(m(3, 4))


@error
def err_setitem_expanded(m):
    x = m(4, 1).expand(4, 2)
    x[0] = 1.0


@error
def err_transpose_partial_overlap_copy(m):
    y = m(3, 3)
    y.copy_(y.t())


@error
def err_partial_overlap_out(m):
    y = m(9)
    torch.cat([y[:2], y[2:4]], out=y[1:5])


@error
def err_partial_overlap_copy(m):
    x = m(6)
    x[1:].copy_(x[:-1])


@error
def err_partial_overlap_add(m):
    x = m(6)
    x[:4].add_(x[2:])


@error
def err_saved_tensor_modified(m):
    a = m(3, grad=True)
    b = a * 1.0
    c = b.exp()  # saves its result
    c.add_(1.0)
    c.sum().backward()


@error
def err_saved_view_modified(m):
    a = m(4, grad=True)
    b = a.clone()
    c = b[1:].sigmoid()
    d = c * c  # saves c
    c[0] = 0.0
    d.sum().backward()


@error
def err_inplace_on_leaf_requiring_grad(m):
    w = m(3, grad=True)
    w.add_(1.0)


@error
def err_inplace_on_view_of_leaf(m):
    w = m(3, 4, grad=True)
    w[0].mul_(2.0)


@error
def err_view_dtype_rank0(m):
    m(1)[0].view(torch.int8)


@error
def err_view_dtype_stride(m):
    m(4, 4).t().view(torch.int16)


@error
def err_view_incompatible(m):
    m(4, 6).t().view(24)


@error
def err_unbind_output_inplace_in_grad_mode(m):
    a = m(3, 4, grad=True).clone()
    a.unbind(0)[0].mul_(2.0)


@error
def err_setitem_shape_mismatch(m):
    x = m(4, 5)
    x[1:3] = m(3, 5)


@error
def err_mask_shape_mismatch(m):
    x = m(4, 5)
    x[m(4, 4) > 0] = 1.0


@error
def err_index_out_of_range(m):
    x = m(4, 5)
    x[m.tensor([0, 7])] = 1.0
    x.cpu()  # as on CUDA, the error surfaces at the next synchronization point


@error
def err_set_different_dtype(m):
    m(3).set_(m(3, dtype=torch.int32))


def _outcome(fn, dev):
    try:
        fn(Maker(dev))
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return e
    return None


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    run(SCENARIOS[name])


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name):
    expected = _outcome(ERRORS[name], "cpu")
    assert expected is not None, "the scenario must raise on CPU"
    actual = _outcome(ERRORS[name], "tpu")
    assert actual is not None, f"no error on tpu; CPU raises {type(expected).__name__}: {expected}"
    assert type(actual) is type(expected), f"tpu raised {type(actual).__name__}: {actual}; CPU: {type(expected).__name__}: {expected}"
    first = str(expected).splitlines()[0][:60]
    assert first.split(":")[0].split(" (")[0][:40] in str(actual), f"tpu: {actual}\nCPU: {expected}"


def test_scenario_count():
    assert len(SCENARIOS) + len(ERRORS) >= 60


# Storages report their real size and a unique address that is never
# dereferenced (reserved, inaccessible host address space): data_ptr()
# comparisons behave as on CPU.
def test_storage_nbytes_and_data_ptr_as_on_cpu():
    for dev in ("cpu", "tpu"):
        x = torch.arange(24.0, device=dev).reshape(4, 6)
        s = x.untyped_storage()
        assert s.nbytes() == 96 and x.data_ptr() != 0 and s.data_ptr() == x.data_ptr()
        assert x[1].data_ptr() == x.data_ptr() + 6 * 4
        assert x[:, 2].data_ptr() == x.data_ptr() + 8
        assert x.t().data_ptr() == x.data_ptr() == x.view(-1).data_ptr() == x.reshape(24).data_ptr()
        assert x.view(torch.int16).untyped_storage().data_ptr() == s.data_ptr()
        y = x.clone()
        assert y.data_ptr() != x.data_ptr()
        assert torch.empty(0, device=dev).untyped_storage().nbytes() == 0


def test_storage_addresses_are_unique_among_live_storages():
    xs = [torch.full((n % 7 + 1,), float(n), device="tpu") for n in range(200)]
    spans = sorted((t.data_ptr(), t.data_ptr() + t.untyped_storage().nbytes()) for t in xs)
    assert all(a_end <= b for (_, a_end), (b, _) in zip(spans, spans[1:]))


def test_storage_resize_and_set_keep_pointer_and_size_coherent():
    x = torch.arange(4.0, device="tpu")
    x.resize_(10)
    assert x.untyped_storage().nbytes() == 40 and x.untyped_storage().data_ptr() == x.data_ptr()
    torch.testing.assert_close(x[:4].cpu(), torch.arange(4.0))
    y = torch.empty(0, device="tpu").set_(x.untyped_storage(), 2, (2, 2), (2, 1))
    assert y.data_ptr() == x.data_ptr() + 8 and y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    torch.testing.assert_close(y.cpu(), torch.tensor([[2.0, 3.0], [0.0, 0.0]]))
    # set_ reaching past the end grows the storage (CPU resizes it too).
    z = torch.empty(0, device="tpu").set_(x.untyped_storage(), 8, (4,), (1,))
    assert x.untyped_storage().nbytes() == 48 and z.data_ptr() == x.untyped_storage().data_ptr() + 32
    w = torch.empty(0, device="tpu").set_(x)
    assert w.data_ptr() == x.data_ptr() and w.shape == x.shape
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        x.as_strided((20,), (1,))
