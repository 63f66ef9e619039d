"""Float32 matmul precision modes (torch.set_float32_matmul_precision,
torch.tpu.precision, torch.tpu.Precision): error bands against float64 per
mode on the CPU plugin, where the core writes out the TPU's bf16 passes
(medium: one pass, the bf16 band; high: three passes; highest: IEEE f32);
the mode follows the thread's block, DeferAndFuse, torch.compile, every op
lowering to dot_general or convolution (forward and backward); other dtypes
are untouched; the mode is in the compile-cache key. TorchTPU's API names."""
import threading
import warnings

import pytest
import torch
import torch.nn.functional as F

MODES = ("medium", "high", "highest")


@pytest.fixture(autouse=True)
def restore_precision():
    """Every test leaves PyTorch's global setting as it found it (others assume highest)."""
    before = torch.get_float32_matmul_precision()
    yield
    from torchtpu import _C

    _C._set_precision_override(None)
    torch.set_float32_matmul_precision(before)
    assert torch.tpu.get_precision() == before


def rel_err(got, ref):
    got, ref = got.detach().cpu().double(), ref.detach().double()
    return ((got - ref).norm() / ref.norm()).item()


def check_band(mode, err):
    """medium: the 1-pass bf16 band; high: < 1e-4; highest: float32."""
    if mode == "medium":
        assert 1e-4 < err < 1e-2, err
    elif mode == "high":
        assert err < 1e-4, err
    else:
        assert err < 1e-5, err


