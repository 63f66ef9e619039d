"""pickle, torch.save/torch.load (new and legacy formats) and DLPack with tpu
tensors, compared with the same round trip on CPU: values, dtype, device,
requires_grad, and storage sharing between views."""
import copy
import io
import pickle

import numpy as np
import pytest
import torch


def _sample():
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    return {"base": base, "row": base[1], "col": base[:, 2], "ints": torch.arange(5), "flag": torch.tensor([True, False]),
            "cplx": torch.tensor([1 + 2j, -3j], dtype=torch.complex64), "half": torch.ones(3, dtype=torch.bfloat16)}


def _to(obj, device):
    # keeps views views: move the bases, rebuild the views from them
    out = {k: v.to(device) for k, v in obj.items() if k not in ("row", "col")}
    out["row"], out["col"] = out["base"][1], out["base"][:, 2]
    return out


def _save(obj, **kw):
    b = io.BytesIO()
    torch.save(obj, b, **kw)
    b.seek(0)
    return b


def _check_same(got, want, device):
    assert got.keys() == want.keys()
    for k in want:
        assert got[k].device.type == device, k
        assert got[k].dtype == want[k].dtype, k
        assert got[k].shape == want[k].shape and got[k].stride() == want[k].stride(), k
        assert got[k].storage_offset() == want[k].storage_offset(), k
        torch.testing.assert_close(got[k].cpu(), want[k].cpu(), rtol=0, atol=0)
    shares = lambda d, a, b: d[a].untyped_storage().data_ptr() == d[b].untyped_storage().data_ptr()
    for a, b in [("base", "row"), ("base", "col"), ("base", "ints")]:
        assert shares(got, a, b) == shares(want, a, b), (a, b)


def _write_through_base(got, want):
    # a write through the loaded base reaches the loaded views exactly when it does on CPU
    got["base"].add_(100)
    want["base"].add_(100)
    for k in ("row", "col"):
        torch.testing.assert_close(got[k].cpu(), want[k], rtol=0, atol=0)


@pytest.mark.parametrize("how", ["pickle", "legacy", "zipfile"])
def test_round_trip_to_tpu(how):
    cpu = _sample()
    tpu = _to(cpu, "tpu")
    if how == "pickle":
        want, got = pickle.loads(pickle.dumps(cpu)), pickle.loads(pickle.dumps(tpu))
    else:
        kw = {"_use_new_zipfile_serialization": how == "zipfile"}
        want, got = torch.load(_save(cpu, **kw)), torch.load(_save(tpu, **kw))
    _check_same(got, want, "tpu")
    _write_through_base(got, want)


@pytest.mark.parametrize("legacy", [False, True])
def test_load_with_map_location(legacy):
    cpu = _sample()
    kw = {"_use_new_zipfile_serialization": not legacy}
    _check_same(torch.load(_save(_to(cpu, "tpu"), **kw), map_location="cpu"), cpu, "cpu")
    _check_same(torch.load(_save(cpu, **kw), map_location="tpu"), torch.load(_save(cpu, **kw)), "tpu")


def _bytes(st):
    st = st._untyped_storage if isinstance(st, torch.TypedStorage) else st
    return bytes(st.cpu())


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("how", ["pickle", "legacy", "zipfile"])
def test_storages_round_trip(how):
    cpu = torch.arange(6, dtype=torch.int32).untyped_storage()
    tpu = torch.arange(6, dtype=torch.int32, device="tpu").untyped_storage()
    kw = {"_use_new_zipfile_serialization": how == "zipfile"}
    trip = (lambda st: pickle.loads(pickle.dumps(st))) if how == "pickle" else (lambda st: torch.load(_save(st, **kw)))
    try:
        want = trip(cpu)
    except Exception as e:  # PyTorch's legacy format cannot load a bare UntypedStorage, on CPU either
        with pytest.raises(type(e)) as got:
            trip(tpu)
        assert str(got.value) == str(e)
        return
    got = trip(tpu)
    assert type(got) is type(want) and got.device.type == "tpu" and got.nbytes() == want.nbytes()
    assert _bytes(got) == _bytes(want)


def test_pickle_module_with_tpu_parameters():
    torch.manual_seed(0)
    cpu = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    tpu = copy.deepcopy(cpu).to("tpu")
    tpu[0].weight.requires_grad_(False)
    cpu[0].weight.requires_grad_(False)
    got, want = pickle.loads(pickle.dumps(tpu)), pickle.loads(pickle.dumps(cpu))
    for (n, a), (m, b) in zip(got.state_dict(keep_vars=True).items(), want.state_dict(keep_vars=True).items()):
        assert n == m and a.device.type == "tpu" and type(a) is type(b) and a.requires_grad == b.requires_grad, n
        torch.testing.assert_close(a.detach().cpu(), b.detach(), rtol=0, atol=0)
    x = torch.randn(5, 4)
    torch.testing.assert_close(got(x.to("tpu")).cpu(), want(x))


def test_pickle_keeps_requires_grad():
    t = torch.randn(3, device="tpu", requires_grad=True)
    got = pickle.loads(pickle.dumps(t))
    assert got.requires_grad and got.device.type == "tpu"
    torch.testing.assert_close(got.detach().cpu(), t.detach().cpu(), rtol=0, atol=0)


def test_dlpack_device_is_extdev_as_for_privateuse1():
    from torch.utils.dlpack import DLDeviceType
    assert torch.ones(2, device="tpu").__dlpack_device__() == (DLDeviceType.kDLExtDev, 0)


def test_dlpack_exports_a_cpu_copy_when_asked():
    cpu = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = cpu.to("tpu")
    np.testing.assert_array_equal(np.from_dlpack(t, device="cpu"), np.from_dlpack(cpu))
    cap = t.__dlpack__(dl_device=(1, 0))
    torch.testing.assert_close(torch.utils.dlpack.from_dlpack(cap), cpu, rtol=0, atol=0)


@pytest.mark.parametrize("call", ["torch.from_dlpack", "__dlpack__", "copy=False", "numpy"])
def test_dlpack_without_a_copy_raises_buffer_error(call):
    t = torch.ones(3, device="tpu")
    with pytest.raises(BufferError, match="Can't export a tpu tensor through DLPack without a copy"):
        if call == "torch.from_dlpack":
            torch.from_dlpack(t)
        elif call == "__dlpack__":
            t.__dlpack__()
        elif call == "copy=False":
            t.__dlpack__(dl_device=(1, 0), copy=False)
        else:
            np.from_dlpack(t)


def test_dlpack_keeps_pytorchs_refusals():
    for t, cpu in [(torch.ones(2, device="tpu", requires_grad=True), torch.ones(2, requires_grad=True))]:
        with pytest.raises(BufferError) as want:
            cpu.__dlpack__()
        with pytest.raises(BufferError) as got:
            t.__dlpack__(dl_device=(1, 0))
        assert str(got.value) == str(want.value)
