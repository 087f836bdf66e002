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

When a rank fails, the others are ended and the launcher exits with a non-zero status,
naming the rank and its error (and its log); it then removes the MPI shared-memory segments
(``/dev/shm/mpich_shm_*``) the job created that no live process still maps, since ranks ended
that way cannot remove their own. ``--timeout`` ends the whole job after that
many seconds (exit status 124). A launcher that is itself ended by SIGTERM or SIGHUP (a job
scheduler, ``timeout``, a closed terminal) or Ctrl-C ends the ranks first and exits with
128 + the signal number, so no rank is left behind.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

from .rank_main import status_path

__all__ = ["build_command", "main"]

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_LOCAL = ("127.0.0.1", "localhost")
_ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


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
    found = {}
    for rank in range(world):
        try:
            with open(status_path(status_dir, rank)) as f:
                found[rank] = json.load(f)
        except (OSError, ValueError):
            continue
    return found


class _Ended(Exception):
    """The launcher received a signal that ends it (raised by :func:`_on_signal`)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum, frame):
    raise _Ended(signum)


def _report(world, status, rc, log_dir, timed_out, ended_by=None):
    if ended_by is not None:
        running = [r for r in range(world) if r not in status]
        return (f"launch: ended by {signal.Signals(ended_by).name}; ranks {running} were "
                "still running and were ended")
    failed = sorted((s for s in status.values() if not s.get("ok")), key=lambda s: s["time"])
    log = (lambda r: f" (log: {os.path.join(log_dir, f'workerlog.{r}')})") if log_dir else \
        (lambda r: "")
    if timed_out:
        done = sorted(status)
        running = [r for r in range(world) if r not in status]
        return (f"launch: the job ran past --timeout; ranks {running} were still running "
                f"(finished: {done}) and were ended")
    if failed:
        first = failed[0]
        others = [r for r in range(world) if r != first["rank"] and r not in status]
        msg = f"launch: rank {first['rank']} failed: {first['error']}{log(first['rank'])}"
        for s in failed[1:]:
            msg += f"\nlaunch: rank {s['rank']} also failed: {s['error']}{log(s['rank'])}"
        if others:
            msg += f"\nlaunch: ranks {others} were ended"
        return msg
    missing = [r for r in range(world) if r not in status]
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
        timed_out, ended_by, proc = False, None, None
        previous = {}
        if threading.current_thread() is threading.main_thread():  # signal.signal's rule
            previous = {sig: signal.signal(sig, _on_signal) for sig in _ENDING_SIGNALS}
        try:
            proc = subprocess.Popen(cmd, start_new_session=True)
            rc = proc.wait(timeout=ns.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            rc = 124
        except KeyboardInterrupt:
            rc = 130
        except _Ended as e:
            ended_by = e.signum
            rc = 128 + e.signum
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if rc != 0:
            _remove_stale_segments(segments)
        message = _report(world, _read_status(status_dir, world), rc, ns.log_dir, timed_out,
                          ended_by)
    finally:
        shutil.rmtree(status_dir, ignore_errors=True)
    if message is not None:
        print(message, file=sys.stderr, flush=True)
        return rc if rc not in (0, None) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
