"""Copies between CPU and tpu keep a dense tensor's layout as .cuda()/.cpu()
do (preserve_format), and pointwise results of such tensors take CPU's
layout (the binding checks contiguity in C and asks the glue to lay the
results out only then)."""
import pytest
import torch

import torchtpu  # noqa: F401

CASES = {
    "transposed": lambda: torch.randn(3, 4).t(),
    "channels_last": lambda: torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last),
    "permuted3d": lambda: torch.randn(2, 3, 4).permute(2, 0, 1),
    "contiguous": lambda: torch.randn(3, 4),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_to_tpu_and_back_keeps_strides(case):
    x = CASES[case]()
    t = x.to("tpu")
    assert t.stride() == x.stride()
    back = t.cpu()
    assert back.stride() == x.stride()
    assert torch.equal(back, x)


def test_sliced_source_becomes_dense():
    x = torch.randn(3, 8)[:, ::2]  # not dense: preserve_format gives row-major, as on CPU
    t = x.to("tpu")
    assert t.stride() == torch.empty_like(x).stride() == (4, 1)
    assert torch.equal(t.cpu(), x)


def test_explicit_memory_format():
    x = torch.randn(2, 3, 4, 5)
    t = x.to("tpu", memory_format=torch.channels_last)
    assert t.stride() == x.to(memory_format=torch.channels_last).stride()
    assert torch.equal(t.cpu(), x)
    y = CASES["transposed"]()
    assert y.to("tpu", memory_format=torch.contiguous_format).is_contiguous()


@pytest.mark.parametrize("case", sorted(CASES))
def test_pointwise_results_take_cpu_layout(case):
    x = CASES[case]()
    t = x.to("tpu")
    for f in (lambda a: a + a, lambda a: torch.add(a, a, alpha=2), lambda a: a.sigmoid(),
              lambda a: torch.where(a > 0, a, -a)):
        want, got = f(x), f(t)
        assert got.stride() == want.stride(), case
        torch.testing.assert_close(got.cpu(), want)


# clone/_to_copy/.to()/.cpu() layouts are the core's (csrc/ops/result_layout.c,
# TT_LAYOUT_COPY): every memory format on inputs whose strides test the rule's
# corners (size-1 dims keep their strides, an empty tensor keeps any strides,
# non-dense inputs take their stride order), vs CPU's strides and errors.
SOURCES = {
    "row_major": lambda: torch.randn(2, 3, 4, 5),
    "transposed4d": lambda: torch.randn(2, 3, 4, 5).transpose(1, 3),
    "channels_last": lambda: torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last),
    "channels_last_c1": lambda: torch.randn(2, 1, 4, 1).to(memory_format=torch.channels_last),
    "sliced": lambda: torch.randn(2, 3, 4, 5)[:, :, ::2],
    "permuted_sliced": lambda: torch.randn(2, 3, 4, 5).permute(3, 1, 0, 2)[..., 1:],
    "size1_odd_stride": lambda: torch.randn(4, 4)[1:2, 1:2],
    "rank1_size1": lambda: torch.empty_strided((1,), (5,)).fill_(1.5),
    "empty_odd_strides": lambda: torch.empty_strided((0, 3, 4), (1, 5, 100)),
    "expanded": lambda: torch.randn(3, 1, 4).expand(3, 5, 4),
    "channels_last_3d": lambda: torch.randn(2, 3, 4, 5, 6).to(memory_format=torch.channels_last_3d),
    "transposed5d": lambda: torch.randn(2, 3, 4, 5, 6).transpose(0, 4),
    "strided1d": lambda: torch.randn(6)[::2],
    "empty4d": lambda: torch.randn(0, 3, 2, 2),
}
FORMATS = {"none": None, "preserve": torch.preserve_format, "contiguous": torch.contiguous_format,
           "channels_last": torch.channels_last, "channels_last_3d": torch.channels_last_3d}
COPIES = {
    "clone": lambda t, f: t.clone() if f is None else t.clone(memory_format=f),
    "to_float64": lambda t, f: t.to(torch.float64) if f is None else t.to(torch.float64, memory_format=f),
}


def _outcome(fn):
    try:
        r = fn()
        return r.stride(), r.cpu(), None
    except RuntimeError as e:
        return None, None, str(e)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("src", sorted(SOURCES))