def matmul_errors(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    a, b = torch.randn(n, n, generator=g), torch.randn(n, n, generator=g)
    ref = a.double() @ b.double()
    ta, tb = a.to("tpu"), b.to("tpu")
    errs = {}
    for mode in MODES:
        torch.set_float32_matmul_precision(mode)
        errs[mode] = rel_err(ta @ tb, ref)
    return errs


@pytest.mark.parametrize("n", [256, 1024])
def test_matmul_bands_per_global_mode(n):
    errs = matmul_errors(n)
    for mode in MODES:
        check_band(mode, errs[mode])
    assert errs["high"] * 10 <= errs["medium"], errs
    assert errs["highest"] <= errs["high"], errs


def test_conv2d_bands_per_mode():
    g = torch.Generator().manual_seed(1)
    x, w = torch.randn(2, 16, 20, 20, generator=g), torch.randn(8, 16, 3, 3, generator=g)
    ref = F.conv2d(x.double(), w.double(), padding=1)
    errs = {}
    for mode in MODES:
        with torch.tpu.precision(mode):
            errs[mode] = rel_err(F.conv2d(x.to("tpu"), w.to("tpu"), padding=1), ref)
        check_band(mode, errs[mode])
    assert errs["high"] * 10 <= errs["medium"], errs


def test_block_overrides_the_global_mode_both_ways():
    a, b = torch.randn(256, 256), torch.randn(256, 256)
    ref = a.double() @ b.double()
    ta, tb = a.to("tpu"), b.to("tpu")
    torch.set_float32_matmul_precision("medium")
    with torch.tpu.precision("highest"):
        check_band("highest", rel_err(ta @ tb, ref))
        with torch.tpu.precision(torch.tpu.Precision.DEFAULT):  # nesting
            check_band("medium", rel_err(ta @ tb, ref))
        check_band("highest", rel_err(ta @ tb, ref))  # restored
    check_band("medium", rel_err(ta @ tb, ref))
    torch.set_float32_matmul_precision("highest")
    with torch.tpu.precision("medium"):
        assert torch.tpu.get_precision() == "medium"
        check_band("medium", rel_err(ta @ tb, ref))
    with torch.tpu.precision(torch.tpu.Precision.HIGH):
        check_band("high", rel_err(ta @ tb, ref))
    check_band("highest", rel_err(ta @ tb, ref))
    with pytest.raises(ValueError, match="medium"):
        with torch.tpu.precision("low"):
            pass


def test_block_is_thread_local():
    a, b = torch.randn(128, 128), torch.randn(128, 128)
    ref = a.double() @ b.double()
    ta, tb = a.to("tpu"), b.to("tpu")
    seen = {}

    def other():
        seen["mode"] = torch.tpu.get_precision()
        seen["err"] = rel_err(ta @ tb, ref)

    with torch.tpu.precision("medium"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        check_band("medium", rel_err(ta @ tb, ref))
    assert seen["mode"] == "highest"
    check_band("highest", seen["err"])


def test_defer_and_fuse_region_mixes_modes():
    a, b = torch.randn(256, 256), torch.randn(256, 256)
    ref = a.double() @ b.double()
    ta, tb = a.to("tpu"), b.to("tpu")
    with torch.tpu.eager_mode("defer_and_fuse"):
        before = torch.tpu.region_stats()["flushes"]
        with torch.tpu.precision("medium"):
            y_med = ta @ tb
        with torch.tpu.precision("high"):
            y_high = ta @ tb
        y_top = ta @ tb  # global: highest
        out = torch.stack([y_med, y_high, y_top]).cpu()  # one region, one flush
        assert torch.tpu.region_stats()["flushes"] == before + 1
    check_band("medium", rel_err(out[0], ref))
    check_band("high", rel_err(out[1], ref))
    check_band("highest", rel_err(out[2], ref))


def _new_programs():
    s = torch.tpu.cache_stats()
    return s["misses"] + s["tier2_hits"] + s["tier3_hits"]  # not found in memory: compiled or loaded


def test_mode_change_compiles_switching_back_hits_the_cache():
    a, b = torch.randn(48, 40, device="tpu"), torch.randn(40, 56, device="tpu")
    torch.set_float32_matmul_precision("highest")
    (a @ b).cpu()
    n0 = _new_programs()
    (a @ b).cpu()
    assert _new_programs() == n0  # same mode: cached
    torch.set_float32_matmul_precision("medium")
    (a @ b).cpu()
    n1 = _new_programs()
    assert n1 == n0 + 1  # a new key: a new program
    torch.set_float32_matmul_precision("high")
    (a @ b).cpu()
    assert _new_programs() == n1 + 1
    hits = torch.tpu.cache_stats()["tier1_hits"]
    for mode in ("medium", "highest", "high"):
        torch.set_float32_matmul_precision(mode)
        (a @ b).cpu()
    assert _new_programs() == n1 + 1  # every mode back: no compile
    assert torch.tpu.cache_stats()["tier1_hits"] >= hits + 3


def _ops():
    g = torch.Generator().manual_seed(3)
    r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
    x3, y3 = r(4, 64, 96), r(4, 96, 80)
    a, b, c = r(64, 96), r(96, 80), r(64, 80)
    w, bias = r(80, 96), r(80)
    return {
        "bmm": (torch.bmm, (x3, y3)),
        "matmul": (torch.matmul, (x3, y3)),
        "linear": (F.linear, (a, w, bias)),
        "addmm": (lambda c_, a_, b_: torch.addmm(c_, a_, b_, beta=0.5, alpha=2.0), (c, a, b)),
        "einsum": (lambda p, q: torch.einsum("bij,bjk->bik", p, q), (x3, y3)),
        "baddbmm": (lambda p, q: torch.baddbmm(torch.zeros(4, 64, 80, dtype=p.dtype, device=p.device), p, q),
                    (x3, y3)),
        "conv1d": (lambda p, q: F.conv1d(p, q, padding=2), (r(2, 32, 50), r(16, 32, 5))),
        "conv_transpose2d": (lambda p, q: F.conv_transpose2d(p, q, stride=2), (r(2, 16, 9, 9), r(16, 8, 3, 3))),
    }


@pytest.mark.parametrize("name", list(_ops()))
def test_ops_follow_the_mode(name):
    fn, args = _ops()[name]
    ref = fn(*[t.double() for t in args])
    targs = [t.to("tpu") for t in args]
    errs = {}
    for mode in ("medium", "highest"):
        with torch.tpu.precision(mode):
            errs[mode] = rel_err(fn(*targs), ref)
        check_band(mode, errs[mode])


@pytest.mark.parametrize("kind", ["linear", "conv2d"])
def test_backward_follows_the_mode(kind):
    g = torch.Generator().manual_seed(4)
    if kind == "linear":
        x, w = torch.randn(64, 96, generator=g), torch.randn(80, 96, generator=g)
        fn = F.linear
    else:
        x, w = torch.randn(2, 16, 12, 12, generator=g), torch.randn(8, 16, 3, 3, generator=g)
        fn = lambda p, q: F.conv2d(p, q, padding=1)  # noqa: E731
    gy = torch.randn(fn(x, w).shape, generator=g)
    xd, wd = x.double().requires_grad_(), w.double().requires_grad_()
    fn(xd, wd).backward(gy.double())
    for mode in ("medium", "high", "highest"):
        xt, wt = x.to("tpu").requires_grad_(), w.to("tpu").requires_grad_()
        with torch.tpu.precision(mode):
            fn(xt, wt).backward(gy.to("tpu"))
        check_band(mode, rel_err(xt.grad, xd.grad))
        check_band(mode, rel_err(wt.grad, wd.grad))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float64])
