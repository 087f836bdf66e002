"""The static Program IR: Program, Block, Operator, Variable, Parameter.

These are plain data classes: a saved program is exactly what their attributes hold, and
everything (the builder, append_backward, the executor, serialisation) goes through them.

``Program``
    ``blocks`` (list of Block; block 0 is the global block), ``random_seed`` (int, 0: use the
    global seed), ``_version`` (int, bumped on every change; the executor's cache key).
    ``checkpoint()`` / ``rollback_to(point)`` undo what a trace added (new blocks, and ops
    and variables of the block current at the checkpoint), so it can be traced again.
``Block``
    ``idx`` (its index in ``program.blocks``), ``parent_idx`` (-1 for the global block),
    ``vars`` (dict name -> Variable, in creation order), ``ops`` (list of Operator),
    ``forward_block_idx`` (-1, or for a gradient block the forward block it differentiates).
``Operator``
    ``type`` (registered op type, or ``<type>_grad`` for a gradient op), ``inputs`` and
    ``outputs`` (dict slot name -> list of variable names, slot names without the ``*``; an
    absent optional input is an empty list; ``@EMPTY@`` marks a position with no variable),
    ``attrs`` (dict of JSON data: bool, int, float, str, None, lists, dicts; sub-blocks are
    referenced by block index, e.g. ``sub_block: 1``), ``role`` (``"forward"``,
    ``"backward"`` or ``"optimize"``), ``origin`` (None or ``[filename, lineno, source]`` of
    the user code that built it).
``Variable``
    ``name``, ``shape`` (list of int, -1 for an unknown dim; for a tensor array the element
    shape, or None before the first write), ``dtype`` (numpy dtype), ``type``
    (``"lod_tensor"``, ``"tensor_array"`` or ``"step_scopes"``: a while loop's saved
    iterations), ``persistable``, ``stop_gradient``, ``is_data`` (declared by ``data``: its
    feed is checked against shape and dtype).
``Parameter(Variable)``
    adds ``trainable``, ``optimize_attr`` (dict), ``regularizer`` (object or None; not
    serialised), ``need_clip``.

``Variable`` and ``Parameter`` are defined in :mod:`core.static.variable`, ``Operator`` in
:mod:`core.static.operator`; this module holds ``Block``, ``Program`` and the default programs,
and re-exports the rest.

Control-flow operators (see ``core/ops/control_flow.py``) keep their sub-block structure in
attrs; variables used inside a sub-block resolve through its parents.
"""
import collections
import contextlib

from .. import unique_name
from .clone import clone_program
from .operator import EMPTY_VAR_NAME, Operator
from .variable import GRAD_SUFFIX, Parameter, Variable, grad_var_name

__all__ = [
    "EMPTY_VAR_NAME",
    "GRAD_SUFFIX",
    "Block",
    "Operator",
    "Parameter",
    "Program",
    "ProgramCheckpoint",
    "Variable",
    "default_main_program",
    "default_startup_program",
    "grad_var_name",
    "name_scope",
    "program_guard",
    "switch_main_program",
    "register_program_wrapper",
    "switch_startup_program",
    "unwrap_program",
]


