"""Differential fuzzing of the translator: generate random small control-flow programs and
check that each gives the same results eagerly, converted (``declarative``) and as a Program
run by ``core.Executor``.

    python scripts/fuzz_translator.py --count 5000 --seed 1 [--out findings_dir]

Prints a summary (programs run, findings, time) and, for each finding, the program and the
disagreement; with ``--out`` each finding's source is also written there. Exit status 1 when
anything disagreed.
"""
import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.translator.fuzz_programs import run_many


def _write(path, text):
    """Write ``text`` to ``path`` through a temporary file renamed into place."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1000, help="programs to run")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--out", default=None, help="directory for the findings' sources")
    args = parser.parse_args(argv)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    start = time.perf_counter()

    def report(index, source, problem):
        print(f"--- program {index} (seed {args.seed}): {problem}\n{source}", flush=True)
        if args.out:
            _write(os.path.join(args.out, f"finding_{args.seed}_{index}.py"), source)

    findings = run_many(args.count, args.seed, on_finding=report)
    elapsed = time.perf_counter() - start
    print(f"{args.count} programs, {len(findings)} findings, {elapsed:.1f} s")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
