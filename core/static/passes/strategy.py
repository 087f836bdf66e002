"""Which Program optimisation passes run: :class:`BuildStrategy` and the global switch.

``BuildStrategy`` follows PaddlePaddle's class of that name: its boolean fields turn single
passes on or off, and it reaches the executor through ``CompiledProgram(program,
build_strategy=...)``. A plain Program runs with the default strategy (every pass on).

The global switch turns every pass off for every plan compiled afterwards:
:func:`set_enabled` (``set_enabled(False)``), or the environment variable
``DY2STATIC_PASSES=0`` (read when a plan is compiled, not at import; plans already compiled
and cached by an executor stay as they are). Passes never change a result, so the switch is
for comparing and for finding a pass at fault.
"""
import os

__all__ = ["BuildStrategy", "enabled", "generation", "set_enabled"]

_state = {"enabled": True, "generation": 0}


class BuildStrategy:
    """Per-pass switches; see :mod:`core.static.passes`. All default to True except
    ``fuse_elewise_add_act_ops`` (False, as in PaddlePaddle).

    * ``enable_passes``: False turns every pass off for programs run with this strategy.
    * ``remove_dead_ops``: dead-code elimination.
    * ``constant_folding``: ops whose inputs are all constants are evaluated once.
    * ``fuse_conv_bias_act_ops``: ``conv2d`` + bias ``elementwise_add`` (+ ``relu``) ->
      ``conv2d_fusion`` (and the matching gradient ops -> one ``conv2d_fusion_grad``); with
      a max ``pool2d`` after it whose windows tile its output -> ``conv2d_pool2d_fusion``
      (and one gradient op), before other max pools the ReLU moves into ``relu_pool2d``.
    * ``fuse_gemm_epilogue``: ``mul`` / ``matmul`` + bias ``elementwise_add`` (+ activation)
      -> ``fc`` (and the gradient ops likewise).
    * ``fuse_elewise_add_act_ops``: chains of elementwise ops and activations ->
      ``fused_elementwise`` (one kernel writing into its own buffer with ``out=``). Off by
      default: the plan compiler already calls those ufuncs one after the other from the
      plan's straight-line code, and with ``enable_inplace`` each writes into the previous
      one's buffer; the fused kernel adds a loop over its steps (measured: the RNN benchmark's
      100 steps take 0.56 ms with it, 0.38 ms without).
    * ``hoist_loop_invariant_gemm``: ``matmul(X[i], W)`` in a ``while`` body with ``X`` and
      ``W`` unchanged by the loop -> one ``matmul(X, W)`` before it (see
      :mod:`core.static.passes.loop_gemm`).
    * ``enable_inplace``: memory planning, elementwise ops writing into a dead input's buffer
      (see :mod:`core.static.passes.memory`).
    """

    _FIELDS = ("enable_passes", "remove_dead_ops", "constant_folding", "fuse_conv_bias_act_ops",
               "fuse_gemm_epilogue", "fuse_elewise_add_act_ops", "hoist_loop_invariant_gemm",
               "enable_inplace")

    #: fields that default to False (the rest default to True)
    _OFF_BY_DEFAULT = ("fuse_elewise_add_act_ops",)

    def __init__(self, **fields):
        for name in self._FIELDS:
            setattr(self, name, name not in self._OFF_BY_DEFAULT)
        for name, value in fields.items():
            if name not in self._FIELDS:
                raise TypeError(f"BuildStrategy: unknown field {name!r}; the fields are "
                                f"{list(self._FIELDS)}")
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name not in self._FIELDS:
            raise AttributeError(f"BuildStrategy has no field {name!r}; the fields are "
                                 f"{list(self._FIELDS)}")
        if not isinstance(value, bool):
            raise TypeError(f"BuildStrategy.{name} must be True or False, got {value!r}")
        object.__setattr__(self, name, value)

    @classmethod
    def memory_planning_only(cls):
        """A strategy with every rewriting pass off and memory planning on: for programs whose
        operators the passes already rewrote (the halves of a declarative training call)."""
        return cls(**{n: n in ("enable_passes", "enable_inplace") for n in cls._FIELDS})

    def key(self):
        """A hashable summary (part of the executor's plan cache key)."""
        return tuple(getattr(self, n) for n in self._FIELDS)

    def __repr__(self):
        changed = [n for n in self._FIELDS if getattr(self, n) == (n in self._OFF_BY_DEFAULT)]
        return f"BuildStrategy({', '.join(f'{n}={getattr(self, n)}' for n in changed)})"


def set_enabled(flag):
    """Turn every optimisation pass on (True) or off (False) for plans compiled from now on."""
    if not isinstance(flag, bool):
        raise TypeError(f"set_enabled: flag must be True or False, got {flag!r}")
    _state["enabled"] = flag
    _state["generation"] += 1


def generation():
    """A number that changes whenever :func:`set_enabled` is called (part of plan cache keys)."""
    return _state["generation"]


def enabled():
    """Whether passes run at all: :func:`set_enabled` and ``DY2STATIC_PASSES`` (``0`` / ``off``
    / ``false`` turn them off)."""
    env = os.environ.get("DY2STATIC_PASSES", "").strip().lower()
    return _state["enabled"] and env not in ("0", "off", "false", "no")
