"""The everyday device API a CUDA user types, on "tpu": torch.accelerator,
torch.Event / torch.tpu.Event, streams, torch.utils.benchmark.Timer,
pin_memory and DataLoader(pin_memory=True), and the invalid device ordinal."""
import time

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset


def _work():
    x = torch.randn(256, 256).to("tpu")
    for _ in range(5):
        x = torch.tanh(x @ x)
    return x


def test_accelerator_basics():
    assert torch.accelerator.current_accelerator().type == "tpu"
    assert torch.accelerator.device_count() == 1
    assert torch.accelerator.current_device_index() == 0
    y = _work()
    torch.accelerator.synchronize()
    torch.accelerator.synchronize(0)
    torch.accelerator.synchronize("tpu:0")
    s = torch.accelerator.current_stream()
    assert s.device == torch.device("tpu", 0) and isinstance(s, torch.Stream)
    s.synchronize()
    assert s.query()
    assert y.shape == (256, 256)
    torch.tpu.set_device(0)  # the one device: index 0 is fine
    torch.tpu.set_device("tpu:0")
    torch.testing.assert_close(torch.ones(2, device="tpu:0").cpu(), torch.ones(2))
    torch.testing.assert_close(torch.ones(2).to("tpu:0").cpu(), torch.ones(2))


@pytest.mark.parametrize("make", ["torch.Event", "torch.tpu.Event"])
def test_event_record_synchronize_query_elapsed(make):
    Event = torch.Event if make == "torch.Event" else torch.tpu.Event
    start = Event(device="tpu", enable_timing=True) if make == "torch.Event" else Event(enable_timing=True)
    end = Event(device="tpu", enable_timing=True) if make == "torch.Event" else Event(enable_timing=True)
    assert isinstance(start, torch.Event)
    start.record()
    cpu_x = torch.randn(64, 64)
    x = cpu_x.to("tpu")
    t0 = time.perf_counter()
    y = x
    for _ in range(3):
        y = torch.sin(y @ x)
    end.record()
    end.synchronize()
    host_ms = (time.perf_counter() - t0) * 1e3
    assert end.query()
    ms = start.elapsed_time(end)
    assert 0 <= ms <= host_ms + 1000 * 60
    end.wait()
    expected = cpu_x
    for _ in range(3):
        expected = torch.sin(expected @ cpu_x)
    torch.testing.assert_close(y.cpu(), expected, atol=1e-4, rtol=1e-4)
    a, b = Event(device="tpu"), Event(device="tpu")  # no timing
    a.record()
    b.record()
    with pytest.raises(ValueError, match="enable_timing"):
        a.elapsed_time(b)


def test_event_is_a_mark_in_launch_order():
    # an event waits for the work launched before its record only: later
    # work keeps running, and query() asks without waiting
    a = (torch.randn(1024, 1024) / 64).to("tpu")  # contractive: the chain is well conditioned
    torch.tpu.synchronize()
    before = torch.tpu.Event()
    assert before.query()  # never recorded: True, as CUDA
    small = a + 1
    before.record()
    x = a
    for _ in range(20):  # about a second of device work on the CPU plugin
        x = torch.tanh(x @ a)
    after = torch.tpu.Event()
    after.record()
    assert not after.query()  # launched, not done: query did not wait
    before.synchronize()
    assert before.query() and not after.query()
    after.synchronize()
    assert after.query()
    torch.testing.assert_close(small.cpu(), a.cpu() + 1)
    expected = a.cpu()
    for _ in range(20):
        expected = torch.tanh(expected @ a.cpu())
    torch.testing.assert_close(x.cpu(), expected, atol=1e-4, rtol=1e-4)


