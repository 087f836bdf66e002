"""Static programs: the Program IR, the op builder, the executor and static autograd."""
from .. import ops  # noqa: F401 - the registry must be filled before programs are built
from . import backward, builder, compiled, data, executor, program, scope
from .backward import append_backward, gradients
from .builder import create_global_var, create_parameter, op_role_guard, set_origin_provider
from .compiled import CompiledProgram
from .data import data
from .executor import Executor
from .program import (Block, Operator, Parameter, Program, Variable, default_main_program,
                      default_startup_program, name_scope, program_guard)
from .scope import LoDTensor, Scope, global_scope, scope_guard

__all__ = ["Program", "Block", "Operator", "Variable", "default_main_program",
           "default_startup_program", "program_guard", "name_scope", "data", "Executor",
           "CompiledProgram", "Scope", "LoDTensor", "global_scope", "scope_guard",
           "append_backward", "gradients", "create_global_var"]
