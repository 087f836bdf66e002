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
computes what the original does. Every process must start from the same parameters: run the
same startup program with a fixed ``random_seed`` in each (or load the same parameters).
"""
from ..ops.collective import get_communicator
from .clone import clone_program
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

    def __repr__(self):
        kind = ", data parallel" if self._data_parallel else ""
        return f"CompiledProgram({self._source!r}{kind})"


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


def unwrap_program(program, api):
    """The Program inside ``program`` (a Program or a CompiledProgram); a TypeError else."""
    from .program import Program

    if isinstance(program, CompiledProgram):
        return program.program
    if isinstance(program, Program):
        return program
    raise TypeError(f"{api}: expected a Program or CompiledProgram, got "
                    f"{type(program).__name__}")


def source_program(program):
    """The user's Program behind ``program`` (a Program, or a CompiledProgram's original)."""
    return program._source if isinstance(program, CompiledProgram) else program


def build_strategy_of(program):
    """The ``build_strategy`` a CompiledProgram carries (None for a plain Program)."""
    return program._build_strategy if isinstance(program, CompiledProgram) else None
