"""``core.distributed``: data-parallel training over several processes.

Collectives run on an existing engine — MPI through ``mpi4py`` on CPU, NCCL through
``cupy.cuda.nccl`` on GPUs (:mod:`.communicators`); ``mpi4py`` is the optional ``dist`` extra
and is only imported when a job of several processes starts. :mod:`.env` reads the job
description the launcher (``python -m core.distributed.launch``, :mod:`.launch`) puts in the
environment; :mod:`.collective` has the 2.0 collective functions; :mod:`.parallel` has
``DataParallel`` for eager Layers. Static Programs get their collective ops from
``CompiledProgram.with_data_parallel``.
"""
from .collective import (ReduceOp, all_gather, all_reduce, barrier, broadcast, communicator,
                         init_parallel_env, is_initialized)
from .env import ParallelEnv, get_rank, get_world_size
from .parallel import DataParallel, Env, ParallelStrategy, prepare_context

__all__ = ["DataParallel", "Env", "ParallelEnv", "ParallelStrategy", "ReduceOp", "all_gather",
           "all_reduce", "barrier", "broadcast", "communicator", "get_rank", "get_world_size",
           "init_parallel_env", "is_initialized", "prepare_context"]
