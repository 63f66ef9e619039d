"""docs/fuzz_known.md: the differences the fuzzer found that nobody has fixed yet.

The table rows are `| op | dtype | kind | difference | reason |`: op, dtype and
difference are fnmatch patterns (op against the call's fn, e.g. torch.add or
Tensor.add_; dtype against the first tensor argument's dtype; difference
against the comparison's detail text), kind one of compare.py's.
"""
import fnmatch
import os

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs",
                    "fuzz_known.md")
# Kinds that are a wrong answer (or a missing refusal) and must be listed to pass.
MUST_BE_KNOWN = ("crash", "hang", "value", "dtype", "shape", "stride", "cpu_raised", "no_raise", "device")


def load(path=PATH):
    rows = []
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("|") or len(cells) < 5 or cells[0] in ("op", "") or set(cells[0]) <= {"-", ":"}:
                continue
            rows.append({"op": cells[0].strip("`"), "dtype": cells[1].strip("`"), "kind": cells[2].strip("`"),
                         "difference": cells[3].strip("`").replace("\\|", "|"), "reason": cells[4]})
    return rows


def match(rows, fn, dtype, kind, detail=""):
    for r in rows:
        if r["kind"] == kind and fnmatch.fnmatchcase(fn, r["op"]) and fnmatch.fnmatchcase(dtype, r["dtype"]) \
                and fnmatch.fnmatchcase(detail, r["difference"]):
            return r
    return None
