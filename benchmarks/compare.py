"""Compare the benchmarks of the working tree with those of another git revision.

    python benchmarks/compare.py REV [--only NAME ...] [--rounds N] [--args "..."]

REV (a commit, tag or branch) is exported with ``git archive`` into a temporary directory; the
working tree's files, index and HEAD are not touched. The working tree's benchmark scripts
(``benchmarks/*.py`` but this one; ``--only NAME`` picks some, by file name without ``.py``)
are copied there, so both sides run the same workloads, each against its own ``core`` and
``translator`` (``--rev-scripts``: REV's side runs REV's own copies of the scripts).

For each script, the two sides run in alternating processes (working tree then REV, REV then
working tree, ...), ``--rounds`` times each, so that the load of a shared machine hits both
alike. Every figure a script prints -- a number followed by a unit (``s``, ``ms``, ``us``,
``µs``, ``ns``, ``samples/s``, or ``x`` for a ratio) -- is matched between the sides by its
name: the text of its line before the line's first figure, and, for later figures on the same
line, the words between it and the figure before it (``#k`` when there are none); targets
printed after the word ``goal`` are not figures. The table
shows, for each figure, the median over the rounds of each side with the spread (lowest to
highest) and the ratio of the medians, working tree / REV: below 1.00 the working tree takes
less time (for throughputs, ``samples/s``, above 1.00 is better).

Exit status: 0 when every run succeeded, 1 when a run failed (its last lines are printed),
2 for bad arguments.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

#: unit -> factor to the unit's base (seconds for times)
UNITS = {"samples/s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "s": 1.0, "x": 1.0}
_FIGURE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s?(samples/s|ms|us|µs|ns|s|x)"
                     r"(?![\w])")
_WORD = re.compile(r"[A-Za-z]")


def scripts_in(directory):
    """Benchmark names (file names without ``.py``) in ``directory``, sorted; not this one."""
    own = os.path.splitext(os.path.basename(__file__))[0]
    return sorted(n[:-3] for n in os.listdir(directory)
                  if n.endswith(".py") and not n.startswith("_") and n[:-3] != own)


def parse_figures(text):
    """``[(name, value in the unit's base, unit)]`` for every figure in a script's output."""
    figures, seen = [], {}
    for line in text.splitlines():
        matches = list(_FIGURE.finditer(line))
        if not matches:
            continue
        prefix = line[:matches[0].start()].strip().rstrip(":=").strip()
        goal = line.find("goal")
        if goal >= 0:  # targets printed after the word "goal" are not measurements
            matches = [m for m in matches if m.start() < goal]
        end = None
        for k, m in enumerate(matches):
            name = prefix
            if k:
                between = line[end:m.start()].strip(" :=,;()|")
                name = f"{prefix} | {between if _WORD.search(between) else f'#{k + 1}'}"
            end = m.end()
            count = seen.get(name, 0) + 1
            seen[name] = count
            if count > 1:
                name = f"{name} ({count})"
            figures.append((name, float(m.group(1)) * UNITS[m.group(2)], m.group(2)))
    return figures


def resolve(rev, root=ROOT):
    """The full commit id of ``rev``; ValueError naming it when git does not know it."""
    out = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                         cwd=root, capture_output=True, text=True)
    if out.returncode != 0:
        raise ValueError(f"REV: {rev!r} is not a commit in {os.path.basename(root)}'s history "
                         "(expected a commit id, tag or branch)")
    return out.stdout.strip()


def export(commit, dest, root=ROOT):
    """Write the files of ``commit`` into ``dest`` (``git archive``; no work tree changes)."""
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=root,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)


def run_script(tree, name, args, timeout):
    """``(figures, error)`` of ``python benchmarks/NAME.py ARGS`` run in ``tree``."""
    env = dict(os.environ, PYTHONPATH=tree + os.pathsep + os.environ.get("PYTHONPATH", ""))
    script = os.path.join(tree, "benchmarks", name + ".py")
    try:
        proc = subprocess.run([sys.executable, script] + args, cwd=tree, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [], f"timed out after {timeout} s"
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-6:])
        return [], f"exit status {proc.returncode}:\n{tail}"
    return parse_figures(proc.stdout), None


def summarize(samples):
    """``[(name, unit, median, low, high)]`` in first-seen order from a list of runs' figures;
    a figure missing from some runs is summarised over the runs that have it."""
    values, units = {}, {}
    for figures in samples:
        for name, value, unit in figures:
            values.setdefault(name, []).append(value)
            units.setdefault(name, unit)
    return [(n, units[n], statistics.median(v), min(v), max(v)) for n, v in values.items()]


def _show(value, unit):
    if value is None:
        return "-"
    scaled = value / UNITS[unit]
    digits = 2 if unit == "x" or scaled >= 100 else 3
    return f"{scaled:.{digits}f}{unit if unit == 'x' else ' ' + unit}"


def table(name, current, other, rev_label):
    """Lines of the side-by-side table of one script."""
    cur = {n: (u, m, lo, hi) for n, u, m, lo, hi in summarize(current)}
    old = {n: (u, m, lo, hi) for n, u, m, lo, hi in summarize(other)}
    names = list(cur) + [n for n in old if n not in cur]
    rows = []
    for n in names:
        unit = (cur.get(n) or old.get(n))[0]
        c, o = cur.get(n), old.get(n)
        cells = []
        for side in (c, o):
            cells.append("-" if side is None else
                         f"{_show(side[1], unit)} [{_show(side[2], unit)}..{_show(side[3], unit)}]")
        ratio = f"{c[1] / o[1]:.2f}" if c and o and o[1] else "-"
        rows.append((n, cells[0], cells[1], ratio))
    head = ("figure", "working tree [spread]", f"{rev_label} [spread]", "ratio")
    widths = [max(len(r[k]) for r in rows + [head]) for k in range(4)]
    lines = [f"== {name}"]
    for r in [head] + rows:
        lines.append("  ".join(cell.ljust(w) if k < 3 else cell.rjust(w)
                               for k, (cell, w) in enumerate(zip(r, widths))))
    return lines


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", metavar="REV", help="git revision to compare with (commit, tag, ...)")
    ap.add_argument("--only", metavar="NAME", action="append", default=None,
                    help="run only this benchmark (file name without .py); repeatable")
    ap.add_argument("--rounds", type=int, default=3, help="processes per side and script")
    ap.add_argument("--args", default="", help="arguments passed to every script")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per process")
    ap.add_argument("--rev-scripts", action="store_true",
                    help="REV's side runs REV's own copies of the scripts")
    args = ap.parse_args(argv)
    available = scripts_in(HERE)
    for name in args.only or ():
        if name not in available:
            ap.error(f"--only: no benchmark named {name!r}; expected one of "
                     f"{', '.join(available)}")
    if args.rounds < 1:
        ap.error(f"--rounds: expected a positive number of rounds, got {args.rounds}")
    try:
        args.commit = resolve(args.rev)
    except ValueError as e:
        ap.error(str(e))
    args.names = args.only or available
    args.extra = args.args.split()
    return args


def main(argv=None):
    args = parse_args(argv)
    label = args.rev if len(args.rev) <= 12 else args.commit[:10]
    failed = False
    with tempfile.TemporaryDirectory(prefix="compare-") as other:
        export(args.commit, other)
        bench = os.path.join(other, "benchmarks")
        os.makedirs(bench, exist_ok=True)
        for name in os.listdir(HERE):  # all of them: scripts import each other
            if name.endswith(".py") and not (args.rev_scripts and
                                             os.path.exists(os.path.join(bench, name))):
                shutil.copy2(os.path.join(HERE, name), bench)
        for name in args.names:
            runs = {ROOT: [], other: []}
            errors = []
            for k in range(args.rounds):
                for tree in ((ROOT, other) if k % 2 == 0 else (other, ROOT)):
                    figures, error = run_script(tree, name, args.extra, args.timeout)
                    if error:
                        side = "working tree" if tree == ROOT else label
                        errors.append(f"{name} on {side}: {error}")
                    else:
                        runs[tree].append(figures)
            print("\n".join(table(name, runs[ROOT], runs[other], label)), flush=True)
            for e in errors:
                print("  FAILED " + e.replace("\n", "\n    "), flush=True)
            failed = failed or bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
