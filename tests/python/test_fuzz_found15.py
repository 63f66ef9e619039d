"""Differences of the fifteenth fuzzing session (seeds 766-830), each checked against CPU.

Tensor.item of a complex64/complex128 tensor with a NaN part (fuzz 795:738:
item() of a complex64 0-dim 0+nanj): tpu's number is CPU's, but the
fuzzer's comparison of Python numbers took nanj != nanj for a difference;
complex numbers are now compared part by part, NaN equal to NaN."""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tools.fuzz import compare  # noqa: E402

_NAN, _INF = float("nan"), float("inf")
_PARTS = (0.0, -0.0, 1.5, -2.25, _NAN, _INF, -_INF, 3.4e38)


def _bits(z):
    """A complex number's parts with their signs and NaN-ness, so -0 and NaN are compared too."""
    return tuple((math.isnan(p), math.copysign(1.0, p), 0.0 if math.isnan(p) else p) for p in (z.real, z.imag))


def test_item_complex_special_parts_like_cpu():
    # fuzz 795:738: item() of a complex64 0-dim tensor 0+nanj: tpu's number
    # is CPU's, part by part (signs of zeros, NaN, infinities)
    bad = []
    for dt in (torch.complex64, torch.complex128):
        for re in _PARTS:
            for im in _PARTS:
                x = torch.tensor(complex(re, im), dtype=dt)
                c, t = x.item(), x.to("tpu").item()
                if type(c) is not type(t) or _bits(c) != _bits(t):
                    bad.append(f"{dt} {complex(re, im)!r}: cpu {c!r} tpu {t!r}")
    assert not bad, "\n".join(bad)


def _v(x):
    return ("V", x)


def test_fuzz_compares_complex_numbers_part_by_part():
    # the fuzzer's comparison of Python numbers (item(), tolist()): a complex
    # with a NaN part equals itself (795:738 reported 'cpu nanj tpu nanj');
    # a real difference in either part is still one
    spec = {"fn": "Tensor.item", "args": [], "kwargs": {}}
    same = [complex(0, _NAN), complex(_NAN, 0), complex(_NAN, _NAN), complex(_INF, _NAN), complex(1.5, -2.5)]
    for z in same:
        assert compare._tree(_v(z), _v(complex(z.real, z.imag)), spec, [], "result") is None, z
    for z, w in ((complex(0, _NAN), complex(1, _NAN)), (complex(_NAN, 0), complex(_NAN, 2)),
                 (complex(0, _NAN), complex(0, 0)), (complex(_INF, 0), complex(-_INF, 0))):
        r = compare._tree(_v(z), _v(w), spec, [], "result")
        assert r is not None and r[0] == "value", (z, w, r)
    # floats as before: NaN equal to NaN, a relative 1.3e-6 apart equal, 1e-3 apart not
    assert compare._tree(_v(_NAN), _v(_NAN), spec, [], "result") is None
    assert compare._tree(_v(1.0), _v(1.0 + 1e-7), spec, [], "result") is None
    assert compare._tree(_v(1.0), _v(1.001), spec, [], "result")[0] == "value"
