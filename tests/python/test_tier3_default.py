"""Tier 3 (the persistent compile cache) is on by default in a per-user cache
directory: $XDG_CACHE_HOME/torchtpu/compile, else ~/.cache/torchtpu/compile,
created 0700; TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=off turns it off; a home
that cannot hold it warns once and runs without it. Each case runs in a
subprocess whose HOME / XDG_CACHE_HOME point into tmp_path (the suite itself
runs with tier 3 off: conftest.py)."""
import json
import os
import stat
import subprocess
import sys

import torch

CHILD = """
import json, torch
x = torch.arange(12, dtype=torch.float32, device="tpu").reshape(3, 4)
y = (x * 3 + 1).sum(0)
s = torch.tpu.cache_stats()
print(json.dumps({"y": y.cpu().tolist(), "tier3_dir": s["tier3_dir"], "tier3_hits": s["tier3_hits"],
                  "tier3_writes": s["tier3_writes"]}))
"""
EXPECTED = (torch.arange(12, dtype=torch.float32).reshape(3, 4) * 3 + 1).sum(0).tolist()  # on CPU


def _run(home, xdg=None, root=None):
    env = {k: v for k, v in os.environ.items() if k not in ("TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT", "XDG_CACHE_HOME", "HOME")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    env["TORCH_TPU_ASYNC_COMPILE"] = "0"  # writes happen before the stats are read
    env["HOME"] = str(home)
    if xdg is not None:
        env["XDG_CACHE_HOME"] = str(xdg)
    if root is not None:
        env["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = root
    p = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["y"] == EXPECTED
    return out, p.stderr


def test_default_is_under_home_cache_and_a_second_process_hits(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    first, _ = _run(home)
    want = home / ".cache" / "torchtpu" / "compile"
    assert first["tier3_dir"] == str(want)
    assert first["tier3_writes"] > 0 and first["tier3_hits"] == 0
    for d in (want, want.parent, want.parent.parent):  # created private, as tier 2's directory is
        assert stat.S_IMODE(os.stat(d).st_mode) == 0o700, d
    second, _ = _run(home)
    assert second["tier3_dir"] == str(want)
    assert second["tier3_hits"] > 0 and second["tier3_writes"] == 0


def test_xdg_cache_home_wins_and_a_relative_one_is_ignored(tmp_path):
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    home.mkdir()
    out, _ = _run(home, xdg=xdg)
    assert out["tier3_dir"] == str(xdg / "torchtpu" / "compile")
    out, _ = _run(home, xdg="relative/cache")  # the XDG spec: relative paths are invalid
    assert out["tier3_dir"] == str(home / ".cache" / "torchtpu" / "compile")


def test_off_values_and_an_explicit_root(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    for off in ("OFF", "0"):  # off, 0, false, no, any case
        out, _ = _run(home, root=off)
        assert out["tier3_dir"] is None and out["tier3_writes"] == 0, off
    assert not (home / ".cache").exists()
    out, _ = _run(home, root=str(tmp_path / "mine"))
    assert out["tier3_dir"] == str(tmp_path / "mine") and out["tier3_writes"] > 0


def test_unwritable_home_warns_once_and_runs(tmp_path):
    home = tmp_path / "not-a-dir"  # a file: nothing can be created under it, even as root
    home.write_text("")
    out, err = _run(home)
    assert out["tier3_dir"] is None
    warnings = [line for line in err.splitlines() if "tier-3" in line]
    assert len(warnings) == 1, err
    assert "warning" in warnings[0] and "TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT" in warnings[0]
    assert "continuing without it" in warnings[0]
