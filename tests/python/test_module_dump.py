"""TORCH_TPU_DUMP_MODULES_TO writes the StableHLO text of each module the
engine compiles; the text of a compiled graph's plan, replayed as a foreign
program with the plan's arguments, gives the plan's result bit for bit."""
import os
import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import glob, sys, torch
    import torchtpu  # noqa: F401
    from torchtpu import _C

    def f(x, w):
        return torch.exp(torch.tanh(x @ w)) - torch.sigmoid(x @ w)

    x, w = torch.randn(16, 8), torch.randn(8, 4)
    xt, wt = x.to("tpu"), w.to("tpu")
    out = torch.compile(f, backend="tpu")(xt, wt).cpu()
    torch.tpu.synchronize()
    files = sorted(glob.glob(sys.argv[1] + "/*.mlir"))
    plans = [p for p in files if "graph" in p]
    assert len(plans) == 1, files
    text = open(plans[0]).read()
    assert "func.func public @main" in text
    key, nin, nout = _C.foreign_intern(text)
    assert (nin, nout) == (2, 1), (nin, nout)
    # a plan binds its arguments as flat storages
    r = _C.call(_C.op_names().index("_tt_foreign_call"), ([xt.reshape(-1), wt.reshape(-1)], key, "replay"))
    r = r if isinstance(r, torch.Tensor) else r[0]
    assert torch.equal(r.cpu().reshape(out.shape), out), (r, out)
    print("ok", len(files))
""")


def test_dump_modules_to_writes_replayable_plan_text(tmp_path):
    d = tmp_path / "mods"
    env = dict(os.environ, TORCH_TPU_DUMP_MODULES_TO=str(d), TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT="off",
               TORCH_TPU_TIER2_COMPILATION_CACHE="0", PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(d)], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("ok")


def test_unwritable_dump_directory_warns_and_compiles(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = dict(os.environ, TORCH_TPU_DUMP_MODULES_TO=str(blocker / "sub"), TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT="off",
               TORCH_TPU_TIER2_COMPILATION_CACHE="0", PYTHONPATH=str(ROOT))
    code = "import torch, torchtpu; print((torch.ones(3, device='tpu') * 2).cpu().tolist())"
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "[2.0, 2.0, 2.0]" in p.stdout
    assert p.stderr.count("TORCH_TPU_DUMP_MODULES_TO") == 1, p.stderr
