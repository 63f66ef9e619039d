"""Graph fuzzer: seeded random programs (chains of ops with views, in-place
writes and broadcasting) run on CPU and on tpu in Strict, DeferAndFuse and
under torch.compile(backend="tpu") (capture and replay), compared.

program.py (the seeded programs), check.py (one program, every run, compared),
worker.py (programs in a subprocess), __main__.py (the command line, crashes
and hangs, the report). `make fuzz-graphs`; a fast subset runs in make test
(tests/python/test_graph_fuzz.py).
"""
