"""``python -m core.distributed.launch``: start a data-parallel job.

::

    python -m core.distributed.launch --nproc_per_node 2 [--selected_gpus 0,1]
        [--log_dir DIR] [--ips 10.0.0.1,10.0.0.2] [--timeout SECONDS] train.py args...

starts ``nproc_per_node`` processes on each machine of ``--ips`` (default: this one) through
MPI's ``mpiexec`` (the ``dist`` extra's mpich wheel brings it; several machines need the MPI
process manager's passwordless ``ssh`` between them and the same Python environment at the
same path). Each process gets Paddle's job variables: ``PADDLE_TRAINER_ID`` (its rank),
``PADDLE_TRAINERS_NUM``, ``PADDLE_CURRENT_ENDPOINT``, ``PADDLE_TRAINER_ENDPOINTS`` and, with
``--selected_gpus``, ``FLAGS_selected_gpus`` (one GPU per process); ``OMP_NUM_THREADS``,
``OPENBLAS_NUM_THREADS`` and ``MKL_NUM_THREADS`` default to 1 so the processes do not fight
over the cores. With ``--log_dir`` each rank's output goes to ``DIR/workerlog.<rank>``.

Each rank keeps a status file (see :mod:`core.distributed.rank_main`) that the launcher
polls a few times a second. When a rank fails, or its process is gone without saying how it
ended, the launcher ends every rank at once — the others may be computing, sleeping or
waiting in a collective — and exits with a non-zero status (the failed rank's), naming the
rank and its error (with ``--log_dir``, its traceback and log too); it then removes the MPI
shared-memory segments (``/dev/shm/mpich_shm_*``) the job created that no live process still
maps, since ranks ended that way cannot remove their own. ``--timeout`` ends the whole job
after that many seconds (exit status 124). A launcher that is itself ended by SIGTERM or
SIGHUP (a job scheduler, ``timeout``, a closed terminal) or Ctrl-C ends the ranks first and
exits with 128 + the signal number, so no rank is left behind.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from .rank_main import status_path

__all__ = ["build_command", "main"]

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_LOCAL = ("127.0.0.1", "localhost")
_ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
_POLL_S = 0.1  # how often the ranks' status files are read
_GRACE_S = 5.0  # how long ranks sent SIGTERM get before SIGKILL


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m core.distributed.launch",
        description="Start a data-parallel job: NPROC_PER_NODE processes per machine, each "
                    "running SCRIPT with its rank in PADDLE_TRAINER_ID.")
    p.add_argument("--nproc_per_node", type=int, default=None,
                   help="processes per machine (default: one per selected GPU, else 1)")
    p.add_argument("--selected_gpus", default=None,
                   help="comma-separated GPU ids, one per process (FLAGS_selected_gpus)")
    p.add_argument("--ips", "--cluster_node_ips", dest="ips", default="127.0.0.1",
                   help="comma-separated machine addresses (default: this machine); "
                        "--cluster_node_ips is fluid 1.8's name")
    p.add_argument("--log_dir", default=None, help="write rank N's output to DIR/workerlog.N")
    p.add_argument("--started_port", type=int, default=6170,
                   help="first port of the endpoints named in PADDLE_TRAINER_ENDPOINTS")
    p.add_argument("--timeout", type=float, default=None,
                   help="end the job after this many seconds (exit status 124)")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _mpiexec():
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or \
        shutil.which("mpiexec")
    if found is None:
        raise SystemExit("launch: mpiexec was not found; pip install dy2static[dist] installs "
                         "mpi4py and the mpich wheel, which provides it")
    return found


def build_command(ns, status_dir, mpiexec="mpiexec"):
    """The ``mpiexec`` command line (MPMD: one block per rank, each with its variables)."""
    ips = [ip.strip() for ip in ns.ips.split(",") if ip.strip()]
    if not ips:
        raise SystemExit("launch: --ips names no machine")
    gpus = [g.strip() for g in ns.selected_gpus.split(",")] if ns.selected_gpus else []
    nproc = ns.nproc_per_node if ns.nproc_per_node is not None else max(len(gpus), 1)
    if nproc < 1:
        raise SystemExit(f"launch: --nproc_per_node must be >= 1, got {nproc}")
    if gpus and len(gpus) != nproc:
        raise SystemExit(f"launch: --selected_gpus names {len(gpus)} GPU(s) "
                         f"({ns.selected_gpus}) but --nproc_per_node is {nproc}; give one GPU "
                         "per process")
    endpoints = [f"{ip}:{ns.started_port + k}" for ip in ips for k in range(nproc)]
    world = len(endpoints)
    cmd = [mpiexec, "-genv", "PYTHONUNBUFFERED", "1"]
    for var in _THREAD_VARS:
        if var not in os.environ:
            cmd += ["-genv", var, "1"]
    rank_cmd = [sys.executable, "-m", "core.distributed.rank_main", "--status_dir", status_dir]
    if ns.log_dir:
        rank_cmd += ["--log_dir", os.path.abspath(ns.log_dir)]
    rank_cmd += [ns.training_script] + list(ns.training_script_args)
    multi_host = len(ips) > 1 or ips[0] not in _LOCAL
    for rank, ep in enumerate(endpoints):
        if rank:
            cmd.append(":")
        cmd += ["-n", "1"]
        if multi_host:
            cmd += ["-host", ep.rsplit(":", 1)[0]]
        env = {"PADDLE_TRAINER_ID": rank, "PADDLE_TRAINERS_NUM": world,
               "PADDLE_CURRENT_ENDPOINT": ep, "PADDLE_TRAINER_ENDPOINTS": ",".join(endpoints)}
        if gpus:
            env["FLAGS_selected_gpus"] = gpus[rank % nproc]
        for k, v in env.items():
            cmd += ["-env", k, str(v)]
        cmd += rank_cmd
    return cmd, world


_SHM_DIR = "/dev/shm"


def _mpi_segments():
    try:
        return {n for n in os.listdir(_SHM_DIR) if n.startswith("mpich_shm_")}
    except OSError:
        return set()


def _mapped_paths():
    """Paths mapped by any live process (None when /proc cannot be read)."""
    paths = set()
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return None
    for pid in pids:
        try:
            with open(f"/proc/{pid}/maps") as f:
                for line in f:
                    if _SHM_DIR in line:
                        paths.add(line.split(None, 5)[-1].strip().split(" (deleted)")[0])
        except OSError:
            continue
    return paths


def _remove_stale_segments(before):
    """Unlink the MPI shared-memory segments this job created and no live process maps: a
    rank ended by the process manager never gets to remove its own."""
    new = _mpi_segments() - before
    if not new:
        return
    mapped = _mapped_paths()
    if mapped is None:
        return
    for name in new:
        path = os.path.join(_SHM_DIR, name)
        if path not in mapped:
            try:
                os.unlink(path)
            except OSError:
                continue


def _read_status(status_dir, world):
    """``{rank: status}`` of the ranks that have written their status file."""
    found = {}
    for rank in range(world):
        try:
            with open(status_path(status_dir, rank)) as f:
                found[rank] = json.load(f)
        except (OSError, ValueError):
            continue
    return found


def _finished(status):
    """The statuses of the ranks that have ended (ok or failed)."""
    return {r: s for r, s in status.items() if s.get("state", "ok") != "running"}


def _process_gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:  # a zombie has ended, its parent not yet told
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _lost_ranks(status_dir, world, status):
    """Ranks on this machine that said they were running and whose process is gone without
    a final status (a signal, ``os._exit``, a crash outside Python)."""
    host = socket.gethostname()
    suspects = [r for r, s in status.items() if s.get("state") == "running" and
                s.get("host") == host and isinstance(s.get("pid"), int) and
                _process_gone(s["pid"])]
    if not suspects:
        return []
    again = _read_status(status_dir, world)  # it may have written its end just now
    return [r for r in suspects if again.get(r, {}).get("state") == "running"]


def _watch(proc, status_dir, world, timeout):
    """Wait for ``mpiexec`` to end, polling the ranks' status files. Returns ``(rc, why,
    lost)``: ``why`` is None when mpiexec ended by itself, else ``"failed"`` (a rank reported
    a failure), ``"lost"`` (the ranks ``lost`` are gone without a status) or ``"timeout"``;
    then the job is still running and ``rc`` is the status the launcher exits with."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        wait = _POLL_S if deadline is None else max(0.0, min(_POLL_S,
                                                             deadline - time.monotonic()))
        try:
            return proc.wait(timeout=wait), None, []
        except subprocess.TimeoutExpired:
            pass
        status = _read_status(status_dir, world)
        failed = [s for s in status.values() if s.get("state") == "failed"]
        if failed:
            first = min(failed, key=lambda s: s["time"])
            return (first.get("code") or 1), "failed", []
        lost = _lost_ranks(status_dir, world, status)
        if lost:
            return 1, "lost", lost
        if deadline is not None and time.monotonic() >= deadline:
            return 124, "timeout", []


