"""Cold start: time to the first training step of the peers.md transformer
(4 pre-norm blocks, d=128, 4 heads, seq 64, batch 8, causal attention on the
math path, GELU MLP, AdamW) in a fresh process, for torchtpu's eager modes
with the persistent cache (tier 3) empty and warm, with tiered compilation
(TORCH_TPU_TIERED_COMPILE=2; off by default), at XLA's default optimization
level 3 instead of our CPU-plugin default 1, PyTorch on CPU and, if
its virtualenv exists (shared/notes/peers.md says how to make it safely),
TorchTPU's own wheel torch-tpu 0.2.0 on the same XLA CPU plugin. Rounds are
interleaved; each figure is a median. Prints one table: seconds for import,
set-up (model to device) and the first step, and the ratio of the total to
torch-tpu's and to PyTorch's; then the 12 steps that follow (total) and the
step time at their end, where tiered compilation's optimized executables
have replaced the quick ones.

Cold means every cache of the framework is empty. torch-tpu keeps a second
persistent cache besides its tier 3: its tier 2, in
/dev/shm/torch_tpu_cache/<name> (on by default because its tier 3 is, and
surviving the process until the machine reboots; TORCH_TPU_TIER2_COMPILATION_CACHE
names it). Each cold torch-tpu run gets a tier 2 of a fresh name, removed
after; the "tier 2 warm" row shows what a run after an earlier one on the
same machine sees (fill it in one process, measure the next). Measured
without that, torch-tpu's "cold" first step was its warm one (0.24 s for a
step that compiles 52 programs in 4.5 s).

    .venv/bin/python bench/bench_cold.py [--rounds 2] [--ttpu /tmp/ttpu/bin/python]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

CHILD = r'''
import json, os, sys, time
t0 = time.perf_counter()
import torch
kind = os.environ["COLD_KIND"]
if kind == "torchtpu":
    import torchtpu  # noqa: F401
    torch.tpu.set_eager_mode(os.environ["COLD_MODE"])
    dev = "tpu"
elif kind == "torch_tpu":
    import torch_tpu  # noqa: F401
    from torch_tpu import _loader
    _loader._init_device("tpu")
    dev = "tpu"
else:
    dev = "cpu"
t1 = time.perf_counter()
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel


class Net(nn.Module):
    def __init__(self, d=128, heads=4, layers=4, vocab=256):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True,
                                                                norm_first=True, activation="gelu")
                                     for _ in range(layers)])
        self.head = nn.Linear(d, vocab)

    def forward(self, x):
        y = self.emb(x)
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1], device=x.device)
        for b in self.blocks:
            y = b(y, src_mask=mask, is_causal=True)
        return self.head(y)


def sync():
    if dev != "cpu":
        torch.accelerator.synchronize()


torch.manual_seed(0)
m = Net().to(dev)
opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
x = torch.randint(0, 256, (8, 64)).to(dev)


def step():
    with sdpa_kernel(SDPBackend.MATH):
        loss = nn.functional.cross_entropy(m(x).reshape(-1, 256), x.reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad()
        loss.item()
    sync()


sync()
t2 = time.perf_counter()
step()
t3 = time.perf_counter()
steps = []  # the next steps: where tiered compilation's optimized executables come in
for _ in range(int(os.environ.get("COLD_MORE_STEPS", "12"))):
    ts = time.perf_counter()
    step()
    steps.append(time.perf_counter() - ts)
out = {"import": t1 - t0, "setup": t2 - t1, "step": t3 - t2, "next": sum(steps), "last": sorted(steps[-4:])[1]}
if kind == "torchtpu":
    s = torch.tpu.cache_stats()
    out.update(programs=s["executables"], compile_s=s["compile_seconds"], tier3_hits=s["tier3_hits"],
               upgrades=s["upgrades"])
print("COLD " + json.dumps(out))
'''


def run(python, env, cwd=None):
    r = subprocess.run([python, "-c", CHILD], env=dict(os.environ, **env), capture_output=True, text=True,
                       timeout=600, cwd=cwd)
    for line in r.stdout.splitlines():
        if line.startswith("COLD "):
            return json.loads(line[5:])
    raise RuntimeError(f"{env.get('COLD_KIND')}: no result (rc {r.returncode}):\n{(r.stdout + r.stderr)[-2000:]}")


TTPU_TIER2_ROOT = "/dev/shm/torch_tpu_cache"  # where torch-tpu's tier 2 caches live (read from its log)


def ttpu_tier2_name(d):
    """A tier-2 cache name of torch-tpu's own for the run in temporary directory d."""
    return "bench_cold_" + os.path.basename(d)


