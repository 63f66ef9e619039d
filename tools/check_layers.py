"""Checks the C core's layering rules (DESIGN.md, "Which way the arrows point").

Every rule is about what a folder reaches through its #include "..." lines,
followed transitively through headers: a file of folder A may not reach a
header of folder B. A second check keeps exec/ and api/ free of mutable
file-scope or function-static state (the engine object holds it; see
csrc/exec/engine.h). Exits 1 and names each offending include chain.

    python tools/check_layers.py [csrc]
"""

import os
import re
import sys

# folder -> folders it must never reach (transitively)
FORBIDDEN = {
    "exec": {"api"},
    "ops": {"exec", "pjrt", "cache", "api"},
    "hlo": {"pjrt", "exec", "api", "cache", "ops"},
    "ir": {"exec", "api", "pjrt", "cache", "ops", "hlo"},
    "pjrt": {"ir", "ops", "exec", "api", "hlo"},
    "views": {"exec", "api", "pjrt", "cache", "ops"},
    "cache": {"exec", "api", "ops", "ir", "hlo"},
    "dist": {"exec", "api", "pjrt", "cache", "ops", "ir", "hlo", "views"},
    "base": {"exec", "api", "pjrt", "cache", "ops", "ir", "hlo", "views"},
}

# The binding (bindings/, beside csrc/) converts arguments and calls api/:
# what it includes reaches base/ and api/ headers and, below the facade,
# only these value types (no engine fields, device buffers, graphs, caches).
BINDING_ALLOWED_FOLDERS = {"base", "api"}
BINDING_ALLOWED_HEADERS = {
    "exec/engine_type.h",    # the engine's opaque handle
    "exec/stats.h",          # counters the facade reports
    "exec/mode.h",           # the eager modes
    "exec/plan_types.h",     # a compiled plan's handle and output kinds
    "cache/dir_stats.h",     # a cache directory's counters
    "pjrt/info.h",           # what the plugin says of itself and its memory
    "ir/precision.h",        # the float32 matmul modes
    "ops/args.h",            # call arguments (tensor views)
    "ops/out_write.h",       # out= rules' answer type
    "ops/result_layout.h",   # copy and memory-format strides (arithmetic)
    "ops/autocast_policy.h",  # the autocast table
    "views/view_type.h",     # strided views and their arithmetic
}
# A test-only entry that builds the collective programs itself on a private
# client (tests/python/test_collectives_hlo.py), not a path of tensor ops.
BINDING_EXEMPT = {"collective_selftest.c"}

# Process-wide state that is not an engine's: the embedding's lock around its
# one engine and the fork flag (api/engine_lock.h).
STATE_ALLOWED = {"api/engine_lock.c"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(root, rel, cache):
    if rel not in cache:
        path = os.path.join(root, rel)
        try:
            text = open(path, encoding="utf-8").read()
        except OSError:
            text = ""
        cache[rel] = [i for i in INCLUDE.findall(text) if os.path.exists(os.path.join(root, i))]
    return cache[rel]


def reach(root, rel, cache):
    """{header: chain} of every header rel reaches, with one include chain each."""
    seen = {}
    stack = [(rel, (rel,))]
    while stack:
        cur, chain = stack.pop()
        for inc in includes(root, cur, cache):
            if inc not in seen:
                seen[inc] = chain + (inc,)
                stack.append((inc, chain + (inc,)))
    return seen


# A file-scope or function-static variable: `static <type> name ... ;` or `= ...`
# that is not const and not a function declaration or definition.
STATIC_VAR = re.compile(r"^\s*static\s+(?!inline\b)([^;(){}=]*?)\b(\w+)\s*(\[[^\]]*\])*\s*(=[^;]*)?;", re.M)


def mutable_statics(root, rel):
    """Static variables that are not constant (`static const T x`, `T *const x`)."""
    text = open(os.path.join(root, rel), encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = []
    for m in STATIC_VAR.finditer(text):
        decl = m.group(0).split("=")[0]
        if re.match(r"\s*static\s+const\b", decl) and "*" not in decl:
            continue
        if re.search(r"\*\s*const\s+\w+\s*(\[[^\]]*\])*\s*$", decl.strip()):
            continue
        line = text[: m.start()].count("\n") + 1
        out.append((line, m.group(0).strip()))
    return out


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "csrc")
    root = os.path.normpath(root)
    cache, problems = {}, []
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            folder = rel.split(os.sep)[0]
            banned = FORBIDDEN.get(folder, set())
            for header, chain in sorted(reach(root, rel, cache).items()):
                if header.split("/")[0] in banned:
                    problems.append(f"{rel}: {folder}/ must not reach {header.split('/')[0]}/: " + " -> ".join(chain))
            if folder in ("exec", "api") and f.endswith(".c") and rel not in STATE_ALLOWED:
                for line, decl in mutable_statics(root, rel):
                    problems.append(f"{rel}:{line}: mutable static state outside the engine object: {decl}")
    bindings = os.path.join(os.path.dirname(root), "bindings")
    if os.path.isdir(bindings):
        for f in sorted(os.listdir(bindings)):
            if not f.endswith((".c", ".h")):
                continue
            text = open(os.path.join(bindings, f), encoding="utf-8").read()
            for inc in INCLUDE.findall(text):
                if not os.path.exists(os.path.join(root, inc)):
                    continue  # a binding header
                chains = {inc: ("bindings/" + f, inc)}
                chains.update({h: ("bindings/" + f,) + c for h, c in reach(root, inc, cache).items()})
                if f in BINDING_EXEMPT:
                    continue
                for header in sorted(chains):
                    if header.split("/")[0] not in BINDING_ALLOWED_FOLDERS and header not in BINDING_ALLOWED_HEADERS:
                        problems.append(f"bindings/{f}: the binding must reach the core through api/ only, not "
                                        f"{header}: " + " -> ".join(chains[header]))
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} problem(s) in {root}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
