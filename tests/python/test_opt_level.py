"""XLA's backend optimization level (TORCH_TPU_XLA_OPTIMIZATION_LEVEL,
csrc/exec/opt_level.h): 1 by default on XLA's CPU plugin, part of the
compile-options key. Fresh processes share one tier-3 directory: a run at
level 3 fills it; a run at level 1 finds none of its entries (another key)
and computes the same values; a run with the variable unset is a level-1
run (all its programs load from the level-1 run's entries); an out-of-range
value warns and falls back to the default."""
import json
import os
import subprocess
import sys

import torch

CHILD = r"""
import json, torch, torchtpu
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32), torch.nn.Linear(32, 4)).to("tpu")
opt = torch.optim.SGD(m.parameters(), lr=0.1)
x, y = torch.randn(8, 16).to("tpu"), torch.randn(8, 4).to("tpu")
losses = []
for _ in range(3):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(m(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
torch.tpu.synchronize()
s = torch.tpu.cache_stats()
print("R " + json.dumps({"losses": losses, **{k: s[k] for k in ("misses", "tier3_hits", "tier3_writes")}}))
"""


def _run(tier3, level):
    env = dict(os.environ, TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=str(tier3))
    env.pop("TORCH_TPU_TIER2_COMPILATION_CACHE", None)
    env.pop("TORCH_TPU_TIERED_COMPILE", None)
    env.pop("TORCH_TPU_XLA_OPTIMIZATION_LEVEL", None)
    if level is not None:
        env["TORCH_TPU_XLA_OPTIMIZATION_LEVEL"] = level
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300)
    for line in r.stdout.splitlines():
        if line.startswith("R "):
            return dict(json.loads(line[2:]), stderr=r.stderr)
    raise AssertionError(f"no result (rc {r.returncode}): {(r.stdout + r.stderr)[-2000:]}")


def test_levels_are_keyed_apart_and_compute_the_same(tmp_path):
    three = _run(tmp_path, "3")
    assert three["misses"] > 0 and three["tier3_hits"] == 0 and three["tier3_writes"] == three["misses"]
    one = _run(tmp_path, "1")
    assert one["tier3_hits"] == 0 and one["misses"] == three["misses"], one  # level 3's entries are not level 1's
    torch.testing.assert_close(torch.tensor(one["losses"]), torch.tensor(three["losses"]), rtol=1e-6, atol=1e-7)
    default = _run(tmp_path, None)
    assert default["misses"] == 0 and default["tier3_hits"] == one["misses"], default  # the CPU default is 1
    assert default["losses"] == one["losses"]


def test_out_of_range_level_warns_and_uses_the_default(tmp_path):
    r = _run(tmp_path, "7")
    assert "TORCH_TPU_XLA_OPTIMIZATION_LEVEL=7 is above 3" in r["stderr"], r["stderr"][-500:]
    assert _run(tmp_path, None)["misses"] == 0  # 7 ran at the default level: its entries are the default's
