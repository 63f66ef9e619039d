"""A batch of calls in this process: `python -m tools.fuzz.worker SPECS.json START`.

Prints "B <index>" before each call and "R <json>" after it (flushed), so the
parent knows which call was running when the process died or hung.
"""
import json
import os
import sys
import time
import warnings


def main():
    path, start = sys.argv[1], int(sys.argv[2])
    with open(path) as f:
        specs = json.load(f)
    warnings.simplefilter("ignore")
    import torch  # noqa: F401  (after the specs: a bad file fails fast)
    import torchtpu  # noqa: F401

    from . import compare, execute
    for i in range(start, len(specs)):
        spec = specs[i]
        print(f"B {i}", flush=True)
        if os.environ.get("TT_FUZZ_SELFTEST_ABORT") == spec["id"]:  # the runner's own test: a crash here
            os.abort()
        if os.environ.get("TT_FUZZ_SELFTEST_HANG") == spec["id"]:  # ... and a hang
            time.sleep(3600)
        cpu = execute.run(spec, "cpu")
        tpu = execute.run(spec, "tpu")
        kind, detail = compare.compare(spec, cpu, tpu)
        print("R " + json.dumps({"i": i, "id": spec["id"], "kind": kind, "detail": detail}), flush=True)
    print("DONE", flush=True)


if __name__ == "__main__":
    main()
