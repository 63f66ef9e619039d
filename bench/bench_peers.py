"""torchtpu against the XLA frameworks it is compared with (shared/notes/peers.md), in one run,
one table: step times of the MLP training step, the transformer training step and the
transformer's inference, for PyTorch CPU eager, torchtpu compiled, torchtpu eager DeferAndFuse,
torchax jit, torch-xla's dynamo backend "openxla" and torch-xla lazy.

    .venv/bin/python bench/bench_peers.py [--peer-python /work/peers/bin/python]
        [--repeats 11] [--only mlp_train,tf_train,tf_infer] [--frameworks ...] [--sync step|round]

Every framework runs in a process of its own (torchtpu's and PyTorch's in this venv; torchax and
torch-xla need torch 2.9 and run from the peer venv given by --peer-python). For one workload
all its processes are started, built and warmed up; then the parent asks each in turn for a
round of timed steps, the order rotating every round, so that load from other processes on the
machine hits all of them alike; times are medians over the rounds and a ratio is the median of
per-round ratios (paired: a noisy round moves both times). A framework that is missing or fails
is printed as "n/a (reason)". The verdict line per workload: torchtpu compile's paired ratio
against each XLA peer (torchax jit, openxla, lazy); "yes" when none is above 1. On this shared
2-core machine ratios moved by about +-10% from run to run. OMP_WAIT_POLICY=PASSIVE everywhere
(peers.md: PyTorch's spinning OpenMP workers otherwise take the cores from the next round).

What a step is, per framework (each in its own best form):
  torch cpu      model(x), loss, backward, torch.optim.AdamW step, eager on PyTorch's CPU.
  tpu compile    torch.compile(step, backend="tpu") of that whole step (zero_grad, forward, loss,
                 backward, optimizer.step()); inference: torch.compile(model, backend="tpu").
  tpu defer      the eager step under torch.tpu.eager_mode("defer_and_fuse").
  tpu compile functional
                 torch.compile(backend="tpu") of the functional step, torchax jit's form in
                 PyTorch's own API: torch.func.grad_and_value of the loss over the parameters
                 (torch.func.functional_call), then torch.optim.adamw.adamw (the functional AdamW
                 torch.optim.AdamW runs, capturable) updating parameters and state in place: one
                 Dynamo graph, one program; inference: as tpu compile.
  torchax jit    one jax.jit of the functional step: interop.jax_value_and_grad of the loss over
                 the parameters, optax.adamw, parameters and optimizer state donated;
                 inference: jax.jit of the functional forward.
  xla openxla    torch.compile(step, backend="openxla") of the whole step (torch-xla's dynamo
                 training recipe); inference: torch.compile(model, backend="openxla").
  xla lazy       the eager step on the XLA device, then torch_xla.sync() (mark_step).
A default run takes 4-6 minutes on 2 cores (most of it the processes' set-up and compiles).
--sync step (default): every step waits for its result (the loss, or the logits) before the
next one starts, as a loop that logs its loss does; --sync round: only the last step of a round
waits (the frameworks may overlap dispatch with execution).

Same sizes, seeds and AdamW settings (lr 1e-3, betas 0.9/0.999, eps 1e-8, weight decay 0.01)
everywhere: the 'check' column is the first warm-up step's loss (inference: mean logit), which
should agree across frameworks to a few digits.

The peer venv (outside the repo; nothing here or in `make test` needs it). Commands that
worked on this machine (Python 3.11; torch 2.9's PyPI wheel is a CUDA build: `import torch`
fails without its nvidia-* packages, ~4.5 GB, even with no GPU; torch-xla's libtpu is not
installed -- it would try to reach a cloud metadata server -- hence --no-deps):

    python3 -m venv /work/peers
    /work/peers/bin/pip install --upgrade pip
    /work/peers/bin/pip install torch==2.9.0
    /work/peers/bin/pip install --no-deps torch-xla==2.9.0
    /work/peers/bin/pip install absl-py pyyaml requests
    /work/peers/bin/pip install jax==0.10.2 jaxlib==0.10.2
    /work/peers/bin/pip install --no-deps torchax==0.0.13
    /work/peers/bin/pip install optax jax==0.10.2 jaxlib==0.10.2
"""
import argparse
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time

