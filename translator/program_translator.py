"""``declarative`` functions, their cache of translated programs, and ``ProgramTranslator``.

A :class:`StaticFunction` wraps a dygraph function (or a ``Layer.forward`` method: it is a
descriptor, so each Layer instance gets its own bound StaticFunction and its own cache).
Called in eager mode it

1. binds the call's arguments to the function's parameters (defaults applied) and computes
   their signature (:func:`translator.input_spec.signature_of`): tensor shapes, dtypes and
   ``stop_gradient``, Python values, nesting, and the Layer's ``training`` flag;
2. on a cache miss, *translates*: converts the source once (``translator.convert``), then
   runs the converted function in static mode inside a fresh ``program_guard`` on ``data``
   variables standing for the tensor arguments; the ops it appends make the Program;
3. runs the cached Program through :class:`~translator.partial_program.PartialProgram`,
   which records one tape node so gradients flow back to inputs and Layer parameters, and
   returns eager tensors in the structure the function returned.

Called while a static Program is being built, it calls the converted function so its ops
join that Program. With ``ProgramTranslator().enable(False)`` it calls the original function.
"""
import contextlib
import dataclasses
import functools
import gc
import inspect
import os
import weakref

from core import mode as _mode
from core import static as _static
from core.static.builder import eager_parameters
from core.errors import StaticValueError
from core.tensor import Parameter, Tensor

from . import convert
from .cache_log import CacheLog, logger
from .control_flow import entry_flag
from .convert_calls import TensorRecursionError
from .convert_state import PathUnion, translation_guard
from .input_spec import InputSpec, _sorted_keys, flatten, pack, signature_of, to_specs
from .outside_state import Writes, host_value
from .partial_program import PartialProgram, save_program

__all__ = ["declarative", "to_static", "StaticFunction", "ConcreteProgram", "EagerFallback",
           "ProgramTranslator", "default_full_graph"]

_state = {"enabled": True, "last": None}
#: guard misses (outside Python state changed) after which a function's retraces are warned
_STATE_RETRACE_WARNING = 8


