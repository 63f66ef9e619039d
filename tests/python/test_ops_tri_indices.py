"""tril_indices / triu_indices on tpu vs CPU: every offset sign, empty
results, int32 and int64, CPU's errors for bad sizes and dtypes."""
import pytest
import torch


@pytest.mark.parametrize("fn", [torch.tril_indices, torch.triu_indices])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1), (5, 7), (7, 5), (4, 4)])
def test_all_offsets(fn, shape):
    for offset in range(-9, 10):
        got = fn(*shape, offset, device="tpu")
        assert got.device.type == "tpu"
        torch.testing.assert_close(got.cpu(), fn(*shape, offset), rtol=0, atol=0)


@pytest.mark.parametrize("fn", [torch.tril_indices, torch.triu_indices])
def test_dtype_and_large(fn):
    got = fn(40, 33, -3, dtype=torch.int32, device="tpu")
    assert got.dtype == torch.int32
    torch.testing.assert_close(got.cpu(), fn(40, 33, -3, dtype=torch.int32), rtol=0, atol=0)


@pytest.mark.parametrize("fn", [torch.tril_indices, torch.triu_indices])
def test_errors_as_cpu(fn):
    with pytest.raises(RuntimeError, match="row must be non-negative"):
        fn(-1, 3, device="tpu")
    with pytest.raises(RuntimeError, match="col must be non-negative"):
        fn(3, -2, device="tpu")
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        fn(3, 3, dtype=torch.float32, device="tpu")
