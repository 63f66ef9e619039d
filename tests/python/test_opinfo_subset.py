"""A fast subset of the OpInfo coverage harness (tools/opinfo.py, `make
opinfo`): entries known to pass must keep passing, forward in each listed
dtype and backward in float32, at the same tolerances as the full run."""
import importlib.util
import os
import warnings

import pytest
import torch

_spec = importlib.util.spec_from_file_location(
    "opinfo_harness", os.path.join(os.path.dirname(__file__), "..", "..", "tools", "opinfo.py"))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from torch.testing._internal.common_methods_invocations import op_db

# (op_db entry, dtypes): all known to pass forward; float32 also backward.
KNOWN_PASSING = [
    ("add", ("float32", "int64", "bool")),
    ("mul", ("float32", "bfloat16")),
    ("sum", ("float32", "int32")),
    ("mm", ("float32", "float16")),
    ("nn.functional.relu", ("float32",)),
    ("softmax", ("float32",)),
    ("max.reduction_with_dim", ("float32", "int64")),
    ("abs", ("float32",)),
]
_BY_NAME = {harness.entry_name(op): op for op in op_db}


@pytest.mark.parametrize("entry,dtypes", KNOWN_PASSING, ids=[e for e, _ in KNOWN_PASSING])
def test_known_passing_entry(entry, dtypes):
    op = _BY_NAME[entry]
    for dtype in dtypes:
        res = harness._run_unit(op, dtype, max_samples=1000, backward=True)
        assert res["fwd"] == "pass", (dtype, res)
        assert res["fwd_counts"]["pass"] > 0
        if dtype == "float32" and op.supports_autograd:
            assert res.get("bwd") == "pass", res


def test_harness_reports_an_unlowered_op_as_not_implemented():
    lib = torch.library.Library("tt_opinfo_test", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CPU")
    op = _BY_NAME["abs"]
    unlowered = type("Unlowered", (), {
        "name": "twice", "variant_test_name": "", "decorators": (), "skips": (), "supports_autograd": False,
        "sample_inputs": lambda self, *a, **k: op.sample_inputs(*a, **k),
        "__call__": lambda self, x, *a, **k: torch.ops.tt_opinfo_test.twice(x)})()
    res = harness._run_unit(unlowered, "float32", max_samples=3, backward=False)
    assert res["fwd"] == "notimpl" and res["missing"] == ["tt_opinfo_test::twice.default"], res


def test_random_entry_is_checked_by_properties_not_skipped():
    res = harness._run_unit(_BY_NAME["bernoulli"], "float32", max_samples=1000, backward=True)
    assert res["fwd"] == "prop" and res["fwd_counts"]["pass"] > 0, res
    assert "aten::bernoulli.default" in res["aten"] or "aten::bernoulli_.float" in res["aten"], res["aten"]


def test_property_check_rejects_wrong_support_and_irreproducible_values():
    import opinfo_props
    from torch.testing._internal.opinfo.core import SampleInput

    s = SampleInput(torch.full((4,), 0.5))
    ok = torch.tensor([0.0, 1.0, 1.0, 0.0])
    opinfo_props.check("bernoulli", s, ok, ok.clone(), ok)
    with pytest.raises(AssertionError, match="support"):
        opinfo_props.check("bernoulli", s, ok + 2, ok + 2, ok)
    with pytest.raises(AssertionError, match="reproducible"):
        opinfo_props.check("bernoulli", s, ok, 1 - ok, ok)
    with pytest.raises(AssertionError, match="shape or dtype"):
        opinfo_props.check("bernoulli", s, ok[:3], ok[:3], ok)
    many = SampleInput(torch.tensor([[0.0, 1.0, 1.0]]), 2)
    with pytest.raises(AssertionError, match="zero-probability"):
        opinfo_props.check("multinomial", many, torch.tensor([[0, 1]]), torch.tensor([[0, 1]]), torch.tensor([[1, 2]]))


def test_backward_ops_are_recorded():
    res = harness._run_unit(_BY_NAME["nn.functional.relu"], "float32", max_samples=1000, backward=True)
    assert res["bwd"] == "pass" and "aten::threshold_backward.default" in res["aten_bwd"], res
