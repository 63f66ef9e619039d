"""A batch of calls in this process: `python -m tools.fuzz.worker SPECS.json START`.

Prints "B <index>" before each call and "R <json>" after it (flushed), so the
parent knows which call was running when the process died or hung.
"""
import json
import sys
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
        cpu = execute.run(spec, "cpu")
        tpu = execute.run(spec, "tpu")
        kind, detail = compare.compare(spec, cpu, tpu)
        print("R " + json.dumps({"i": i, "id": spec["id"], "kind": kind, "detail": detail}), flush=True)
    print("DONE", flush=True)


if __name__ == "__main__":
    main()
