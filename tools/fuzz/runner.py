"""Runs call specs in worker subprocesses, a batch each; a crash or a hang
(no result within the per-call timeout) is recorded with its call and the
batch goes on in a fresh process from the next call."""
import json
import os
import select
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _env(cache):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if cache:  # compiled executables shared by the batches (and later runs)
        env["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = cache
    return env


def run_batch(specs, call_timeout=120.0, cache=None, log=None):
    """Returns one record per spec: {"i", "id", "kind", "detail"}."""
    out = [None] * len(specs)
    fd, path = tempfile.mkstemp(suffix=".json", prefix="fuzz-")
    with os.fdopen(fd, "w") as f:
        json.dump(specs, f)
    start = 0
    try:
        while start < len(specs):
            errf = tempfile.TemporaryFile()
            p = subprocess.Popen([sys.executable, "-m", "tools.fuzz.worker", path, str(start)], cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=errf, env=_env(cache), text=True, bufsize=1)
            cur, deadline = start, time.time() + call_timeout + 60  # + process start
            ended, began = None, False
            while True:
                left = deadline - time.time()
                if left <= 0:
                    p.kill()
                    p.wait()
                    ended = "hang"
                    break
                r, _, _ = select.select([p.stdout], [], [], min(left, 5))
                if not r:
                    continue
                line = p.stdout.readline()
                if not line:
                    p.wait()
                    ended = "crash"
                    break
                if line.startswith("B "):
                    cur, began = int(line[2:]), True
                    deadline = time.time() + call_timeout
                elif line.startswith("R "):
                    rec = json.loads(line[2:])
                    out[rec["i"]] = rec
                    cur = rec["i"] + 1
                elif line.startswith("DONE"):
                    p.wait()
                    break
            if ended is None:
                break
            errf.seek(0)
            tail = errf.read().decode(errors="replace")[-1500:]
            if cur >= len(specs):
                break
            if not began:  # the worker died before its first call: a broken set-up, not a finding
                raise RuntimeError(f"fuzz worker failed to start ({ended}, exit status {p.returncode}): {tail}")
            detail = (f"no result after {call_timeout:.0f} s" if ended == "hang"
                      else f"exit status {p.returncode}; stderr tail: {tail}")
            out[cur] = {"i": cur, "id": specs[cur]["id"], "kind": ended, "detail": detail}
            if log:
                log(f"{ended} at {specs[cur]['id']} ({specs[cur]['fn']}): {detail[:200]}")
            start = cur + 1
    finally:
        os.unlink(path)
    return out
