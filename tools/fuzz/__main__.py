"""Command line of the differential fuzzer.

  python -m tools.fuzz --seeds 1,2,3 --calls 7000        # a long run (make fuzz)
  python -m tools.fuzz --replay build/fuzz/crash-1_42.json   # a recorded call, in this process
  python -m tools.fuzz --replay-id 1:42                    # regenerate call 42 of seed 1 and run it here
"""
import argparse
import concurrent.futures
import json
import os
import sys
import time

from . import calls as CL
from . import known as K
from . import report as R
from . import runner


def replay(specs):
    import warnings
    warnings.simplefilter("ignore")
    import torchtpu  # noqa: F401
    from . import compare, execute
    for s in specs:
        print(json.dumps(s))
        cpu, tpu = execute.run(s, "cpu"), execute.run(s, "tpu")
        for name, o in (("cpu", cpu), ("tpu", tpu)):
            print(f"  {name}:", o[0], o[1] if o[0] == "raise" else o[1].get("result"), o[2] if o[0] == "raise" else "")
        print("  ->", *compare.compare(s, cpu, tpu))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.fuzz")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--calls", type=int, default=7000, help="calls per seed")
    ap.add_argument("--batch", type=int, default=400, help="calls per subprocess")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per call before it counts as a hang")
    ap.add_argument("--cache", default="build/fuzz/cache", help="tier-3 compile cache shared by batches ('' off)")
    ap.add_argument("--out", default="build/fuzz", help="report.md, results.jsonl and crash-*.json go here")
    ap.add_argument("--replay", help="a JSON file of one call spec or a list of them")
    ap.add_argument("--replay-id", help="SEED:INDEX of a generated call")
    a = ap.parse_args(argv)
    if a.replay or a.replay_id:
        if a.replay:
            with open(a.replay) as f:
                specs = json.load(f)
            specs = specs if isinstance(specs, list) else [specs]
        else:
            seed, i = a.replay_id.split(":")
            specs = [CL.make_call(int(seed), int(i))]
        replay(specs)
        return 0
    os.makedirs(a.out, exist_ok=True)
    cache = os.path.abspath(a.cache) if a.cache else None
    specs = [s for seed in a.seeds.split(",") for s in CL.calls(int(seed), a.calls)]
    chunks = [specs[i:i + a.batch] for i in range(0, len(specs), a.batch)]
    t0 = time.time()
    recs = [None] * len(chunks)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(runner.run_batch, c, a.timeout, cache, lambda m: print(m, flush=True)): j
                for j, c in enumerate(chunks)}
        for n, f in enumerate(concurrent.futures.as_completed(futs), 1):
            recs[futs[f]] = f.result()
            print(f"batch {n}/{len(chunks)} done ({time.time() - t0:.0f} s)", flush=True)
    recs = [r for rs in recs for r in rs]
    recs = R.classify(specs, recs, K.load())
    t = R.totals(recs)
    with open(os.path.join(a.out, "results.jsonl"), "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    for s, r in zip(specs, recs):
        if r["kind"] in ("crash", "hang"):
            with open(os.path.join(a.out, f"crash-{s['id'].replace(':', '_')}.json"), "w") as f:
                json.dump([s], f, indent=1)
    cmd = "python -m tools.fuzz " + " ".join(argv if argv is not None else sys.argv[1:])
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(R.markdown(specs, recs, t, cmd))
    print(R.summary_line(t))
    print(f"{time.time() - t0:.0f} s; report: {os.path.join(a.out, 'report.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
