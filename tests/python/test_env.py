"""The core's environment variables are declared once (csrc/base/env.c) and
read once per engine: every declared variable is documented in README's
table, every TORCH_TPU_ name the core mentions is declared, and nothing in the
core calls getenv outside the registry."""
import pathlib
import re

from torchtpu import _C

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _readme_table_names():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`([A-Z][A-Z0-9_]+)", line.split("|")[1]))
    return names


def test_declarations_are_complete():
    decls = _C.env_vars()
    names = [d[0] for d in decls]
    assert len(names) == len(set(names)) and len(names) >= 15
    for name, kind, dflt, doc in decls:
        assert kind in ("flag", "count", "bytes", "text"), name
        assert dflt and doc, name


def test_every_declared_variable_is_documented():
    documented = _readme_table_names()
    missing = [d[0] for d in _C.env_vars() if d[0] not in documented]
    assert not missing, f"declared in csrc/base/env.c but not in README's table: {missing}"


def test_core_mentions_only_declared_variables():
    declared = {d[0] for d in _C.env_vars()}
    mentioned = set()
    for path in (ROOT / "csrc").rglob("*.[ch]"):
        mentioned.update(re.findall(r"\b(TORCH_TPU_[A-Z0-9_]+)", path.read_text()))
    assert mentioned - declared == set(), f"named in csrc/ but not declared: {sorted(mentioned - declared)}"


def test_getenv_only_in_the_registry():
    offenders = []
    for path in (ROOT / "csrc").rglob("*.c"):
        if path.relative_to(ROOT).as_posix() == "csrc/base/env.c":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\bgetenv\s*\(", line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}")
    assert not offenders, f"getenv outside csrc/base/env.c: {offenders}"