class Block:
    """A list of operators and the variables they use; sub-blocks belong to cond / while."""

    def __init__(self, program, idx, parent_idx=-1):
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        self.forward_block_idx = -1
        self.vars = {}
        self.ops = []

    @property
    def parent(self):
        return None if self.parent_idx < 0 else self.program.blocks[self.parent_idx]

    def var(self, name):
        """The variable ``name`` of this block (not its parents); a KeyError naming both."""
        v = self.vars.get(name)
        if v is None:
            raise KeyError(f"variable '{name}' is not in block {self.idx}"
                           + (f" (it is in block {self._find_var_recursive(name).block.idx})"
                              if self._find_var_recursive(name) is not None else ""))
        return v

    def has_var(self, name):
        return name in self.vars

    def _find_var_recursive(self, name):
        """The variable ``name`` of this block or its nearest ancestor, or None."""
        block = self
        while block is not None:
            v = block.vars.get(name)
            if v is not None:
                return v
            block = block.parent
        return None

    def _var_recursive(self, name):
        v = self._find_var_recursive(name)
        if v is None:
            raise KeyError(f"variable '{name}' is not in block {self.idx} or its parents")
        return v

    def create_var(self, name=None, shape=(), dtype="float32", type="lod_tensor",
                   persistable=False, stop_gradient=False, is_data=False, **_ignored):
        """A new Variable of this block (an existing one of the same name is returned when
        its type matches, as in Paddle)."""
        if name is None:
            name = unique_name.generate("_generated_var")
        old = self.vars.get(name)
        if old is not None:
            return old
        v = Variable(self, name, shape, dtype, type=type, persistable=persistable,
                     stop_gradient=stop_gradient, is_data=is_data)
        self.vars[name] = v
        self.program._bump()
        return v

    def add_parameter(self, name, shape, dtype, trainable=True, optimize_attr=None,
                      regularizer=None, need_clip=True, **_ignored):
        """A new Parameter variable of this block (an existing Parameter of the same name is
        returned). Only the variable: :func:`core.parameter.create_parameter` also
        initialises it."""
        old = self.vars.get(name)
        if old is not None:
            if not isinstance(old, Parameter):
                raise ValueError(f"add_parameter: '{name}' already names a non-parameter "
                                 f"variable in block {self.idx}")
            return old
        p = Parameter(self, name, shape, dtype, trainable=trainable,
                      optimize_attr=optimize_attr, regularizer=regularizer, need_clip=need_clip)
        self.vars[name] = p
        self.program._bump()
        return p

    #: Paddle's spelling of :meth:`add_parameter` on a Block
    create_parameter = add_parameter

    def append_op(self, type, inputs=None, outputs=None, attrs=None, role=None, origin=None):
        op = Operator(self, type, inputs, outputs, attrs,
                      role=role or self.program._op_role, origin=origin)
        self.ops.append(op)
        self.program._bump()
        return op

    def _insert_op(self, index, type, inputs=None, outputs=None, attrs=None, role=None,
                   origin=None):
        op = Operator(self, type, inputs, outputs, attrs,
                      role=role or self.program._op_role, origin=origin)
        self.ops.insert(index, op)
        self.program._bump()
        return op

    def remove_op(self, index):
        """Delete the operator at ``index`` (the program's plan cache is invalidated)."""
        del self.ops[index]
        self.program._bump()

    _remove_op = remove_op  # PaddlePaddle's spelling

    def _remove_var(self, name):
        del self.vars[name]
        self.program._bump()

    def all_parameters(self):
        return [v for v in self.vars.values() if isinstance(v, Parameter)]

    def __repr__(self):
        lines = [f"block {self.idx} (parent {self.parent_idx}) {{"]
        for v in self.vars.values():
            lines.append(f"    {v!r}")
        for op in self.ops:
            lines.append(f"    {op!r}")
        lines.append("}")
        return "\n".join(lines)

    __str__ = __repr__


ProgramCheckpoint = collections.namedtuple(
    "ProgramCheckpoint", ["n_blocks", "block_idx", "n_ops", "var_names"])
ProgramCheckpoint.__doc__ = "What :meth:`Program.checkpoint` records (see there)."


