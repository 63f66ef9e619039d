"""Dtypes, shapes, special values and views of the fuzzer's tensors.

A tensor argument is a JSON dict (a "spec") so every call can be replayed:
  {"k": "T", "shape": [...], "dtype": "float32", "fill": "normal"|"special"|"index"|"mask",
   "seed": int, "view": None|"t"|"slice"|"expand"|"overlap", "dev": "same"|"cpu", "hi": int}
build(spec, device) makes the same values on either device: the base tensor is
drawn on CPU from the spec's seed, moved to the device, then viewed there.
"""
import math

import torch

# The twelve dtypes torchtpu supports (torchtpu/_device.py DTYPES) and some it refuses.
SUPPORTED = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
             "float32", "float64", "complex64", "complex128")
REFUSED = ("complex32", "uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2")
FLOATS = ("float16", "bfloat16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
INTS = ("uint8", "int8", "int16", "int32", "int64")

# A small pool of shapes (each new shape is a compile on tpu): empty, 0-dim,
# size-1 dims, odd sizes, one larger one.
SHAPES = ((), (0,), (1,), (5,), (2, 3), (3, 1), (0, 3), (4, 5), (2, 3, 4), (1, 4, 1), (257,), (33, 17))


def dt(name):
    return getattr(torch, name)


def is_float(name):
    return name in FLOATS


def is_int(name):
    return name in INTS


def _specials(dtype):
    """Special values of a dtype: NaN, infinities, -0, extremes."""
    if dtype == torch.bool:
        return [False, True]
    if dtype.is_floating_point or dtype.is_complex:
        fi = torch.finfo(dtype)
        return [math.nan, math.inf, -math.inf, -0.0, 0.0, fi.max, fi.min, fi.tiny, 1.0, -1.0, 0.5]
    ii = torch.iinfo(dtype)
    return [ii.min, ii.max, 0, 1, -1 if ii.min < 0 else 2]


def _base(shape, dtype, fill, seed, hi):
    g = torch.Generator().manual_seed(seed)
    n = 1
    for s in shape:
        n *= s
    if fill == "index":  # indices in [-hi, hi) (negative ones wrap), some out of range when "hi" < 0
        lo, top = (-abs(hi), abs(hi)) if hi > 0 else (-2 * abs(hi) - 1, 2 * abs(hi) + 1)
        top = max(top, lo + 1)
        return torch.randint(lo, top, shape, generator=g, dtype=torch.int64).to(dtype)
    if fill == "mask":
        return torch.rand(shape, generator=g) < 0.5
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) < 0.5
    if dtype.is_floating_point or dtype.is_complex:
        x = torch.randn(shape, generator=g, dtype=torch.float64) * 3
        if dtype.is_complex:
            x = torch.complex(x, torch.randn(shape, generator=g, dtype=torch.float64) * 3)
        x = x.to(dtype)
    else:
        lo = 0 if dtype == torch.uint8 else -9
        x = torch.randint(lo, 10, shape, generator=g, dtype=torch.int64).to(dtype)
    if fill == "special" and n:
        sp = _specials(dtype)
        pick = torch.randint(0, len(sp), shape, generator=g)
        where = torch.rand(shape, generator=g) < 0.4
        vals = torch.tensor(sp, dtype=torch.float64 if not dtype.is_complex else torch.complex128)
        if not (dtype.is_floating_point or dtype.is_complex):
            vals = torch.tensor(sp, dtype=torch.int64)
        sv = vals[pick].to(dtype)
        if dtype.is_complex:  # specials in the imaginary part too
            im = torch.tensor(_specials(dtype), dtype=torch.float64)[torch.randint(0, len(sp), shape, generator=g)]
            sv = torch.complex(sv.real.double(), im).to(dtype)
        x = torch.where(where, sv, x)
    return x


def base_shape(shape, view):
    shape = list(shape)
    if view == "t" and len(shape) >= 2:
        shape[-1], shape[-2] = shape[-2], shape[-1]
    elif view == "slice" and shape:
        shape[-1] = shape[-1] * 2
    elif view == "expand" and shape:
        shape[0] = 1
    elif view == "overlap" and shape:
        shape = [sum(s - 1 for s in shape) + 1] if all(shape) else [0]
    return shape


def apply_view(x, shape, view):
    if view == "t" and len(shape) >= 2:
        return x.transpose(-1, -2)
    if view == "slice" and shape:
        return x[..., ::2]
    if view == "expand" and shape:
        return x.expand(*shape)
    if view == "overlap" and shape:  # every stride 1: elements shared between rows
        return x.as_strided(list(shape), [1] * len(shape))
    return x


def build(spec, device):
    dtype = dt(spec["dtype"])
    shape = spec["shape"]
    view = spec.get("view")
    b = _base(base_shape(shape, view), dtype, spec.get("fill", "normal"), spec["seed"], spec.get("hi", 1))
    if device != "cpu" and spec.get("dev", "same") != "cpu":
        b = b.to(device)
    return apply_view(b, shape, view)


def decode_scalar(v):
    """JSON scalars: floats "nan"/"inf"/"-inf" as strings, complex as [re, im] under "c"."""
    if isinstance(v, dict):
        if "c" in v:
            return complex(decode_scalar(v["c"][0]), decode_scalar(v["c"][1]))
        if "f" in v:
            return float(v["f"])
    return v


def encode_scalar(v):
    if isinstance(v, bool) or isinstance(v, int):
        return v
    if isinstance(v, complex):
        return {"c": [encode_scalar(v.real), encode_scalar(v.imag)]}
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return {"f": repr(v)}
    return v
