"""Totals and the markdown report of a fuzz run."""
import collections

from . import calls as CL
from . import known as K

KINDS = ("ok", "refused", "crash", "hang", "value", "dtype", "shape", "stride", "device", "cpu_raised", "no_raise",
         "tpu_raised", "exc_type", "extension")


def classify(specs, recs, rows):
    """Adds "dtype" and "known" (the matching row) to each record."""
    for s, r in zip(specs, recs):
        r["fn"], r["dt"], r["form"] = s["fn"], CL.first_dtype(s), s["form"]
        r["known"] = K.match(rows, s["fn"], r["dt"], r["kind"], r["detail"]) is not None if r["kind"] != "ok" else True
    return recs


def totals(recs):
    c = collections.Counter(r["kind"] for r in recs)
    t = {k: c.get(k, 0) for k in KINDS}
    t["calls"] = len(recs)
    t["unknown_wrong"] = sum(1 for r in recs if r["kind"] in K.MUST_BE_KNOWN and not r["known"])
    return t


def summary_line(t):
    return (f"calls {t['calls']}  crashes {t['crash']}  hangs {t['hang']}  value mismatches {t['value']}  "
            f"dtype mismatches {t['dtype']}  shape {t['shape']}  stride {t['stride']}  device {t['device']}  "
            f"exception-type mismatches {t['exc_type']}  cpu-raised/tpu-computed {t['cpu_raised']}  "
            f"tpu-raised/cpu-computed {t['tpu_raised']}  missing mixed-device error {t['no_raise']}  "
            f"refused dtypes {t['refused']}  tpu-only dtype kernels {t['extension']}  ok {t['ok']}  | wrong answers not in docs/fuzz_known.md: "
            f"{t['unknown_wrong']}")


def markdown(specs, recs, t, command):
    byid = {s["id"]: s for s in specs}
    lines = ["# Differential fuzz report", "", f"Command: `{command}`", "", summary_line(t), ""]
    groups = collections.defaultdict(list)
    for r in recs:
        if r["kind"] not in ("ok", "refused"):
            groups[(r["kind"], r["fn"], r["dt"])].append(r)
    lines += ["| kind | op | dtype | calls | known | first example (id: detail) |", "|---|---|---|---|---|---|"]
    for (kind, fn, dt), rs in sorted(groups.items(), key=lambda kv: (KINDS.index(kv[0][0]), -len(kv[1]))):
        ex = rs[0]
        det = ex["detail"].replace("|", "\\|").replace("\n", " ")[:220]
        lines.append(f"| {kind} | `{fn}` | {dt} | {len(rs)} | {'yes' if ex['known'] else 'NO'} | {ex['id']}: {det} |")
    lines += ["", "Replay one call: `python -m tools.fuzz --replay-id SEED:INDEX`.", ""]
    del byid
    return "\n".join(lines)