WORKLOADS = {
    "mlp_train": "MLP train",
    "tf_train": "TF train",
    "tf_infer": "TF infer",
}
# (key, label, which interpreter: "ours" or "peer")
FRAMEWORKS = [
    ("torch_cpu", "PyTorch CPU eager", "ours"),
    ("tpu_compile", "torchtpu compile", "ours"),
    ("tpu_defer", "torchtpu defer_and_fuse", "ours"),
    ("tpu_compile_func", "torchtpu compile functional", "ours"),
    ("torchax_jit", "torchax jit", "peer"),
    ("xla_openxla", "torch-xla openxla", "peer"),
    ("xla_lazy", "torch-xla lazy", "peer"),
]
XLA_PEERS = ("torchax_jit", "xla_openxla", "xla_lazy")
BASELINE = "tpu_compile"
# timed steps per round: about 0.3-1 s of each framework per round
STEPS = {"mlp_train": 60, "tf_train": 8, "tf_infer": 25}
WARMUP = 5

# ---------------------------------------------------------------- the workloads (plain torch)
MLP = dict(d_in=128, hidden=256, classes=10, batch=64)
TF = dict(vocab=256, d=128, heads=4, blocks=4, seq=64, batch=8)


def build(workload):
    """(model, x, y) on the CPU, seeded: the same in torch 2.9 and 2.13."""
    import torch
    from torch import nn
    import torch.nn.functional as F

    class Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    class Transformer(nn.Module):
        def __init__(self, vocab, d, heads, blocks, seq):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.pos = nn.Parameter(torch.randn(seq, d) * 0.02)
            self.blocks = nn.ModuleList(Block(d, heads) for _ in range(blocks))
            self.norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab)

        def forward(self, tokens):
            x = self.emb(tokens) + self.pos
            for blk in self.blocks:
                x = blk(x)
            return self.head(self.norm(x))

    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    if workload == "mlp_train":
        m = MLP
        model = nn.Sequential(nn.Linear(m["d_in"], m["hidden"]), nn.ReLU(), nn.Linear(m["hidden"], m["classes"]))
        x = torch.randn(m["batch"], m["d_in"], generator=g)
        y = torch.randint(0, m["classes"], (m["batch"],), generator=g)
    else:
        t = TF
        model = Transformer(t["vocab"], t["d"], t["heads"], t["blocks"], t["seq"])
        x = torch.randint(0, t["vocab"], (t["batch"], t["seq"]), generator=g)
        y = torch.roll(x, -1, dims=1)
    return model, x, y


def loss_of(out, y):
    import torch.nn.functional as F
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))


def adamw(torch, params):
    return torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)


# ---------------------------------------------------------------- one framework (in its worker)
def torch_runner(fw, workload):
    """(step, wait, version) for the frameworks driven through torch modules."""
    import torch
    train = workload != "tf_infer"
    model, x, y = build(workload)
    if fw == "torch_cpu":
        dev, version = "cpu", f"torch {torch.__version__}"
        wait = lambda out: None  # noqa: E731
    elif fw in ("tpu_compile", "tpu_defer", "tpu_compile_func"):
        import torchtpu  # noqa: F401
        dev, version = "tpu", f"torch {torch.__version__}"
        wait = lambda out: torch.tpu.synchronize()  # noqa: E731
        if fw == "tpu_defer":
            # for the whole life of the worker (not a `with` entered by hand: its generator,
            # once collected, would put the previous mode back)
            torch.tpu.set_eager_mode("defer_and_fuse")
    else:
        import torch_xla
        import torch_xla.core.xla_model as xm
        dev, version = torch_xla.device(), f"torch {torch.__version__}, torch-xla {torch_xla.__version__}"
        wait = lambda out: xm.wait_device_ops()  # noqa: E731
    model = model.to(dev)
    x, y = x.to(dev), y.to(dev)
    if train and fw == "tpu_compile_func":
        return functional_step(torch, model, x, y) + (version,)
    if train:
        opt = adamw(torch, model.parameters())

        def step_fn(x, y):
            opt.zero_grad()
            loss = loss_of(model(x), y)
            loss.backward()
            opt.step()
            return loss

        if fw == "tpu_compile":
            step_fn = torch.compile(step_fn, backend="tpu")
        elif fw == "xla_openxla":
            step_fn = torch.compile(step_fn, backend="openxla")

        if fw == "xla_lazy":
            def step():
                loss = step_fn(x, y)
                torch_xla.sync()
                return loss
        else:
            def step():
                return step_fn(x, y)
        check = lambda out: out.item()  # noqa: E731
    else:
        model.eval()
        fwd = model
        if fw in ("tpu_compile", "tpu_compile_func"):
            fwd = torch.compile(model, backend="tpu")
        elif fw == "xla_openxla":
            fwd = torch.compile(model, backend="openxla")

        def step():
            with torch.no_grad():
                out = fwd(x)
            if fw == "xla_lazy":
                torch_xla.sync()
            return out
        check = lambda out: out.float().mean().item()  # noqa: E731
    return step, wait, check, version


