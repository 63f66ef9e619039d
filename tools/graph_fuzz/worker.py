"""Runs programs START..COUNT-1 of SEED (STATEMENTS each, 0: drawn) of FAMILY (static or dynamic) in this
process, one line per program: "B <index>" before it, "R <json>" after (see __main__.py)."""
import json
import sys
import warnings

from . import family


def main():
    seed, start, count, statements = (int(a) for a in sys.argv[1:5])
    make_program, check = family(sys.argv[5] if len(sys.argv) > 5 else "static")
    warnings.simplefilter("ignore")
    for i in range(start, count):
        print(f"B {i}", flush=True)
        print("R " + json.dumps(check(make_program(seed, i, statements))), flush=True)
    print("DONE", flush=True)


if __name__ == "__main__":
    main()