def _end_job(proc):
    """SIGTERM to mpiexec's process group (the process manager and the ranks), SIGKILL to
    what is left after the grace period."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=_GRACE_S)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


class _Ended(Exception):
    """The launcher received a signal that ends it (raised by :func:`_on_signal`)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum, frame):
    raise _Ended(signum)


def _report(world, status, rc, log_dir, timed_out, ended_by=None, lost=()):
    if ended_by is not None:
        running = [r for r in range(world) if r not in _finished(status)]
        return (f"launch: ended by {signal.Signals(ended_by).name}; ranks {running} were "
                "still running and were ended")
    finished = _finished(status)
    failed = sorted((s for s in finished.values() if not s.get("ok")), key=lambda s: s["time"])
    log = (lambda r: f" (log: {os.path.join(log_dir, f'workerlog.{r}')})") if log_dir else \
        (lambda r: "")
    if timed_out:
        done = sorted(finished)
        running = [r for r in range(world) if r not in finished]
        return (f"launch: the job ran past --timeout; ranks {running} were still running "
                f"(finished: {done}) and were ended")
    if failed:
        first = failed[0]
        others = [r for r in range(world) if r != first["rank"] and r not in finished]
        msg = f"launch: rank {first['rank']} failed: {first['error']}{log(first['rank'])}"
        if log_dir and first.get("traceback"):  # else the rank printed it to this terminal
            msg += "\n" + first["traceback"].rstrip()
        for s in failed[1:]:
            msg += f"\nlaunch: rank {s['rank']} also failed: {s['error']}{log(s['rank'])}"
        if others:
            msg += f"\nlaunch: ranks {others} were ended"
        return msg
    if lost:
        others = [r for r in range(world) if r not in finished and r not in lost]
        msg = (f"launch: rank(s) {list(lost)} ended without reporting (killed by a signal, "
               f"os._exit, or a crash outside Python){log(lost[0])}")
        if others:
            msg += f"\nlaunch: ranks {others} were ended"
        return msg
    missing = [r for r in range(world) if r not in finished]
    if rc != 0 or missing:
        ranks = missing or list(range(world))
        return (f"launch: mpiexec exited with status {rc}; ranks {ranks} ended without reporting "
                "(killed, or crashed outside Python)" + "".join(log(r) for r in ranks[:1]))
    return None


