"""Differences of the eleventh fuzzing session (seeds 486-), each checked against CPU.

Calls tpu refused where CPU computes and errors raised in another order or
words than CPU's."""

import pytest
import torch

from test_fuzz_found9 import _run, _tpu  # calls on each device, exceptions as values
from test_fuzz_found10 import _check  # CPU's dtype, shape and values, or its exception


@pytest.mark.parametrize("op", [torch.eq, torch.ne])
def test_eq_ne_complex32_common_type(op):
    # fuzz 487:626: ne(float16 (1, 4, 1), 1.86+1.24j, out=float16) computes
    # on CPU (in ComplexHalf: the number's parts rounded to float16); tpu
    # refused 'the result type is complex32 (ComplexHalf)'
    bad = []
    inf, nan = float("inf"), float("nan")
    h = torch.tensor([1.0, 1.8603515625, 1.86, nan, -0.0, 65504, inf], dtype=torch.float16)
    for other in (1.86 + 1.24j, 1.86 + 0j, 0j, complex(65519, 0), complex(1e6, 0), complex(inf, 0), complex(nan, 0)):
        _check(bad, f"{other}", op, (h, other))
        _check(bad, f"{other} out", op, (h.reshape(1, 7, 1), other), outs={"out": lambda: torch.empty(0, dtype=torch.float16)})
        _check(bad, f"{other} 0-dim", op, (h[1], other))
    for cdt in (torch.complex64, torch.complex128):
        _check(bad, f"0-dim {cdt}", op, (h, torch.tensor(1.86 + 0j, dtype=cdt)))
    _check(bad, "in place", lambda t, o: getattr(t.clone(), op.__name__ + "_")(o), (h, 1.86 + 0j))
    assert not bad, "\n".join(bad)
