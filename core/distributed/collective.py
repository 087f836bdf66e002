"""The 2.0 collective API: ``init_parallel_env``, ``all_reduce``, ``broadcast``,
``all_gather``, ``barrier`` and ``ReduceOp``.

``init_parallel_env()`` builds this process's communicator from :class:`ParallelEnv`: a
one-process job needs no MPI; otherwise NCCL when the default place is a GPU, else MPI. It
installs the communicator for the collective ops (:mod:`core.ops.collective`), so eager
calls, static Programs and ``DataParallel`` all use the same one. The collectives below call
it on first use when the script did not.

``all_reduce`` and ``broadcast`` work in place on an eager tensor (recording no gradient),
and in a static Program append ``c_allreduce_*`` / ``c_broadcast`` writing the Variable, as
Paddle's do.
"""
from .. import mode as _mode
from ..autograd import no_grad
from ..backend import CUDAPlace, default_place, get_array_module, set_default_place
from ..dispatch import apply
from ..layers.shape import split
from ..ops import collective as _collective_ops
from ..static.program import Variable
from ..tensor import Tensor
from .communicators import MPICommunicator, NCCLCommunicator, SingleProcessCommunicator
from .env import ParallelEnv

__all__ = ["ReduceOp", "all_gather", "all_reduce", "barrier", "broadcast", "communicator",
           "init_parallel_env", "is_initialized"]


class ReduceOp:
    """Reductions of :func:`all_reduce`."""

    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3


_OP_NAMES = {ReduceOp.SUM: "sum", ReduceOp.MAX: "max", ReduceOp.MIN: "min",
             ReduceOp.PROD: "prod"}
_state = {"comm": None}


def init_parallel_env(backend=None):
    """Join the job this process was started in (see the module docstring); returns its
    :class:`ParallelEnv`. ``backend``: None (NCCL on a GPU default place, else MPI), ``'mpi'``
    or ``'nccl'``. Calling it again returns at once."""
    env = ParallelEnv()
    if _state["comm"] is not None:
        return env
    if backend not in (None, "mpi", "nccl"):
        raise ValueError(f"init_parallel_env: backend must be None, 'mpi' or 'nccl', got "
                         f"{backend!r}")
    if env.world_size == 1 and backend is None:
        comm = SingleProcessCommunicator()
    else:
        if backend is None:
            backend = "nccl" if default_place().is_gpu else "mpi"
        if backend == "nccl":
            place = CUDAPlace(env.dev_id)
            comm = NCCLCommunicator(get_array_module(place), env.dev_id)
            set_default_place(place)
        else:
            comm = MPICommunicator()
        if (comm.nranks, comm.rank) != (env.world_size, env.rank):
            raise RuntimeError(
                f"init_parallel_env: the environment says rank {env.rank} of "
                f"{env.world_size} but MPI started rank {comm.rank} of {comm.nranks}; start "
                "the script with python -m core.distributed.launch --nproc_per_node N")
    _state["comm"] = comm
    _collective_ops.set_communicator(comm)
    return env


_collective_ops.set_communicator_factory(init_parallel_env)


def is_initialized():
    """True once :func:`init_parallel_env` has run in this process."""
    return _state["comm"] is not None


def communicator():
    """This process's communicator (joining the job first when needed)."""
    if _state["comm"] is None:
        init_parallel_env()
    return _state["comm"]


def _check_tensor(tensor, who):
    if not isinstance(tensor, (Tensor, Variable)):
        raise TypeError(f"{who}: 'tensor' must be a Tensor (or a static Variable), got "
                        f"{type(tensor).__name__}")


def all_reduce(tensor, op=ReduceOp.SUM, group=None, use_calc_stream=True):
    """Replace ``tensor`` by ``op`` (``ReduceOp.SUM``, ``MAX``, ``MIN``, ``PROD``) over every
    process's ``tensor``."""
    _check_tensor(tensor, "all_reduce")
    if op not in _OP_NAMES:
        raise ValueError(f"all_reduce: 'op' must be ReduceOp.SUM, MAX, MIN or PROD, got {op!r}")
    communicator()
    with no_grad():
        apply(f"c_allreduce_{_OP_NAMES[op]}", [tensor], outputs={0: tensor})
    return tensor if not _mode.in_dynamic_mode() else None


def broadcast(tensor, src, group=None, use_calc_stream=True):
    """Replace ``tensor`` by process ``src``'s ``tensor``."""
    _check_tensor(tensor, "broadcast")
    comm = communicator()
    if isinstance(src, bool) or not isinstance(src, int) or not 0 <= src < comm.nranks:
        raise ValueError(f"broadcast: 'src' must be a rank of this job (0 to "
                         f"{comm.nranks - 1}), got {src!r}")
    with no_grad():
        apply("c_broadcast", [tensor], {"root": src}, outputs={0: tensor})
    return tensor if not _mode.in_dynamic_mode() else None


def all_gather(tensor_list, tensor, group=None, use_calc_stream=True):
    """Append every process's ``tensor`` to the list ``tensor_list``, rank 0 first."""
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: 'tensor_list' must be a list to append to, got "
                        f"{type(tensor_list).__name__}")
    _check_tensor(tensor, "all_gather")
    comm = communicator()
    if not tensor.shape:
        gathered = apply("c_allgather", [tensor.reshape([1])], {"nranks": comm.nranks})
        parts = split(gathered, comm.nranks, 0)
        tensor_list.extend(p.reshape([]) for p in parts)
        return None
    gathered = apply("c_allgather", [tensor], {"nranks": comm.nranks})
    tensor_list.extend(split(gathered, comm.nranks, 0) if comm.nranks > 1 else [gathered])
    return None


def barrier(group=None):
    """Wait until every process of the job has reached this call."""
    communicator().barrier()