class ConcreteProgram:
    """One translation of a function for one signature.

    ``inputs``: the ``data`` Variables of the tensor arguments, in argument order;
    ``outputs``: what the function returned, with Variables where it returned tensors;
    ``output_vars``: the Variables among the outputs, in :func:`flatten` order (what a saved
    model fetches); ``fetch_vars``: what a run fetches -- ``output_vars``, then the bound flags
    of dict entries set on some paths only (an entry whose path did not run is left out of the
    result, as eager code leaves it; ``union_entries`` the same inside the alternatives of a
    result whose structure differs per path), then the Variables of the outside state the function
    writes (``replay``, a :class:`~translator.outside_state.Replay` or None);
    ``parameters``: the eager Parameters the Program reads, with their names there.
    """

    __slots__ = ("main_program", "startup_program", "inputs", "outputs", "output_vars",
                 "fetch_vars", "entry_flags", "union_entries", "replay", "parameters",
                 "function", "_partial", "_single")

    def __init__(self, main_program, startup_program, inputs, outputs, parameters, function,
                 replay=None):
        self.main_program = main_program
        self.startup_program = startup_program
        self.inputs = inputs
        self.outputs = outputs
        self.output_vars = _output_vars(outputs)
        self.entry_flags = [] if isinstance(outputs, PathUnion) else _entry_flags(outputs)
        # the same inside the alternatives of results whose structure differs per path
        self.union_entries = _union_entries(outputs)
        self.replay = replay
        self.fetch_vars = self.output_vars + [flag for _, flag in self.entry_flags] + \
            [flag for entries in self.union_entries.values() for _, flag in entries] + \
            (replay.variables if replay is not None else [])
        self.parameters = parameters
        self.function = function
        self._partial = None
        # a function returning one tensor: its result is the one value fetched
        self._single = isinstance(outputs, _static.Variable) and len(self.fetch_vars) == 1 \
            and replay is None

    @property
    def partial_program(self):
        """The :class:`~translator.partial_program.PartialProgram` that runs this program."""
        if self._partial is None:
            self._partial = PartialProgram(self.main_program, self.inputs, self.fetch_vars,
                                           self.parameters)
        return self._partial

    def __call__(self, tensors):
        """Run on the eager ``tensors`` (the tensor leaves of the arguments); eager outputs in
        the structure of ``outputs``."""
        if self._single:
            return self.partial_program(tensors)[0]
        return self.pack_outputs(self.partial_program(tensors))

    def pack_outputs(self, results):
        """The function's result from ``results`` (one value per ``fetch_vars``): its
        structure with those values for its Variables -- where the paths return different
        structures (:class:`~translator.convert_state.PathUnion`), the one the run took --
        after writing the outside state the run computed (``replay``)."""
        n = len(self.output_vars)
        n_flags = len(self.entry_flags)
        union_flags = [f for entries in self.union_entries.values() for _, f in entries]
        flags = results[n:n + n_flags]
        if self.replay is not None:
            self.replay.write(results[n + n_flags + len(union_flags):])
        fetched_union_flags = results[n + n_flags:n + n_flags + len(union_flags)]
        results = results[:n]
        outputs = self.outputs
        leaves = flatten(outputs)
        if any(isinstance(v, PathUnion) for v in leaves):
            by_var = dict(zip(map(id, self.output_vars), results))
            by_var.update(zip(map(id, union_flags), fetched_union_flags))
            return pack(outputs, [_chosen(v, by_var, self.union_entries) for v in leaves])
        if len(leaves) != len(results):
            it = iter(results)
            results = [next(it) if isinstance(v, _static.Variable) else v for v in leaves]
        packed = pack(outputs, results)
        for (path, _), flag in zip(self.entry_flags, flags):
            if not bool(host_value(flag)):
                _remove_entry(packed, path)
        return packed


def _entry_flags(value, path=()):
    """``[(path, bound flag)]`` for the dict entries in ``value`` set on some paths only."""
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            flag = entry_flag(item)
            if flag is not None:
                out.append((path + (key,), flag))
            else:
                out += _entry_flags(item, path + (key,))
    elif isinstance(value, (list, tuple)):
        for k, item in enumerate(value):
            out += _entry_flags(item, path + (k,))
    return out


def _remove_entry(value, path):
    for key in path[:-1]:
        value = value[key]
    value.pop(path[-1], None)


def _output_vars(outputs):
    """The Variables among ``outputs`` in :func:`flatten` order; for a PathUnion (the whole
    result or a part of it) its selector and then every alternative's, each once."""
    leaves = flatten(outputs)
    if not any(isinstance(v, PathUnion) for v in leaves):
        return [v for v in leaves if isinstance(v, _static.Variable)]
    out, seen = [], set()

    def add(v):
        if isinstance(v, PathUnion):
            add(v.selector)
            for alt in v.alternatives:
                for leaf in flatten(alt):
                    add(leaf)
        elif isinstance(v, _static.Variable) and id(v) not in seen:
            seen.add(id(v))
            out.append(v)

    for v in leaves:
        add(v)
    return out


def _chosen(value, by_var, union_entries=None):
    """A result leaf from the fetched values ``by_var`` (Variable id -> value): for a
    PathUnion the alternative its selector chose, packed the same way, without the dict
    entries its run did not set (``union_entries``: alternative id -> entry flags)."""
    if isinstance(value, PathUnion):
        selected = by_var[id(value.selector)]
        alt = value.alternatives[int(host_value(selected))]
        packed = pack(alt, [_chosen(v, by_var, union_entries) for v in flatten(alt)])
        for path, flag in (union_entries or {}).get(id(alt), ()):
            if not bool(host_value(by_var[id(flag)])):
                _remove_entry(packed, path)
        return packed
    return by_var[id(value)] if isinstance(value, _static.Variable) else value


