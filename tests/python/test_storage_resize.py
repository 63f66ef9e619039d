"""UntypedStorage.resize_ on tpu storages (FSDP2 frees and re-allocates
unsharded parameters this way): shrink keeps the prefix, 0 frees the device
buffer, growth reads as zeros, every tensor on the storage sees it, and
deferred work on the old contents runs first."""
import pytest
import torch


def test_shrink_keeps_prefix_and_zero_frees_the_buffer():
    t = torch.arange(6.0).to("tpu")
    torch.tpu.synchronize()
    base = torch.tpu.memory_allocated()
    s = t.untyped_storage()
    assert s.resize_(16) is s and s.nbytes() == 16 and s.size() == 16
    torch.testing.assert_close(t[:4].cpu(), torch.arange(4.0))
    assert torch.tpu.memory_allocated() == base - 8
    s.resize_(0)
    assert s.nbytes() == 0 and s.data_ptr() == 0
    assert torch.tpu.memory_allocated() == base - 24  # the device buffer is gone
    s.resize_(24)
    assert s.nbytes() == 24 and s.data_ptr() != 0
    torch.testing.assert_close(t.cpu(), torch.zeros(6))  # regrown: zeros, not the old values
    t.copy_(torch.arange(6.0) * 2)  # FSDP's all-gather copy-out into the regrown parameter
    torch.testing.assert_close(t.cpu(), torch.arange(6.0) * 2)


def test_views_and_aliases_see_the_resize():
    t = torch.arange(12.0).to("tpu")
    v = t.view(3, 4)[1:]
    s = t.untyped_storage()
    s.resize_(0)
    assert v.untyped_storage().nbytes() == 0
    s.resize_(48)
    v.fill_(5.0)
    torch.testing.assert_close(t.cpu(), torch.cat([torch.zeros(4), torch.full((8,), 5.0)]))


def test_deferred_writes_land_before_the_shrink():
    with torch.tpu.eager_mode("defer_and_fuse"):
        t = torch.arange(8.0).to("tpu")
        t.mul_(3)  # pending in the open region
        t.untyped_storage().resize_(12)
        torch.testing.assert_close(t[:3].cpu(), torch.arange(3.0) * 3)
        u = torch.ones(4).to("tpu")
        w = u * 7  # a deferred reader of u's old contents
        u.untyped_storage().resize_(0)
        torch.testing.assert_close(w.cpu(), torch.full((4,), 7.0))


def test_grow_keeps_contents_and_typed_storage_resize():
    t = torch.arange(4, dtype=torch.int32).to("tpu")
    t.add_(1)
    s = t.untyped_storage()
    s.resize_(32)
    torch.testing.assert_close(torch.empty(0, dtype=torch.int32, device="tpu").set_(s).cpu(),
                               torch.tensor([1, 2, 3, 4, 0, 0, 0, 0], dtype=torch.int32))
    ts = torch.ones(3, device="tpu").storage()  # TypedStorage resizes its untyped storage
    ts.resize_(5)
    assert ts.size() == 5 and ts.untyped().nbytes() == 20


def test_negative_size_raises_and_cpu_storages_are_untouched():
    s = torch.ones(2).to("tpu").untyped_storage()
    with pytest.raises(RuntimeError, match="negative"):
        s.resize_(-1)
    c = torch.ones(4).untyped_storage()
    c.resize_(8)
    assert c.nbytes() == 8 and c.device.type == "cpu"