def test_event_record_launches_deferred_work():
    # under defer-and-fuse, record closes the open region: without that, the
    # deferred ops would not be in flight and query() would say done
    a = (torch.randn(1024, 1024) / 64).to("tpu")  # contractive: the chain is well conditioned
    torch.tpu.synchronize()
    with torch.tpu.eager_mode("defer_and_fuse"):
        x = a
        for _ in range(20):
            x = torch.tanh(x @ a)
        e = torch.tpu.Event()
        e.record()
        assert not e.query()
        e.synchronize()
        assert e.query()
    expected = a.cpu()
    for _ in range(20):
        expected = torch.tanh(expected @ a.cpu())
    torch.testing.assert_close(x.cpu(), expected, atol=1e-4, rtol=1e-4)


def test_record_stream_is_accepted_and_checks_the_device():
    t = torch.ones(3).to("tpu")
    t.record_stream(torch.tpu.Stream())
    t.record_stream(torch.tpu.current_stream())
    with pytest.raises(RuntimeError, match="record_stream: a cpu stream"):
        t.record_stream(torch.Stream(device="cpu"))


def test_streams_are_one_default_stream():
    s = torch.tpu.Stream()
    assert isinstance(s, torch.Stream)
    assert torch.tpu.current_stream() == torch.tpu.default_stream()
    assert torch.Stream(device="tpu").device_type == s.device_type
    with torch.tpu.stream(s):
        y = torch.ones(3).to("tpu") * 2
    s.wait_stream(torch.tpu.current_stream())
    e = s.record_event()
    assert isinstance(e, torch.Event)
    e.synchronize()
    torch.testing.assert_close(y.cpu(), torch.ones(3) * 2)
    c = torch.Event(device="cpu")  # another device's event stays PyTorch's
    assert isinstance(c, torch.Event) and c.device.type == "cpu"


def test_benchmark_timer_times_tpu_code():
    from torch.utils.benchmark import Timer

    x = torch.randn(128, 128).to("tpu")
    m = Timer("torch.mm(x, x)", globals={"x": x, "torch": torch}).timeit(5)
    assert m.mean > 0
    torch.testing.assert_close(torch.mm(x, x).cpu(), torch.mm(x.cpu(), x.cpu()), atol=1e-4, rtol=1e-4)


def test_pin_memory_and_is_pinned():
    cpu = torch.arange(24.0).reshape(4, 6).t()
    assert not cpu.is_pinned()
    p = cpu.pin_memory()
    assert p.is_pinned() and p[1:].is_pinned()
    assert p.stride() == cpu.stride()
    torch.testing.assert_close(p, cpu)
    assert p.pin_memory() is p  # already pinned: itself, as on CUDA
    torch.testing.assert_close(p.to("tpu", non_blocking=True).cpu(), cpu)


@pytest.mark.parametrize("num_workers", [0, 2])
def test_dataloader_pin_memory(num_workers):
    xs, ys = torch.randn(10, 3), torch.arange(10)
    loader = DataLoader(TensorDataset(xs, ys), batch_size=4, pin_memory=True, num_workers=num_workers)
    got_x, got_y = [], []
    for bx, by in loader:
        assert bx.is_pinned() and by.is_pinned()
        got_x.append(bx.to("tpu", non_blocking=True))
        got_y.append(by.to("tpu", non_blocking=True))
    torch.testing.assert_close(torch.cat(got_x).cpu(), xs)
    torch.testing.assert_close(torch.cat(got_y).cpu(), ys)


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.empty(2, device="tpu:1"),
        lambda: torch.zeros(2, device="tpu:1"),
        lambda: torch.tensor([1.0], device="tpu:1"),
        lambda: torch.ones(2).to("tpu:1"),
        lambda: torch.ones(2, device="tpu").to("tpu:1"),
        lambda: torch.tpu.set_device(1),
        lambda: torch.tpu.synchronize(1),
        lambda: torch.accelerator.synchronize("tpu:1"),
        lambda: torch.tpu.memory_allocated(1),
    ],
)
def test_invalid_device_ordinal(call):
    # torch.cuda in a one-GPU process: torch.AcceleratorError "invalid device ordinal".
    with pytest.raises(torch.AcceleratorError, match="invalid device ordinal"):
        call()
