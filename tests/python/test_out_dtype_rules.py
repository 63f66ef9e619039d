"""out= dtype rules of ops outside TensorIterator's canCast (the core's
table, csrc/ops/out_rules.c), each against CPU: exception type and CPU's
message where CPU refuses the out tensor's dtype, the same result where CPU
accepts it. Every op is tried with out tensors of several dtypes, so the
accepted dtype is checked too."""
import pytest
import torch

from cpu_same import same_as_cpu

F, D, I, L, B, H = torch.float32, torch.float64, torch.int32, torch.int64, torch.bool, torch.float16
OUT_DTYPES = [F, D, I, L, B, H, torch.uint8]


def x(d):
    return torch.tensor([[0.5, -1.25, 2.0, 3.5], [1.0, 0.25, -2.5, 4.0], [-0.75, 1.5, 0.0, 2.25]], device=d)


def E(d, *shape, dtype):
    return torch.empty(*shape, dtype=dtype, device=d)


def idx(d):
    return torch.tensor([0, 2], device=d)


# op(device, out_dtype) -> result
CASES = {
    "argmax": lambda d, o: torch.argmax(x(d), 1, out=E(d, 3, dtype=o)),
    "argmin": lambda d, o: torch.argmin(x(d), 1, out=E(d, 3, dtype=o)),
    "mm": lambda d, o: torch.mm(x(d), x(d).t(), out=E(d, 3, 3, dtype=o)),
    "baddbmm": lambda d, o: torch.baddbmm(x(d)[None, :, :3], x(d)[None], x(d)[None].mT, out=E(d, 1, 3, 3, dtype=o)),
    "msort": lambda d, o: torch.msort(x(d), out=E(d, 3, 4, dtype=o)),
    "sort_values": lambda d, o: torch.sort(x(d), out=(E(d, 3, 4, dtype=o), E(d, 3, 4, dtype=L))),
    "sort_indices": lambda d, o: torch.sort(x(d), out=(E(d, 3, 4, dtype=F), E(d, 3, 4, dtype=o))),
    "take_along_dim": lambda d, o: torch.take_along_dim(x(d), torch.zeros(3, 1, dtype=L, device=d), 1, out=E(d, 3, 1, dtype=o)),
    "index_add": lambda d, o: torch.index_add(x(d), 0, idx(d), x(d)[:2], out=E(d, 3, 4, dtype=o)),
    "amax": lambda d, o: torch.amax(x(d), 1, out=E(d, 3, dtype=o)),
    "amin": lambda d, o: torch.amin(x(d), 0, out=E(d, 4, dtype=o)),
    "searchsorted": lambda d, o: torch.searchsorted(torch.arange(5.0, device=d), x(d), out=E(d, 3, 4, dtype=o)),
    "searchsorted_int32": lambda d, o: torch.searchsorted(torch.arange(5.0, device=d), x(d), out_int32=True,
                                                          out=E(d, 3, 4, dtype=o)),
    "dot": lambda d, o: torch.dot(x(d)[0], x(d)[1], out=E(d, (), dtype=o)),
    "vdot": lambda d, o: torch.vdot(x(d)[0], x(d)[1], out=E(d, (), dtype=o)),
    "nonzero": lambda d, o: torch.nonzero(x(d), out=E(d, 0, 2, dtype=o)),
    "where": lambda d, o: torch.where(x(d) > 0, x(d), 0.0, out=E(d, 3, 4, dtype=o)),
    "signbit": lambda d, o: torch.signbit(x(d), out=E(d, 3, 4, dtype=o)),
    "masked_select": lambda d, o: torch.masked_select(x(d), x(d) > 0, out=E(d, 0, dtype=o)),
    "index_select": lambda d, o: torch.index_select(x(d), 0, idx(d), out=E(d, 2, 4, dtype=o)),
    "cummax_values": lambda d, o: torch.cummax(x(d), 1, out=(E(d, 3, 4, dtype=o), E(d, 3, 4, dtype=L))),
    "cummin_indices": lambda d, o: torch.cummin(x(d), 1, out=(E(d, 3, 4, dtype=F), E(d, 3, 4, dtype=o))),
    "max_dim_values": lambda d, o: torch.max(x(d), 1, out=(E(d, 3, dtype=o), E(d, 3, dtype=L))),
    "max_dim_indices": lambda d, o: torch.max(x(d), 1, out=(E(d, 3, dtype=F), E(d, 3, dtype=o))),
    "kthvalue_values": lambda d, o: torch.kthvalue(x(d), 2, out=(E(d, 3, dtype=o), E(d, 3, dtype=L))),
    "kthvalue_indices": lambda d, o: torch.kthvalue(x(d), 2, out=(E(d, 3, dtype=F), E(d, 3, dtype=o))),
    "mode_values": lambda d, o: torch.mode(x(d), 1, out=(E(d, 3, dtype=o), E(d, 3, dtype=L))),
    "median_values": lambda d, o: torch.median(x(d), 1, out=(E(d, 3, dtype=o), E(d, 3, dtype=L))),
    "median_indices": lambda d, o: torch.median(x(d), 1, out=(E(d, 3, dtype=F), E(d, 3, dtype=o))),
    "topk": lambda d, o: torch.topk(x(d), 2, out=(E(d, 3, 2, dtype=o), E(d, 3, 2, dtype=L))),
    "gather": lambda d, o: torch.gather(x(d), 1, torch.zeros(3, 2, dtype=L, device=d), out=E(d, 3, 2, dtype=o)),
    "take": lambda d, o: torch.take(x(d), idx(d), out=E(d, 2, dtype=o)),
    "tril": lambda d, o: torch.tril(x(d), out=E(d, 3, 4, dtype=o)),
    "cross": lambda d, o: torch.linalg.cross(x(d)[:, :3], x(d)[:, 1:], out=E(d, 3, 3, dtype=o)),
    "vector_norm": lambda d, o: torch.linalg.vector_norm(x(d), out=E(d, (), dtype=o)),
    "histc": lambda d, o: torch.histc(x(d), 4, out=E(d, 4, dtype=o)),
    "nan_to_num": lambda d, o: torch.nan_to_num(x(d), out=E(d, 3, 4, dtype=o)),
    "sign": lambda d, o: torch.sign(x(d), out=E(d, 3, 4, dtype=o)),
    "abs_int": lambda d, o: torch.abs(x(d).long(), out=E(d, 3, 4, dtype=o)),
    "clamp_scalar": lambda d, o: torch.clamp(x(d), 0.0, 1.0, out=E(d, 3, 4, dtype=o)),
    "clamp_min_tensor": lambda d, o: torch.clamp_min(x(d), x(d)[0], out=E(d, 3, 4, dtype=o)),
    "maximum": lambda d, o: torch.maximum(x(d), x(d)[0], out=E(d, 3, 4, dtype=o)),
    "logsumexp": lambda d, o: torch.logsumexp(x(d), 1, out=E(d, 3, dtype=o)),
    "nansum_float": lambda d, o: torch.nansum(x(d).abs(), 1, out=E(d, 3, dtype=o)),
    "nansum_int": lambda d, o: torch.nansum(x(d).long(), 1, out=E(d, 3, dtype=o)),
    "cumsum": lambda d, o: torch.cumsum(x(d).abs(), 1, out=E(d, 3, 4, dtype=o)),
    "sum_dim_from_out": lambda d, o: torch.sum(x(d).abs(), 1, out=E(d, 3, dtype=o)),
    "mean": lambda d, o: torch.mean(x(d).abs(), 1, out=E(d, 3, dtype=o)),
    "frexp_mantissa": lambda d, o: torch.frexp(x(d), out=(E(d, 3, 4, dtype=o), E(d, 3, 4, dtype=I))),
    "polar": lambda d, o: torch.polar(x(d).abs(), x(d), out=E(d, 3, 4, dtype=o)),
}


@pytest.mark.parametrize("out_dtype", OUT_DTYPES, ids=str)
@pytest.mark.parametrize("case", sorted(CASES))
def test_out_dtype_rule_matches_cpu(case, out_dtype):
    same_as_cpu(lambda d: CASES[case](d, out_dtype))


def test_refused_out_is_not_written():
    out = torch.full((3,), 7, dtype=torch.int32, device="tpu")
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got int instead"):
        torch.argmax(x("tpu"), 1, out=out)
    assert out.cpu().tolist() == [7, 7, 7]


@pytest.mark.parametrize("op", ["mean", "sum", "cumsum"])
def test_explicit_dtype_against_out_like_cpu(op):
    """An explicit dtype= that is not out's dtype: CPU's error, word for word."""
    f = getattr(torch, op)
    msgs = []
    for dev in ("cpu", "tpu"):
        x = torch.ones(3, device=dev)
        with pytest.raises(RuntimeError) as e:
            f(x, 0, dtype=torch.float32, out=torch.empty(3 if op == "cumsum" else (), dtype=torch.float64, device=dev))
        msgs.append(str(e.value))
    assert msgs[0] in msgs[1], msgs
