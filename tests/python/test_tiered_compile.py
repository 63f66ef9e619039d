"""Tiered compilation (TORCH_TPU_TIERED_COMPILE / torch.tpu.set_tiered_compile,
csrc/exec/tiered.h): new programs compile quickly first, hot ones are
recompiled optimized in the background and swapped in, only optimized
executables reach tier 3. A training run in fresh processes with it off and
on: the losses agree to float32 rounding (quick and optimized code may round
differently: not bitwise), the counters say what happened, and a warm start
from the tiered run's tier 3 loads the upgraded programs."""
import json
import os
import subprocess
import sys

import pytest
import torch

import torchtpu  # noqa: F401

CHILD = r"""
import json, sys, torch, torchtpu
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.LayerNorm(64),
                        torch.nn.Linear(64, 8)).to("tpu")
opt = torch.optim.AdamW(m.parameters())
x = torch.randn(16, 32).to("tpu")
y = torch.randn(16, 8).to("tpu")
losses = []
for i in range(int(sys.argv[1])):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(m(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
torch.tpu.synchronize()
s = torch.tpu.cache_stats()
keys = ["misses", "fast_compiles", "upgrades", "tier3_writes", "tier3_hits", "executables"]
print("R " + json.dumps({"losses": losses, "threshold": torch.tpu.get_tiered_compile(), **{k: s[k] for k in keys}}))
"""


def _run(tmp_path, tiered, steps=300, tier3=None):
    env = dict(os.environ, TORCH_TPU_TIERED_COMPILE=str(tiered),
               TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=str(tier3 or tmp_path / f"t3_{tiered}"))
    env.pop("TORCH_TPU_TIER2_COMPILATION_CACHE", None)
    r = subprocess.run([sys.executable, "-c", CHILD, str(steps)], env=env, capture_output=True, text=True, timeout=300)
    for line in r.stdout.splitlines():
        if line.startswith("R "):
            return json.loads(line[2:])
    raise AssertionError(f"no result (rc {r.returncode}): {(r.stdout + r.stderr)[-2000:]}")


def test_tiered_training_matches_and_upgrades(tmp_path):
    off, on = _run(tmp_path, 0), _run(tmp_path, 1)
    assert off["threshold"] == 0 and on["threshold"] == 1
    assert off["fast_compiles"] == 0 and off["upgrades"] == 0 and off["tier3_writes"] == off["misses"]
    assert on["misses"] == off["misses"] and on["fast_compiles"] == on["misses"]  # every first compile quick
    assert on["upgrades"] > 0, on                                  # hot programs were recompiled optimized
    assert on["tier3_writes"] == on["upgrades"]                    # and only those reached tier 3
    assert on["executables"] == off["executables"]                 # a swap replaces, it does not add
    torch.testing.assert_close(torch.tensor(on["losses"]), torch.tensor(off["losses"]), rtol=1e-5, atol=1e-6)
    # warm start from the tiered run's tier 3: the upgraded programs load, the rest compile (quickly)
    warm = _run(tmp_path, 1, tier3=tmp_path / "t3_1")
    # (an upgrade compiled and written at exit but not yet swapped in counts in neither counter: >=)
    assert warm["tier3_hits"] >= on["upgrades"]
    assert warm["fast_compiles"] == warm["misses"] == on["misses"] - warm["tier3_hits"]
    torch.testing.assert_close(torch.tensor(warm["losses"]), torch.tensor(off["losses"]), rtol=1e-5, atol=1e-6)


def test_set_tiered_compile_in_process():
    before = torch.tpu.get_tiered_compile()
    try:
        torch.tpu.set_tiered_compile(3)
        assert torch.tpu.get_tiered_compile() == 3
        with torch.tpu.eager_mode("debug"):  # no compile pool there: off
            assert torch.tpu.get_tiered_compile() == 0
        torch.tpu.set_tiered_compile(0)
        assert torch.tpu.get_tiered_compile() == 0
    finally:
        torch.tpu.set_tiered_compile(-1)  # the environment's again
    assert torch.tpu.get_tiered_compile() == before
