"""out= writes as on CPU (the core's rules, api/out_write.h): resize_output
resizes out in place -- its storage grows, so a view of a larger base writes
into that base -- with CPU's warning when out had elements; out on another
device is refused; the dtype and overlap rules come before anything is
written."""
import warnings

import pytest
import torch

import torchtpu  # noqa: F401


def _run(dev, fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = fn(dev)
    # CPU's text ends with where c10 raised it ("(Triggered internally at ...)")
    return r, [str(x.message).split(" (Triggered internally")[0] for x in w if issubclass(x.category, UserWarning)]


def _cpu(v):
    return [t.cpu() for t in v] if isinstance(v, (list, tuple)) else v.cpu()


def _views_of_base(dev):
    base = torch.zeros(10, device=dev)
    out = base[2:2]  # no elements, storage offset 2
    torch.add(torch.arange(3.0, device=dev), 1, out=out)
    return base, out, out.storage_offset()


def _grow_view(dev):
    base = torch.zeros(4, device=dev)
    out = base[:2]  # 2 elements: resized with the warning, storage grows to 3 floats from offset 0
    torch.mul(torch.arange(3.0, device=dev), 2, out=out)
    return base, out, out.untyped_storage().nbytes()


def _grow_storage(dev):
    out = torch.ones(2, device=dev)
    alias = out.view(2)
    torch.sub(torch.arange(6.0, device=dev).view(2, 3), 1, out=out)
    return out, alias, out.shape


def _multi_out(dev):
    v, i = torch.zeros(0, device=dev), torch.zeros(5, dtype=torch.long, device=dev)
    torch.max(torch.arange(12.0, device=dev).view(3, 4), 1, out=(v, i))
    return v, i


def _reduction_0dim(dev):
    out = torch.zeros(3, device=dev)
    torch.sum(torch.arange(4.0, device=dev), 0, out=out)
    return out, out.shape


def _transposed_same_shape(dev):
    out = torch.zeros(2, 3, device=dev).t()
    torch.add(torch.ones(3, 2, device=dev), torch.arange(6.0, device=dev).view(3, 2), out=out)
    return out, out.stride()


@pytest.mark.parametrize("case", [_views_of_base, _grow_view, _grow_storage, _multi_out, _reduction_0dim,
                                  _transposed_same_shape])
def test_out_write_like_cpu(case):
    want, want_w = _run("cpu", case)
    got, got_w = _run("tpu", case)
    assert got_w == want_w
    for g, w in zip(got, want):
        if isinstance(w, torch.Tensor):
            assert g.device.type == "tpu"
            torch.testing.assert_close(g.cpu(), w, rtol=0, atol=0)
            assert g.stride() == w.stride()
        else:
            assert g == w


def test_resize_warning_text_is_cpus():
    _, warns = _run("tpu", _grow_view)
    assert len(warns) == 1
    assert warns[0].startswith("An output with one or more elements was resized since it had shape [2], which does "
                               "not match the required output shape [3].")


@pytest.mark.parametrize("make_out", [lambda: torch.zeros(3), lambda: torch.zeros(())])
def test_out_on_cpu_is_refused(make_out):
    x = torch.ones(3, device="tpu")
    out = make_out()
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.add(x, x, out=out)
    assert (out == 0).all()  # nothing written


def test_dtype_rule_before_any_write():
    x = torch.ones(3, device="tpu")
    out = torch.zeros(3, dtype=torch.long, device="tpu")
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.add(x, 0.5, out=out)
    assert out.cpu().tolist() == [0, 0, 0]


def test_partial_overlap_refused():
    for dev in ("cpu", "tpu"):
        base = torch.arange(6.0, device=dev)
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            torch.neg(base[:4], out=base[2:])


def test_cpu_index_tensor_with_out():
    src = torch.arange(10.0)
    idx = torch.tensor([3, 1, 4])
    want = torch.index_select(src, 0, idx, out=torch.empty(0))
    out = torch.empty(0, device="tpu")
    got = torch.index_select(src.to("tpu"), 0, idx.to("tpu"), out=out)
    assert got is out
    torch.testing.assert_close(out.cpu(), want)
