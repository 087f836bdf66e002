"""Static programs: the Program IR, the op builder, the executor and static autograd."""
from .. import ops  # noqa: F401 - the registry must be filled before programs are built
from . import backward as backward
from . import builder as builder
from . import compiled as compiled
from . import executor as executor
from . import program as program
from . import scope as scope
from .backward import append_backward, gradients
from .builder import create_global_var
from .builder import op_role_guard as op_role_guard
from .builder import set_origin_provider as set_origin_provider
from .compiled import CompiledProgram
from .passes import BuildStrategy
from .data import data
from .executor import Executor
from .graph import program_to_dot
from .._lazy import lazy_attributes
from .input_spec import InputSpec
from .program import (
                      Block,
                      Operator,
                      Program,
                      Variable,
                      default_main_program,
                      default_startup_program,
                      name_scope,
                      program_guard,
)
from .program import Parameter as Parameter
from .scope import LoDTensor, Scope, global_scope, scope_guard

__all__ = [
                      "Block",
                      "BuildStrategy",
                      "CompiledProgram",
                      "Executor",
                      "InputSpec",
                      "LoDTensor",
                      "Operator",
                      "Program",
                      "Scope",
                      "Variable",
                      "append_backward",
                      "create_global_var",
                      "create_parameter",
                      "data",
                      "default_main_program",
                      "default_startup_program",
                      "global_scope",
                      "gradients",
                      "name_scope",
                      "program_guard",
                      "program_to_dot",
                      "program_to_html",
                      "scope_guard",
]


#: ``paddle.static.create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
#: default_initializer=None)`` is :func:`core.layers.create_parameter`, which sets it here when
#: core.layers is imported (``import core`` does): the static IR does not import the layers.
create_parameter = None

# the HTML page of a Program is drawn on first use (``import core`` does not load it)
__getattr__, __dir__ = lazy_attributes(__name__, {"program_to_html": (".graph_html",
                                                                      "program_to_html")})