def test_other_dtypes_are_unaffected(dtype):
    g = torch.Generator().manual_seed(5)
    a, b = torch.randn(64, 72, generator=g).to(dtype), torch.randn(72, 40, generator=g).to(dtype)
    x, w = torch.randn(1, 4, 9, 9, generator=g).to(dtype), torch.randn(3, 4, 3, 3, generator=g).to(dtype)
    ta, tb, tx, tw = (t.to("tpu") for t in (a, b, x, w))
    outs = {}
    for mode in MODES:
        with torch.tpu.precision(mode):
            outs[mode] = ((ta @ tb).cpu(), F.conv2d(tx, tw).cpu())
    for mode in ("medium", "high"):
        assert torch.equal(outs[mode][0], outs["highest"][0])
        assert torch.equal(outs[mode][1], outs["highest"][1])
    torch.testing.assert_close(outs["highest"][0], a @ b)


def test_compiled_graph_follows_the_mode():
    torch._dynamo.reset()
    a, b = torch.randn(128, 128), torch.randn(128, 128)
    ref = (a.double() @ b.double()).relu()
    f = torch.compile(lambda p, q: (p @ q).relu(), backend="tpu")
    ta, tb = a.to("tpu"), b.to("tpu")
    check_band("highest", rel_err(f(ta, tb), ref))
    with torch.tpu.precision("medium"):
        check_band("medium", rel_err(f(ta, tb), ref))
    torch.set_float32_matmul_precision("high")
    check_band("high", rel_err(f(ta, tb), ref))


def test_pytorch_flags_move_the_same_setting():
    torch.set_float32_matmul_precision("highest")
    torch.backends.cuda.matmul.allow_tf32 = True  # PyTorch maps it to "high"
    assert torch.get_float32_matmul_precision() == "high"
    assert torch.tpu.get_precision() == "high"
    a, b = torch.randn(256, 256), torch.randn(256, 256)
    check_band("high", rel_err(a.to("tpu") @ b.to("tpu"), a.double() @ b.double()))
    torch.backends.cuda.matmul.allow_tf32 = False
    assert torch.tpu.get_precision() == "highest"
    with torch.tpu.precision("medium"):  # a block still wins over the flags
        torch.backends.cuda.matmul.allow_tf32 = True
        assert torch.tpu.get_precision() == "medium"
    torch.backends.cuda.matmul.allow_tf32 = False


def test_mixed_legacy_and_new_apis_do_not_break_ops():
    """PyTorch refuses get_float32_matmul_precision() once the legacy and the
    new fp32_precision APIs are mixed; ops then follow the new API's generic value."""
    from torchtpu import _precision

    torch.set_float32_matmul_precision("highest")
    saved = torch.backends.cuda.matmul.fp32_precision
    try:
        torch.backends.cuda.matmul.fp32_precision = "tf32"
        with pytest.raises(RuntimeError):
            torch.get_float32_matmul_precision()
        assert torch.tpu.get_precision() == _precision.fallback_mode()
        a = torch.randn(8, 8)
        torch.testing.assert_close((a.to("tpu") @ a.to("tpu")).cpu(), a @ a)
    finally:
        torch.backends.cuda.matmul.fp32_precision = saved
        torch.backends.cuda.matmul.allow_tf32 = False
    assert torch.get_float32_matmul_precision() == "highest"


def test_tpu_default_is_medium_until_the_user_sets_one(monkeypatch):
    """On a TPU platform (simulated: the hooks _precision.on_init runs), the
    default is medium and high/highest warn once; the user's call rules."""
    from torchtpu import _C, _precision

    monkeypatch.setattr(_precision, "_user_set", False)
    monkeypatch.setattr(_precision, "_warned", set())
    try:
        _precision.on_init("tpu")
        assert torch.get_float32_matmul_precision() == "highest"
        assert torch.tpu.get_precision() == "medium"
        with pytest.warns(UserWarning, match="3 bf16"):
            torch.set_float32_matmul_precision("high")
        assert torch.tpu.get_precision() == "high"
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            torch.set_float32_matmul_precision("high")  # once
        with pytest.warns(UserWarning, match="6 bf16"):
            torch.set_float32_matmul_precision("highest")  # explicit highest is kept on TPU
        assert torch.tpu.get_precision() == "highest"
    finally:
        _precision.on_init(torch.tpu.runtime_info()["platform_name"])
        _C._set_precision_unset_default(None)