def ttpu_env(python):
    lib = subprocess.run([python, "-c", "import xla_plugins.xla_cpu_pjrt as p, os; "
                          "print(os.path.join(os.path.dirname(p.__file__), 'xla_cpu_pjrt.so'))"],
                         capture_output=True, text=True).stdout.strip()
    return {"TPU_LIBRARY_PATH": lib, "TPU_SKIP_MDS_QUERY": "1", "TF_CPP_MIN_LOG_LEVEL": "2"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--ttpu", default="/tmp/ttpu/bin/python")
    args = ap.parse_args()
    me = sys.executable
    base = {"OMP_WAIT_POLICY": "PASSIVE", "TORCH_TPU_TIER2_COMPILATION_CACHE": "0"}  # ours: no tier 2
    configs = []  # (label, python, env function of a fresh tier-3 directory)
    for mode in ("strict", "defer_and_fuse"):
        configs.append((f"torchtpu {mode}, tier 3 empty", me,
                        lambda d, mode=mode: {"COLD_KIND": "torchtpu", "COLD_MODE": mode,
                                              "TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT": d}))
    configs.append(("torchtpu strict, tier 3 empty, XLA level 3", me,
                    lambda d: {"COLD_KIND": "torchtpu", "COLD_MODE": "strict", "TORCH_TPU_XLA_OPTIMIZATION_LEVEL": "3",
                               "TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT": d}))
    configs.append(("torchtpu strict, tier 3 warm", me, "warm"))
    configs.append(("torchtpu strict, tier 3 empty, tiered (2)", me,
                    lambda d: {"COLD_KIND": "torchtpu", "COLD_MODE": "strict", "TORCH_TPU_TIERED_COMPILE": "2",
                               "TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT": d}))
    configs.append(("PyTorch CPU eager", me, lambda d: {"COLD_KIND": "cpu"}))
    have_ttpu = os.path.exists(args.ttpu)
    if have_ttpu:
        tenv = ttpu_env(args.ttpu)  # its plugin path: torch_tpu imports only with it set
        have_ttpu = bool(tenv["TPU_LIBRARY_PATH"]) and subprocess.run(
            [args.ttpu, "-c", "import torch_tpu"], capture_output=True, env=dict(os.environ, **tenv),
            cwd=tempfile.gettempdir()).returncode == 0
    if have_ttpu:
        configs.append(("torch-tpu 0.2.0 DEFER_NEVER (TorchTPU)", args.ttpu,
                        lambda d: dict(tenv, COLD_KIND="torch_tpu", TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=d,
                                       TORCH_TPU_TIER2_COMPILATION_CACHE=ttpu_tier2_name(d))))
        configs.append(("torch-tpu 0.2.0 DEFER_NEVER, its tier 2 warm", args.ttpu, "ttpu_warm"))
    results = {label: [] for label, _, _ in configs}
    for _ in range(args.rounds):
        for label, python, envf in configs:
            with tempfile.TemporaryDirectory() as d:
                # torch-tpu runs outside the repository, whose torch_tpu/ (our shim) would shadow it
                cwd = d if python != me else None
                try:
                    if envf == "warm":  # fill tier 3 in one process, measure the next
                        env = {"COLD_KIND": "torchtpu", "COLD_MODE": "strict",
                               "TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT": d}
                        run(python, dict(base, **env))
                    elif envf == "ttpu_warm":  # its tier 2 filled by an earlier process (tier 3 empty)
                        fill = os.path.join(d, "fill")
                        os.mkdir(fill)
                        env = dict(tenv, COLD_KIND="torch_tpu", TORCH_TPU_TIER2_COMPILATION_CACHE=ttpu_tier2_name(d))
                        run(python, dict(base, TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=fill, **env), cwd)
                        env["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = os.path.join(d, "empty")
                        os.mkdir(env["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"])
                    else:
                        env = envf(d)
                    results[label].append(run(python, dict(base, **env), cwd))
                finally:
                    shutil.rmtree(os.path.join(TTPU_TIER2_ROOT, ttpu_tier2_name(d)), ignore_errors=True)
    med = {label: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for label, rs in results.items()}
    total = {label: m["import"] + m["setup"] + m["step"] for label, m in med.items()}
    ref_t = total.get("torch-tpu 0.2.0 DEFER_NEVER (TorchTPU)")
    ref_c = total["PyTorch CPU eager"]
    print(f"cold start, first training step in a fresh process; medians of {args.rounds} interleaved rounds")
    if not have_ttpu:
        print(f"(torch-tpu not found at {args.ttpu}: shared/notes/peers.md says how to install it safely)")
    print(f"{'framework / mode':44s} {'import':>7s} {'setup':>7s} {'step':>7s} {'total':>7s} {'/TorchTPU':>9s} "
          f"{'/CPU':>6s} {'next 12':>7s} {'last':>7s} {'programs':>8s} {'compile s':>9s} {'upgrades':>8s}")
    for label, m in med.items():
        rt = f"{total[label] / ref_t:9.2f}" if ref_t else f"{'-':>9s}"
        progs = (f"{m['programs']:8.0f} {m['compile_s']:9.2f} {m['upgrades']:8.0f}" if "programs" in m
                 else f"{'-':>8s} {'-':>9s} {'-':>8s}")
        print(f"{label:44s} {m['import']:7.2f} {m['setup']:7.2f} {m['step']:7.2f} {total[label]:7.2f} {rt} "
              f"{total[label] / ref_c:6.2f} {m['next']:7.2f} {m['last']:7.3f} {progs}")
    cold, warm = med["torchtpu strict, tier 3 empty"], med["torchtpu strict, tier 3 warm"]
    print(f"first step, tier 3 empty / warm: {cold['step'] / warm['step']:.1f}x")


if __name__ == "__main__":
    main()
