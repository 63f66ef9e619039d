"""A fast seeded run of the differential fuzzer (tools/fuzz): random calls of
common ops on CPU and on tpu, each batch in a subprocess. No crash, no hang,
and every wrong answer (value, dtype, shape, stride, a missing refusal) must be
listed in docs/fuzz_known.md with its reason."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tools.fuzz import calls, compare, execute, known, report, runner  # noqa: E402

SEED, N = 20261201, 110


def test_fuzz_fast_no_crash_no_unknown_difference():
    specs = calls.calls(SEED, N)
    recs = runner.run_batch(specs, call_timeout=90.0)
    assert all(r is not None for r in recs)
    recs = report.classify(specs, recs, known.load())
    t = report.totals(recs)
    bad = [f"{r['id']} {r['fn']} {r['dt']} {r['kind']}: {r['detail'][:300]}" for r in recs
           if r["kind"] in known.MUST_BE_KNOWN and not r["known"]]
    assert t["crash"] == 0 and t["hang"] == 0, bad
    assert not bad, "differences not in docs/fuzz_known.md (replay: python -m tools.fuzz --replay-id ID):\n" + \
        "\n".join(bad)
    assert t["ok"] > N // 2  # the run compared answers, it did not only collect errors


def test_known_table_rows_are_well_formed():
    rows = known.load()
    for r in rows:
        assert r["kind"] in report.KINDS, r
        assert r["reason"], r


def _ok(t, strides=None):
    return ("ok", {"result": ("T", t, "tpu", strides or tuple(t.stride()))}, [t])


def test_comparison_catches_each_kind():
    spec = {"fn": "torch.neg", "form": "fn", "strides": True}
    a = torch.tensor([1.0, float("nan"), float("inf")])
    assert compare.compare(spec, _ok(a), _ok(a.clone()))[0] == "ok"
    assert compare.compare(spec, _ok(a), _ok(torch.tensor([1.0, float("nan"), 1.0])))[0] == "value"
    assert compare.compare(spec, _ok(a), _ok(torch.tensor([1.0, 2.0, float("inf")])))[0] == "value"
    assert compare.compare(spec, _ok(a), _ok(a.double()))[0] == "dtype"
    assert compare.compare(spec, _ok(a), _ok(a[:2]))[0] == "shape"
    m = torch.zeros(2, 3)
    assert compare.compare(spec, _ok(m), _ok(m.clone(), (1, 2)))[0] == "stride"
    err = ("raise", "RuntimeError", "x")
    assert compare.compare(spec, err, _ok(a))[0] == "cpu_raised"
    assert compare.compare(spec, _ok(a), err)[0] == "tpu_raised"
    assert compare.compare(spec, err, ("raise", "TypeError", "x"))[0] == "exc_type"
    assert compare.compare(dict(spec, tpu_must_raise=True), _ok(a), _ok(a))[0] == "no_raise"
    # float16 within OpInfo's tolerance, not beyond it
    h = torch.tensor([1000.0], dtype=torch.float16)
    assert compare.compare(spec, _ok(h), _ok(torch.tensor([1000.5], dtype=torch.float16)))[0] == "ok"
    assert compare.compare(spec, _ok(h), _ok(torch.tensor([1008.0], dtype=torch.float16)))[0] == "value"


def test_median_of_an_expanded_input_is_compared_with_cpus_true_median():
    """CPU's median(dim) of a stride-0 input returns values not in the input
    (tools/fuzz/execute.py CPU_STRIDE0_BUGS): the fuzzer takes CPU's result on
    a contiguous copy, so a wrong tpu median is caught (no fuzz_known row
    for it any more), and a right one passes."""
    for call_id in ("38:1257", "69:609"):  # float64 and uint8, found by the fuzzer
        spec = calls.make_call(*map(int, call_id.split(":")))
        assert spec["fn"] == "torch.median" and spec["args"][0]["view"] == "expand", spec
        cpu, tpu = execute.run(spec, "cpu"), execute.run(spec, "tpu")
        assert cpu[0] == "ok" and compare.compare(spec, cpu, tpu)[0] == "ok", (cpu, tpu)
        x = execute.build_arg(spec["args"][0], "cpu")
        assert 0 in x.stride()
        torch.testing.assert_close(cpu[1]["result"][1][0][1], x.contiguous().median(0).values)
        wrong = ("ok", {"result": ("L", [("T", cpu[1]["result"][1][0][1] + 1, "tpu", ()),
                                         cpu[1]["result"][1][1]])}, tpu[2])
        kind, detail = compare.compare(spec, cpu, wrong)
        assert kind == "value" and not known.match(known.load(), spec["fn"], calls.first_dtype(spec), kind, detail), detail


def test_runner_records_a_crash_and_a_hang_and_goes_on(monkeypatch):
    specs = [{"id": f"t:{i}", "fn": "torch.neg", "form": "fn",
              "args": [{"k": "T", "shape": [3], "dtype": "float32", "fill": "normal", "seed": i, "view": None}],
              "kwargs": {}} for i in range(3)]
    monkeypatch.setenv("TT_FUZZ_SELFTEST_ABORT", "t:1")
    monkeypatch.setenv("TT_FUZZ_SELFTEST_HANG", "t:2")
    recs = runner.run_batch(specs, call_timeout=8.0)  # two worker processes: the second starts after the crash
    assert [r["kind"] for r in recs] == ["ok", "crash", "hang"], recs
    assert "exit status -6" in recs[1]["detail"]


def test_generator_draws_out_of_range_dims_without_crashing():
    # index_add with an out-of-range dim (d.dim draws ndim + 1 now and then) indexed the shape with it
    for seed, i in ((5, 529), (6, 598), (9, 179)):
        spec = calls.make_call(seed, i)
        assert spec["fn"] in ("torch.index_add", "Tensor.index_add_"), spec["fn"]