def test_torchtpu_names_script_runs_unchanged():
    a, b = torch.randn(256, 256), torch.randn(256, 256)
    ref = a.double() @ b.double()
    torch.tpu.set_eager_mode(torch.tpu.EagerMode.DEFER_AND_FUSE)
    try:
        assert torch.tpu.get_eager_mode() == torch.tpu.EagerMode.DEFER_AND_FUSE
        with torch.tpu.precision(torch.tpu.Precision.HIGHEST):
            y = a.to("tpu") @ b.to("tpu")
        check_band("highest", rel_err(y, ref))
        with torch.tpu.precision(torch.tpu.Precision.DEFAULT):
            y = a.to("tpu") @ b.to("tpu")
        check_band("medium", rel_err(y, ref))
    finally:
        torch.tpu.set_eager_mode(torch.tpu.EagerMode.DEFER_NEVER)
    assert torch.tpu.get_eager_mode() == "strict"
    with torch.tpu.eager_mode(torch.tpu.EagerMode.DEFER_NEVER_AND_LAUNCH_BLOCKING):
        assert torch.tpu.get_eager_mode() == "debug"
    with torch.tpu.eager_mode("DEFER_AND_FUSE"):
        assert torch.tpu.get_eager_mode() == "defer_and_fuse"
    assert f"{torch.tpu.EagerMode.DEFER_AND_FUSE}" == "defer_and_fuse"


def test_torchtpu_names_exist():
    t = torch.ones(2, device="tpu")
    with torch.tpu.device_of(t):
        pass
    with torch.tpu.device_of(torch.ones(2)):
        pass
    s = torch.tpu.Stream()
    torch.tpu.set_stream(s)
    torch.tpu.set_stream(torch.tpu.default_stream())
    gen = torch.tpu.default_generators[0]
    gen.manual_seed(123)
    assert gen.initial_seed() == torch.tpu.initial_seed() == 123
    state = gen.get_state()
    x = torch.randn(4, device="tpu").cpu()
    gen.set_state(state)
    assert torch.equal(torch.randn(4, device="tpu").cpu(), x)
    assert torch.tpu.allow_excess_precision() is True
    assert torch.tpu.allow_excess_precision(True) is True
    for name in ("compiler", "ops", "profiler"):
        mod = getattr(torch.tpu, name)
        with pytest.raises(AttributeError, match=f"torch.tpu.{name}.anything is not available"):
            mod.anything
    import importlib

    assert importlib.import_module("torch.tpu.compiler") is torch.tpu.compiler
    assert [p.value for p in torch.tpu.Precision] == ["medium", "high", "highest"]
    torch.set_float32_matmul_precision(torch.tpu.Precision.HIGH)
    assert torch.get_float32_matmul_precision() == "high" == torch.tpu.get_precision()


@pytest.mark.parametrize("mode", MODES)
def test_non_finite_operands_as_float32(mode):
    """An infinity or NaN in an operand gives what float32 gives (the bf16
    split of an infinity must not turn the result into NaN)."""
    a = torch.tensor([[float("inf"), 1.0], [2.0, 3.0], [float("nan"), 1.0], [1.5, -2.0]])
    b = torch.tensor([[1.0, 2.0, 0.5], [1.0, -1.0, 4.0]])
    with torch.tpu.precision(mode):
        got = (a.to("tpu") @ b.to("tpu")).cpu()
    want = a @ b
    assert torch.equal(torch.isnan(got), torch.isnan(want)), got
    assert torch.equal(torch.isinf(got), torch.isinf(want)), got
    fin = torch.isfinite(want)
    torch.testing.assert_close(got[fin], want[fin], rtol=1e-2, atol=1e-2)


def _bf16_chain(a, b, c):
    x = a.bfloat16() * b.bfloat16()
    y = x + c.bfloat16()
    return (y * 1.7 - x).float()


def test_allow_excess_precision_false_keeps_every_rounding():
    """allow_excess_precision(False) compiles with xla_allow_excess_precision
    = false: a fused DeferAndFuse chain of bfloat16 ops then rounds after
    every op as CPU does (bit-identical), in a program of its own (a new key);
    switching back reuses the first kind's executables."""
    g = torch.Generator().manual_seed(5)
    a, b, c = (torch.randn(4096, generator=g) for _ in range(3))
    want = _bf16_chain(a, b, c)
    ta, tb, tc = a.to("tpu"), b.to("tpu"), c.to("tpu")

    def run():
        with torch.tpu.eager_mode("defer_and_fuse"):
            return _bf16_chain(ta, tb, tc).cpu()

    try:
        run()  # warm: the default kind compiled
        before = torch.tpu.cache_stats()["misses"]
        assert torch.tpu.allow_excess_precision(False) is True  # returns the previous value
        assert torch.tpu.allow_excess_precision() is False
        exact = run()
        assert torch.equal(exact, want)
        compiled = torch.tpu.cache_stats()["misses"] - before
        assert compiled >= 1  # its own programs
        torch.tpu.allow_excess_precision(True)
        run()
        assert torch.tpu.cache_stats()["misses"] - before == compiled  # the first kind is reused
    finally:
        torch.tpu.allow_excess_precision(True)
