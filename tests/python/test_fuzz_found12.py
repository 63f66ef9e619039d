"""Differences of the twelfth fuzzing session (seeds 561-635), each checked against CPU.

Errors raised in another order or words than CPU's: bmm/baddbmm of batches
of two dtypes past CPU's small-product loop, and into an out= of another
dtype than batch2's."""

import pytest
import torch

from test_fuzz_found9 import _run  # noqa: F401 - a call, its exception as a value
from test_fuzz_found10 import _check  # CPU's dtype, shape and values, or its exception


def _layout(t, how):
    if how == "t":  # each matrix column-major
        return t.transpose(1, 2).contiguous().transpose(1, 2)
    if how == "n":  # neither row- nor column-major
        return torch.cat([t, t], 2)[:, :, ::2]
    if how == "e":  # one matrix expanded over the batch
        return t[:1].expand(t.shape[0], -1, -1)
    return t


@pytest.mark.parametrize("op", ["bmm", "baddbmm"])
def test_bmm_mixed_dtypes_large_product(op):
    # fuzz 571:1365: baddbmm(bool, bool (1, 8, 16), complex128 (1, 16, 7)) is
    # CPU's 'expected scalar type ComplexDouble but found Bool': where one
    # matrix's rows * cols * contraction reach 400, CPU's kernel leaves its
    # loop (which dispatches on batch1's type: Bool refused, else 'expected
    # scalar type Int but found Float') for MKL's gemm (a float32, float64 or
    # complex result, batch2's type, and batches each row- or column-major),
    # which reads batch1 as the result's type, or else for one addmm per
    # batch ('expected m1 and m2 to have the same dtype', addmm_'s 'mat1 and
    # mat2 must have the same dtype'; Bool refused as "addmm_impl_cpu_");
    # tpu gave the loop's errors at every size
    bad = []
    pairs = [(torch.bool, torch.bool), (torch.bool, torch.complex128), (torch.bool, torch.float32),
             (torch.int32, torch.bool), (torch.int32, torch.float32), (torch.int32, torch.bfloat16),
             (torch.float16, torch.float32), (torch.float32, torch.int64), (torch.float64, torch.float32),
             (torch.complex64, torch.float64)]
    for m, k, n in [(2, 3, 4), (8, 16, 7), (1, 400, 1), (1, 1, 399), (5, 80, 1)]:
        for a, b in pairs:
            for l1 in "ctne":
                for l2 in "ctn":
                    def f(s, b1, b2, l1=l1, l2=l2):
                        b1, b2 = _layout(b1, l1), _layout(b2, l2)
                        return torch.bmm(b1, b2) if op == "bmm" else torch.baddbmm(s, b1, b2)
                    _check(bad, f"({m}, {k}, {n}) {a} {b} {l1}{l2}", f,
                           (torch.zeros(2, m, n, dtype=a), torch.ones(2, m, k, dtype=a), torch.ones(2, k, n, dtype=b)))
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("op", ["bmm", "baddbmm"])
def test_bmm_mixed_dtypes_out_dtype_first(op):
    # fuzz 573:118: bmm(bool (2, 8, 5), int8 (2, 5, 1), out=bool) is CPU's
    # 'Expected out tensor to have dtype signed char, but got bool instead':
    # its meta sets the result up with batch2's options (checking out's
    # dtype) before its kernel finds batch1 of another type; PyTorch's meta
    # kernel refuses the mixed dtypes, so tpu raised the Bool refusal
    bad = []
    dts = [torch.bool, torch.int8, torch.int32, torch.float32, torch.complex64]
    for m, k, n in [(8, 5, 1), (8, 16, 7), (2, 0, 3)]:
        for a in dts:
            for b in dts:
                if op == "baddbmm" and k == 0 and (a.is_floating_point or a.is_complex) and \
                        not (b.is_floating_point or b.is_complex):
                    continue  # a floating self copied into an integral result: refused (fuzz 140:428)
                for o in dts:
                    args = (torch.ones(2, m, k, dtype=a), torch.ones(2, k, n, dtype=b))
                    if op == "baddbmm":
                        args = (torch.zeros(2, m, n, dtype=a),) + args
                    _check(bad, f"({m}, {k}, {n}) {a} {b} out={o}", getattr(torch, op), args,
                           outs={"out": lambda o=o: torch.empty(0, dtype=o)})
    _check(bad, "sizes first", torch.bmm, (torch.ones(2, 3, 4, dtype=torch.bool), torch.ones(2, 5, 1, dtype=torch.int8)),
           outs={"out": lambda: torch.empty(0, dtype=torch.bool)})
    _check(bad, "self's dtype first", torch.baddbmm,
           (torch.ones(2, 3, 1), torch.ones(2, 3, 4, dtype=torch.bool), torch.ones(2, 4, 1, dtype=torch.int8)),
           outs={"out": lambda: torch.empty(0, dtype=torch.bool)})
    assert not bad, "\n".join(bad[:20])