def functional_step(torch, model, x, y):
    """(step, wait, check): torchax jit's functional training step written with torch.func and
    the functional AdamW of torch.optim (the same update as adamw() above), compiled whole."""
    from torch.func import functional_call, grad_and_value
    from torch.optim.adamw import adamw as adamw_update

    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v for k, v in model.named_buffers()}
    names = list(params)
    plist = [params[k] for k in names]
    exp_avg = [torch.zeros_like(p) for p in plist]
    exp_avg_sq = [torch.zeros_like(p) for p in plist]
    steps = [torch.zeros((), device=p.device) for p in plist]

    def loss(params, x, y):
        return loss_of(functional_call(model, {**params, **buffers}, (x,)), y)

    def train_step(params, exp_avg, exp_avg_sq, steps, x, y):
        grads, value = grad_and_value(loss)(params, x, y)
        adamw_update([params[k] for k in names], [grads[k] for k in names], exp_avg, exp_avg_sq, [], steps,
                     foreach=False, capturable=True, amsgrad=False, beta1=0.9, beta2=0.999, lr=1e-3,
                     weight_decay=0.01, eps=1e-8, maximize=False)
        return value

    jstep = torch.compile(train_step, backend="tpu")

    def step():
        return jstep(params, exp_avg, exp_avg_sq, steps, x, y)
    return step, lambda out: torch.tpu.synchronize(), lambda out: out.item()


def torchax_runner(workload):
    import jax
    import optax
    import torch
    import torchax
    from torchax import interop
    env = torchax.default_env()
    train = workload != "tf_infer"
    model, x, y = build(workload)
    if not train:
        model.eval()
    with env:
        model.to("jax")
        x, y = x.to("jax"), y.to("jax")
    params = {k: v for k, v in model.named_parameters()}
    buffers = {k: v for k, v in model.named_buffers()}

    def forward(params, buffers, x):
        with env:
            return torch.func.functional_call(model, {**params, **buffers}, (x,))

    version = f"torch {torch.__version__}, torchax {torchax.__version__}, jax {jax.__version__}"
    wait = lambda out: jax.block_until_ready(interop.jax_view(out))  # noqa: E731
    if not train:
        jfwd = interop.jax_jit(forward)

        def step():
            return jfwd(params, buffers, x)
        check = lambda out: float(interop.jax_view(out).astype("float32").mean())  # noqa: E731
        return step, wait, check, version

    def loss(params, buffers, x, y):
        with env:
            return loss_of(forward(params, buffers, x), y)

    grad_fn = interop.jax_value_and_grad(loss)
    tx = optax.adamw(1e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01)

    def train_step(params, opt_state, buffers, x, y):
        value, grads = grad_fn(params, buffers, x, y)
        updates, opt_state = interop.call_jax(tx.update, grads, opt_state, params)
        params = interop.call_jax(optax.apply_updates, params, updates)
        return value, params, opt_state

    jstep = interop.jax_jit(train_step, kwargs_for_jax_jit={"donate_argnums": (0, 1)})
    state = {"params": params, "opt": interop.call_jax(tx.init, params)}

    def step():
        value, state["params"], state["opt"] = jstep(state["params"], state["opt"], buffers, x, y)
        return value
    check = lambda out: float(interop.jax_view(out))  # noqa: E731
    return step, wait, check, version


