"""torch._assert_async (with and without a message) on tpu: a device-side
check like CUDA's. A zero value raises RuntimeError with the caller's message
(CPU's words when there is none) at the next synchronization point, at the op
in Debug mode; a nonzero one raises nothing. Compiled one_hot with
num_classes decomposes into _assert_async.msg and must match CPU."""
import re

import pytest
import torch
import torch.nn.functional as F

from cpu_same import same_as_cpu

MODES = ["strict", "defer_and_fuse"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("value", [True, 3, -2.5, float("nan"), [[7]]])
def test_nonzero_value_raises_nothing(mode, value):
    with torch.tpu.eager_mode(mode):
        torch._assert_async(torch.tensor(value, device="tpu"), "my message")
        torch._assert_async(torch.tensor(value, device="tpu"))
        torch.tpu.synchronize()
        assert torch.ones(2, device="tpu").sum().item() == 2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("value", [False, 0, -0.0, [0]])
def test_zero_value_raises_the_message_at_the_next_sync(mode, value):
    with torch.tpu.eager_mode(mode):
        torch._assert_async(torch.tensor(value, device="tpu"), "my message")  # does not wait for the device
        with pytest.raises(RuntimeError, match=r"^my message \(aten::_assert_async\.msg: .*asynchronously"):
            torch.tpu.synchronize()
        # raised once; later ops run normally
        torch.tpu.synchronize()
        assert torch.ones(2, device="tpu").sum().item() == 2


def test_zero_value_raises_at_item_too():
    x = torch.tensor(0, device="tpu")
    torch._assert_async(x == 1, "x must be 1")
    with pytest.raises(RuntimeError, match=r"^x must be 1 "):
        (x + 1).item()


def test_cpu_words_without_a_message_or_with_an_empty_one():
    torch._assert_async(torch.tensor(False, device="tpu"))
    with pytest.raises(RuntimeError, match=r"^Expected Tensor with single nonzero value, but got zero \("):
        torch.tpu.synchronize()
    torch._assert_async(torch.tensor(False, device="tpu"), "")
    with pytest.raises(RuntimeError, match=r"^Assertion is failed \("):
        torch.tpu.synchronize()


def test_debug_mode_raises_at_the_op():
    with torch.tpu.eager_mode("debug"):
        with pytest.raises(RuntimeError, match=r"^my message \(aten::_assert_async\.msg: .*debug mode\)"):
            torch._assert_async(torch.tensor(False, device="tpu"), "my message")


@pytest.mark.parametrize("shape", [(0,), (2,), (1, 3)])
@pytest.mark.parametrize("with_msg", [False, True])
def test_element_count_checked_at_the_op_like_cpu(shape, with_msg):
    args = ("my message",) if with_msg else ()
    same_as_cpu(lambda d: torch._assert_async(torch.ones(shape, device=d), *args))


def test_long_message_is_cut_not_lost():
    msg = "m" * 1000
    torch._assert_async(torch.tensor(False, device="tpu"), msg)
    with pytest.raises(RuntimeError, match=r"^m{255} \(aten::_assert_async\.msg"):
        torch.tpu.synchronize()


@pytest.mark.parametrize("x, classes", [([0, 2, 1, 3], 5), ([[0, 1], [2, 3]], 4), (3, 6)])
def test_compiled_one_hot_int64_equals_cpu(x, classes):
    torch._dynamo.reset()
    x = torch.tensor(x, dtype=torch.int64)
    f = torch.compile(lambda t: F.one_hot(t, classes), backend="tpu")
    r = f(x.to("tpu"))
    expected = F.one_hot(x, classes)
    assert r.dtype == expected.dtype
    assert torch.equal(r.cpu(), expected)


def test_compiled_one_hot_out_of_range_raises_cpus_message():
    """In a graph AOTAutograd traces (one that needs a gradient), one_hot is its decomposition, whose assert
    carries CPU's words (prefixed "one_hot: ")."""
    torch._dynamo.reset()
    x = torch.tensor([0, 7])
    with pytest.raises(RuntimeError) as cpu:
        F.one_hot(x, 4)
    f = torch.compile(lambda t, w: F.one_hot(t, 4) * w, backend="tpu")
    w = torch.ones(4, device="tpu", requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^(one_hot: )?" + re.escape(str(cpu.value)) + r" \(aten::_assert_async"):
        f(x.to("tpu"), w).cpu()


def test_compiled_inference_one_hot_out_of_range_raises_as_eager():
    """A graph that needs no gradient runs its ops as eager does (_compile._Inference): one_hot's out-of-range
    class raises eager tpu's error (PyTorch's one_hot for PrivateUse1 relies on scatter's index check, as
    CUDA's does on its device assert), not a wrong answer."""
    torch._dynamo.reset()
    x = torch.tensor([0, 7]).to("tpu")
    with pytest.raises(RuntimeError) as eager:
        F.one_hot(x, 4).cpu()
    f = torch.compile(lambda t: F.one_hot(t, 4), backend="tpu")
    with pytest.raises(RuntimeError) as compiled:
        f(x).cpu()
    assert str(compiled.value) == str(eager.value)
    assert "index 7 is out of bounds for dimension 1 with size 4" in str(compiled.value)


def test_compiled_assert_async_with_a_message():
    torch._dynamo.reset()

    def g(t):
        torch._assert_async(t.sum() > 0, "my message")
        return t * 2

    f = torch.compile(g, backend="tpu")
    assert f(torch.ones(3, device="tpu")).cpu().tolist() == [2, 2, 2]
    with pytest.raises(RuntimeError, match=r"^my message \("):
        f(-torch.ones(3, device="tpu")).cpu()
