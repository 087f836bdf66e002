"""``paddle.jit``: the translator's ``to_static`` and friends, and ``save`` / ``load`` of a
translated Layer or function.

``save(layer, path, input_spec=None)`` translates ``layer.forward`` (or the ``to_static``
function ``layer``) for ``input_spec`` (or takes the program of its declared or most recent
signature) in eval mode and writes, as PaddlePaddle 2.x does, ``path`` as a file prefix:
``path.pdmodel`` (the inference program), ``path.pdiparams`` (the persistable values) and
``path.pdiparams.info`` (per value: trainable or not, its name in the Layer's state dict);
see :func:`core.io.inference.save_inference_files` (our own JSON and array formats, no pickle;
nothing is renamed into place before all three files are written).

``load(path)`` returns a :class:`TranslatedLayer`: a Layer whose parameters are the saved
values and whose ``forward`` runs the saved program as one op of the eager tape
(:class:`translator.partial_program.PartialProgram`), so it predicts, and it fine-tunes with
any optimizer. In ``eval()`` mode it runs the inference program; in ``train()`` mode (the
default, as for any Layer) the same program with every op's ``is_test`` attribute False:
dropout drops, batch norm normalises with the batch statistics and updates its running mean
and variance (non-trainable parameters of the TranslatedLayer). A model saved by the older
layout (a directory ``path``) still loads. ``save`` of a TranslatedLayer writes its program
with its current parameter values.
"""
import logging
import os

import numpy as np

import core
from core import io as _io
from core import static as _static
from core.io import inference as _inference
from core.nn import Layer
from translator import InputSpec, ProgramTranslator, TracedLayer, declarative, not_to_static
from translator.partial_program import PartialProgram, save_program_files
from translator.program_translator import StaticFunction

__all__ = ["InputSpec", "ProgramTranslator", "TracedLayer", "TranslatedLayer", "declarative",
           "enable_to_static", "load", "not_to_static", "save", "set_code_level",
           "set_verbosity", "to_static"]


def to_static(function=None, input_spec=None, build_strategy=None, **options):
    """``paddle.jit.to_static``: :func:`translator.declarative` (for functions, ``forward``
    methods and Layer instances). ``build_strategy`` (a ``core.static.BuildStrategy`` or None)
    is accepted as PaddlePaddle's is: its switches tune how Paddle compiles the program and
    never change results; here the translated program runs with the plan's own passes."""
    if build_strategy is not None and not isinstance(build_strategy, _static.BuildStrategy):
        raise TypeError(f"to_static: build_strategy must be a BuildStrategy or None, got "
                        f"{type(build_strategy).__name__}")
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
    if isinstance(layer, StaticFunction):
        return layer
    if isinstance(layer, Layer):
        forward = layer.forward
        if isinstance(forward, StaticFunction):
            return forward
        return StaticFunction(type(layer).forward, input_spec, instance=layer)
    if callable(layer):
        return StaticFunction(layer, input_spec)
    raise TypeError(f"jit.save: argument 'layer' must be a Layer or a function, got "
                    f"{type(layer).__name__}")


def _concrete(static, input_spec):
    if _prunes(input_spec, static.input_spec):
        return static.concrete_program
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


def _structured_names(layer, parameters):
    """``{program name: {"structured_name": state-dict key}}`` of the saved parameters."""
    if not isinstance(layer, Layer):
        return {}
    keys = {id(t): k for k, t in layer.state_dict().items()}
    return {name: {"structured_name": keys[id(p)]} for name, p in parameters if id(p) in keys}