def test_copy_layouts_match_cpu(src, fmt):
    x, f = SOURCES[src](), FORMATS[fmt]
    t = x.to("tpu")
    assert t.stride() == x.clone().stride(), "upload keeps CPU's preserve_format strides"
    assert t.cpu().stride() == x.clone().stride() and torch.equal(t.cpu(), x)
    for name, copy in COPIES.items():
        want_stride, want, want_err = _outcome(lambda: copy(x, f))
        got_stride, got, got_err = _outcome(lambda: copy(t, f))
        if want_err is not None:
            assert got_err is not None and got_err.endswith(want_err), (name, want_err, got_err)
            continue
        assert got_err is None, (name, got_err)
        assert got_stride == want_stride, (name, want_stride, got_stride)
        assert torch.equal(got, want), name
    # across devices, both ways, with the format
    want_stride, want, want_err = _outcome(lambda: x.clone(memory_format=f) if f is not None else x.clone())
    for move in (lambda: x.to("tpu", memory_format=f) if f is not None else x.to("tpu"),
                 lambda: t.to("cpu", memory_format=f) if f is not None else t.to("cpu")):
        got_stride, got, got_err = _outcome(move)
        if want_err is not None:
            assert got_err is not None and got_err.endswith(want_err), (want_err, got_err)
            continue
        assert got_stride == want_stride and torch.equal(got, want)


RESIZES = [((-1,), None), ((2, -3), None), ((0, -1), None), ((2**32, 2**31), None), ((2**32, 2**31 - 1), None),
           ((0, 2**62, 2**62), None), ((2, 3), torch.preserve_format), ((2, 3), torch.channels_last),
           ((2, 3, 4, 5), torch.channels_last), ((2, 0, 4, 5), torch.channels_last), ((7,), None),
           ((2, 3, 4, 5, 6), torch.channels_last_3d)]


@pytest.mark.parametrize("size,fmt", RESIZES, ids=[f"{s}-{f}" for s, f in RESIZES])
def test_resize_checks_and_strides_match_cpu(size, fmt):
    def run(dev):
        t = torch.arange(3.0, device=dev)
        try:
            r = t.resize_(*size) if fmt is None else t.resize_(*size, memory_format=fmt)
            kept = r.as_strided((3,), (1,), 0).cpu().tolist() if r.numel() >= 3 else None  # the old contents
            return tuple(r.shape), r.stride(), kept
        except RuntimeError as e:
            return str(e)
    assert run("tpu") == run("cpu")


@pytest.mark.parametrize("size,fmt", [((2, 3, 4, 5), torch.channels_last), ((2, 3, 4, 5, 1), torch.channels_last_3d),
                                      ((2, 3), torch.preserve_format), ((2, 3), torch.channels_last),
                                      ((0, 3, 2, 2), torch.channels_last)])
def test_empty_memory_format_matches_cpu(size, fmt):
    def run(dev):
        try:
            return torch.empty(*size, device=dev, memory_format=fmt).stride()
        except RuntimeError as e:
            return str(e)
    assert run("tpu") == run("cpu")


def _storage(d, n=6):
    return torch.arange(float(n), device=d).untyped_storage()


SET_CASES = {
    "len_mismatch": lambda d: torch.empty(4, device=d).set_(_storage(d), 0, (2, 3), (3,)),
    "neg_offset": lambda d: torch.empty(4, device=d).set_(_storage(d), -1, (2,), (1,)),
    "neg_size": lambda d: torch.empty(4, device=d).set_(_storage(d), 0, (-2,), (1,)),
    "neg_stride": lambda d: torch.empty(4, device=d).set_(_storage(d), 0, (2,), (-1,)),
    "numel_overflow": lambda d: torch.empty(4, device=d).set_(_storage(d), 0, (2**40, 2**40), (1, 1)),
    "grows": lambda d: torch.empty(4, device=d).set_(_storage(d), 2, (3, 3), (3, 1)),
    "contiguous_default": lambda d: torch.empty(4, device=d).set_(_storage(d), 1, (2, 2)),
    "whole_storage": lambda d: torch.empty(4, device=d).set_(_storage(d)),
    "transposed": lambda d: torch.empty(4, device=d).set_(_storage(d), 0, (3, 2), (1, 3)),
    "dtype_tensor": lambda d: torch.empty(4, device=d).set_(torch.empty(6, device=d, dtype=torch.int32)),
    "empty": lambda d: torch.empty(4, device=d).set_(),
}


@pytest.mark.parametrize("case", sorted(SET_CASES))
def test_set_checks_and_metadata_match_cpu(case):
    def run(dev):
        try:
            r = SET_CASES[case](dev)
            kept = r.untyped_storage().nbytes() >= 24 and torch.tensor([], device=dev).set_(
                r.untyped_storage(), 0, (6,), (1,)).cpu().tolist()  # the source's elements stay
            return tuple(r.shape), r.stride(), r.storage_offset(), r.untyped_storage().nbytes(), kept
        except RuntimeError as e:
            return str(e)
    assert run("tpu") == run("cpu")
