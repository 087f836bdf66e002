"""What the launcher runs in each rank: ``python -m core.distributed.rank_main --status_dir D
[--log_dir L] -- script.py args...``.

It sends the rank's stdout and stderr to ``L/workerlog.<rank>`` (when ``--log_dir`` is
given), runs the script as ``__main__`` with ``sys.argv`` set to ``[script, args...]``, and
leaves ``D/rank.<rank>.json`` saying how it ended: ``{"rank", "ok", "error", "time"}``. When
the script raises, the traceback goes to the log and the process exits at once with status
1, which makes the MPI process manager end the other ranks (they may be blocked in a
collective waiting for this one).
"""
import argparse
import json
import os
import runpy
import sys
import time
import traceback

__all__ = ["main", "status_path"]


def status_path(status_dir, rank):
    return os.path.join(status_dir, f"rank.{rank}.json")


def _write_status(status_dir, rank, ok, error):
    path = status_path(status_dir, rank)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"rank": rank, "ok": ok, "error": error, "time": time.time()}, f)
    os.replace(tmp, path)


def _redirect(log_dir, rank):
    os.makedirs(log_dir, exist_ok=True)
    fd = os.open(os.path.join(log_dir, f"workerlog.{rank}"),
                 os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m core.distributed.rank_main")
    parser.add_argument("--status_dir", required=True)
    parser.add_argument("--log_dir", default=None)
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    ns = parser.parse_args(argv)
    rank = int(os.environ.get("PADDLE_TRAINER_ID", "0"))
    if ns.log_dir:
        _redirect(ns.log_dir, rank)
    sys.argv = [ns.script] + list(ns.args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(ns.script)))
    try:
        runpy.run_path(ns.script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code != 0:
            _write_status(ns.status_dir, rank, False, f"SystemExit: {e.code}")
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    except BaseException as e:  # any failure of the user's script is reported
        traceback.print_exc()
        _write_status(ns.status_dir, rank, False, f"{type(e).__name__}: {e}")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
    _write_status(ns.status_dir, rank, True, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
