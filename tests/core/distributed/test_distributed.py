"""core.distributed: collectives, DataParallel, with_data_parallel and the launcher.

The multi-process tests (marked ``dist``) start 2 processes with the launcher and check that
training on 2 shards equals one process on the whole batch
(tests/core/distributed/dist_scripts/), and that a failing rank ends the job with its error
named. They skip when mpi4py or mpiexec is missing. The others run in this process, a
one-process job.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import core
import core.distributed as dist
from core.distributed import communicators as comm_mod
from core.distributed import launch, rank_main

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dist_scripts")


def _have_mpi():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return shutil.which("mpiexec", path=os.path.dirname(sys.executable)) is not None or \
        shutil.which("mpiexec") is not None


needs_mpi = pytest.mark.skipif(not _have_mpi(), reason="needs mpi4py and mpiexec (dist extra)")


def _launch(args, timeout=120):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    for k in ("PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM", "PMI_RANK", "PMI_SIZE"):
        env.pop(k, None)
    return subprocess.run([sys.executable, "-m", "core.distributed.launch"] + args, cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=timeout)


# -- several processes ----------------------------------------------------------------------
@pytest.mark.dist
@needs_mpi
def test_two_processes_train_like_one(tmp_path):
    r = _launch(["--nproc_per_node", "2", "--log_dir", str(tmp_path),
                 os.path.join(SCRIPTS, "train_equal.py")])
    logs = {k: (tmp_path / f"workerlog.{k}").read_text() for k in range(2)}
    assert r.returncode == 0, r.stderr + "\n".join(logs.values())
    for k in range(2):
        assert f"CHECKS OK rank {k} of 2" in logs[k]


@pytest.mark.dist
@needs_mpi
def test_two_ranks_on_sampler_shards_train_like_one_process(tmp_path):
    r = _launch(["--nproc_per_node", "2", "--log_dir", str(tmp_path),
                 os.path.join(SCRIPTS, "train_sampler.py")])
    logs = {k: (tmp_path / f"workerlog.{k}").read_text() for k in range(2)}
    assert r.returncode == 0, r.stderr + "\n".join(logs.values())
    for k in range(2):
        assert f"CHECKS OK rank {k} of 2 after 8 steps" in logs[k]


@pytest.mark.dist
@needs_mpi
def test_failing_rank_ends_the_job_and_is_named(tmp_path):
    before = launch._mpi_segments()
    r = _launch(["--nproc_per_node", "2", "--log_dir", str(tmp_path),
                 os.path.join(SCRIPTS, "fail_rank.py")], timeout=60)
    assert r.returncode != 0
    assert "rank 1 failed: ValueError: rank 1 gives up on purpose" in r.stderr
    assert "workerlog.1" in r.stderr
    assert "Traceback" in (tmp_path / "workerlog.1").read_text()
    assert "unreachable" not in (tmp_path / "workerlog.0").read_text()
    assert launch._mpi_segments() <= before  # the ended ranks' MPI shared memory is removed


@pytest.mark.dist
@needs_mpi
@pytest.mark.parametrize("log_dir", [False, True])
def test_failing_rank_ends_ranks_that_are_not_in_a_collective(tmp_path, log_dir):
    script = tmp_path / "fail_while_other_sleeps.py"
    script.write_text(textwrap.dedent("""
        import os, time
        rank = int(os.environ["PADDLE_TRAINER_ID"])
        print("pid", os.getpid(), flush=True)
        if rank == 1:
            time.sleep(0.5)
            raise KeyError("rank 1 lost its key")
        time.sleep(600)
        print("rank 0 woke up", flush=True)
    """))
    args = ["--log_dir", str(tmp_path / "logs")] if log_dir else []
    # the sleeping rank would keep mpiexec alive for 600 s: the launcher must end it
    r = _launch(["--nproc_per_node", "2"] + args + [str(script)], timeout=60)
    assert r.returncode == 1, r.stderr
    assert "launch: rank 1 failed: KeyError: 'rank 1 lost its key'" in r.stderr
    assert "ranks [0] were ended" in r.stderr
    assert 'raise KeyError("rank 1 lost its key")' in r.stderr  # the traceback is shown
    assert "woke up" not in r.stdout
    if log_dir:
        pid = int((tmp_path / "logs" / "workerlog.0").read_text().split()[1])
        assert not _alive(pid)


@pytest.mark.dist
@needs_mpi
def test_rank_gone_without_a_status_ends_the_job(tmp_path):
    script = tmp_path / "vanish.py"
    script.write_text("import os, time\n"
                      "if os.environ['PADDLE_TRAINER_ID'] == '0':\n"
                      "    time.sleep(0.5)\n"
                      "    os._exit(0)\n"
                      "time.sleep(600)\n")
    r = _launch(["--nproc_per_node", "2", str(script)], timeout=60)
    assert r.returncode == 1, r.stderr
    assert "rank(s) [0] ended without reporting" in r.stderr
    assert "ranks [1] were ended" in r.stderr


@pytest.mark.dist
@needs_mpi
def test_launcher_environment_arguments_and_logs(tmp_path):
    script = tmp_path / "show.py"
    script.write_text(textwrap.dedent("""
        import sys
        import core.distributed as dist
        env = dist.ParallelEnv()
        print("ENV", env.rank, env.nranks, env.current_endpoint,
              ",".join(env.trainer_endpoints), sys.argv[1:], flush=True)
    """))
    r = _launch(["--nproc_per_node", "2", "--log_dir", str(tmp_path / "logs"),
                 "--started_port", "7000", str(script), "--lr", "0.1"])
    assert r.returncode == 0, r.stderr
    eps = "127.0.0.1:7000,127.0.0.1:7001"
    for k in range(2):
        text = (tmp_path / "logs" / f"workerlog.{k}").read_text()
        assert f"ENV {k} 2 127.0.0.1:{7000 + k} {eps} ['--lr', '0.1']" in text


@pytest.mark.dist
@needs_mpi
def test_launcher_timeout_ends_a_hanging_job(tmp_path):
    script = tmp_path / "hang.py"
    script.write_text("import time\ntime.sleep(60)\n")
    r = _launch(["--nproc_per_node", "2", "--timeout", "1", str(script)], timeout=30)
    assert r.returncode == 124
    assert "--timeout" in r.stderr and "still running" in r.stderr


@pytest.mark.dist
@needs_mpi
def test_terminated_launcher_ends_its_ranks(tmp_path):
    script = tmp_path / "sleep.py"
    script.write_text("import os, time\n"
                      "print('pid', os.getpid(), flush=True)\n"
                      "time.sleep(60)\n")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "core.distributed.launch", "--nproc_per_node",
                             "2", "--log_dir", str(tmp_path), str(script)], cwd=ROOT, env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        pids = {}
        deadline = time.monotonic() + 30
        while len(pids) < 2 and time.monotonic() < deadline:
            for k in range(2):
                log = tmp_path / f"workerlog.{k}"
                words = log.read_text().split() if log.exists() else []
                if len(words) >= 2 and words[0] == "pid":
                    pids[k] = int(words[1])
            time.sleep(0.1)
        assert len(pids) == 2, "the ranks did not start"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "ended by SIGTERM" in err and "[0, 1]" in err
    for pid in pids.values():  # the ranks are gone, not orphaned
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid), f"rank process {pid} survived its launcher"


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie waits for its parent, it is not running
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


# -- one process ------------------------------------------------------------------------------
def test_launcher_checks_its_arguments(tmp_path):
    ns = launch._parser().parse_args(["--nproc_per_node", "2", "--selected_gpus", "0",
                                      "x.py"])
    with pytest.raises(SystemExit, match="names 1 GPU"):
        launch.build_command(ns, str(tmp_path))
    ns = launch._parser().parse_args(["--selected_gpus=0,1",
                                      "--cluster_node_ips=10.0.0.1,10.0.0.2", "x.py", "a"])
    cmd, world = launch.build_command(ns, str(tmp_path))
    assert world == 4
    assert cmd.count(":") == 3 and cmd.count("-host") == 4
    k = cmd.index("FLAGS_selected_gpus")
    assert cmd[k + 1] == "0"


def _status(status_dir, rank, state, **kw):
    entry = {"rank": rank, "state": state, "ok": state == "ok", "error": None,
             "traceback": None, "code": 0, "pid": os.getpid(), "host": socket.gethostname(),
             "time": time.time()}
    entry.update(kw)
    with open(rank_main.status_path(str(status_dir), rank), "w") as f:
        json.dump(entry, f)


@pytest.mark.parametrize("case", ["failed", "lost", "timeout", "done"])
def test_launcher_watches_the_status_files(tmp_path, case):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                            start_new_session=True)
    try:
        _status(tmp_path, 0, "running")
        if case == "failed":
            _status(tmp_path, 1, "failed", error="ValueError: no", code=3)
        elif case == "lost":
            gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                                  capture_output=True, text=True)
            _status(tmp_path, 1, "running", pid=int(gone.stdout))
        elif case == "done":
            _status(tmp_path, 1, "ok")
            proc.terminate()
        rc, why, lost = launch._watch(proc, str(tmp_path), 2, 30 if case != "timeout" else 0.3)
        launch._end_job(proc)
        assert proc.poll() is not None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    expect = {"failed": (3, "failed", []), "lost": (1, "lost", [1]),
              "timeout": (124, "timeout", []), "done": (-signal.SIGTERM, None, [])}
    assert (rc, why, lost) == expect[case]
    status = launch._read_status(str(tmp_path), 2)
    message = launch._report(2, status, rc, None, why == "timeout", None, lost)
    if case == "failed":
        assert message == ("launch: rank 1 failed: ValueError: no\n"
                           "launch: ranks [0] were ended")
    elif case == "lost":
        assert message.startswith("launch: rank(s) [1] ended without reporting")
        assert message.endswith("launch: ranks [0] were ended")
    elif case == "timeout":
        assert "ranks [0, 1] were still running (finished: [])" in message


def test_parallel_env_reads_the_job_variables(monkeypatch):
    monkeypatch.setenv("PADDLE_TRAINER_ID", "1")
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "4")
    monkeypatch.setenv("PADDLE_CURRENT_ENDPOINT", "10.0.0.1:6171")
    monkeypatch.setenv("PADDLE_TRAINER_ENDPOINTS", "a:1,b:2,c:3,d:4")
    monkeypatch.setenv("FLAGS_selected_gpus", "3")
    env = core.dygraph.parallel.Env()
    assert (env.nranks, env.local_rank, env.dev_id) == (4, 1, 3)
    assert env.current_endpoint == "10.0.0.1:6171" and len(env.trainer_endpoints) == 4
    assert dist.get_rank() == 1 and dist.get_world_size() == 4
    monkeypatch.setenv("PADDLE_TRAINER_ID", "4")
    with pytest.raises(ValueError, match="rank 4 is not in a job of 4"):
        core.imperative.ParallelEnv()


def test_missing_mpi4py_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", None)
    with pytest.raises(ImportError, match=r"pip install dy2static\[dist\]"):
        comm_mod.mpi_module()


def test_one_process_collectives_keep_values():
    dist.init_parallel_env()
    t = core.to_tensor(np.array([1.0, 2.0], "float32"))
    dist.all_reduce(t)
    dist.broadcast(t, 0)
    got = []
    dist.all_gather(got, t)
    assert t.numpy().tolist() == [1.0, 2.0] and got[0].numpy().tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="'src' must be a rank"):
        dist.broadcast(t, 1)
    with pytest.raises(TypeError, match="'tensor' must be a Tensor"):
        dist.all_reduce(np.ones(2))
    dist.barrier()


def _mlp(seed):
    core.seed(seed)
    return core.nn.Sequential(core.nn.Linear(4, 5, act="relu"), core.nn.Linear(5, 2))


@pytest.mark.parametrize("protocol", ["2.0", "1.x"])
def test_one_process_data_parallel_equals_the_plain_model(protocol):
    x = core.to_tensor(np.random.default_rng(0).standard_normal((6, 4)).astype("float32"))
    ref, net = _mlp(3), core.dygraph.DataParallel(_mlp(3), dist.prepare_context())
    opts = [core.optimizer.SGD(0.5, parameter_list=m.parameters()) for m in (ref, net)]
    for _ in range(2):
        for m, opt in zip((ref, net), opts):
            loss = core.layers.mean(m(x) ** 2)
            if m is net and protocol == "1.x":
                loss = net.scale_loss(loss)
                loss.backward()
                net.apply_collective_grads()
            else:
                loss.backward()
            opt.minimize(loss)
            m.clear_gradients()
    for a, b in zip(ref.parameters(), net.parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert list(net.state_dict()) == list(ref.state_dict())


def test_data_parallel_checks_its_arguments():
    with pytest.raises(TypeError, match="'layers' must be a Layer, got list"):
        core.DataParallel([_mlp(0)])
    with pytest.raises(TypeError, match=r"'strategy' must be a ParallelStrategy .* got str"):
        core.DataParallel(_mlp(0), "nccl")
    with pytest.raises(ValueError, match="'comm_buffer_size' must be a positive number"):
        core.DataParallel(_mlp(0), comm_buffer_size=0)


def test_with_data_parallel_in_one_process_matches_the_program(static_mode):
    main, startup = core.Program(), core.Program()
    with core.program_guard(main, startup):
        x = core.static.data("x", [-1, 3])
        loss = core.layers.mean(core.layers.fc(x, 2) ** 2)
        core.optimizer.SGD(0.1).minimize(loss)
    exe = core.Executor()
    s1, s2 = core.Scope(), core.Scope()
    exe.run(startup, scope=s1)
    for n in s1.local_var_names():
        s2.var(n).get_tensor().set(np.array(s1.find_var(n).get_tensor()))
    compiled = core.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
    feed = {"x": np.arange(12, dtype="float32").reshape(4, 3)}
    for _ in range(2):
        a = exe.run(main, feed=feed, fetch_list=[loss], scope=s1)[0]
        b = exe.run(compiled, feed=feed, fetch_list=[loss], scope=s2)[0]
        np.testing.assert_allclose(a, b, rtol=1e-6)
    types = [op.type for op in compiled.program.global_block().ops]
    assert types.count("c_allreduce_sum") == 2
    first_update = types.index("sgd")
    assert max(i for i, t in enumerate(types) if t == "c_allreduce_sum") < first_update
    assert "c_allreduce_sum" not in [op.type for op in main.global_block().ops]
    with pytest.raises(ValueError, match="loss_name 'nope'"):
        core.CompiledProgram(main).with_data_parallel(loss_name="nope")


@pytest.mark.dist
@needs_mpi
def test_mnist_data_parallel_example(tmp_path):
    r = _launch(["--nproc_per_node", "2", "--log_dir", str(tmp_path),
                 os.path.join(ROOT, "examples", "mnist_data_parallel.py"), "--epochs", "1",
                 "--max-steps", "40"])
    logs = [(tmp_path / f"workerlog.{k}").read_text() for k in range(2)]
    assert r.returncode == 0, r.stderr + "\n".join(logs)
    for k in range(2):
        assert f"rank {k}: 40 steps" in logs[k] and "test accuracy on its 500 samples" in logs[k]
    accuracy = float(logs[0].rsplit("test accuracy over all 1000 samples: ", 1)[1].split()[0])
    assert accuracy > 0.6


class _RecordingComm(comm_mod.Communicator):
    """Stands for a job of 2 identical ranks: a sum doubles the values. Records the order of
    the reductions it starts, finishes and the gradients the tape reports."""

    rank, nranks, backend = 0, 2, "recording"

    def __init__(self, events):
        self.events = events

    def allreduce_(self, array, op="sum"):
        array *= 2

    def iallreduce_(self, array, op="sum"):
        self.events.append(("start", array.size))
        events = self.events

        class Req:
            def Test(self):
                return False

            def Wait(self):
                array[...] = array * 2
                events.append(("wait", array.size))

        return Req()

    def broadcast_(self, array, root=0):
        self.events.append(("bcast", array.size))

    def barrier(self):
        return None


class _Probe:
    def __init__(self, events):
        self.events = events

    def grad_ready(self, t):
        self.events.append(("ready", t.size))

    def backward_end(self):
        self.events.append(("end", 0))


def test_data_parallel_reduces_buckets_while_backward_runs(monkeypatch):
    events = []
    monkeypatch.setitem(dist.collective._state, "comm", _RecordingComm(events))
    core.seed(4)
    net = core.nn.Sequential(core.nn.Linear(3, 4), core.nn.Linear(4, 5), core.nn.Linear(5, 2))
    ref = [p.numpy() for p in net.parameters()]
    dp = core.DataParallel(net, comm_buffer_size=1e-6, last_comm_buffer_size=1e-6)
    assert [e[0] for e in events] == ["bcast"] * 6  # parameters from rank 0
    probe = _Probe(events)
    core.autograd.register_backward_hook(probe)
    events.clear()
    x = core.to_tensor(np.ones((2, 3), "float32"))
    loss = core.layers.mean(dp(x) ** 2)
    loss.backward()
    kinds = [e[0] for e in events]
    # the last layer's bucket starts before the first layer's gradient is ready
    last_ready = max(i for i, k in enumerate(kinds) if k == "ready")
    assert kinds.index("start") < last_ready
    assert kinds.count("start") == 6 and kinds.count("wait") == 6
    assert kinds.index("wait") > last_ready  # waited for at the end of backward
    # two identical ranks: averaging leaves the local gradients as they were
    plain = core.nn.Sequential(core.nn.Linear(3, 4), core.nn.Linear(4, 5),
                               core.nn.Linear(5, 2))
    for p, v in zip(plain.parameters(), ref):
        p.set_value(v)
    core.layers.mean(plain(x) ** 2).backward()
    for a, b in zip(plain.parameters(), net.parameters()):
        np.testing.assert_allclose(a.gradient(), b.gradient(), rtol=1e-6)


@pytest.mark.gpu
@pytest.mark.skipif(not core.is_compiled_with_cuda() or not _have_mpi(),
                    reason="needs cupy with a CUDA device, and mpi4py")
def test_nccl_communicator_in_one_process():
    xp = core.backend.get_array_module(core.CUDAPlace(0))
    if not getattr(xp.cuda.nccl, "available", True):
        pytest.skip("cupy was built without NCCL")
    comm = comm_mod.NCCLCommunicator(xp, 0)
    a = xp.arange(6, dtype=xp.float32)
    comm.allreduce_(a)
    req = comm.iallreduce_(a, "max")
    req.wait()
    comm.broadcast_(a, 0)
    np.testing.assert_array_equal(xp.asnumpy(comm.allgather(a))[0], np.arange(6))
    comm.barrier()


def test_collectives_in_a_static_program(static_mode):
    main, startup = core.Program(), core.Program()
    with core.program_guard(main, startup):
        x = core.static.data("x", [2])
        y = x * 3
        dist.all_reduce(y)
        dist.broadcast(y, 0)
        got = []
        dist.all_gather(got, y)
    types = [op.type for op in main.global_block().ops]
    assert "c_allreduce_sum" in types and "c_broadcast" in types and "c_allgather" in types
    out = core.Executor().run(main, feed={"x": np.array([1.0, 2.0], "float32")},
                              fetch_list=[y, got[0]])
    np.testing.assert_allclose(out[0], [3.0, 6.0])
    np.testing.assert_allclose(out[1], [3.0, 6.0])