def _union_entries(outputs):
    """``{id(alternative): [(path, bound flag)]}`` for the dict entries set on some paths
    only inside the alternatives of the PathUnions among ``outputs``."""
    out = {}

    def visit(v):
        if isinstance(v, PathUnion):
            for alt in v.alternatives:
                entries = _entry_flags(alt)
                if entries:
                    out[id(alt)] = entries
                for leaf in flatten(alt):
                    visit(leaf)

    for leaf in flatten(outputs):
        visit(leaf)
    return out


def _parameters_of(main_program):
    """``[(name, eager tensor)]`` for the program's persistable variables that stand for eager
    Parameters (or persistable eager tensors such as running statistics).

    The builder maps an eager Parameter or persistable tensor used while translating to a
    program variable of the same name and records the eager object
    (:func:`core.static.builder.eager_parameters`), however the function reached it.
    """
    registry = eager_parameters(main_program)
    return [(n, registry[n]) for n in sorted(registry)]


class _Binder:
    """Binds call arguments to a function's parameters, and back."""

    def __init__(self, func, skip_first):
        sig = inspect.signature(func)
        params = list(sig.parameters.values())[1 if skip_first else 0:]
        self.names = [p.name for p in params]
        self.kinds = [p.kind for p in params]
        self.simple = all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params)
        self.defaults = [p.default for p in params]
        self.nrequired = sum(1 for p in params if p.default is p.empty)
        self.signature = sig.replace(parameters=params)
        self.func_name = getattr(func, "__qualname__", repr(func))

    def bind(self, args, kwargs):
        """One value per parameter (defaults applied; ``*args`` a tuple, ``**kw`` a dict)."""
        n = len(args)
        if self.simple and not kwargs and self.nrequired <= n <= len(self.names):
            return list(args) + self.defaults[n:]
        self._check_keywords(kwargs)
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.func_name}(): {e}") from None
        bound.apply_defaults()
        return [bound.arguments[name] for name in self.names]

    def _check_keywords(self, kwargs):
        """A keyword that names no parameter is the first error, as Python reports it (before
        a missing argument): ``f() got an unexpected keyword argument 'xx'``."""
        if inspect.Parameter.VAR_KEYWORD in self.kinds:
            return
        accepted = {name for name, kind in zip(self.names, self.kinds)
                    if kind != inspect.Parameter.VAR_POSITIONAL}
        for name in kwargs:
            if name not in accepted:
                raise TypeError(f"{self.func_name}() got an unexpected keyword argument "
                                f"'{name}'")

    def call(self, func, values, first=()):
        """``func(*first, ...)`` with the bound ``values``."""
        if self.simple:
            return func(*first, *values)
        args, kwargs = list(first), {}
        for name, kind, v in zip(self.names, self.kinds, values):
            if kind == inspect.Parameter.VAR_POSITIONAL:
                args.extend(v)
            elif kind == inspect.Parameter.VAR_KEYWORD:
                kwargs.update(v)
            elif kind == inspect.Parameter.KEYWORD_ONLY:
                kwargs[name] = v
            else:
                args.append(v)
        return func(*args, **kwargs)


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off while a function is translated and its plan
    compiled (unless it is off already). The objects made there mostly live until the end, so
    each collection in between would only walk them again -- four of them cost ~1 ms of a
    9 ms first call; what does become garbage is collected after."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _spec_names(value, base):
    """The default feed name of each InputSpec leaf of ``value`` in :func:`flatten` order."""
    if isinstance(value, InputSpec):
        return [value.name or base]
    if isinstance(value, (list, tuple)):
        return [n for i, v in enumerate(value) for n in _spec_names(v, f"{base}_{i}")]
    if isinstance(value, dict):
        return [n for k in _sorted_keys(value) for n in _spec_names(value[k], str(k))]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [n for f in dataclasses.fields(value)
                for n in _spec_names(getattr(value, f.name), f.name)]
    return []


