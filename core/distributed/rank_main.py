"""What the launcher runs in each rank: ``python -m core.distributed.rank_main --status_dir D
[--log_dir L] -- script.py args...``.

It sends the rank's stdout and stderr to ``L/workerlog.<rank>`` (when ``--log_dir`` is
given), runs the script as ``__main__`` with ``sys.argv`` set to ``[script, args...]``, and
keeps ``D/rank.<rank>.json`` saying where it stands: ``{"rank", "state", "ok", "error",
"traceback", "code", "pid", "host", "time"}``, with ``state`` ``"running"`` from the start,
then ``"ok"`` or ``"failed"``. The launcher polls these files: a failed rank, or a running
one whose process is gone, makes it end every rank at once, wherever the others are (in a
collective or not). When the script raises, the traceback goes to the log and to the status
file, and the process exits at once with status 1.
"""
import argparse
import json
import os
import runpy
import socket
import sys
import time
import traceback

__all__ = ["main", "status_path"]


def status_path(status_dir, rank):
    return os.path.join(status_dir, f"rank.{rank}.json")


def _write_status(status_dir, rank, state, error=None, trace=None, code=0):
    """Replace the rank's status file (written under a temporary name, then renamed, so
    the launcher never reads half of one)."""
    os.makedirs(status_dir, exist_ok=True)
    path = status_path(status_dir, rank)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump({"rank": rank, "state": state, "ok": state == "ok", "error": error,
                   "traceback": trace, "code": code, "pid": os.getpid(),
                   "host": socket.gethostname(), "time": time.time()}, f)
    os.replace(tmp, path)


def _fail(status_dir, rank, error, trace, code):
    _write_status(status_dir, rank, "failed", error, trace, code)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


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
    _write_status(ns.status_dir, rank, "running")
    try:
        runpy.run_path(ns.script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code != 0:
            if not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
            _fail(ns.status_dir, rank, f"SystemExit: {e.code}", None, code)
    except BaseException as e:  # any failure of the user's script is reported
        trace = traceback.format_exc()
        sys.stderr.write(trace)
        _fail(ns.status_dir, rank, f"{type(e).__name__}: {e}", trace, 1)
    _write_status(ns.status_dir, rank, "ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
