"""The Executor: runs Programs on a place, compiling each into a cached plan first.

``Executor(place).run(program, feed, fetch_list)`` validates the feed against the program's
variable declarations (name, dtype, shape with -1 matching anything), compiles the global block
into a plan (see :mod:`core.static.codegen`, after the optimisation passes of
:mod:`core.static.passes`; cached per program, program version, feed names, fetch names and
the passes in force), reads persistable inputs from the scope, runs the plan and writes the
persistables it changed back to the scope. Errors name the variable or operator and say what
was expected; an operator failing at run time is reported with its type, block, inputs and the
user's source line (``op.origin``), chained from the original exception. A started non-iterable data
loader supplies the feeds of the data variables it serves (see :mod:`core.static.feed_source`).
"""
import weakref

import numpy as np

from ..backend import CPUPlace, Place, as_numpy, get_array_module, to_place
from ..random import make_generator
from .builder import lr_schedules
from .codegen import compile_plan
from . import passes
from .compiled import CompiledProgram, build_strategy_of, unwrap_program
from .eager_types import is_eager_tensor
from .feed_source import pull_feeds
from .lod import split_lod_feeds
from .plan import op_error
from .program import Program, Variable, default_main_program
from .scope import LoDTensor, global_scope
from .variable import names_of

__all__ = ["Executor", "op_error"]


class Executor:
    """Runs Programs on ``place`` (CPUPlace: numpy, CUDAPlace: cupy)."""

    def __init__(self, place=None):
        if place is None:
            place = CPUPlace()
        if not isinstance(place, Place):
            raise TypeError(f"Executor: place must be CPUPlace() or CUDAPlace(id), got {place!r}")
        self.place = place
        self._xp = get_array_module(place)
        self._plans = weakref.WeakKeyDictionary()
        self._rngs = weakref.WeakKeyDictionary()

    def close(self):
        self._plans = weakref.WeakKeyDictionary()

    # -- public ------------------------------------------------------------------------------
    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed",
            fetch_var_name="fetch", scope=None, return_numpy=True, use_program_cache=True):
        """Run ``program`` (default: the default main program) and return the fetched values
        (numpy arrays, or :class:`LoDTensor` views with ``return_numpy=False``)."""
        scope = global_scope() if scope is None else scope
        if program is None:
            program, strategy = default_main_program(), None
        elif type(program) is Program:
            strategy = None
        else:
            if isinstance(program, CompiledProgram):
                program._sync_scope(scope)  # data parallel: rank 0's parameters, once per scope
            strategy = build_strategy_of(program)
            program = unwrap_program(program, "Executor.run")
        feed = pull_feeds(program, self._feed_dict(feed))
        split_lod_feeds(program, feed)
        fetch_names = names_of(fetch_list,
                               "Executor.run: fetch_list entries must be Variables or names")
        gb = program.global_block()
        for name in feed:
            if gb._find_var_recursive(name) is None:
                raise ValueError(_unknown_feed_message(program, name))
        plan = self._plan(program, tuple(sorted(feed)), tuple(fetch_names), use_program_cache,
                          strategy)
        for name, schedule in lr_schedules(program):
            var = gb._find_var_recursive(name)
            scope._vars[name] = to_place(np.full(var.shape, schedule(), var.dtype), self.place)
        specs = plan.feed_specs
        if specs is None:
            specs = plan.feed_specs = _feed_specs(gb, plan, self.place)
        values, used = [], 0
        for name, var in plan.ext:
            if name in feed:
                value = feed[name]
                spec = specs.get(name)
                # NOTE: a numpy array of the declared dtype and shape is fed as it is (what
                # _check_feed returns for it, without its lookups)
                if spec is None or type(value) is not np.ndarray or \
                        value.dtype != spec[0] or not _shape_fits(spec[1], value.shape):
                    value = self._check_feed(gb, name, value)
                values.append(value)
                used += 1
                continue
            val = scope._vars.get(name)
            if val is None:
                raise RuntimeError(_missing_message(name, var))
            values.append(val)
        if used < len(feed):  # feeds the fetches do not need are still checked
            needed = {name for name, _ in plan.ext}
            for name in feed:
                if name not in needed:
                    self._check_feed(gb, name, feed[name])
        fetched, written = plan.run(values, rng_source=self._rng_source(program))
        for name, val in zip(plan.writes, written):
            scope._vars[name] = val
        if return_numpy:
            return [_to_numpy(v) for v in fetched]
        return [LoDTensor(value=v) for v in fetched]

    # -- helpers -----------------------------------------------------------------------------
    def _plan(self, program, feed_names, fetch_names, use_cache, strategy=None):
        key = (program._version, feed_names, fetch_names, passes.generation(),
               strategy.key() if strategy is not None else None)
        plans = self._plans.get(program)
        if plans is None or plans.get("version") != program._version:
            plans = {"version": program._version}
            self._plans[program] = plans
        plan = plans.get(key) if use_cache else None
        if plan is None:
            plan = compile_plan(program, feed_names, fetch_names, self._xp, self.place,
                                strategy)
            plans[key] = plan
        return plan

    def _rng_source(self, program):
        seed = program.random_seed
        if not seed:
            return None
        got = self._rngs.get(program)
        if got is None or got[0] != seed:
            got = (seed, make_generator(self._xp, seed))
            self._rngs[program] = got
        gen = got[1]
        return lambda xp: gen

    @staticmethod
    def _feed_dict(feed):
        if feed is None:
            return {}
        if isinstance(feed, (list, tuple)) and len(feed) == 1 and isinstance(feed[0], dict):
            feed = feed[0]  # fluid's one feed dict per place, for the one place
        if not isinstance(feed, dict):
            raise TypeError(f"Executor.run: feed must be a dict of variable name -> array, got "
                            f"{type(feed).__name__}")
        for k in feed:
            if type(k) is not str:
                break
        else:
            return dict(feed)  # a copy: LoD feeds are split in it
        out = {}
        for k, v in feed.items():
            name = k.name if isinstance(k, Variable) else k
            if not isinstance(name, str):
                raise TypeError(f"Executor.run: feed keys must be variable names, got {k!r}")
            out[name] = v
        return out

    def _check_feed(self, block, name, value):
        var = block._find_var_recursive(name)
        if var.type == "tensor_array":
            return [to_place(_as_array(name, v, None), self.place) for v in value]
        arr = _as_array(name, value, var.dtype)
        if arr.dtype != var.dtype:
            raise TypeError(f"feed '{name}': expected dtype {var.dtype.name} (as declared), got "
                            f"{arr.dtype.name}; cast it with .astype('{var.dtype.name}')")
        shape = var.shape
        if shape is not None and not _shape_fits(shape, arr.shape):
            raise ValueError(f"feed '{name}': expected shape {shape} (as declared; -1 matches "
                             f"any size), got {list(arr.shape)}; a program traced from an "
                             "example call (a declarative function or TracedLayer saved "
                             "without input_spec) keeps that call's sizes: pass input_spec "
                             "with None for the dims that vary, e.g. InputSpec([None, ...])")
        return to_place(arr, self.place)


