"""Graph fuzzer: seeded random programs (chains of ops with views, in-place
writes and broadcasting) run on CPU and on tpu in Strict, DeferAndFuse and
under torch.compile(backend="tpu") (capture and replay), compared.

program.py (the seeded programs), check.py (one program, every run, compared),
dynamic.py and check_dynamic.py (the "dynamic" family: shape-polymorphic
programs compiled with symbolic sizes and called at several lengths, bounded
dynamism), worker.py (programs in a subprocess), __main__.py (the command
line, crashes and hangs, the report). `make fuzz-graphs`; a fast subset runs
in make test (tests/python/test_graph_fuzz.py).
"""

FAMILIES = ("static", "dynamic")


def family(name):
    """(make_program, check) of a program family."""
    if name == "static":
        from .check import check
        from .program import make_program
    elif name == "dynamic":
        from .check_dynamic import check
        from .dynamic import make_program
    else:
        raise ValueError(f"graph fuzzer: unknown family {name!r}, expected one of {FAMILIES}")
    return make_program, check