def save(layer, path, input_spec=None, **configs):
    """``paddle.jit.save``: write ``layer``'s translated forward (a Layer, or a ``to_static``
    function) as ``path.pdmodel`` / ``path.pdiparams`` / ``path.pdiparams.info`` (``path`` is
    a file prefix; its folder is created); :func:`load` reads them back."""
    path = _inference.check_path_prefix(path, "jit.save", "path")
    if isinstance(layer, TranslatedLayer):
        return layer._save(path)
    output_spec = configs.pop("output_spec", None)
    if configs:
        raise TypeError(f"jit.save: unexpected argument(s) {', '.join(sorted(configs))}")
    static = _static_forward(layer, input_spec)
    training = getattr(layer, "training", None) if isinstance(layer, Layer) else None
    if training:
        layer.eval()
    try:
        concrete = _concrete(static, input_spec)
    finally:
        if training:
            layer.train()
    inputs = _input_vars(concrete.inputs, input_spec, static.input_spec)
    outputs = _output_vars(concrete.output_vars, output_spec)
    return save_program_files(path, concrete.main_program, inputs, outputs, concrete.parameters,
                              _structured_names(layer, concrete.parameters), api="jit.save")


def _prunes(input_spec, declared):
    """True where ``input_spec`` names fewer inputs than the forward's declared
    ``input_spec``: PaddlePaddle then saves the declared program with only those inputs."""
    return (input_spec is not None and declared is not None
            and isinstance(input_spec, (list, tuple))
            and len(input_spec) < len(declared))


def _input_vars(inputs, input_spec, declared):
    """The feed Variables: all ``inputs``, or where ``input_spec`` prunes (see
    :func:`_prunes`) those it selects: a spec with a name selects the input of that name, one
    of the declared spec objects the input it declares."""
    if not _prunes(input_spec, declared):
        return inputs
    by_name = {v.name: v for v in inputs}
    picked = []
    for i, spec in enumerate(input_spec):
        name = getattr(spec, "name", None)
        position = next((j for j, d in enumerate(declared) if d is spec), None)
        if name in by_name:
            picked.append(by_name[name])
        elif position is not None and position < len(inputs):
            picked.append(inputs[position])
        else:
            raise ValueError(f"jit.save: input_spec[{i}] ({spec!r}) selects no input of the "
                             f"saved program; give it the name of one of {list(by_name)} or "
                             f"pass one of the forward's declared InputSpec objects")
    return picked


def _output_vars(outputs, output_spec):
    """The fetch Variables: all ``outputs``, or those ``output_spec`` selects: a Tensor a call
    of the translated forward returned (the program output at its place in the returned
    values), or a Variable or the name of one."""
    if output_spec is None:
        return outputs
    if not isinstance(output_spec, (list, tuple)):
        raise TypeError(f"jit.save: output_spec must be a list of Tensors, got "
                        f"{type(output_spec).__name__}")
    by_name = {v.name: v for v in outputs}
    picked = []
    for i, spec in enumerate(output_spec):
        name = spec if isinstance(spec, str) else getattr(spec, "name", None)
        index = _returned_index(spec)
        if name in by_name:
            picked.append(by_name[name])
        elif index is not None and index < len(outputs):
            picked.append(outputs[index])
        else:
            raise ValueError(f"jit.save: output_spec[{i}] is not an output of the saved "
                             f"program (its outputs are {list(by_name)}); pass Tensors the "
                             f"translated forward returned")
    return picked


def _returned_index(tensor):
    """Where ``tensor`` stands among the values a translated call returned (the tape records
    a program run as one op; its outputs keep their index), else None."""
    if not isinstance(tensor, core.Tensor):
        return None
    node = getattr(tensor, "_node", None)
    if node is not None and getattr(node.op, "type", None) != "run_program":
        return None
    index = getattr(tensor, "_out_idx", (0, None))[1]
    return index if isinstance(index, int) else None


def _train_program(program):
    """A copy of the inference ``program`` that trains: ``is_test`` False on every op (as
    PaddlePaddle's TranslatedLayer does in train mode)."""
    train = program.clone()
    for block in train.blocks:
        for op in block.ops:
            if "is_test" in op.attrs:
                op.attrs["is_test"] = False
    train._bump()
    return train


