"""``paddle.jit``: the translator's ``to_static`` and friends, and ``save`` / ``load`` of a
translated Layer.

``save(layer, path, input_spec=None)`` translates ``layer.forward`` for ``input_spec`` (or
takes the program of its declared or most recent signature) and writes the inference program
and the parameter values as a saved inference model in the directory ``path``.
``load(path)`` returns a :class:`TranslatedLayer`: a Layer whose parameters are the saved
values and whose ``forward`` runs the saved program as one op of the eager tape
(:class:`translator.partial_program.PartialProgram`), so it predicts, and it fine-tunes with
any optimizer (the program is the inference one: dropout off, batch norm on its statistics).
"""
import logging

import numpy as np

import core
from core import io as _io
from core import static as _static
from core.nn import Layer
from translator import InputSpec, ProgramTranslator, TracedLayer, declarative, not_to_static
from translator.partial_program import PartialProgram, save_program
from translator.program_translator import StaticFunction

__all__ = ["InputSpec", "ProgramTranslator", "TracedLayer", "TranslatedLayer", "declarative",
           "enable_to_static", "load", "not_to_static", "save", "set_code_level",
           "set_verbosity", "to_static"]


def to_static(function=None, input_spec=None, **options):
    """``paddle.jit.to_static``: :func:`translator.declarative` (for functions, ``forward``
    methods and Layer instances)."""
    return declarative(function, input_spec=input_spec, **options)


def enable_to_static(enable_to_static_bool):
    """``paddle.jit.enable_to_static``: False runs ``to_static`` functions eagerly."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(f"enable_to_static: expected a bool, got "
                        f"{type(enable_to_static_bool).__name__}")
    ProgramTranslator().enable(enable_to_static_bool)


_LOGGER = logging.getLogger("translator")
_settings = {"code_level": -1, "verbosity": 0}


def set_code_level(level=100, also_to_stdout=False):
    """``paddle.jit.set_code_level``: turn the ``translator`` logger's INFO messages on (any
    ``level`` >= 0; a negative level turns them off again unless :func:`set_verbosity` keeps
    them). The converted code itself is ``ProgramTranslator().get_code(function)``."""
    _settings["code_level"] = int(level)
    _configure(also_to_stdout)


def set_verbosity(level=0, also_to_stdout=False):
    """``paddle.jit.set_verbosity``: ``level`` > 0 logs the translator's messages (cache
    misses, fallbacks) at INFO; 0 leaves only warnings."""
    _settings["verbosity"] = int(level)
    _configure(also_to_stdout)


def _configure(also_to_stdout):
    on = _settings["verbosity"] > 0 or _settings["code_level"] >= 0
    _LOGGER.setLevel(logging.INFO if on else logging.WARNING)
    if also_to_stdout and not any(getattr(h, "_paddle_stdout", False) for h in _LOGGER.handlers):
        handler = logging.StreamHandler()
        handler._paddle_stdout = True
        _LOGGER.addHandler(handler)


def code_level():
    """The level set by :func:`set_code_level` (-1: off)."""
    return _settings["code_level"]


def _static_forward(layer, input_spec):
    forward = layer.forward
    if isinstance(forward, StaticFunction):
        return forward
    if isinstance(layer, Layer):
        return StaticFunction(type(layer).forward, input_spec, instance=layer)
    if callable(layer):
        return StaticFunction(layer, input_spec)
    raise TypeError(f"jit.save: expected a Layer or a function, got {type(layer).__name__}")


def _concrete(static, input_spec):
    if input_spec is not None:
        if not isinstance(input_spec, (list, tuple)):
            raise TypeError(f"jit.save: input_spec must be a list of InputSpec, got "
                            f"{type(input_spec).__name__}")
        specs = [InputSpec.from_tensor(s) if isinstance(s, core.Tensor) else s
                 for s in input_spec]
        return static.get_concrete_program(*specs)
    if static.input_spec is not None:
        return static.concrete_program
    cached = list(static.program_cache.values())
    if not cached:
        raise ValueError("jit.save: the layer's forward has not been called and declares no "
                         "input_spec; pass input_spec=[InputSpec(shape, dtype), ...]")
    return cached[-1]


def save(layer, path, input_spec=None, **configs):
    """``paddle.jit.save``: write ``layer``'s translated forward (inference program and
    parameter values) to the directory ``path``; :func:`load` reads it back."""
    static = _static_forward(layer, input_spec)
    training = getattr(layer, "training", None)
    if training:
        layer.eval()
    try:
        concrete = _concrete(static, input_spec)
    finally:
        if training:
            layer.train()
    return save_program(str(path), concrete.main_program, concrete.inputs,
                        concrete.output_vars, concrete.parameters)


class TranslatedLayer(Layer):
    """A Layer loaded by :func:`load`: the saved program with its parameters (see the module
    docstring). ``program()`` is the loaded inference program."""

    def __init__(self, program, feed_names, fetch_vars, values):
        super().__init__()
        self._program = program
        gb = program.global_block()
        params = []
        for i, (name, array) in enumerate(values):
            var = gb.vars.get(name)
            # NOTE: non-trainable persistables (batch-norm statistics) are Parameters with
            # trainable=False, as the Layer that was saved holds them
            trainable = isinstance(var, _static.Parameter) and getattr(var, "trainable", True)
            p = core.Parameter(array, name=name, trainable=trainable)
            self.add_parameter(f"param_{i}", p)
            params.append((name, p))
        self._runner = PartialProgram(program, [gb.var(n) for n in feed_names], fetch_vars,
                                      params)
        self._feed_names = list(feed_names)

    def program(self, method_name="forward"):
        return self._program

    def forward(self, *inputs):
        if len(inputs) != len(self._feed_names):
            raise TypeError(f"TranslatedLayer: the saved program takes {len(self._feed_names)} "
                            f"inputs ({', '.join(self._feed_names)}), got {len(inputs)}")
        tensors = [x if isinstance(x, core.Tensor) else core.to_tensor(np.asarray(x))
                   for x in inputs]
        outs = self._runner(tensors)
        return outs[0] if len(outs) == 1 else outs


def load(path, **configs):
    """``paddle.jit.load``: the :class:`TranslatedLayer` saved in the directory ``path``."""
    scope = _static.Scope()
    exe = _static.Executor(core.CPUPlace())
    with _static.scope_guard(scope):
        program, feed_names, fetch_vars = _io.load_inference_model(str(path), exe)
    values = []
    for var in program.list_vars():
        if not var.persistable:
            continue
        holder = scope.find_var(var.name)
        array = None if holder is None else holder.get_tensor().array
        if array is not None:
            values.append((var.name, np.array(array)))
    return TranslatedLayer(program, feed_names, fetch_vars, values)
