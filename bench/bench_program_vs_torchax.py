"""Where the compiled transformer-inference gap to torchax comes from: our plan,
our plan's own program, and torchax's program, timed in paired rounds.

    PYTHONPATH=. .venv/bin/python bench/bench_program_vs_torchax.py [--rounds 21] [--steps 10]
        [--peer-python /work/peers/bin/python] [--no-jax]

The model is bench_peers.py's "tf_infer" (4 pre-norm blocks, d=128, 4 heads,
seq 64, batch 8, causal SDPA, GELU MLP; same seeds, so the same weights in
torch 2.13 and the peer venv's torch 2.9). Three comparisons, each in one
process with interleaved rounds (order rotating), a sync after every step and
the output kept alive (a compiled call whose result is dropped before the sync
is never run), medians of wall and process-CPU time per step and of the
per-round ratios:

1. on our plugin: the plan (torch.compile(backend="tpu") replayed) against
   its own program text run as a foreign program (_tt_foreign_call): what
   launching through Dynamo, AOTAutograd and the plan costs over the program;
2. on our plugin: our program text against torchax's jitted program text
   (jax.jit(...).lower(...).as_text() in the peer venv), both foreign: the
   programs alone, compiled by the same XLA with the same options;
3. on jax's own XLA (the peer venv's jaxlib), unless --no-jax: both texts
   against torchax's jit step: the programs on another XLA build.

Our program's text comes from TORCH_TPU_DUMP_MODULES_TO (tiers 2/3 off so it
is compiled here). Its arguments are the model's weights in first use order
and the Python numbers the plan keeps as arguments (LayerNorm's count and eps,
SDPA's scale split over q and k, the causal mask's fill values); replaying it
must give the plan's output bit for bit, or the script stops. Not part of
`make test`; needs the peer venv of bench_peers.py (skips with a message
without it). TORCH_TPU_PJRT_PLUGIN=<plugin.so> runs comparisons 1 and 2 on
another XLA CPU plugin (e.g. lammps-jax-pjrt-cpu's, a newer XLA). Timings on a shared 2-core host are noisy: read the CPU ratios
and the paired medians, and rerun.
"""
import argparse
import glob
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# torchax's program and its arguments' order, lowered in the peer venv
PEER_LOWER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import jax, numpy as np, torch, torchax
from torchax import interop
from bench_peers import build
out = sys.argv[2]
env = torchax.default_env()
model, x, _ = build("tf_infer")
model.eval()
with env:
    model.to("jax")
    x = x.to("jax")
params = {k: v for k, v in model.named_parameters()}
buffers = {k: v for k, v in model.named_buffers()}
def forward(params, buffers, x):
    with env:
        return torch.func.functional_call(model, {**params, **buffers}, (x,))
jf = interop.jax_view(forward)
jargs = interop.jax_view((params, buffers, x))
open(out + "/torchax.mlir", "w").write(jax.jit(jf).lower(*jargs).as_text())
leaves, _ = jax.tree_util.tree_flatten_with_path(jargs)
json.dump([jax.tree_util.keystr(p) for p, _ in leaves], open(out + "/torchax_args.json", "w"))
np.savez(out + "/torchax_args.npz", *[np.asarray(v) for _, v in leaves])
"""

# both texts on jax's own XLA, against torchax's jit step
PEER_RUN = r"""
import statistics, sys, time
sys.path.insert(0, sys.argv[1])
import jax, numpy as np
from jax._src import compiler
from jax._src.lib import xla_client as xc
from bench_peers import torchax_runner
d, rounds, steps = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dev = jax.devices()[0]
client = dev.client
fns = {}
for name in ("ours", "torchax"):
    z = np.load(f"{d}/{name}_args.npz")
    jax.config.update("jax_enable_x64", True)  # our program takes int64 tokens
    args = [jax.device_put(z[f"arr_{i}"], dev) for i in range(len(z.files))]
    jax.config.update("jax_enable_x64", False)
    exe = client.compile_and_load(open(f"{d}/{name}.mlir").read(), xc.DeviceList((dev,)),
                                  compiler.get_compile_options(num_replicas=1, num_partitions=1))
    fns[name + " program"] = (lambda exe=exe, args=args: exe.execute(args))
step, wait, _, _ = torchax_runner("tf_infer")
fns["torchax jit"] = step
def block(o):
    if isinstance(o, list):
        for b in o:
            b.block_until_ready()
    else:
        wait(o)
