"""``CompiledProgram``: a Program wrapper accepted wherever a Program is.

The executor always compiles a Program into a plan, so this wrapper carries the Program and
its ``build_strategy`` (a :class:`core.static.passes.BuildStrategy`: which optimisation passes
the executor runs on a clone of the Program before compiling it).
"""

__all__ = ["CompiledProgram", "build_strategy_of", "unwrap_program"]


class CompiledProgram:
    """``CompiledProgram(program)``; ``with_data_parallel(...)`` returns itself."""

    def __init__(self, program_or_graph, build_strategy=None):
        self._program = unwrap_program(program_or_graph, "CompiledProgram")
        self._build_strategy = build_strategy

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None):
        return self

    @property
    def program(self):
        return self._program

    def __repr__(self):
        return f"CompiledProgram({self._program!r})"


def unwrap_program(program, api):
    """The Program inside ``program`` (a Program or a CompiledProgram); a TypeError else."""
    from .program import Program

    if isinstance(program, CompiledProgram):
        return program._program
    if isinstance(program, Program):
        return program
    raise TypeError(f"{api}: expected a Program or CompiledProgram, got "
                    f"{type(program).__name__}")


def build_strategy_of(program):
    """The ``build_strategy`` a CompiledProgram carries (None for a plain Program)."""
    return program._build_strategy if isinstance(program, CompiledProgram) else None
