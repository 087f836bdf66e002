"""Communicators: one interface, two engines behind it.

:class:`Communicator` defines what data-parallel training needs — ``allreduce``,
``allreduce_`` / ``iallreduce_`` (in place, the second non-blocking), ``broadcast`` /
``broadcast_``, ``allgather`` and ``barrier`` — and :class:`MPICommunicator` (numpy arrays,
MPI through mpi4py) and :class:`NCCLCommunicator` (cupy arrays, NCCL through
``cupy.cuda.nccl``, bootstrapped over MPI) implement it. :class:`SingleProcessCommunicator`
serves a one-process job without any MPI library. Nothing here moves bytes by itself: every
collective is a call into MPI or NCCL.

``mpi4py`` is the optional ``dist`` extra; it is imported on first use (importing it starts
MPI), with an error that says how to install it.
"""
import importlib

import numpy

from ..backend import array_module_of, as_numpy

__all__ = ["Communicator", "MPICommunicator", "NCCLCommunicator", "SingleProcessCommunicator",
           "REDUCE_OPS", "mpi_module"]

REDUCE_OPS = ("sum", "max", "min", "prod")


def mpi_module():
    """mpi4py's ``MPI`` module (MPI starts on the first call)."""
    try:
        # NOTE: imported here, not at the top: importing mpi4py.MPI initialises MPI, which a
        # one-process job (and ``import core``) must not need.
        return importlib.import_module("mpi4py.MPI")
    except ImportError as e:
        raise ImportError(
            "multi-process training needs mpi4py and an MPI library: pip install "
            f"dy2static[dist] (it installs mpi4py and the mpich wheel); the import failed with: "
            f"{e}") from None


def _check_op(op):
    if op not in REDUCE_OPS:
        raise ValueError(f"reduce op must be one of {REDUCE_OPS}, got {op!r}")


class Communicator:
    """The collective interface. ``rank`` and ``nranks`` describe the group; arrays passed to
    the in-place methods must be C-contiguous and are overwritten with the result."""

    rank = 0
    nranks = 1
    backend = None

    def allreduce(self, array, op="sum"):
        """A new array: ``op`` over every rank's ``array``."""
        out = array.copy()
        self.allreduce_(out, op)
        return out

    def allreduce_(self, array, op="sum"):
        raise NotImplementedError

    def iallreduce_(self, array, op="sum"):
        """Start reducing ``array`` in place; returns a handle whose ``wait()`` ends it."""
        raise NotImplementedError

    def broadcast(self, array, root=0):
        """A new array: ``root``'s ``array`` on every rank."""
        out = array.copy()
        self.broadcast_(out, root)
        return out

    def broadcast_(self, array, root=0):
        raise NotImplementedError

    def allgather(self, array):
        """Every rank's ``array`` stacked on a new first axis, rank 0 first."""
        raise NotImplementedError

    def barrier(self):
        raise NotImplementedError

    def _check_root(self, root):
        if not 0 <= int(root) < self.nranks:
            raise ValueError(f"broadcast: src/root {root} is not a rank of this job (0 to "
                             f"{self.nranks - 1})")
        return int(root)


class _Done:
    def wait(self):
        return None


class SingleProcessCommunicator(Communicator):
    """The group of one process: every collective leaves the data as it is."""

    backend = "single"

    def allreduce_(self, array, op="sum"):
        _check_op(op)

    def iallreduce_(self, array, op="sum"):
        _check_op(op)
        return _Done()

    def broadcast_(self, array, root=0):
        self._check_root(root)

    def allgather(self, array):
        return array[None].copy()

    def barrier(self):
        return None


class _Staged:
    """A device array's host copy for MPI (the mpich wheel is not CUDA-aware); ``done()``
    writes the result back."""

    def __init__(self, array):
        self.array = array
        self.host = as_numpy(array) if not isinstance(array, numpy.ndarray) else array

    def done(self):
        if self.host is not self.array:
            self.array[...] = array_module_of(self.array).asarray(self.host)


class _StagedRequest:
    def __init__(self, req, staged):
        self.req, self.staged = req, staged

    def Test(self):
        return self.req.Test()

    def Wait(self):
        self.req.Wait()
        self.staged.done()