for f in fns.values():
    for _ in range(3):
        block(f())
names = list(fns)
W = {k: [] for k in names}
C = {k: [] for k in names}
for r in range(rounds):
    for k in names[r % len(names):] + names[:r % len(names)]:
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(steps):
            o = fns[k]()
            block(o)
        W[k].append((time.perf_counter() - t0) / steps * 1e3)
        C[k].append((time.process_time() - c0) / steps * 1e3)
for k in names:
    print(k, statistics.median(W[k]), statistics.median(C[k]),
          statistics.median([a / b for a, b in zip(W[k], W["torchax jit"])]),
          statistics.median([a / b for a, b in zip(C[k], C["torchax jit"])]), sep="\t")
"""


def our_args(text, model, x):
    """The plan program's arguments: weights in first use order, the Python numbers it binds."""
    import torch
    sig = re.search(r"@main\((.*?)\) ->", text).group(1)
    types = [t for _, t in re.findall(r"(%v\d+): (tensor<[^>]*>)", sig)]
    P = dict(model.named_parameters())
    dev = x.device

    def num(v, dt=torch.float32):
        return torch.tensor(v, dtype=dt).to(dev)

    def ln(pre):  # LayerNorm: count (mean), count (variance), eps, weight, bias
        return [num(128.0), num(128.0), num(1e-5), P[pre + ".weight"], P[pre + ".bias"]]

    qk = math.sqrt(1 / math.sqrt(128 // 4))  # SDPA's scale, applied to q and to k
    order = [P["emb.weight"], x, P["pos"]]
    for b in range(4):
        p = f"blocks.{b}."
        order += ln(p + "ln1") + [P[p + "qkv.weight"], P[p + "qkv.bias"], num(qk), num(True, torch.bool),
                                  num(float("-inf")), num(0.0), num(qk), P[p + "proj.weight"], P[p + "proj.bias"]]
        order += ln(p + "ln2") + [P[p + "fc1.weight"], P[p + "fc1.bias"], P[p + "fc2.weight"], P[p + "fc2.bias"]]
    order += ln("norm") + [P["head.weight"], P["head.bias"]]
    if len(order) != len(types):
        raise SystemExit(f"our program has {len(types)} parameters, this script knows {len(order)}: the lowering "
                         "changed; update our_args")
    return [a.detach().reshape(-1) if a.dim() else a.detach() for a in order]


def paired(fns, rounds, steps, sync):
    """Per-step wall and CPU ms per name, rounds interleaved with rotating order."""
    names = list(fns)
    W = {k: [] for k in names}
    C = {k: [] for k in names}
    for r in range(rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(steps):
                out = fns[k]()  # kept alive until the sync
                sync()
            del out
            W[k].append((time.perf_counter() - t0) / steps * 1e3)
            C[k].append((time.process_time() - c0) / steps * 1e3)
    return W, C


def report(title, W, C, ref):
    print(f"\n{title} (x = paired median ratio to {ref}; >1 slower)")
    print(f"| {'what':22s} | wall ms |  x wall | CPU ms |  x CPU |")
    print("|" + "-" * 24 + "|---------|---------|--------|--------|")
    for k in W:
        xw = statistics.median([a / b for a, b in zip(W[k], W[ref])])
        xc = statistics.median([a / b for a, b in zip(C[k], C[ref])])
        print(f"| {k:22s} | {statistics.median(W[k]):7.3f} | {xw:7.3f} | {statistics.median(C[k]):6.2f} | {xc:6.3f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--peer-python", default=os.environ.get("TORCH_TPU_PEER_PYTHON", "/work/peers/bin/python"))
    ap.add_argument("--no-jax", action="store_true", help="skip the run on jax's own XLA")
    args = ap.parse_args()
    if not os.path.exists(args.peer_python):
        print(f"skipped: no peer venv at {args.peer_python} (torch 2.9 + torchax + jax; bench_peers.py's docstring "
              "has the commands)")
        return 0

    work = tempfile.mkdtemp(prefix="bench_program_vs_torchax-")
    os.environ["TORCH_TPU_DUMP_MODULES_TO"] = os.path.join(work, "modules")
    os.environ["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = "off"
    os.environ["TORCH_TPU_TIER2_COMPILATION_CACHE"] = "0"
    import numpy as np
    import torch
    import torchtpu  # noqa: F401
    from torchtpu import _C
    sys.path.insert(0, HERE)
    from bench_peers import build

    p = subprocess.run([args.peer_python, "-c", PEER_LOWER, HERE, work], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"lowering torchax's program failed:\n{p.stderr[-3000:]}")

    model, x, _ = build("tf_infer")
    model.eval()
    model, xt = model.to("tpu"), x.to("tpu")
    f = torch.compile(model, backend="tpu")
    with torch.no_grad():
        plan_out = f(xt)
    torch.tpu.synchronize()
    plans = sorted(glob.glob(os.path.join(work, "modules", "*graph*.mlir")))
    if len(plans) != 1:
        raise SystemExit(f"expected one compiled graph's module, found {plans}")
    ours_text = open(plans[0]).read()
    ours_args = our_args(ours_text, model, xt)

    names = json.load(open(os.path.join(work, "torchax_args.json")))
    npz = np.load(os.path.join(work, "torchax_args.npz"))
    P = dict(model.named_parameters())
    theirs_args = []
    for i, n in enumerate(names):
        if n.startswith("[2]"):  # the tokens (int32 in jax without x64)
            theirs_args.append(xt.to(torch.int32))
            continue
        w = P[n.split("'")[1]].detach()
        if not torch.equal(torch.from_numpy(npz[f"arr_{i}"]), w.cpu()):
            raise SystemExit(f"the peer's {n} differs from ours: not the same model")
        theirs_args.append(w)

    op = _C.op_names().index("_tt_foreign_call")

    def foreign(text, fargs, name):
        key, _, _ = _C.foreign_intern(text)
        return lambda: _C.call(op, (fargs, key, name))

    def first(o):
        return o if isinstance(o, torch.Tensor) else o[0]

    fns = {"plan": lambda: f(xt), "our program": foreign(ours_text, ours_args, "our program"),
           "torchax program": foreign(open(os.path.join(work, "torchax.mlir")).read(), theirs_args, "torchax")}
    with torch.no_grad():
        ref = build("tf_infer")[0].eval()(x)
        ours = first(fns["our program"]()).cpu().reshape(plan_out.shape)
        if not torch.equal(ours, plan_out.cpu()):
            raise SystemExit("our program replayed differs from the plan's output: our_args is out of date")
        theirs = first(fns["torchax program"]()).cpu().reshape(plan_out.shape)
        print(f"max |x - PyTorch CPU|: plan {(plan_out.cpu() - ref).abs().max().item():.3g}, "
              f"torchax's program {(theirs - ref).abs().max().item():.3g}; our program replayed = plan bit for bit")
        for fn in fns.values():
            for _ in range(3):
                o = fn()
                torch.tpu.synchronize()
        W, C = paired(fns, args.rounds, args.steps, torch.tpu.synchronize)
    report(f"On our plugin ({args.rounds} rounds of {args.steps} steps)", W, C, "our program")
    print(f"(both program texts and their arguments are in {work})")

    if args.no_jax:
        return 0
    np.savez(os.path.join(work, "ours_args.npz"), *[a.cpu().numpy() for a in ours_args])
    with open(os.path.join(work, "ours.mlir"), "w") as fh:
        fh.write(ours_text)
    np.savez(os.path.join(work, "torchax_args.npz"), *[a.cpu().numpy() for a in theirs_args])
    p = subprocess.run([args.peer_python, "-c", PEER_RUN, HERE, work, str(args.rounds), str(args.steps)],
                       capture_output=True, text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    if p.returncode:
        raise SystemExit(f"the run on jax's XLA failed:\n{p.stderr[-3000:]}")
    W, C = {}, {}
    for line in p.stdout.strip().splitlines():
        k, w, c, xw, xc = line.split("\t")
        W[k], C[k] = float(w), float(c)
        C[k + " x"] = (float(xw), float(xc))
    print(f"\nOn jax's own XLA (peer venv; x = paired median ratio to torchax jit)")
    print(f"| {'what':22s} | wall ms |  x wall | CPU ms |  x CPU |")
    print("|" + "-" * 24 + "|---------|---------|--------|--------|")
    for k in W:
        xw, xc = C[k + " x"]
        print(f"| {k:22s} | {W[k]:7.3f} | {xw:7.3f} | {C[k]:6.2f} | {xc:6.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