class Program:
    """A static program: a list of blocks, block 0 the global one."""

    def __init__(self):
        self.blocks = [Block(self, 0, -1)]
        self.random_seed = 0
        self._current_block_idx = 0
        self._version = 0
        self._op_role = "forward"

    def _bump(self):
        self._version += 1

    @property
    def num_blocks(self):
        return len(self.blocks)

    def global_block(self):
        return self.blocks[0]

    def block(self, index):
        if not 0 <= index < len(self.blocks):
            raise IndexError(f"program has {len(self.blocks)} blocks; block {index} requested")
        return self.blocks[index]

    def current_block(self):
        return self.blocks[self._current_block_idx]

    def _create_block(self, parent_idx=None):
        """A new block (child of the current one by default) that becomes current."""
        parent = self._current_block_idx if parent_idx is None else parent_idx
        b = Block(self, len(self.blocks), parent)
        self.blocks.append(b)
        self._current_block_idx = b.idx
        self._bump()
        return b

    def _rollback(self):
        """Make the parent of the current block current again."""
        self._current_block_idx = max(self.current_block().parent_idx, 0)

    def checkpoint(self):
        """A point to :meth:`rollback_to`: the blocks, and the current block's ops and
        variables, as they are now (for undoing a trace that has to be done again)."""
        block = self.current_block()
        return ProgramCheckpoint(len(self.blocks), block.idx, len(block.ops), tuple(block.vars))

    def rollback_to(self, point):
        """Remove what was added since ``point`` (a :meth:`checkpoint`): the blocks created
        after it, and the ops and variables appended to its block, which becomes current."""
        if not isinstance(point, ProgramCheckpoint) or point.n_blocks > len(self.blocks):
            raise ValueError(f"rollback_to(): {point!r} is not a checkpoint of this program")
        del self.blocks[point.n_blocks:]
        block = self.blocks[point.block_idx]
        del block.ops[point.n_ops:]
        kept = set(point.var_names)
        for name in [n for n in block.vars if n not in kept]:
            del block.vars[name]
        self._current_block_idx = point.block_idx
        self._bump()

    def list_vars(self):
        for b in self.blocks:
            yield from b.vars.values()

    def all_parameters(self):
        return self.global_block().all_parameters()

    def clone(self, for_test=False):
        """A deep copy. ``for_test``: without backward/optimize ops, and ``is_test=True`` on
        the ops that have that attribute (dropout, batch_norm, while loops)."""
        return clone_program(self, for_test)

    def __repr__(self):
        head = f"program (random_seed={self.random_seed}, {len(self.blocks)} block(s))"
        return "\n".join([head] + [repr(b) for b in self.blocks])

    __str__ = __repr__

    def to_string(self, throw_on_error=False, with_details=False):
        return str(self)


_programs = {"main": Program(), "startup": Program()}

# Classes wrapping a Program whose ``program`` property is the Program to run or build
# (``CompiledProgram`` registers itself from core.static.compiled, which imports this module).
_program_wrappers = []


def register_program_wrapper(cls):
    """Accept instances of ``cls`` wherever a Program is expected, as ``instance.program``."""
    if cls not in _program_wrappers:
        _program_wrappers.append(cls)


def unwrap_program(program, api):
    """The Program inside ``program`` (a Program or a CompiledProgram); a TypeError else."""
    if isinstance(program, Program):
        return program
    if isinstance(program, tuple(_program_wrappers)):
        return program.program
    raise TypeError(f"{api}: expected a Program or CompiledProgram, got "
                    f"{type(program).__name__}")


def default_main_program():
    """The Program that static-mode ops append to."""
    return _programs["main"]


def default_startup_program():
    """The Program that parameter initialisers append to."""
    return _programs["startup"]


def switch_main_program(program):
    old, _programs["main"] = _programs["main"], program
    return old


def switch_startup_program(program):
    old, _programs["startup"] = _programs["startup"], program
    return old


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Inside the block ops append to ``main_program`` (and initialisers to
    ``startup_program`` when given)."""
    main_program = unwrap_program(main_program, "program_guard")
    if startup_program is not None:
        startup_program = unwrap_program(startup_program, "program_guard")
    old_main = switch_main_program(main_program)
    old_startup = switch_startup_program(startup_program) if startup_program is not None \
        else None
    try:
        yield
    finally:
        switch_main_program(old_main)
        if startup_program is not None:
            switch_startup_program(old_startup)


_name_scopes = []


@contextlib.contextmanager
def name_scope(prefix=None):
    """Group names for readability; variables created inside get the prefix in their name."""
    _name_scopes.append(str(prefix or "scope"))
    try:
        yield
    finally:
        _name_scopes.pop()


def scoped_name(prefix):
    """A unique name for ``prefix`` under the current name scopes."""
    full = "/".join(_name_scopes + [prefix]) if _name_scopes else prefix
    return unique_name.generate(full)