class TranslatedLayer(Layer):
    """A Layer loaded by :func:`load`: the saved program with its parameters (see the module
    docstring). ``program()`` is the loaded inference program."""

    def __init__(self, program, feed_names, fetch_vars, values, info=None):
        super().__init__()
        self._program = program
        gb = program.global_block()
        info = info or {}
        params = []
        for i, (name, array) in enumerate(values):
            var = gb.vars.get(name)
            # NOTE: non-trainable persistables (batch-norm statistics) are Parameters with
            # trainable=False, as the Layer that was saved holds them
            trainable = info.get(name, {}).get(
                "trainable", isinstance(var, _static.Parameter) and getattr(var, "trainable", True))
            p = core.Parameter(array, name=name, trainable=bool(trainable))
            self.add_parameter(f"param_{i}", p)
            params.append((name, p))
        self._params = params
        self._feed_names = list(feed_names)
        self._fetch_names = [v.name for v in fetch_vars]
        self._var_info = {name: {k: v for k, v in entry.items() if k == "structured_name"}
                          for name, entry in info.items()}
        self._infer = PartialProgram(program, [gb.var(n) for n in feed_names], fetch_vars,
                                     params)
        self._train = None

    def program(self, method_name="forward"):
        return self._program

    def _runner(self):
        if not self.training:
            return self._infer
        if self._train is None:
            train = _train_program(self._program)
            gb = train.global_block()
            self._train = PartialProgram(train, [gb.var(n) for n in self._feed_names],
                                         [gb.var(n) for n in self._fetch_names], self._params)
        return self._train

    def forward(self, *inputs):
        if len(inputs) != len(self._feed_names):
            raise TypeError(f"TranslatedLayer: the saved program takes {len(self._feed_names)} "
                            f"inputs ({', '.join(self._feed_names)}), got {len(inputs)}")
        tensors = [x if isinstance(x, core.Tensor) else core.to_tensor(np.asarray(x))
                   for x in inputs]
        outs = self._runner()(tensors)
        return outs[0] if len(outs) == 1 else outs

    def _save(self, path):
        gb = self._program.global_block()
        return save_program_files(path, self._program, [gb.var(n) for n in self._feed_names],
                                  [gb.var(n) for n in self._fetch_names], self._params,
                                  self._var_info, api="jit.save")


def _load_directory(path):
    """The program, feed names, fetch Variables and values of the older layout: a saved
    inference model in the directory ``path``."""
    scope = _static.Scope()
    exe = _static.Executor(core.CPUPlace())
    with _static.scope_guard(scope):
        program, feed_names, fetch_vars = _io.load_inference_model(path, exe)
    values = []
    for var in program.list_vars():
        if not var.persistable:
            continue
        holder = scope.find_var(var.name)
        array = None if holder is None else holder.get_tensor().array
        if array is not None:
            values.append((var.name, np.array(array)))
    return program, feed_names, fetch_vars, values


def load(path, **configs):
    """``paddle.jit.load``: the :class:`TranslatedLayer` that :func:`save` wrote with the
    prefix ``path`` (or, older layout, saved as the directory ``path``)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"jit.load: argument 'path' must be a path 'dirname/file_prefix', got "
                        f"{type(path).__name__}")
    path = os.fspath(path)
    if os.path.isfile(path + _inference.MODEL_SUFFIX):
        program, feed_names, fetch_names, stored, info = _inference.read_inference_files(
            path, "jit.load")
        gb = program.global_block()
        values = [(v.name, stored[v.name]) for v in program.list_vars() if v.name in stored]
        return TranslatedLayer(program, feed_names, [gb.vars[n] for n in fetch_names], values,
                               info)
    if os.path.isdir(path):
        return TranslatedLayer(*_load_directory(path))
    raise FileNotFoundError(f"jit.load: no saved model at {path!r}: neither "
                            f"{path + _inference.MODEL_SUFFIX!r} nor a saved model directory "
                            f"{path!r} exists")
