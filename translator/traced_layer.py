"""``TracedLayer``: a static Program recorded by running a Layer once, without conversion.

:meth:`TracedLayer.trace` runs the layer's ``forward`` in static mode on ``data`` variables
shaped exactly like the example inputs. Nothing in the source is rewritten, so Python control
flow runs once, at trace time: a loop over ``x.shape[0]`` is unrolled for the traced size and a
branch on a shape is fixed to the side taken. A branch on a tensor *value* cannot be traced at
all (a static Variable has no truth value): that needs ``declarative``. Like Paddle's tracer,
the traced program does not re-check the shapes of what it is called with (running it on
another batch size is the caller's decision; see ``examples/tree_sum.py`` for how that goes
wrong with shape-dependent code). A saved traced model declares the traced shapes.
"""
from core import mode as _mode
from core import static as _static
from core.autograd import no_grad
from core.tensor import Tensor, to_tensor

from .input_spec import flatten
from .partial_program import PartialProgram, save_program

__all__ = ["TracedLayer"]


def _as_list(inputs):
    if isinstance(inputs, (list, tuple)):
        return list(inputs)
    return [inputs]


def _layer_parameters(layer, program):
    """``[(name, eager Parameter)]`` for the program's Parameters, found in ``layer``."""
    eager = {p.name: p for p in layer.parameters()} if hasattr(layer, "parameters") else {}
    pairs, missing = [], []
    for v in program.global_block().all_parameters():
        p = eager.get(v.name)
        if p is None:
            missing.append(v.name)
        else:
            pairs.append((v.name, p))
    if missing:
        raise RuntimeError(f"TracedLayer: the traced program reads parameter(s) {missing} that "
                           f"are not parameters of the {type(layer).__name__} being traced")
    return pairs


class TracedLayer:
    """A Layer's forward recorded as a static Program; create it with :meth:`trace`."""

    def __init__(self, program, parameters, feed_vars, fetch_vars):
        self._program = program
        self._parameters = parameters
        self._feed_vars = feed_vars
        self._fetch_vars = fetch_vars
        self._partial = PartialProgram(program, feed_vars, fetch_vars, parameters)

    @staticmethod
    def trace(layer, inputs):
        """``(outputs, traced)``: the eager outputs of ``layer(*inputs)`` and the TracedLayer
        recorded from the same call. ``inputs`` is a tensor or a list of tensors."""
        if not _mode.in_dynamic_mode():
            raise RuntimeError("TracedLayer.trace is called in eager mode (it records a static "
                               "program itself); call it outside static mode")
        if not callable(layer) or not hasattr(layer, "forward"):
            raise TypeError(f"TracedLayer.trace expects a Layer, got {type(layer).__name__}")
        tensors = [t if isinstance(t, Tensor) else to_tensor(t) for t in _as_list(inputs)]
        outputs = layer(*tensors)
        main, startup = _static.Program(), _static.Program()
        with _static.program_guard(main, startup), _mode.static_mode_guard():
            feed_vars = [_static.data(f"x_{i}", t.shape, t.dtype.name)
                         for i, t in enumerate(tensors)]
            try:
                static_outputs = layer(*feed_vars)
            except TypeError as e:
                raise TypeError(f"TracedLayer.trace: the forward of {type(layer).__name__} "
                                f"cannot be traced: {e}") from e
        fetch_vars = [v for v in flatten(static_outputs) if isinstance(v, _static.Variable)]
        if not fetch_vars:
            raise ValueError(f"TracedLayer.trace: the forward of {type(layer).__name__} "
                             "returned no tensor")
        traced = TracedLayer(main, _layer_parameters(layer, main), feed_vars, fetch_vars)
        return outputs, traced

    @property
    def program(self):
        """The traced static Program."""
        return self._program

    def set_strategy(self, build_strategy=None, exec_strategy=None):
        """Accepted for compatibility; the executor has no strategies to set."""
        return self

    def __call__(self, inputs):
        """Run the traced program on ``inputs`` (tensors or ndarrays, as traced); returns the
        outputs as a list of numpy arrays."""
        values = _as_list(inputs)
        if len(values) != len(self._feed_vars):
            raise ValueError(f"TracedLayer: traced with {len(self._feed_vars)} input(s), called "
                             f"with {len(values)}")
        tensors = []
        for v, var in zip(values, self._feed_vars):
            t = v if isinstance(v, Tensor) else to_tensor(v)
            if t.dtype != var.dtype:
                raise TypeError(f"TracedLayer: input '{var.name}' was traced as {var.dtype.name},"
                                f" got {t.dtype.name}")
            tensors.append(t)
        with no_grad():
            outs = self._partial(tensors)
        return [t.numpy() for t in outs]

    def save_inference_model(self, dirname, feed=None, fetch=None):
        """Save the traced program with the layer's current parameters; ``feed`` / ``fetch``
        index its inputs / outputs (all when None)."""
        return save_program(dirname, self._program, self._feed_vars, self._fetch_vars,
                            self._parameters, feed, fetch)
