"""Compile cache tiers 2 (host-local, shared by processes) and 3 (persistent
directory), exercised by real processes: concurrent writers, a second run that
compiles nothing, damaged entries recovered from."""
import json
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

# One MLP training step; prints the cache counters and the losses as JSON.
SCRIPT = r"""
import json, sys, torch
sys.path.insert(0, %r)
from models import batch, loss_fn, make
torch.manual_seed(0)
model = make("mlp").to("tpu")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = (t.to("tpu") for t in batch("mlp"))
losses = []
for _ in range(2):
    opt.zero_grad()
    loss = loss_fn("mlp", model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
print(json.dumps({"stats": torch.tpu.cache_stats(), "losses": losses}))
""" % HERE


def _env(tier2=None, tier3=None, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCH_TPU_TIER") and k != "WORLD_SIZE"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    if tier2:
        env["TORCH_TPU_TIER2_COMPILATION_CACHE_DIR"] = str(tier2)
    env["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = str(tier3) if tier3 else "off"
    env.update(extra)
    return env


def _start(env):
    return subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(p):
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _run(env):
    return _finish(_start(env))


def _entries(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".ttx"))


@pytest.fixture(scope="module")
def populated(tmp_path_factory):
    """Three ranks of one host start together on empty caches: tier 2 is on by
    default because WORLD_SIZE > 1; all of them write the same keys at once."""
    root = tmp_path_factory.mktemp("cache")
    t2, t3 = root / "shm", root / "persistent"
    procs = [_start(_env(t2, t3, WORLD_SIZE="3", RANK=str(r))) for r in range(3)]
    return t2, t3, [_finish(p) for p in procs]


def test_concurrent_processes_fill_tiers_2_and_3(populated):
    t2, t3, runs = populated
    for r in runs:
        assert r["losses"] == runs[0]["losses"]
        assert r["stats"]["tier2_dir"] == str(t2) and r["stats"]["tier3_dir"] == str(t3)
        assert r["stats"]["corrupt_entries"] == 0 and r["stats"]["write_errors"] == 0
    assert len(_entries(t3)) > 0 and _entries(t2) == _entries(t3)
    assert not [f for f in os.listdir(t3) if not f.endswith(".ttx")], "temporary files left behind"
    assert not [f for f in os.listdir(t2) if not f.endswith(".ttx")], "temporary files left behind"


def test_second_run_with_tier3_compiles_nothing(populated):
    t2, t3, runs = populated
    n = len(_entries(t3))
    # A later job with only the persistent tier (WORLD_SIZE unset: tier 2 off).
    warm = _run(_env(tier3=t3))
    s = warm["stats"]
    assert warm["losses"] == runs[0]["losses"]
    assert s["tier2_dir"] is None
    assert s["misses"] == 0 and s["compile_seconds"] == 0.0
    assert s["tier3_hits"] == n == s["executables"]
    # Tier 2 alone (forced on) serves another process of the same host.
    host = _run(_env(tier2=t2, TORCH_TPU_TIER2_COMPILATION_CACHE="1"))
    assert host["stats"]["misses"] == 0 and host["stats"]["tier2_hits"] == n
    assert host["losses"] == runs[0]["losses"]


def test_damaged_entries_are_counted_ignored_and_rewritten(populated, tmp_path):
    t3 = tmp_path / "persistent"
    shutil.copytree(populated[1], t3)
    cold = populated[2][0]
    names = _entries(t3)
    assert len(names) >= 3
    damaged = names[:3]
    with open(t3 / damaged[0], "r+b") as f:  # a write cut short
        f.truncate(os.path.getsize(t3 / damaged[0]) // 2)
    with open(t3 / damaged[1], "r+b") as f:  # one flipped byte in the payload
        f.seek(100)
        b = f.read(1)
        f.seek(100)
        f.write(bytes([b[0] ^ 0xFF]))
    (t3 / damaged[2]).write_bytes(b"")  # empty file
    repaired = _run(_env(tier3=t3))
    s = repaired["stats"]
    assert repaired["losses"] == cold["losses"]
    assert s["corrupt_entries"] == 3 and s["misses"] == 3 and s["tier3_writes"] == 3
    assert s["tier3_hits"] == len(names) - 3
    again = _run(_env(tier3=t3))
    assert again["stats"]["corrupt_entries"] == 0 and again["stats"]["misses"] == 0
    assert again["losses"] == cold["losses"]


def test_cache_stats_keys_and_tier_switches(tmp_path):
    import torch

    s = torch.tpu.cache_stats()
    for key in ("requests", "hits", "misses", "executables", "compile_seconds", "tier1_hits", "tier2_hits",
                "tier3_hits", "corrupt_entries"):
        assert key in s
    assert s["hits"] == s["tier1_hits"] + s["tier2_hits"] + s["tier3_hits"]
    if "WORLD_SIZE" not in os.environ and "TORCH_TPU_TIER2_COMPILATION_CACHE" not in os.environ:
        assert s["tier2_dir"] is None
    # Tier 2 forced off despite WORLD_SIZE > 1; a tier-3 root that cannot be a
    # directory: a warning, and the process runs without it.
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    p = _start(_env(tmp_path / "shm", blocker / "cache", WORLD_SIZE="4", TORCH_TPU_TIER2_COMPILATION_CACHE="0"))
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert "tier-3 compilation cache" in err and "continuing without it" in err
    stats = json.loads(out.strip().splitlines()[-1])["stats"]
    assert stats["tier2_dir"] is None and stats["tier3_dir"] is None
    assert not (tmp_path / "shm").exists()


def test_tier3_size_limit_evicts_and_still_matches(populated, tmp_path):
    """A tier-3 limit smaller than one run's entries: the run evicts (least
    recently used first), stays within the limit, and computes the same losses."""
    _, t3, runs = populated
    sizes = [os.path.getsize(t3 / f) for f in _entries(t3)]
    limit = sum(sizes) // 2
    small = tmp_path / "small"
    out = _run(_env(tier3=small, TORCH_TPU_TIER3_COMPILATION_CACHE_MAX_BYTES=str(limit)))
    assert out["stats"]["tier3_evicted"] > 0
    assert sum(os.path.getsize(small / f) for f in _entries(small)) <= limit
    assert out["losses"] == runs[0]["losses"]
    # A second run over what survived: still within the limit, same losses.
    again = _run(_env(tier3=small, TORCH_TPU_TIER3_COMPILATION_CACHE_MAX_BYTES=str(limit)))
    assert again["stats"]["corrupt_entries"] == 0 and again["losses"] == runs[0]["losses"]
    assert sum(os.path.getsize(small / f) for f in _entries(small)) <= limit


def test_tier1_limit_evicts_and_reloads_from_tier3(populated, tmp_path):
    """A tier-1 limit below one step's programs: least recently used
    executables are evicted; a re-miss loads from tier 3 (each program is
    compiled once), or compiles again without it; the losses never change."""
    _, t3, runs = populated
    programs = len(_entries(t3))
    limited = _run(_env(tier3=tmp_path / "t3", TORCH_TPU_TIER1_COMPILATION_CACHE_MAX_ENTRIES="3"))
    s = limited["stats"]
    assert limited["losses"] == runs[0]["losses"]
    assert s["executables"] <= 3 and s["tier1_evicted"] > 0
    assert s["misses"] == programs and s["tier3_hits"] > 0
    alone = _run(_env(TORCH_TPU_TIER1_COMPILATION_CACHE_MAX_ENTRIES="3"))
    assert alone["losses"] == runs[0]["losses"]
    assert alone["stats"]["misses"] > programs and alone["stats"]["tier1_evicted"] > 0
    unlimited = _run(_env(TORCH_TPU_TIER1_COMPILATION_CACHE_MAX_ENTRIES="0"))
    assert unlimited["stats"]["tier1_evicted"] == 0 and unlimited["stats"]["misses"] == programs


@pytest.mark.parametrize("mode", ["strict", "defer_and_fuse"])
def test_async_compile_gives_the_same_results(mode):
    """Compiles in the background (default) or on the calling thread
    (TORCH_TPU_ASYNC_COMPILE=0): the same losses, programs and compiles."""
    extra = {"TORCH_TPU_DEFER_AND_FUSE": "1"} if mode == "defer_and_fuse" else {}
    on = _run(_env(**extra))
    off = _run(_env(TORCH_TPU_ASYNC_COMPILE="0", **extra))
    assert on["losses"] == off["losses"]
    assert on["stats"]["async_compiles"] > 0 and off["stats"]["async_compiles"] == 0
    assert on["stats"]["misses"] == off["stats"]["misses"] == on["stats"]["executables"]
    # Every background compile is one program; the rest joined one under way.
    assert on["stats"]["async_compiles"] == on["stats"]["misses"]


EXIT_WHILE_COMPILING = r"""
import torch
xs = [torch.full((n,), 2.0, device="tpu") for n in range(1, 25)]
ys = [(x * 3 + 1).exp() for x in xs]  # 24 shapes: compiles queued, nothing waited for
print("done", flush=True)
"""


def test_exit_with_compiles_under_way_is_clean():
    """The interpreter exits while compile threads still work: they are
    joined before the plugin unloads (no crash, no hang, exit status 0)."""
    p = subprocess.run([sys.executable, "-c", EXIT_WHILE_COMPILING], env=_env(), capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "done"
