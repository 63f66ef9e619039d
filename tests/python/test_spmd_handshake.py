"""The compilation handshake of graphs with collectives
(TORCH_TPU_SPMD_HANDSHAKE_STAGE) and @torch.tpu.spmd_safe, on 2 processes
over loopback (spmd_worker.py; test_dist.py's launcher: a timeout per run)."""
import os

import pytest
import torch

import torchtpu  # noqa: F401
from test_dist import assert_ok, launch

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spmd_worker.py")


def run(cases, **env):
    return launch(2, cases, timeout=150, worker=WORKER, env=env)


def test_handshake_stages_2_processes():
    # COMPILE_STAGE on equal graphs (in @spmd_safe), DISPATCH_STAGE, OFF with
    # diverging graphs, then COMPILE_STAGE on diverging graphs: each rank raises.
    cases = "same,dispatch,off,diverge"
    assert_ok(run(cases), cases)


def test_a_rank_that_never_compiles_raises_at_the_timeout():
    assert_ok(run("missing", PG_TIMEOUT="6"), "missing")


def test_spmd_safe_forms_and_stage_value():
    from torchtpu.distributed import _handshake

    @torch.tpu.spmd_safe
    def f():
        return _handshake.in_spmd_safe()

    assert f() and not _handshake.in_spmd_safe()
    with torch.tpu.spmd_safe():
        assert _handshake.in_spmd_safe()
    assert torch.tpu.spmd_safe()(lambda: _handshake.in_spmd_safe())()
    with pytest.raises(TypeError, match="expected a function"):
        torch.tpu.spmd_safe(3)
    os.environ["TORCH_TPU_SPMD_HANDSHAKE_STAGE"] = "SOMETIMES"
    try:
        with pytest.raises(RuntimeError, match="is not one of OFF, COMPILE_STAGE, DISPATCH_STAGE"):
            _handshake.stage()
    finally:
        del os.environ["TORCH_TPU_SPMD_HANDSHAKE_STAGE"]
    assert _handshake.stage() == "OFF"