def _check_spec_count(function, input_spec, bound):
    """More InputSpecs than the function takes arguments is an error naming both."""
    params = list(inspect.signature(function).parameters.values())[1 if bound else 0:]
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(input_spec) > len(positional):
        raise ValueError(f"input_spec of {function.__qualname__} has {len(input_spec)} entries, "
                         f"but the function takes {len(positional)} positional arguments "
                         f"({', '.join(p.name for p in positional)})")


class ProgramCache(dict):
    """``{signature: ConcreteProgram}`` of a StaticFunction, with PaddlePaddle's
    ``concrete_programs()`` and ``last()`` (the signature used most recently and its
    program)."""

    recent = None

    def concrete_programs(self):
        return [c for c in self.values() if isinstance(c, ConcreteProgram)]

    def last(self):
        if self.recent not in self:
            raise ValueError("the program cache is empty: nothing was translated yet")
        return self.recent, self[self.recent]

    def last_program(self):
        concrete = self.get(self.recent) if self.recent is not None else None
        return concrete if isinstance(concrete, ConcreteProgram) else None


class StaticFunction:
    """A function (or Layer method) run through its translated static Program.

    ``dygraph_function`` is the original function, ``instance`` the Layer it is bound to (or
    None), ``input_spec`` the declared input specs (or None).
    """

    def __init__(self, function, input_spec=None, instance=None, full_graph=None):
        if isinstance(function, StaticFunction):
            full_graph = function._full_graph if full_graph is None else full_graph
            instance = function.instance if instance is None else instance
            function = function.dygraph_function
        if inspect.ismethod(function):
            instance, function = function.__self__, function.__func__
        if not callable(function):
            raise TypeError(f"declarative expects a function or method, got "
                            f"{type(function).__name__}")
        if input_spec is not None:
            if not isinstance(input_spec, (list, tuple)):
                raise TypeError(f"input_spec of {function.__qualname__} must be a list or tuple "
                                f"of InputSpec, got {type(input_spec).__name__}")
            for s in flatten(list(input_spec)):
                if not isinstance(s, InputSpec):
                    raise TypeError(f"input_spec of {function.__qualname__} may only hold "
                                    f"InputSpec objects, got {type(s).__name__} {s!r}")
            input_spec = list(input_spec)
            _check_spec_count(function, input_spec, instance is not None)
        self.dygraph_function = function
        self.instance = instance
        self.input_spec = input_spec
        self._full_graph = None if full_graph is None else bool(full_graph)
        self._binder = None
        #: train() / eval() of a plain function (None: the global mode when traced)
        self._training = None
        self._cache = ProgramCache()
        self._bound = weakref.WeakKeyDictionary()
        self.translations = 0
        self._state_retraces = 0
        self._log = CacheLog(getattr(function, "__qualname__", repr(function)))
        functools.update_wrapper(self, function)

    # -- descriptor: one bound StaticFunction (and program cache) per instance ---------------------
    def __get__(self, instance, owner=None):
        if instance is None or self.instance is not None:
            return self
        bound = self._bound.get(instance)
        if bound is None:
            bound = StaticFunction(self.dygraph_function, self.input_spec, instance,
                                   self._full_graph)
            self._bound[instance] = bound
        return bound

    @property
    def binder(self):
        if self._binder is None:
            self._binder = _Binder(self.dygraph_function, self.instance is not None)
        return self._binder

    @property
    def program_cache(self):
        """``{signature: ConcreteProgram}`` of this (bound) function (a
        :class:`ProgramCache`)."""
        return self._cache

    @property
    def code(self):
        """Source text of the converted function, with ``# file:line`` origin comments."""
        return convert.get_code(self.dygraph_function, with_origin=True)

    # -- calling -----------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        instance = self.instance
        if not _state["enabled"]:
            # the most recent call, for save_inference_model: its program is built on demand
            _state["last"] = functools.partial(self.get_concrete_program, *args, **kwargs)
            if instance is not None:
                return self.dygraph_function(instance, *args, **kwargs)
            return self.dygraph_function(*args, **kwargs)
        if not _mode.in_dynamic_mode():
            first = (instance,) if instance is not None else ()
            return self.binder.call(convert.convert_to_static(self.dygraph_function),
                                    self.binder.bind(args, kwargs), first)
        values = self.binder.bind(args, kwargs)
        key, tensors = signature_of(values, self.input_spec)
        if instance is not None:
            key = (key, getattr(instance, "training", None))
        elif self._training is not None:
            key = (key, self._training)
        concrete = self._cache.get(key)
        self._cache.recent = key
        if concrete is None or (concrete.__class__ is ConcreteProgram and
                                concrete.replay is not None and not concrete.replay.holds()):
            if concrete is not None:
                self._retrace_for_state(concrete.replay.changed())
            with _collector_paused():
                concrete = self._translate(key, values)
                if not isinstance(concrete, EagerFallback):
                    _state["last"] = concrete
                    return concrete(tensors)  # its first run compiles the plan
        if isinstance(concrete, EagerFallback):
            return self.rollback()(*args, **kwargs)
        _state["last"] = concrete
        return concrete(tensors)

    def get_concrete_program(self, *args, **kwargs):
        """The :class:`ConcreteProgram` for a call with these arguments (tensors or
        :class:`InputSpec`; with no arguments, the declared ``input_spec``). Translates on a
        cache miss; runs nothing."""
        if not args and not kwargs and self.input_spec is not None:
            args = tuple(self.input_spec)
        values = self.binder.bind(args, kwargs)
        key, _ = signature_of(values, self.input_spec)
        if self.instance is not None:
            key = (key, getattr(self.instance, "training", None))
        elif self._training is not None:
            key = (key, self._training)
        concrete = self._cache.get(key)
        if concrete is None or isinstance(concrete, EagerFallback):
            # a signature that runs eagerly has no program: translating again raises why
            concrete = self._translate(key, values, full_graph=True)
        self._cache.recent = key
        return concrete

    def train(self):
        """Trace this function (not a Layer's method) in training mode (dropout active)."""
        self._set_training(True)

    def eval(self):
        """Trace this function (not a Layer's method) in inference mode."""
        self._set_training(False)

    def _set_training(self, training):
        if self.instance is not None:
            raise RuntimeError(f"{self.dygraph_function.__qualname__} is a method of a "
                               f"{type(self.instance).__name__}, which follows the Layer's "
                               f"mode: call the Layer's {'train' if training else 'eval'}() "
                               "instead")
        self._training = training

    @property
    def full_graph(self):
        """True: a function that cannot be converted raises; False: it runs eagerly for that
        input signature (see :func:`declarative`)."""
        return default_full_graph() if self._full_graph is None else self._full_graph

    @property
    def concrete_program(self):
        """The ConcreteProgram of the declared ``input_spec``; without one, that of the most
        recent call (an error before any). Only in dynamic mode, as in PaddlePaddle."""
        self._require_dynamic_mode("concrete_program")
        if self.input_spec is None:
            recent = self._cache.last_program()
            if recent is None:
                raise ValueError(f"{self.dygraph_function.__qualname__} declares no input_spec "
                                 "and has no program yet: call it first, or use "
                                 "get_concrete_program(*args)")
            return recent
        return self.get_concrete_program()

    @property
    def inputs(self):
        """The input Variables of :attr:`concrete_program` (its feeds, in argument order)."""
        self._require_dynamic_mode("inputs")
        return [v for v in flatten(self.concrete_program.inputs)
                if isinstance(v, _static.Variable)]

    @property
    def outputs(self):
        """The output Variables of :attr:`concrete_program`."""
        self._require_dynamic_mode("outputs")
        return list(self.concrete_program.output_vars)

    def _require_dynamic_mode(self, what):
        if not _mode.in_dynamic_mode():
            raise RuntimeError(f"{self.dygraph_function.__qualname__}.{what} is only available "
                               "in dynamic mode; call core.disable_static() first")

    def _retrace_for_state(self, changed):
        """A Python value the cached Program wrote changed since its trace: translate again
        (warned once when it keeps happening: a counter is best kept in a Tensor)."""
        self._state_retraces += 1
        if self._state_retraces == _STATE_RETRACE_WARNING:
            logger.warning(
                "%s was translated again %d times because Python state it writes changed "
                "between calls (%s); keep such state in a Tensor (e.g. a buffer) to build one "
                "Program", self.dygraph_function.__qualname__, self._state_retraces,
                ", ".join(changed))

    def _translate(self, key, values, full_graph=None):
        fallback = None
        try:
            concrete = self._build(values)
        except FALLBACK_ERRORS as e:
            if self.full_graph if full_graph is None else full_graph:
                raise
            concrete = fallback = EagerFallback(e)
        self._cache[key] = concrete
        self.translations += 1
        training = getattr(self.instance, "training", None) if self.instance is not None \
            else None
        self._log.record(key, self.binder.names, values, self.input_spec, training,
                         fallback=fallback and fallback.reason)
        if fallback is not None:
            logger.warning("%s runs eagerly for this input signature (full_graph=False): %s",
                           self.dygraph_function.__qualname__, fallback.reason)
        return concrete

    def cache_info(self):
        """The cached signatures, oldest first: per translation ``{argument: description}``
        (``'Tensor float32[4, 784]'``, ``'InputSpec float32[None, 784]'``, ``'int 3'``)."""
        return self._log.info(self._cache)

    def _build(self, values):
        converted = convert.convert_to_static(self.dygraph_function)
        main, startup = _static.Program(), _static.Program()
        with translation_guard():
            return self._trace(converted, values, main, startup)

    def _trace(self, converted, values, main, startup):
        specs = to_specs(values, self.input_spec)
        names = self._input_names(specs)
        # a Layer's forward is traced in its train/eval mode however it is called (the cache
        # key holds that flag): fluid dropout / batch_norm with is_test=None follow it
        training = getattr(self.instance, "training", None) if self.instance is not None \
            else self._training
        if not isinstance(training, bool):
            training = _mode.in_train_mode()
        with _static.program_guard(main, startup), _mode.static_mode_guard(), \
                _mode.train_mode_guard(training):
            inputs = []
            for spec, name in zip([s for s in flatten(specs) if isinstance(s, InputSpec)], names):
                var = _static.data(name, list(spec.shape), spec.dtype.name)
                var.stop_gradient = spec.stop_gradient
                inputs.append(var)
            it = iter(inputs)
            call_values = pack(specs, [next(it) if isinstance(v, InputSpec) else v
                                       for v in flatten(specs)])
            first = (self.instance,) if self.instance is not None else ()
            with Writes(self.dygraph_function, self.instance) as writes:
                outputs = self.binder.call(converted, call_values, first)
        outputs = _eager_to_constants(outputs)
        params = _parameters_of(main)
        return ConcreteProgram(main, startup, inputs, outputs, params, converted,
                               writes.replay(main.global_block()))

    def _input_names(self, specs):
        """Feed names, in :func:`flatten` order: the spec's name, else the parameter name --
        ``name_i`` for the i-th item of a list / tuple, the key for a dict entry (nested the
        same way), as PaddlePaddle names them; a name taken already gets ``_1``, ``_2``."""
        names, used = [], set()
        for pname, value in zip(self.binder.names, specs):
            for base in _spec_names(value, pname):
                name, k = base, 1
                while name in used:
                    name, k = f"{base}_{k}", k + 1
                used.add(name)
                names.append(name)
        return names

    def rollback(self):
        """The original function (bound to the instance when there is one)."""
        if self.instance is not None:
            return self.dygraph_function.__get__(self.instance, type(self.instance))
        return self.dygraph_function

    def __repr__(self):
        bound = f" bound to {type(self.instance).__name__}" if self.instance is not None else ""
        return f"<StaticFunction {self.dygraph_function.__qualname__}{bound}>"