def main(argv=None):
    ns = _parser().parse_args(argv)
    if not os.path.exists(ns.training_script):
        raise SystemExit(f"launch: training script {ns.training_script!r} does not exist")
    status_dir = tempfile.mkdtemp(prefix="d2s-launch-")
    try:
        cmd, world = build_command(ns, status_dir, _mpiexec())
        if ns.log_dir:
            os.makedirs(ns.log_dir, exist_ok=True)
        segments = _mpi_segments()
        timed_out, ended_by, proc, lost = False, None, None, []
        previous = {}
        if threading.current_thread() is threading.main_thread():  # signal.signal's rule
            previous = {sig: signal.signal(sig, _on_signal) for sig in _ENDING_SIGNALS}
        try:
            proc = subprocess.Popen(cmd, start_new_session=True)
            rc, why, lost = _watch(proc, status_dir, world, ns.timeout)
            timed_out = why == "timeout"
        except KeyboardInterrupt:
            rc = 130
        except _Ended as e:
            ended_by = e.signum
            rc = 128 + e.signum
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if proc is not None:
            _end_job(proc)
        if rc != 0:
            _remove_stale_segments(segments)
        message = _report(world, _read_status(status_dir, world), rc, ns.log_dir, timed_out,
                          ended_by, lost)
    finally:
        shutil.rmtree(status_dir, ignore_errors=True)
    if message is not None:
        print(message, file=sys.stderr, flush=True)
        return rc if rc not in (0, None) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
