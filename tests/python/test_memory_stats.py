"""torch.tpu / torch.accelerator memory statistics, with torch.cuda's names:
the numbers are the bytes of live device buffers, checked against the CPU
tensors' byte counts."""
import gc

import pytest
import torch


def _settle():
    gc.collect()
    torch.tpu.synchronize()


@pytest.mark.parametrize("api", ["tpu", "accelerator"])
def test_allocated_grows_by_tensor_bytes_and_drops_after_del(api):
    mod = torch.tpu if api == "tpu" else torch.accelerator
    _settle()
    before = mod.memory_allocated()
    cpu = torch.randn(1000, 37, dtype=torch.float64)
    x = cpu.to("tpu")
    _settle()
    grown = mod.memory_allocated() - before
    assert grown >= cpu.nbytes
    assert grown < 2 * cpu.nbytes  # the tensor's buffer, not a copy per op
    torch.testing.assert_close(x.cpu(), cpu)
    del x
    _settle()
    assert mod.memory_allocated() == before


def test_result_of_an_op_is_counted():
    _settle()
    a = torch.ones(4096, 16).to("tpu")
    base = torch.tpu.memory_allocated()
    b = a * 2
    _settle()
    assert torch.tpu.memory_allocated() - base >= (torch.ones(4096, 16) * 2).nbytes
    del b
    _settle()
    assert torch.tpu.memory_allocated() == base


def test_peak_and_reset():
    _settle()
    torch.tpu.reset_peak_memory_stats()
    base = torch.tpu.memory_allocated()
    assert torch.tpu.max_memory_allocated() == base
    n = 256 * 1024
    big = torch.zeros(n, dtype=torch.float32).to("tpu")
    _settle()
    del big
    _settle()
    assert torch.tpu.memory_allocated() == base
    assert torch.tpu.max_memory_allocated() - base >= n * 4
    torch.tpu.reset_max_memory_allocated()
    assert torch.tpu.max_memory_allocated() == base
    torch.accelerator.reset_peak_memory_stats()
    assert torch.accelerator.max_memory_allocated() == base


def test_reserved_at_least_allocated_and_empty_cache():
    x = torch.arange(10000).to("tpu")
    _settle()
    assert torch.tpu.memory_reserved() >= torch.tpu.memory_allocated() >= x.cpu().nbytes
    assert torch.tpu.max_memory_reserved() >= torch.tpu.memory_reserved()
    assert torch.accelerator.memory_reserved() == torch.tpu.memory_reserved()
    torch.tpu.empty_cache()
    torch.accelerator.empty_cache()
    torch.testing.assert_close(x.cpu(), torch.arange(10000))


def test_memory_stats_keys_match_the_counters():
    x = torch.ones(123, 7).to("tpu")
    _settle()
    s = torch.tpu.memory_stats()
    assert s["allocated_bytes.all.current"] == torch.tpu.memory_allocated()
    assert s["allocated_bytes.all.peak"] == torch.tpu.max_memory_allocated()
    assert s["allocated_bytes.all.allocated"] - s["allocated_bytes.all.freed"] == s["allocated_bytes.all.current"]
    assert s["allocation.all.allocated"] - s["allocation.all.freed"] == s["allocation.all.current"] >= 1
    assert list(s) == sorted(s)
    acc = torch.accelerator.memory_stats()
    assert acc["allocated_bytes.all.current"] == s["allocated_bytes.all.current"]
    text = torch.tpu.memory_summary()
    assert "Allocated memory" in text and "tpu:0" in text
    del x


def test_mem_get_info_and_device_properties():
    free, total = torch.tpu.mem_get_info()
    assert 0 < free <= total
    assert torch.accelerator.get_memory_info()[1] == total
    props = torch.tpu.get_device_properties(0)
    assert props.total_memory == total
    assert isinstance(props.name, str) and props.name
    assert torch.tpu.get_device_properties("tpu:0").total_memory == total


def test_device_memory_exhaustion_raises_out_of_memory_error():
    # 4 TiB: more than this host or any TPU has. On CUDA: torch.OutOfMemoryError.
    with pytest.raises(torch.OutOfMemoryError, match="4398046511104 bytes"):
        torch.empty(2**42, dtype=torch.uint8, device="tpu").add_(1)
        torch.tpu.synchronize()  # as on CUDA, an asynchronous error may surface at the next sync
    _settle()
    torch.testing.assert_close(torch.ones(3).to("tpu").cpu(), torch.ones(3))  # the device still works