FULL_GRAPH_VARIABLE = "DY2STATIC_FULL_GRAPH"

# what the translator cannot express: the fallback runs these functions eagerly
FALLBACK_ERRORS = (convert.ConversionError, StaticValueError, TensorRecursionError)


def default_full_graph():
    """The ``full_graph`` of a declarative function that does not set it: True where the
    environment variable ``DY2STATIC_FULL_GRAPH`` is ``1`` (or ``true`` / ``yes`` / ``on``),
    read when a translation fails."""
    return os.environ.get(FULL_GRAPH_VARIABLE, "").strip().lower() in ("1", "true", "yes", "on")


class EagerFallback:
    """The cache entry of an input signature whose translation failed on a construct the
    translator cannot express: calls with it run the original function eagerly. ``reason``
    names the construct and the user's file and line; ``error`` is the exception."""

    __slots__ = ("error", "reason")

    def __init__(self, error):
        self.error = error
        self.reason = fallback_reason(error)

    def __repr__(self):
        return f"<EagerFallback: {self.reason}>"


def fallback_reason(error):
    """``'<what failed> (at <the user's line>)'`` for a translation error: its message's first
    line and the innermost converted line it passed through (the origin notes)."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    text = text.split(": its value exists only")[0]  # a StaticValueError's advice is long
    notes = getattr(error, "__notes__", None) or ()
    at = next((n for n in notes if n.startswith("In converted code, from ")), None)
    if at is not None:
        text += " -- " + at[len("In converted code, "):]
    return f"{type(error).__name__}: {text}"


def _eager_to_constants(outputs):
    """Outputs are Variables or Python values; an eager tensor returned unchanged (a constant
    or a Parameter the program never read) stays an eager tensor, detached."""
    def fix(v):
        if isinstance(v, Parameter):
            return v
        if isinstance(v, Tensor):
            return v.detach()
        return v

    return pack(outputs, [fix(v) for v in flatten(outputs)])


def _initialise_parameters(concrete):
    """Make the startup program initialise every parameter (and persistable tensor) the main
    program reads: those created while translating already have their initializer op there;
    the Layer's eager ones (sublayers made in nested calls included) get an ``assign_value``
    of their current value, so running the pair gives what the declarative call gives."""
    block = concrete.startup_program.global_block()
    main = concrete.main_program.global_block()
    for name, tensor in concrete.parameters:
        if name in block.vars:
            continue
        value = tensor.numpy()
        var = main.vars.get(name)
        if isinstance(var, _static.Parameter):
            block.add_parameter(name, list(value.shape), value.dtype.name)
        else:
            block.create_var(name=name, shape=list(value.shape), dtype=value.dtype.name,
                             persistable=True)
        block.append_op("assign_value", {}, {"Out": [name]},
                        {"shape": list(value.shape), "dtype": value.dtype.name,
                         "values": value.reshape(-1).tolist()})


def declarative(function=None, input_spec=None, full_graph=None):
    """Decorator: run ``function`` (a function or a ``Layer.forward``) as a static Program.

    ``@declarative`` and ``@declarative(input_spec=[InputSpec([None, 784], 'float32')])`` both
    work; ``declarative(layer)`` converts a Layer instance's ``forward`` and returns the layer.

    ``full_graph`` (default False, or True where the environment variable
    ``DY2STATIC_FULL_GRAPH`` is ``1``): with False, a call whose translation fails on a
    construct the translator cannot express (a ``yield``, ``.numpy()`` or the truth value of
    a static value in code it does not convert, a recursion that ends on a Tensor) runs the
    original function eagerly for that input signature, with one WARNING on the
    ``translator`` logger naming the construct, file and line; ``cache_info`` marks the
    entry ``fallback``. Errors in the function's own code (a shape mismatch, a wrong
    argument) are raised either way. With True, such a function raises.
    """
    if function is None:
        return functools.partial(declarative, input_spec=input_spec, full_graph=full_graph)
    if full_graph is not None and not isinstance(full_graph, bool):
        raise TypeError(f"declarative(): argument 'full_graph' must be a bool, got "
                        f"{type(full_graph).__name__}")
    if not inspect.isfunction(function) and not inspect.ismethod(function) and \
            not isinstance(function, StaticFunction) and hasattr(function, "forward"):
        layer = function
        static = StaticFunction(type(layer).forward, input_spec, instance=layer,
                                full_graph=full_graph)
        object.__setattr__(layer, "forward", static)
        return layer
    return StaticFunction(function, input_spec, full_graph=full_graph)


to_static = declarative


def _static_function(func):
    if isinstance(func, StaticFunction):
        return func
    if callable(func):
        return StaticFunction(func)
    raise TypeError(f"expected a function or a declarative function, got {type(func).__name__}")


class ProgramTranslator:
    """The translator's global switch and entry points (a singleton)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    @classmethod
    def get_instance(cls):
        return cls()

    @property
    def enable_declarative(self):
        return _state["enabled"]

    def enable(self, enable_declarative):
        """True: declarative functions run as static Programs; False: they run the original
        Python code eagerly."""
        if not isinstance(enable_declarative, bool):
            raise TypeError(f"ProgramTranslator.enable expects a bool, got "
                            f"{type(enable_declarative).__name__}")
        _state["enabled"] = enable_declarative

    def get_output(self, dygraph_func, *args, **kwargs):
        """The outputs of ``dygraph_func(*args, **kwargs)`` computed by its static Program
        (by the original code when the translator is disabled)."""
        static = _static_function(dygraph_func)
        return static(*args, **kwargs)

    def get_func(self, dygraph_func):
        """The converted Python function (bound to the Layer for a bound method)."""
        static = _static_function(dygraph_func)
        if not _state["enabled"]:
            return static.rollback()
        converted = convert.convert_to_static(static.dygraph_function)
        if static.instance is not None:
            return functools.partial(converted, static.instance)
        return converted

    def get_program(self, dygraph_func, *args, **kwargs):
        """``(main_program, startup_program, inputs, outputs)`` for a call with ``args``:
        ``inputs`` the data Variables, ``outputs`` the output Variables (flattened). With the
        translator disabled, the outputs of the original function run eagerly (as in
        PaddlePaddle)."""
        static = _static_function(dygraph_func)
        if not _state["enabled"]:
            return static.rollback()(*args, **kwargs)
        concrete = static.get_concrete_program(*args, **kwargs)
        _initialise_parameters(concrete)
        return (concrete.main_program, concrete.startup_program, list(concrete.inputs),
                list(concrete.output_vars))

    def get_code(self, dygraph_func):
        """Source text of the converted function, with ``# file:line`` origin comments."""
        return _static_function(dygraph_func).code

    def cache_info(self, dygraph_func):
        """The signatures ``dygraph_func`` (a declarative function or bound Layer method) has
        translated Programs for, oldest first: a list of ``{argument: description}``; a
        signature that runs eagerly (``full_graph=False`` and a construct the translator
        cannot express) also has ``'fallback'``: why."""
        return _static_function(dygraph_func).cache_info()

    def save_inference_model(self, dirname, feed=None, fetch=None):
        """Save the program of the most recent declarative call (cache hits included; a call
        made with the translator off is translated now) with the current parameter values.
        ``feed`` / ``fetch`` index its inputs / outputs (all when None). Returns the fetch
        names."""
        concrete = _state["last"]
        if concrete is None:
            raise RuntimeError("save_inference_model: no declarative function has been called "
                               "in eager mode yet, so there is no program to save")
        if not isinstance(concrete, ConcreteProgram):  # that call ran with the translator off
            concrete = concrete()
            _state["last"] = concrete
        return save_program(dirname, concrete.main_program, concrete.inputs,
                            concrete.output_vars, concrete.parameters, feed, fetch)
