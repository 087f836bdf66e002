"""Collective ops (``c_allreduce_sum`` ... ``c_broadcast``, ``c_allgather``): one process's
array combined with the same array of every other process of the job.

The ops do not know how processes talk: :mod:`core.distributed` installs its communicator here
(:func:`set_communicator`) when ``init_parallel_env`` runs, which a collective op calls
itself when the script did not (MPI through mpi4py on CPU, NCCL
through cupy on GPU). With no communicator installed the job is one process and every
collective is the identity (a copy), so a Program holding them runs unchanged on one process.

A communicator offers ``nranks``, ``rank``, ``allreduce(array, op)`` (returns the reduced
array, ``op`` one of ``'sum' 'max' 'min' 'prod'``), ``broadcast(array, root)`` (returns the
root's array) and ``allgather(array)`` (returns the arrays of all ranks stacked on a new first
axis).
"""
from .registry import Meta, OpDef, register_op

__all__ = ["get_communicator", "set_communicator", "set_communicator_factory"]

_state = {"comm": None, "factory": None}


def set_communicator(comm):
    """Install ``comm`` as the process group the collective ops use (None: one process)."""
    _state["comm"] = comm


def set_communicator_factory(factory):
    """``factory()`` joins the job and installs its communicator; it runs when a collective
    first needs one (:mod:`core.distributed` registers ``init_parallel_env`` here)."""
    _state["factory"] = factory


def get_communicator():
    """The installed communicator (joining the job through the factory first when none is
    installed yet), or None when no factory is registered."""
    if _state["comm"] is None and _state["factory"] is not None:
        _state["factory"]()
    return _state["comm"]


def _allreduce(xp, x, op):
    comm = get_communicator()
    if comm is None or comm.nranks == 1:
        return xp.array(x, copy=True)
    return comm.allreduce(xp.ascontiguousarray(x), op)


class _AllReduce(OpDef):
    attrs = {"ring_id": 0, "use_calc_stream": False}
    differentiable = False
    reduce_op = None

    def infer(self, x, **attrs):
        return Meta(tuple(x.shape), x.dtype)

    def forward(self, ctx, x, ring_id, use_calc_stream):
        return _allreduce(ctx.xp, x, self.reduce_op)


@register_op
class c_allreduce_sum(_AllReduce):
    """The elementwise sum of X over all processes. Its gradient is the sum of every
    process's output gradient (each X contributes to every process's output)."""

    differentiable = True
    reduce_op = "sum"

    def backward(self, ctx, ins, outs, douts, ring_id, use_calc_stream):
        return (_allreduce(ctx.xp, douts[0], "sum"),)


@register_op
class c_allreduce_max(_AllReduce):
    """The elementwise maximum of X over all processes."""

    reduce_op = "max"


@register_op
class c_allreduce_min(_AllReduce):
    """The elementwise minimum of X over all processes."""

    reduce_op = "min"


@register_op
class c_allreduce_prod(_AllReduce):
    """The elementwise product of X over all processes."""

    reduce_op = "prod"


@register_op
class c_broadcast(OpDef):
    """Every process gets process ``root``'s X."""

    attrs = {"ring_id": 0, "root": 0, "use_calc_stream": False}
    differentiable = False

    def infer(self, x, **attrs):
        return Meta(tuple(x.shape), x.dtype)

    def forward(self, ctx, x, ring_id, root, use_calc_stream):
        comm = get_communicator()
        if comm is None or comm.nranks == 1:
            if root != 0:
                raise ValueError(f"op 'c_broadcast': root {root} is not a rank of a one-process "
                                 "job")
            return ctx.xp.array(x, copy=True)
        return comm.broadcast(ctx.xp.ascontiguousarray(x), root)


@register_op
class c_allgather(OpDef):
    """X of every process concatenated along axis 0, rank 0 first (``nranks`` processes).
    The gradient of X is its slice of the output gradients summed over the processes."""

    attrs = {"ring_id": 0, "nranks": 1, "use_calc_stream": False}

    def infer(self, x, ring_id, nranks, use_calc_stream):
        if not x.shape:
            raise ValueError("op 'c_allgather': X must have at least one dimension, got a 0-d "
                             "tensor")
        d0 = x.shape[0] * nranks if x.shape[0] != -1 else -1
        return Meta((d0,) + tuple(x.shape[1:]), x.dtype)

    def forward(self, ctx, x, ring_id, nranks, use_calc_stream):
        comm = get_communicator()
        size = 1 if comm is None else comm.nranks
        if size != nranks:
            raise ValueError(f"op 'c_allgather': attribute nranks={nranks} but the job has "
                             f"{size} process(es)")
        if x.ndim == 0:
            raise ValueError("op 'c_allgather': X must have at least one dimension, got a 0-d "
                             "array")
        if size == 1:
            return ctx.xp.array(x, copy=True)
        stacked = comm.allgather(ctx.xp.ascontiguousarray(x))
        return stacked.reshape((-1,) + x.shape[1:])

    def backward(self, ctx, ins, outs, douts, ring_id, nranks, use_calc_stream):
        comm = get_communicator()
        rank = 0 if comm is None else comm.rank
        n = ins[0].shape[0]
        return (_allreduce(ctx.xp, douts[0], "sum")[rank * n:(rank + 1) * n],)