def _as_array(name, value, dtype):
    if type(value) is np.ndarray:
        return value
    if is_eager_tensor(value):
        return value._data
    if isinstance(value, LoDTensor):
        return value.array
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return value
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"feed '{name}': cannot make an array from {type(value).__name__}: "
                        f"{e}") from None


def _feed_specs(block, plan, place):
    """``{name: (dtype, shape)}`` of the tensor variables ``plan`` reads (on the
    CPU, where a numpy array needs no move): what a fed array is checked against."""
    if place.is_gpu:
        return {}
    specs = {}
    for name, _ in plan.ext:
        var = block._find_var_recursive(name)
        if var is not None and var.type != "tensor_array" and \
                var.dtype is not None:
            specs[name] = (var.dtype, None if var.shape is None else tuple(var.shape))
    return specs


def _shape_fits(shape, actual):
    """Whether an array of shape ``actual`` fits declared ``shape`` (-1: any size; None:
    any shape)."""
    if shape is None:
        return True
    if len(shape) != len(actual):
        return False
    for d, a in zip(shape, actual):
        if d != -1 and d != a:
            return False
    return True


def _to_numpy(v):
    if type(v) is np.ndarray:
        return v
    if isinstance(v, list):
        return [None if a is None else as_numpy(a) for a in v]
    return as_numpy(v)


def _missing_message(name, var):
    if var.persistable:
        return (f"persistable variable '{name}' has no value in the scope: it is never "
                "initialised; run the startup program first (exe.run(startup_program)) or load "
                "the parameters")
    if var.is_data:
        return (f"data variable '{name}' (shape {var.shape}, dtype {var.dtype.name}) is read but "
                "was not fed; pass it in feed={...}")
    return (f"variable '{name}' is read before any operator writes it and was not fed; feed "
            "it or compute it in the program")


def _unknown_feed_message(program, name):
    data = [v.name for v in program.global_block().vars.values() if v.is_data]
    return (f"feed '{name}' is not a variable of the program; its data variables are {data}")