class MPICommunicator(Communicator):
    """Collectives through MPI (``mpi4py``), on host arrays (device arrays go through a host
    copy)."""

    backend = "mpi"

    def __init__(self, comm=None):
        self.MPI = mpi_module()
        self.comm = self.MPI.COMM_WORLD if comm is None else comm
        self.rank = self.comm.Get_rank()
        self.nranks = self.comm.Get_size()
        self._ops = {"sum": self.MPI.SUM, "max": self.MPI.MAX, "min": self.MPI.MIN,
                     "prod": self.MPI.PROD}

    def _mpi_op(self, op):
        _check_op(op)
        return self._ops[op]

    def allreduce_(self, array, op="sum"):
        st = _Staged(array)
        self.comm.Allreduce(self.MPI.IN_PLACE, st.host, self._mpi_op(op))
        st.done()

    def iallreduce_(self, array, op="sum"):
        st = _Staged(array)
        return _StagedRequest(self.comm.Iallreduce(self.MPI.IN_PLACE, st.host,
                                                   self._mpi_op(op)), st)

    def broadcast_(self, array, root=0):
        st = _Staged(array)
        self.comm.Bcast(st.host, root=self._check_root(root))
        st.done()

    def allgather(self, array):
        host = as_numpy(array)
        out = numpy.empty((self.nranks,) + host.shape, host.dtype)
        self.comm.Allgather(host, out)
        return out if isinstance(array, numpy.ndarray) else \
            array_module_of(array).asarray(out)

    def barrier(self):
        self.comm.Barrier()

    def bcast_object(self, obj, root=0):
        """A small Python value from ``root`` (used to agree on NCCL's id)."""
        return self.comm.bcast(obj, root=root)


class _NCCLRequest:
    def __init__(self, xp, event):
        self._xp, self._event = xp, event

    def wait(self):
        self._xp.cuda.get_current_stream().wait_event(self._event)


class NCCLCommunicator(Communicator):
    """Collectives on GPU (cupy) arrays through NCCL (``cupy.cuda.nccl``). The NCCL id is
    agreed over MPI; the non-blocking reduction runs on a stream of its own, ordered after the
    work queued so far, and ``wait()`` orders the current stream after it."""

    backend = "nccl"

    def __init__(self, xp, device_id, mpi_comm=None):
        self.xp = xp
        try:
            self.nccl = importlib.import_module(xp.__name__ + ".cuda.nccl")
        except ImportError as e:
            raise RuntimeError(f"NCCL is not available in this cupy installation ({e}); use "
                               "init_parallel_env(backend='mpi')") from None
        if not getattr(self.nccl, "available", True):
            raise RuntimeError("this cupy installation was built without NCCL; use "
                               "init_parallel_env(backend='mpi')")
        self.mpi = MPICommunicator(mpi_comm)
        self.rank, self.nranks = self.mpi.rank, self.mpi.nranks
        self.device = xp.cuda.Device(device_id)
        uid = self.nccl.get_unique_id() if self.rank == 0 else None
        uid = self.mpi.bcast_object(uid, root=0)
        with self.device:
            self.comm = self.nccl.NcclCommunicator(self.nranks, uid, self.rank)
            self.stream = xp.cuda.Stream(non_blocking=True)
        n = self.nccl
        self._ops = {"sum": n.NCCL_SUM, "max": n.NCCL_MAX, "min": n.NCCL_MIN,
                     "prod": n.NCCL_PROD}
        self._types = {"float16": n.NCCL_FLOAT16, "float32": n.NCCL_FLOAT32,
                       "float64": n.NCCL_FLOAT64, "int32": n.NCCL_INT32, "int64": n.NCCL_INT64,
                       "int8": n.NCCL_INT8, "uint8": n.NCCL_UINT8}

    def _type(self, array):
        t = self._types.get(array.dtype.name)
        if t is None:
            raise TypeError(f"NCCL collectives take {sorted(self._types)} arrays, got "
                            f"{array.dtype.name}")
        return t

    def allreduce_(self, array, op="sum"):
        _check_op(op)
        stream = self.xp.cuda.get_current_stream()
        self.comm.allReduce(array.data.ptr, array.data.ptr, array.size, self._type(array),
                            self._ops[op], stream.ptr)

    def iallreduce_(self, array, op="sum"):
        _check_op(op)
        self.stream.wait_event(self.xp.cuda.get_current_stream().record())
        self.comm.allReduce(array.data.ptr, array.data.ptr, array.size, self._type(array),
                            self._ops[op], self.stream.ptr)
        return _NCCLRequest(self.xp, self.stream.record())

    def broadcast_(self, array, root=0):
        root = self._check_root(root)
        stream = self.xp.cuda.get_current_stream()
        self.comm.bcast(array.data.ptr, array.size, self._type(array), root, stream.ptr)

    def allgather(self, array):
        out = self.xp.empty((self.nranks,) + array.shape, array.dtype)
        stream = self.xp.cuda.get_current_stream()
        self.comm.allGather(array.data.ptr, out.data.ptr, array.size, self._type(array),
                            stream.ptr)
        return out

    def barrier(self):
        self.xp.cuda.get_current_stream().synchronize()
        self.mpi.barrier()
