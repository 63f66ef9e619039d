"""Device basics: transfers, printing, the device module, errors."""
import pytest
import torch

from conftest import compare


def test_roundtrip_dtypes():
    for dt in [torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.int64, torch.bool, torch.float64]:
        x = (torch.randn(3, 4) * 10).to(dt)
        y = x.to("tpu")
        assert y.device.type == "tpu" and y.dtype == dt and y.shape == x.shape
        torch.testing.assert_close(y.cpu(), x)


def test_add_broadcast_and_promotion():
    compare(lambda a, b: a + b, torch.randn(3, 1), torch.randn(4))
    compare(lambda a, b: a + b, torch.randn(3), torch.tensor(2, dtype=torch.int64))
    compare(lambda a: a + 1, torch.arange(5, dtype=torch.int32))
    compare(lambda a: a * 2.5, torch.arange(5, dtype=torch.int32))
    compare(lambda a, b: a - b, torch.randn(2, 3), torch.randn(2, 3).to(torch.bfloat16))


def test_item_tolist_print():
    x = torch.tensor([[1.5, 2.0], [3.0, 4.0]], device="tpu")
    assert x[1, 0].item() == 3.0
    assert x.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert "device='tpu:0'" in repr(x)


def test_device_module():
    assert torch.tpu.is_available()
    assert torch.tpu.device_count() == 1
    info = torch.tpu.runtime_info()
    assert info["platform_name"] and info["plugin_path"]
    assert info["pjrt_api_version"][0] == 0
    s = torch.tpu.cache_stats()
    assert set(s) >= {"requests", "hits", "misses", "executables", "compile_seconds"}


def test_cache_hits_on_repeat():
    a = torch.randn(7, device="tpu")
    before = torch.tpu.cache_stats()
    for _ in range(3):
        a = a + 1.0
    after = torch.tpu.cache_stats()
    assert after["requests"] - before["requests"] == 3
    assert after["misses"] - before["misses"] <= 1


def test_shape_mismatch_raises_runtime_error():
    with pytest.raises(RuntimeError, match="must match the size"):
        torch.randn(3, device="tpu") + torch.randn(4, device="tpu")


def test_mixed_device_raises():
    with pytest.raises(RuntimeError, match="same device"):
        torch.randn(3, device="tpu") + torch.randn(3)


def test_unimplemented_op_message():
    with pytest.raises(NotImplementedError, match=r"operator 'aten::.*' is not implemented for TPU yet"):
        torch.linalg.eig(torch.randn(3, 3, device="tpu"))  # non-symmetric eigen: not lowered


def test_inplace_on_view_writes_base():
    x = torch.zeros(4, 5, device="tpu")
    x[:, 1].add_(2.0)
    x[2] = 7.0
    ref = torch.zeros(4, 5)
    ref[:, 1].add_(2.0)
    ref[2] = 7.0
    torch.testing.assert_close(x.cpu(), ref)


def test_manual_seed_reaches_generator():
    torch.manual_seed(1234)
    assert torch.tpu.initial_seed() == 1234
    state = torch.tpu.get_rng_state()
    torch.tpu.set_rng_state(state)
    assert torch.tpu.initial_seed() == 1234


def test_accelerator():
    assert str(torch.accelerator.current_accelerator()) == "tpu"


def _run(code, **env):
    import os
    import subprocess
    import sys

    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120)


def test_missing_plugin_gives_one_clear_message():
    r = _run("import torch\ntry:\n    torch.ones(2, device='tpu')\nexcept RuntimeError as e:\n    print('ERR', e)\n",
             TORCH_TPU_PJRT_PLUGIN="/nonexistent/libfoo.so")
    assert r.returncode == 0, r.stderr
    assert "ERR" in r.stdout and "/nonexistent/libfoo.so" in r.stdout and "TORCH_TPU_PJRT_PLUGIN" in r.stdout


def test_non_plugin_library_is_refused(tmp_path):
    bogus = tmp_path / "not_a_plugin.so"
    bogus.write_text("hello")
    r = _run("import torch\nprint(torch.tpu.is_available())\ntry:\n    torch.ones(2, device='tpu')\nexcept RuntimeError as e:\n    print('ERR', e)\n",
             TORCH_TPU_PJRT_PLUGIN=str(bogus))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("False") and str(bogus) in r.stdout


def test_save_cpu_copy(tmp_path):
    x = torch.arange(6, device="tpu").reshape(2, 3)
    torch.save(x.cpu(), tmp_path / "x.pt")
    assert torch.equal(torch.load(tmp_path / "x.pt"), torch.arange(6).reshape(2, 3))


def test_synchronize_waits_for_inplace_work_past_the_queue_depth():
    x = torch.zeros(3, device="tpu")
    for _ in range(600):  # more launches than the in-flight queue holds
        x.add_(1.0)
    torch.tpu.synchronize()
    assert x.tolist() == [600.0, 600.0, 600.0]


def test_resize_keeps_contents_and_grows():
    x = torch.arange(4.0, device="tpu")
    x.resize_(2, 3)
    assert x.shape == (2, 3) and x.stride() == (3, 1)
    assert x.flatten()[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
    x.resize_(2)
    assert x.tolist() == [0.0, 1.0]
    e = torch.empty(0, device="tpu").resize_(3).fill_(5.0)
    assert e.tolist() == [5.0, 5.0, 5.0]


def test_as_strided_out_of_bounds_raises_as_on_cpu():
    for dev in ("cpu", "tpu"):
        x = torch.zeros(10, device=dev)
        with pytest.raises(RuntimeError, match="out of bounds for storage of size 40"):
            x.as_strided((3, 4), (4, 1))
        with pytest.raises(RuntimeError, match="out of bounds for storage of size 40"):
            x.as_strided_((2,), (1,), 9)
    y = torch.arange(10.0, device="tpu").as_strided((3, 3), (3, 1), 1)
    assert y.tolist() == torch.arange(10.0).as_strided((3, 3), (3, 1), 1).tolist()
