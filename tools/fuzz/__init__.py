"""Differential fuzzer: random op calls run on CPU and on tpu, compared.

One job per file: values.py (dtypes, shapes, special values, views; building a
tensor from its JSON spec), catalogue.py (the ops and how to draw their
arguments), calls.py (a seeded stream of call specs), execute.py (one call on
one device), compare.py (CPU vs tpu outcome), worker.py (a batch in a
subprocess), runner.py (batches, crashes, hangs), known.py (docs/fuzz_known.md),
report.py (totals and the markdown report), __main__.py (the command line).
"""