def programs_per_step(step, wait):
    """What one more step of a torchtpu run launches: plans replayed (of which deferred into a
    region: no launch of their own), regions run (DeferAndFuse's, or a fused compiled step),
    executable look-ups (every launch that is not a plan launched alone looks one up)."""
    import torch
    p0, r0, q0 = torch.tpu.plan_stats(), torch.tpu.region_stats()["flushes"], torch.tpu.cache_stats()["requests"]
    wait(step())
    p1, r1, q1 = torch.tpu.plan_stats(), torch.tpu.region_stats()["flushes"], torch.tpu.cache_stats()["requests"]
    return (f"plans={p1['replays'] - p0['replays']},deferred={p1['deferred'] - p0['deferred']},"
            f"regions={r1 - r0},lookups={q1 - q0}")  # no spaces: one word of the worker's reply


def worker(fw, workload, sync, reply_fd):
    reply = os.fdopen(reply_fd, "w", buffering=1)
    try:
        if fw == "torchax_jit":
            step, wait, check, version = torchax_runner(workload)
        else:
            step, wait, check, version = torch_runner(fw, workload)
        out = step()
        first = check(out)
        for _ in range(WARMUP - 1):
            wait(step())
        info = programs_per_step(step, wait) if fw.startswith("tpu_") else ""
    except Exception as e:  # noqa: BLE001 -- any failure becomes the table's "n/a (reason)"
        import traceback
        traceback.print_exc()
        msg = " ".join(f"{type(e).__name__}: {e}".split())
        reply.write(f"error {msg[:300]}\n")
        return
    reply.write(f"ready {first!r} {info or '-'} {version}\n")
    for line in sys.stdin:
        cmd = line.split()
        if not cmd or cmd[0] == "quit":
            break
        n = int(cmd[1])
        try:
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(n):
                out = step()
                if sync == "step":
                    wait(out)
            wait(out)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        except Exception as e:  # noqa: BLE001
            reply.write(f"error {' '.join(f'{type(e).__name__}: {e}'.split())[:300]}\n")
            return
        reply.write(f"time {wall / n * 1e3:.6f} {cpu / n * 1e3:.6f}\n")


# ---------------------------------------------------------------- the parent
class Proc:
    def __init__(self, fw, label, python, workload, args, logdir):
        self.fw, self.label, self.workload = fw, label, workload
        self.wall, self.cpu, self.error, self.check, self.info, self.version = [], [], None, None, "-", ""
        self.log = os.path.join(logdir, f"{workload}-{fw}.log")
        if python is None:
            self.error, self.p = args.peer_missing, None
            return
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1")
        if fw.startswith("xla_"):
            env["PJRT_DEVICE"] = "CPU"
        if fw == "torchax_jit":
            env["JAX_PLATFORMS"] = "cpu"
        r, w = os.pipe()
        with open(self.log, "w") as logf:
            self.p = subprocess.Popen(
                [python, os.path.abspath(__file__), "--worker", fw, workload, "--sync", args.sync, "--reply-fd", str(w)],
                stdin=subprocess.PIPE, stdout=logf, stderr=subprocess.STDOUT, pass_fds=(w,), env=env, text=True)
        os.close(w)
        self.reply = os.fdopen(r, "r")

    def read(self, timeout):
        """The worker's next reply line, or None (it died or timed out: self.error says which)."""
        ready, _, _ = select.select([self.reply], [], [], timeout)
        line = self.reply.readline() if ready else ""
        if line.startswith("error "):
            self.fail(line[6:].strip())
            return None
        if not line:
            self.fail(f"no reply in {timeout:.0f} s" if not ready else self.died())
            return None
        return line.split()

    def died(self):
        self.p.wait(timeout=30)
        tail = ""
        try:
            with open(self.log) as f:
                lines = [ln.strip() for ln in f if ln.strip()]
            tail = lines[-1][:200] if lines else ""
        except OSError:
            pass
        return f"exited {self.p.returncode}: {tail}" if tail else f"exited {self.p.returncode}"

    def fail(self, why):
        self.error = why
        self.close()

    def wait_ready(self, timeout):
        if self.error:
            return
        r = self.read(timeout)
        if r:
            self.check, self.info, self.version = float(r[1]), r[2], " ".join(r[3:])

    def round(self, steps, timeout):
        if self.error:
            return
        self.p.stdin.write(f"round {steps}\n")
        self.p.stdin.flush()
        r = self.read(timeout)
        if r:
            self.wall.append(float(r[1]))
            self.cpu.append(float(r[2]))

    def close(self):
        if self.p is None or self.p.poll() is not None:
            return
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.close()
            self.p.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()
            self.p.wait()


