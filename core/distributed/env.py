"""Where this process stands in a data-parallel job: rank, number of processes, device and
endpoints, read from the environment the launcher (``python -m core.distributed.launch``)
sets — Paddle's ``PADDLE_TRAINER_ID``, ``PADDLE_TRAINERS_NUM``, ``PADDLE_CURRENT_ENDPOINT``,
``PADDLE_TRAINER_ENDPOINTS`` and ``FLAGS_selected_gpus`` — or, for a script started directly
with ``mpiexec``, from the ``PMI_RANK`` / ``PMI_SIZE`` variables of the MPI process manager.
With neither, the job is one process (rank 0 of 1).
"""
import os

__all__ = ["ParallelEnv", "get_rank", "get_world_size"]


def _int_env(names, default):
    for name in names:
        value = os.environ.get(name)
        if value is not None and value.strip() != "":
            try:
                return int(value)
            except ValueError:
                raise ValueError(f"environment variable {name} must be an integer, got "
                                 f"{value!r}") from None
    return default


class ParallelEnv:
    """This process's place in the job (2.0 ``paddle.distributed.ParallelEnv``; fluid 1.8's
    ``fluid.dygraph.parallel.Env``): ``rank`` / ``local_rank``, ``world_size`` / ``nranks``,
    ``dev_id`` (the GPU this rank uses), ``current_endpoint``, ``trainer_endpoints``."""

    def __init__(self):
        self._rank = _int_env(("PADDLE_TRAINER_ID", "PMI_RANK"), 0)
        self._world_size = _int_env(("PADDLE_TRAINERS_NUM", "PMI_SIZE"), 1)
        if self._world_size < 1 or not 0 <= self._rank < self._world_size:
            raise ValueError(f"ParallelEnv: rank {self._rank} is not in a job of "
                             f"{self._world_size} process(es); check PADDLE_TRAINER_ID and "
                             "PADDLE_TRAINERS_NUM")
        gpus = os.environ.get("FLAGS_selected_gpus", "").strip()
        self._dev_id = int(gpus.split(",")[0]) if gpus else 0
        self._current_endpoint = os.environ.get("PADDLE_CURRENT_ENDPOINT", "")
        eps = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "")
        self._trainer_endpoints = [e for e in eps.split(",") if e]

    @property
    def rank(self):
        return self._rank

    @property
    def world_size(self):
        return self._world_size

    local_rank = rank
    nranks = world_size

    @property
    def dev_id(self):
        return self._dev_id

    device_id = dev_id

    @property
    def current_endpoint(self):
        return self._current_endpoint

    @property
    def trainer_endpoints(self):
        return list(self._trainer_endpoints)

    def __repr__(self):
        return (f"ParallelEnv(rank={self.rank}, world_size={self.world_size}, "
                f"dev_id={self.dev_id})")


def get_rank():
    """This process's rank (0 in a one-process job)."""
    return ParallelEnv().rank


def get_world_size():
    """The number of processes in the job (1 when not launched as a job)."""
    return ParallelEnv().world_size
