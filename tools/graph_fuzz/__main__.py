"""Command line of the graph fuzzer.

  python -m tools.graph_fuzz --seeds 1,2 --programs 200     # report in build/graph_fuzz/report.md
  python -m tools.graph_fuzz --replay-id 1:17               # one program: its source and every run's verdict
  python -m tools.graph_fuzz --family dynamic --seeds 1 --programs 100   # shape-polymorphic programs, several lengths

Each seed runs in a worker subprocess; a crash or a hang (--timeout seconds
for one program) is recorded and the seed goes on in a fresh process from the
next program. Exit status 1 when any program gave a wrong answer, crashed or
hung."""
import argparse
import json
import os
import select
import subprocess
import sys
import time

from . import FAMILIES, family

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _env(cache):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if cache:
        env["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = cache
    return env


def run_seed(seed, n, timeout, cache, statements=0, log=print, fam="static"):
    """One record per program of the seed."""
    recs, start = {}, 0
    while start < n:
        p = subprocess.Popen([sys.executable, "-m", "tools.graph_fuzz.worker", str(seed), str(start), str(n), str(statements), fam],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env(cache), text=True)
        cur, deadline, ended = start, time.time() + timeout + 60, None
        while ended is None:
            r, _, _ = select.select([p.stdout], [], [], max(0.0, min(deadline - time.time(), 5)))
            if time.time() > deadline:
                p.kill()
                ended = "hang"
            elif r:
                line = p.stdout.readline()
                if not line:
                    ended = "crash"
                elif line.startswith("B "):
                    cur, deadline = int(line[2:]), time.time() + timeout
                elif line.startswith("R "):
                    rec = json.loads(line[2:])
                    recs[rec["id"]] = rec
                    if rec["kind"] in ("wrong", "error"):
                        log(f"{rec['id']} {rec['kind']}: {rec['detail']}")
                elif line.startswith("DONE"):
                    ended = "done"
        p.wait()
        if ended == "done":
            break
        recs[f"{seed}:{cur}"] = {"id": f"{seed}:{cur}", "kind": ended, "detail": {}}
        log(f"{seed}:{cur} {ended}")
        start = cur + 1
    return [recs.get(f"{seed}:{i}", {"id": f"{seed}:{i}", "kind": "missing", "detail": {}}) for i in range(n)]


def report(recs, cmd, seconds):
    kinds = ("pass", "wrong", "error", "crash", "hang", "invalid", "missing", "pytorch", "subnormal")
    counts = {k: sum(r["kind"] == k for r in recs) for k in kinds}
    lines = ["# Graph fuzzer report", "", f"`{cmd}` ({seconds:.0f} s)", "",
             "| " + " | ".join(kinds) + " |", "|" + " --- |" * len(kinds),
             "| " + " | ".join(str(counts[k]) for k in kinds) + " |", ""]
    if any("calls" in r for r in recs):  # the dynamic family: how its compiled graphs ran
        calls, padded, per_size = (sum(r.get(k, 0) for r in recs) for k in ("calls", "padded", "size_calls"))
        some = sum(1 for r in recs if r.get("padded"))
        lines += [f"Calls: {calls} (at one length each); graph calls padded to a bucket: {padded}, per size: "
                  f"{per_size}; programs with a padded call: {some} of {len(recs)}", ""]
        raised = [r for r in recs if r.get("cpu_raised")]
        if raised:  # bad_index: lengths where CPU raises, tpu must raise the same
            lines += [f"Programs whose indices are out of range at some lengths (CPU raises there): {len(raised)}, "
                      f"at {sum(r['cpu_raised'] for r in raised)} lengths", ""]
        why = {}
        for r in recs:
            for w in r.get("unbounded", ()):
                why[w] = why.get(w, 0) + 1
        if why:
            lines += ["Why graphs ran per size (programs):", ""]
            lines += [f"- {n}: {w}" for w, n in sorted(why.items(), key=lambda x: -x[1])] + [""]
    for k in ("wrong", "crash", "hang", "error", "pytorch", "subnormal"):
        bad = [r for r in recs if r["kind"] == k]
        if bad:
            lines += [f"## {k} ({len(bad)})", ""]
            for r in bad:
                lines.append(f"- `{r['id']}`: " + "; ".join(f"{m}: {v}" for m, v in r["detail"].items()))
            lines.append("")
    return counts, "\n".join(lines)


def replay(pid, statements, fam="static"):
    seed, i = (int(x) for x in pid.split(":"))
    make_program, check = family(fam)
    spec = make_program(seed, i, statements)
    print(spec["src"])
    print("inputs:", spec["inputs"])
    if "lengths" in spec:
        print("lengths:", spec["lengths"], "how:", spec["how"], "grad:", spec["grad"])
    print(json.dumps(check(spec), indent=1))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.graph_fuzz")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--programs", type=int, default=100, help="programs per seed")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per program before it counts as a hang")
    ap.add_argument("--cache", default="build/graph_fuzz/cache", help="tier-3 compile cache ('' off)")
    ap.add_argument("--out", default="build/graph_fuzz")
    ap.add_argument("--statements", type=int, default=0, help="statements per program (default: 3-12, drawn)")
    ap.add_argument("--replay-id", help="SEED:INDEX: print the program and run it here")
    ap.add_argument("--family", default="static", choices=FAMILIES,
                    help="static: programs of fixed shapes, every mode; dynamic: shape-polymorphic programs "
                         "compiled with symbolic sizes (dynamic=True / mark_dynamic), called at several lengths")
    a = ap.parse_args(argv)
    if a.replay_id:
        replay(a.replay_id, a.statements, a.family)
        return 0
    os.makedirs(a.out, exist_ok=True)
    cache = os.path.abspath(a.cache) if a.cache else None
    t0 = time.time()
    recs = []
    for seed in (int(s) for s in a.seeds.split(",")):
        recs += run_seed(seed, a.programs, a.timeout, cache, a.statements, fam=a.family)
        print(f"seed {seed} done ({time.time() - t0:.0f} s)", flush=True)
    cmd = "python -m tools.graph_fuzz " + " ".join(argv if argv is not None else sys.argv[1:])
    counts, md = report(recs, cmd, time.time() - t0)
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(md)
    with open(os.path.join(a.out, "results.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in recs)
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    return 1 if counts["wrong"] or counts["crash"] or counts["hang"] else 0


if __name__ == "__main__":
    sys.exit(main())
