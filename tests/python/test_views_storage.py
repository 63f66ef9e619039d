"""Storages made directly on "tpu" (torch.UntypedStorage(n, device="tpu"))
and copy.deepcopy of tpu tensors, compared with CPU: both used to crash the
process (no allocator is registered for the device type)."""
import copy

import torch

import torchtpu  # noqa: F401


def test_untyped_storage_of_n_bytes_on_tpu():
    s = torch.UntypedStorage(8, device="tpu")
    assert (s.nbytes(), s.device.type, type(s)) == (8, "tpu", torch.UntypedStorage)
    assert torch.UntypedStorage(device="tpu").nbytes() == 0
    assert torch.UntypedStorage(4, device=torch.device("tpu", 0)).nbytes() == 4


def test_untyped_storage_from_sequence_on_tpu():
    s = torch.UntypedStorage([1, 2, 255], device="tpu")
    assert s.device.type == "tpu" and s.cpu().tolist() == [1, 2, 255]


def test_untyped_storage_set_into_tensor():
    for dev in ("cpu", "tpu"):
        s = torch.UntypedStorage(16, device=dev)
        t = torch.empty(0, device=dev).set_(s, 1, (3,), (1,))
        t.fill_(2.5)
        u = torch.empty(0, device=dev).set_(s, 0, (4,), (1,))  # an alias of the same storage
        u[0] = -1.0
        assert t.untyped_storage().data_ptr() == s.data_ptr()
        assert u.cpu().tolist() == [-1.0, 2.5, 2.5, 2.5]


def test_untyped_storage_clone_and_copy():
    x = torch.arange(6, dtype=torch.int16, device="tpu")
    s = x.untyped_storage()
    c = s.clone()
    assert c.device.type == "tpu" and c.data_ptr() != s.data_ptr()
    assert c.cpu().tolist() == s.cpu().tolist() == x.cpu().untyped_storage().tolist()


def test_untyped_storage_negative_size_raises_as_on_cpu():
    for dev in ("cpu", "tpu"):
        try:
            torch.UntypedStorage(-1, device=dev)
        except RuntimeError:
            continue
        raise AssertionError(f"no error on {dev}")


def test_deepcopy_is_independent_and_keeps_dtype_and_grad():
    for dtype in (torch.float32, torch.bfloat16, torch.int64, torch.bool):
        cpu = (torch.randn(3, 4) * 5).to(dtype)
        x = cpu.to("tpu")
        if dtype.is_floating_point:
            x.requires_grad_()
        y = copy.deepcopy(x)
        assert (y.device.type, y.dtype, y.shape, y.requires_grad) == ("tpu", dtype, x.shape, x.requires_grad)
        assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        torch.testing.assert_close(y.detach().cpu(), cpu)
        with torch.no_grad():
            y.zero_()
        torch.testing.assert_close(x.detach().cpu(), cpu)  # the original is untouched


def test_deepcopy_of_views_keeps_layout_and_sharing():
    for dev in ("cpu", "tpu"):
        base = torch.arange(12.0, device=dev).view(3, 4)
        a, b = base.t(), base[1:, ::2]
        a2, b2 = copy.deepcopy([a, b])
        assert (a2.stride(), a2.storage_offset(), b2.stride(), b2.storage_offset()) == \
            (a.stride(), a.storage_offset(), b.stride(), b.storage_offset())
        assert a2.untyped_storage().data_ptr() == b2.untyped_storage().data_ptr()  # one memo: one storage
        b2.fill_(-1)  # the copies still alias each other, not the original
        assert a2.cpu().t()[1:, ::2].tolist() == [[-1.0, -1.0], [-1.0, -1.0]]
        assert base.cpu()[1:, ::2].tolist() == [[4.0, 6.0], [8.0, 10.0]]


def test_deepcopy_copies_grad_and_module():
    x = torch.randn(2, 3, device="tpu", requires_grad=True)
    (x * x).sum().backward()
    y = copy.deepcopy(x)
    torch.testing.assert_close(y.grad.cpu(), x.grad.cpu())
    m = torch.nn.Linear(3, 2).to("tpu")
    m2 = copy.deepcopy(m)
    torch.testing.assert_close(m2(x).detach().cpu(), m(x).detach().cpu())
    assert m2.weight.untyped_storage().data_ptr() != m.weight.untyped_storage().data_ptr()
