"""Copying a strided view to the host (api/transfer.c): a view of a storage
not much larger than itself is read by downloading the storage and
gathering on the host (views/view_gather.c), with no program; a view of a
much larger storage is still materialized on device first. Either way the
values are the view's, in every layout."""
import pytest
import torch


def _views(base):
    return {
        "narrow": base.narrow(1, 0, 3),
        "narrow_offset": base.narrow(1, 2, 3),
        "transpose": base.transpose(0, 2),
        "permute": base.permute(2, 0, 1),
        "step": base[:, ::2, 1::3],
        "expand": base[:, :1].expand(4, 5, 6),
        "select": base.select(2, 4),
        "scalar": base[1, 2, 3],
        "empty": base[:, :0],
        "diagonal": base[0].diagonal(),
    }


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16, torch.bool, torch.uint8])
def test_views_read_back_like_cpu(dtype):
    cpu = (torch.arange(4 * 5 * 6) % 7).to(dtype).reshape(4, 5, 6)
    dev = _views(cpu.to("tpu"))
    for name, want in _views(cpu).items():
        got = dev[name].cpu()
        assert got.shape == want.shape and got.dtype == want.dtype, name
        assert torch.equal(got, want), name


def test_narrowed_views_of_any_length_compile_nothing():
    base = torch.randn(2, 64, 16).to("tpu")
    before = torch.tpu.cache_stats()["requests"]
    for n in range(17, 64):
        torch.testing.assert_close(base[:, :n].cpu(), base.cpu()[:, :n])
    assert torch.tpu.cache_stats()["requests"] == before


def test_a_small_view_of_a_large_storage_is_materialized_on_device():
    base = torch.randn(1024, 1024).to("tpu")
    before = torch.tpu.cache_stats()["requests"]
    torch.testing.assert_close(base[:3, :5].cpu(), base.cpu()[:3, :5])
    assert torch.tpu.cache_stats()["requests"] == before + 1  # one program, not a 4 MiB download