def peer_python_problem(path):
    if not os.path.exists(path):
        return f"no peer venv at {path}"
    return None


def run_workload(workload, frameworks, args, logdir):
    peer_missing = peer_python_problem(args.peer_python)
    args.peer_missing = peer_missing
    procs = []
    for fw, label, where in frameworks:
        python = sys.executable if where == "ours" else (None if peer_missing else args.peer_python)
        procs.append(Proc(fw, label, python, workload, args, logdir))
    t0 = time.perf_counter()
    for p in procs:  # built and warmed up concurrently; only the rounds are timed
        p.wait_ready(max(1.0, args.setup_timeout - (time.perf_counter() - t0)))
    setup_s = time.perf_counter() - t0
    steps = max(1, round(STEPS[workload] * args.steps_scale))
    for r in range(args.repeats):
        k = r % len(procs)
        for p in procs[k:] + procs[:k]:
            p.round(steps, args.round_timeout)
    for p in procs:
        p.close()
    return procs, steps, setup_s


def paired(a, b):
    """median over rounds of a/b (rounds where both ran)."""
    return statistics.median(x / y for x, y in zip(a, b))


def verdict(w, ours, procs, frameworks, wanted):
    """The line for one of our rows of workload w: its paired ratio against the XLA peer it is
    slowest against (the verdict is that ratio <= 1). A row not asked for prints nothing."""
    base = next((q for q in procs if q.fw == ours), None)
    label = next((lbl for f, lbl, _ in FRAMEWORKS if f == ours), ours)
    if base is None and not wanted:
        return
    peers = [q for q in procs if q.fw in XLA_PEERS and q.wall and not q.error]
    if base is None or base.error or not base.wall:
        print(f"{WORKLOADS[w]}: {label} n/a ({base.error if base else 'not run'}): no verdict")
        return
    if not peers:
        print(f"{WORKLOADS[w]}: no XLA peer ran: no verdict")
        return
    # paired ratios (a noisy round moves both times)
    ratios = {q.fw: paired(base.wall, q.wall) for q in peers}
    fastest = max(peers, key=lambda q: ratios[q.fw])
    r = ratios[fastest.fw]
    missing = [lbl for f, lbl, _ in frameworks if f in XLA_PEERS and f not in ratios]
    print(f"{WORKLOADS[w]}: {label} no slower than the fastest XLA peer? {'yes' if r <= 1.0 else 'NO'}: "
          f"{r:.2f}x the time of {fastest.label} (paired; medians {statistics.median(base.wall):.3f} against "
          f"{statistics.median(fastest.wall):.3f} ms)" + (f" (peers n/a: {', '.join(missing)})" if missing else ""))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worker", nargs=2, metavar=("FRAMEWORK", "WORKLOAD"), help=argparse.SUPPRESS)
    p.add_argument("--reply-fd", type=int, help=argparse.SUPPRESS)
    p.add_argument("--peer-python", default="/work/peers/bin/python", help="python of the venv with torch 2.9, torch-xla, torchax, jax")
    p.add_argument("--repeats", type=int, default=11, help="interleaved rounds per workload (medians over them)")
    p.add_argument("--steps-scale", type=float, default=1.0, help="scales the timed steps per round")
    p.add_argument("--only", default=",".join(WORKLOADS), help="workloads: " + ",".join(WORKLOADS))
    p.add_argument("--frameworks", default=",".join(f for f, _, _ in FRAMEWORKS), help="subset of the frameworks")
    p.add_argument("--sync", choices=("step", "round"), default="step",
                   help="step: every step waits for its result; round: only each round's last step")
    p.add_argument("--setup-timeout", type=float, default=300.0, help="s for all of a workload's processes to build and warm up")
    p.add_argument("--round-timeout", type=float, default=120.0)
    args = p.parse_args()
    if args.worker:
        return worker(args.worker[0], args.worker[1], args.sync, args.reply_fd)

    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    workloads = [w for w in args.only.split(",") if w]
    wanted = args.frameworks.split(",")
    frameworks = [f for f in FRAMEWORKS if f[0] in wanted]
    logdir = tempfile.mkdtemp(prefix="bench_peers-")
    t_start = time.perf_counter()
    print(f"{args.repeats} interleaved rounds per workload (order rotating), medians over rounds; "
          f"sync={args.sync}; warm-up {WARMUP} steps excluded; OMP_WAIT_POLICY=PASSIVE; "
          f"peer python: {args.peer_python}; worker logs: {logdir}", flush=True)
    results = {}
    for w in workloads:
        procs, steps, setup_s = run_workload(w, frameworks, args, logdir)
        results[w] = procs
        print(f"  {WORKLOADS[w]}: {steps} steps per round, set-up (all processes at once) {setup_s:.0f} s", flush=True)

    versions = {}
    for w in workloads:
        for pr in results[w]:
            if pr.version:
                versions.setdefault(pr.label, pr.version)
    print()
    print("ms per step (median); 'x' = that time / torchtpu compile's (paired median over rounds; >1 = slower than"
          " torchtpu compile); check = first step's loss (inference: mean logit)")
    LABEL_W = max(len(lbl) for _, lbl, _ in frameworks)
    head = f"| {'framework':{LABEL_W}s} |" + "".join(f" {WORKLOADS[w] + ' ms':>12s} | {'x':>5s} | {'check':>8s} |" for w in workloads)
    print(head)
    print("|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|")
    for i, (fw, label, _) in enumerate(frameworks):
        cells = []
        notes = []
        for w in workloads:
            pr = results[w][i]
            base = next((q for q in results[w] if q.fw == BASELINE), None)
            if pr.error or not pr.wall:
                cells.append(f" {'n/a':>12s} | {'':>5s} | {'':>8s} |")
                notes.append(f"{WORKLOADS[w]}: n/a ({pr.error or 'no rounds'})")
                continue
            ratio = f"{paired(pr.wall, base.wall):5.2f}" if base and base.wall and not base.error else f"{'-':>5s}"
            cells.append(f" {statistics.median(pr.wall):12.3f} | {ratio} | {pr.check:8.4f} |")
        print(f"| {label:{LABEL_W}s} |" + "".join(cells))
        for n in notes:
            print(f"|   {label} {n}")
    print()
    for w in workloads:
        for ours in (BASELINE, "tpu_compile_func"):
            verdict(w, ours, results[w], frameworks, wanted=ours == BASELINE)
    cpu_lines = []
    for w in workloads:
        base = next((q for q in results[w] if q.fw == BASELINE), None)
        cells = [f"{q.label} {statistics.median(q.cpu):.2f}" for q in results[w] if q.cpu and not q.error]
        cpu_lines.append(f"  {WORKLOADS[w]}: " + ", ".join(cells))
    for w in workloads:
        infos = [f"{q.label}: {q.info}" for q in results[w] if q.info != "-" and not q.error]
        if infos:
            print(f"torchtpu launches per step, {WORKLOADS[w]}: " + "; ".join(infos))
    print("process CPU ms per step (median; all threads of that process):")
    print("\n".join(cpu_lines))
    print("versions: " + "; ".join(f"{k}: {v}" for k, v in versions.items()))
    print(f"total {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
