"""``CompiledProgram``: a Program wrapper accepted wherever a Program is, and data-parallel
programs (``with_data_parallel``).

The executor always compiles a Program into a plan, so a plain ``CompiledProgram`` carries its
Program and its ``build_strategy`` (a :class:`core.static.passes.BuildStrategy`: which
optimisation passes the executor runs on a clone of the Program before compiling it).
``with_data_parallel(loss_name=...)`` makes it run a copy of the Program
in which every parameter gradient is averaged over the processes of the job right after the
backward ops produce it and before the optimizer ops read it: a ``c_allreduce_sum`` op
(:mod:`core.ops.collective`) writing the gradient in place, then a ``scale`` op by
``1 / nranks``. The copy is made when the executor first runs it, and again whenever the
original Program changes; the original is never modified. In a one-process job the copy
computes what the original does.

Every process starts from rank 0's parameters, as in Paddle: the first time an executor runs a
data-parallel CompiledProgram with a scope, the persistable variables of the program that hold
a value in that scope (parameters, optimizer accumulators) are broadcast from rank 0 and
written back to the scope of every process. Before that, the processes compare the names,
shapes and dtypes they are about to broadcast, and all of them raise the same ValueError when
they differ (a different Program or startup in one process) instead of exchanging mismatched
arrays.
"""
import weakref
import zlib

import numpy as np

from ..backend import array_module_of
from ..ops.collective import get_communicator
from .clone import clone_program
from .program import register_program_wrapper, unwrap_program
from .variable import GRAD_SUFFIX

__all__ = ["CompiledProgram", "build_strategy_of", "source_program", "unwrap_program"]


class CompiledProgram:
    """``CompiledProgram(program)``; see the module docstring for ``with_data_parallel``."""

    def __init__(self, program_or_graph, build_strategy=None):
        self._source = unwrap_program(program_or_graph, "CompiledProgram")
        self._build_strategy = build_strategy
        self._data_parallel = False
        self._loss_name = None
        self._built = None  # (source version, data-parallel program)
        self._synced_scopes = weakref.WeakSet()  # scopes whose persistables came from rank 0

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None):
        """Average the gradients over the job's processes when run (module docstring).
        ``loss_name`` names the loss the gradients are of; the strategies and ``places`` are
        accepted for Paddle's signature (each process drives one device)."""
        if self._data_parallel:
            raise RuntimeError("with_data_parallel: this CompiledProgram is already data "
                               "parallel")
        if loss_name is not None:
            name = getattr(loss_name, "name", loss_name)
            if not isinstance(name, str) or \
                    self._source.global_block()._find_var_recursive(name) is None:
                raise ValueError(f"with_data_parallel: loss_name {loss_name!r} is not a "
                                 "variable of the program")
            self._loss_name = name
        if build_strategy is not None:
            self._build_strategy = build_strategy
        self._data_parallel = True
        return self

    @property
    def program(self):
        """The Program the executor runs (the data-parallel copy when there is one)."""
        if not self._data_parallel:
            return self._source
        built = self._built
        if built is None or built[0] != self._source._version:
            built = self._built = (self._source._version, _data_parallel_copy(self._source))
        return built[1]

    @property
    def _program(self):
        return self.program

    def _sync_scope(self, scope):
        """Broadcast the program's persistable values in ``scope`` from rank 0, once per
        scope (module docstring); the executor calls it before running a data-parallel
        CompiledProgram. Nothing happens in a one-process job."""
        if not self._data_parallel or scope in self._synced_scopes:
            return
        comm = get_communicator()
        if comm is not None and comm.nranks > 1:
            _broadcast_persistables(comm, self.program, scope)
        self._synced_scopes.add(scope)

    def __repr__(self):
        kind = ", data parallel" if self._data_parallel else ""
        return f"CompiledProgram({self._source!r}{kind})"


register_program_wrapper(CompiledProgram)


def _data_parallel_copy(program):
    comm = get_communicator()
    nranks = 1 if comm is None else comm.nranks
    new = clone_program(program)
    new._lr_schedules = list(getattr(program, "_lr_schedules", ()))
    gb = new.global_block()
    first_opt = next((i for i, op in enumerate(gb.ops) if op.role == "optimize"), len(gb.ops))
    written = set()
    for op in gb.ops[:first_opt]:
        if op.role == "backward":
            written.update(op.output_arg_names)
    grads = [p.name + GRAD_SUFFIX for p in gb.all_parameters()
             if p.trainable and p.name + GRAD_SUFFIX in written]
    if not grads:
        raise ValueError("with_data_parallel: the program has no parameter gradients to "
                         "average; build it with an optimizer's minimize(loss) (or "
                         "append_backward) first")
    at = first_opt
    for g in grads:
        gb._insert_op(at, "c_allreduce_sum", {"X": [g]}, {"Out": [g]},
                      {"ring_id": 0, "use_calc_stream": True}, role="backward")
        at += 1
        if nranks > 1:
            gb._insert_op(at, "scale", {"X": [g]}, {"Out": [g]},
                          {"scale": 1.0 / nranks, "bias": 0.0, "bias_after_scale": True},
                          role="backward")
            at += 1
    return new


def _broadcast_persistables(comm, program, scope):
    names = sorted(v.name for v in program.list_vars()
                   if v.persistable and hasattr(scope._vars.get(v.name), "dtype"))
    values = [scope._vars[n] for n in names]
    signature = ";".join(f"{n}:{tuple(v.shape)}:{v.dtype}" for n, v in zip(names, values))
    mine = np.array([len(names), zlib.crc32(signature.encode())], dtype="int64")
    xp = array_module_of(values[0]) if values else np
    gathered = np.asarray(comm.allgather(xp.asarray(mine))).reshape(comm.nranks, 2)
    differ = [r for r in range(comm.nranks) if not np.array_equal(gathered[r], gathered[0])]
    if differ:
        raise ValueError("with_data_parallel: the processes hold different persistable "
                         f"variables (names, shapes or dtypes): rank(s) {differ} differ from "
                         "rank 0; every process must run the same startup program on the same "
                         "Program before the first run")
    for name, val in zip(names, values):
        root = comm.broadcast(array_module_of(val).ascontiguousarray(val), 0)
        scope._vars[name] = root.reshape(val.shape)


def source_program(program):
    """The user's Program behind ``program`` (a Program, or a CompiledProgram's original)."""
    return program._source if isinstance(program, CompiledProgram) else program


def build_strategy_of(program):
    """The ``build_strategy`` a CompiledProgram carries (None for a plain Program)."""
    return program._build_strategy if isinstance(program, CompiledProgram) else None
