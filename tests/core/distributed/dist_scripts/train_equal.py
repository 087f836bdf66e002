"""Run under ``python -m core.distributed.launch --nproc_per_node N``: trains with N
processes on N shards of a batch and checks, after every step and on every rank, that the
parameters equal those of one process trained on the whole batch. Covers the 2.0
``DataParallel`` (averaging during backward, with several buckets), the fluid 1.8 protocol
(``prepare_context``, ``scale_loss``, ``apply_collective_grads``), a static Program through
``CompiledProgram.with_data_parallel`` and the collective functions. Prints ``CHECKS OK``.
"""
import numpy as np

import core
import core.distributed as dist
from core import nn

RTOL, ATOL = 1e-5, 1e-6
BATCH, IN, HIDDEN, CLASSES, STEPS = 8, 6, 8, 3, 3

env = dist.init_parallel_env()
rank, nranks = env.rank, env.nranks
rng = np.random.default_rng(0)
X = rng.standard_normal((STEPS, BATCH, IN)).astype("float32")
Y = rng.integers(0, CLASSES, (STEPS, BATCH, 1)).astype("int64")
per = BATCH // nranks
mine = slice(rank * per, (rank + 1) * per)


def close(a, b, what):
    if not np.allclose(a, b, rtol=RTOL, atol=ATOL):
        raise AssertionError(f"rank {rank}: {what} differ by {np.abs(a - b).max()}")


def same_on_all_ranks(arr, what):
    got = []
    with core.dygraph.guard():
        dist.all_gather(got, core.to_tensor(arr.reshape(-1)))
    for r, t in enumerate(got):
        if not np.array_equal(t.numpy(), arr.reshape(-1)):
            raise AssertionError(f"rank {rank}: {what} on rank {r} differs from this rank's")


def model(seed):
    core.seed(seed)
    return nn.Sequential(nn.Linear(IN, HIDDEN, act="relu"), nn.Linear(HIDDEN, CLASSES))


def loss_of(net, x, y):
    logits = net(core.to_tensor(x))
    return core.layers.mean(core.layers.softmax_with_cross_entropy(logits, core.to_tensor(y)))


def check_eager(protocol):
    ref = model(100)
    # every rank starts from different values: DataParallel must broadcast rank 0's
    local = model(100 + rank)
    kw = {"comm_buffer_size": 1e-4, "last_comm_buffer_size": 1e-4} if protocol == "2.0" else {}
    strategy = dist.prepare_context() if protocol == "1.x" else None
    dp = core.DataParallel(local, strategy, **kw)
    if protocol == "2.0":
        assert len(dp._reducer.buckets) == 4, "one bucket per parameter expected"
    opt_ref = core.optimizer.Momentum(0.1, 0.9, parameter_list=ref.parameters())
    opt = core.optimizer.Momentum(0.1, 0.9, parameter_list=dp.parameters())
    for (k, a), b in zip(ref.state_dict().items(), dp.state_dict().values()):
        close(a.numpy(), b.numpy(), f"{protocol} initial {k}")
    for step in range(STEPS):
        loss = loss_of(ref, X[step], Y[step])
        loss.backward()
        opt_ref.minimize(loss)
        ref.clear_gradients()
        loss = loss_of(dp, X[step, mine], Y[step, mine])
        if protocol == "1.x":
            loss = dp.scale_loss(loss)
            loss.backward()
            dp.apply_collective_grads()
        else:
            loss.backward()
        opt.minimize(loss)
        dp.clear_gradients()
        for (k, a), b in zip(ref.state_dict().items(), dp.state_dict().values()):
            close(a.numpy(), b.numpy(), f"{protocol} step {step} {k}")
            same_on_all_ranks(b.numpy(), f"{protocol} step {step} {k}")


def static_program():
    main, startup = core.Program(), core.Program()
    main.random_seed = startup.random_seed = 7
    with core.program_guard(main, startup):
        x = core.static.data("x", [-1, IN])
        y = core.static.data("y", [-1, 1], "int64")
        h = core.layers.fc(x, HIDDEN, act="relu")
        logits = core.layers.fc(h, CLASSES)
        loss = core.layers.mean(core.layers.softmax_with_cross_entropy(logits, y))
        core.optimizer.Momentum(0.1, 0.9).minimize(loss)
    return main, startup, loss


def check_mismatch_is_refused(main, loss, ref_scope, params):
    """A process whose parameters differ in shape is named by every rank, nothing hangs."""
    exe = core.Executor(core.CPUPlace())
    scope = core.Scope()
    for n in ref_scope.local_var_names():
        val = np.array(ref_scope.find_var(n).get_tensor())
        if rank == nranks - 1 and n == params[0]:
            val = np.concatenate([val, val])
        scope.var(n).get_tensor().set(val)
    compiled = core.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
    try:
        exe.run(compiled, feed={"x": X[0, mine], "y": Y[0, mine]}, fetch_list=[loss],
                scope=scope)
    except ValueError as e:
        assert f"rank(s) [{nranks - 1}] differ from rank 0" in str(e), str(e)
    else:
        raise AssertionError(f"rank {rank}: mismatched persistables were not refused")


def check_static():
    core.enable_static()
    try:
        main, startup, loss = static_program()
        params = [p.name for p in main.global_block().all_parameters()]
        exe = core.Executor(core.CPUPlace())
        ref_scope, dp_scope = core.Scope(), core.Scope()
        exe.run(startup, scope=ref_scope)
        for n in ref_scope.local_var_names():
            # rank 0 starts from the reference values, the others from different ones: the
            # first data-parallel run must broadcast rank 0's
            val = np.array(ref_scope.find_var(n).get_tensor())
            if rank and n in params:
                val = val + np.float32(0.5 + rank)
            dp_scope.var(n).get_tensor().set(val)
        check_mismatch_is_refused(main, loss, ref_scope, params)
        compiled = core.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
        for step in range(STEPS):
            exe.run(main, feed={"x": X[step], "y": Y[step]}, fetch_list=[loss],
                    scope=ref_scope)
            exe.run(compiled, feed={"x": X[step, mine], "y": Y[step, mine]},
                    fetch_list=[loss], scope=dp_scope)
            for n in params:
                a = np.array(ref_scope.find_var(n).get_tensor())
                b = np.array(dp_scope.find_var(n).get_tensor())
                close(a, b, f"static step {step} {n}")
                same_on_all_ranks(b, f"static step {step} {n}")
    finally:
        core.disable_static()


def check_collectives():
    t = core.to_tensor(np.array([rank + 1.0, -rank], "float32"))
    dist.all_reduce(t)
    close(t.numpy(), np.array([sum(range(1, nranks + 1)), -sum(range(nranks))]), "all_reduce")
    t = core.to_tensor(np.array([float(rank)], "float32"))
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    close(t.numpy(), np.array([nranks - 1.0]), "all_reduce MAX")
    t = core.to_tensor(np.array([rank * 10 + 1], "int64"))
    dist.broadcast(t, src=nranks - 1)
    assert t.numpy().tolist() == [(nranks - 1) * 10 + 1], t.numpy()
    got = []
    dist.all_gather(got, core.to_tensor(np.array([rank, rank], "int32")))
    assert [g.numpy().tolist() for g in got] == [[r, r] for r in range(nranks)], got
    dist.barrier()


check_collectives()
check_eager("2.0")
check_eager("1.x")
check_static()
print(f"CHECKS OK rank {rank} of {nranks}", flush=True)
