"""The eager tensor: an array on a place, plus what autograd needs.

A Tensor owns an ndarray (numpy on CPUPlace, cupy on CUDAPlace). ``stop_gradient`` is True by
default and False for parameters; an op's output needs a gradient iff any input does. Ops on
tensors go through :func:`core.dispatch.apply`; ``+ - * /`` between tensors (or a tensor and a
Python scalar) take a shorter path with the same semantics, since they dominate small-op code.
"""
import numbers
from contextlib import nullcontext as _nullcontext

import numpy as np

from . import dtypes as _dtypes
from . import mode as _mode
from .autograd import Node, _grad_state, register_tensor_type, run_backward
from .autograd import no_grad as _no_grad
from .backend import as_numpy, default_place, place_of, to_place
from .dispatch import _observer as _eager_observer
from .dispatch import apply
from .dispatch import register_tensor_type as _register_with_dispatch
from .operator_mixin import TensorOps
from .ops.registry import get_op
from .static.eager_types import register_eager_types
from .unique_name import generate

__all__ = ["Tensor", "Parameter", "to_tensor", "to_variable", "is_tensor", "tensor_from_node",
           "data_of", "rebind_data"]


def _make_binary(name, op_type, ufunc, reflected):
    """``Tensor.__add__``-style method: the generic dispatch path, shortened for the common
    eager case of numpy-backed tensors and Python scalars (same results, same tape)."""
    op = get_op(op_type)
    attrs = op.full_attrs(None)
    mode_state, grad_state, ndarray, new = _mode._state, _grad_state, np.ndarray, object.__new__
    observer = _eager_observer  # NOTE: an observed run takes the generic path, which reports

    def method(self, other):
        ot = type(other)
        if ot is Tensor or ot is Parameter:
            od = other._data
            requires = not (self.stop_gradient and other.stop_gradient)
            if type(od) is not ndarray:
                return apply(op_type, [other, self] if reflected else [self, other])
        elif ot is float or ot is int:
            od = other
            requires = not self.stop_gradient
        else:
            return apply(op_type, [other, self] if reflected else [self, other])
        sd = self._data
        if type(sd) is not ndarray or not mode_state["dynamic"] or observer[0] is not None:
            return apply(op_type, [other, self] if reflected else [self, other])
        try:
            out = ufunc(od, sd) if reflected else ufunc(sd, od)
        except ValueError:  # the generic path raises the descriptive OpError
            return apply(op_type, [other, self] if reflected else [self, other])
        t = new(Tensor)
        t._data = out
        t._name = t._grad = None
        t._out_idx = (0, None)
        t._detached = t.persistable = False
        if requires and grad_state["enabled"]:
            if reflected:
                t._node = Node(op, (other, self), (od, sd), (out,), attrs)
            else:
                t._node = Node(op, (self, other), (sd, od), (out,), attrs)
            t.stop_gradient = False
        else:
            t._node = None
            t.stop_gradient = True
        return t

    method.__name__ = f"__r{name}__" if reflected else f"__{name}__"
    return method


class Tensor(TensorOps):
    """An eager tensor. See API.md ("Tensors") for the full contract."""

    __slots__ = ("_data", "_name", "stop_gradient", "_grad", "_node", "_out_idx", "_detached",
                 "persistable", "__weakref__")

    def __init__(self, data, name=None, stop_gradient=True, persistable=False):
        self._data = data
        self._name = name
        self.stop_gradient = stop_gradient
        self._grad = None
        self._node = None
        self._out_idx = (0, None)
        self._detached = False
        self.persistable = persistable

    # -- properties ------------------------------------------------------------------------------
    @property
    def name(self):
        if self._name is None:
            self._name = generate("eager_tmp")
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def shape(self):
        return list(self._data.shape)

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def size(self):
        return int(self._data.size)

    @property
    def place(self):
        return place_of(self._data)

    @property
    def grad(self):
        """The gradient as a new tensor (PaddlePaddle 2.x), or None; :meth:`gradient` gives
        it as an ndarray."""
        g = self.gradient()
        return None if g is None else Tensor(to_place(g, self.place))

    def numel(self):
        return int(self._data.size)

    # -- data access -----------------------------------------------------------------------------
    def numpy(self):
        """The data as a numpy array (copied to the host from a GPU)."""
        return as_numpy(self._data)

    def value(self):
        return self

    def item(self):
        if self._data.size != 1:
            raise ValueError(f"item() needs a tensor with exactly one element, got shape "
                             f"{self.shape}")
        return self._data.reshape(()).item()

    def set_value(self, value):
        """Replace the data in place; ``value`` must have this tensor's shape and dtype."""
        arr = value._data if isinstance(value, Tensor) else value
        arr = to_place(np.asarray(arr) if not hasattr(arr, "shape") else arr, self.place)
        if tuple(arr.shape) != tuple(self._data.shape):
            raise ValueError(f"set_value on '{self.name}': shape {list(arr.shape)} does not "
                             f"match the tensor's shape {self.shape}")
        if arr.dtype != self._data.dtype:
            raise TypeError(f"set_value on '{self.name}': dtype {arr.dtype} does not match the "
                            f"tensor's dtype {self.dtype}")
        self._data[...] = arr

    def __array__(self, dtype=None, copy=None):
        arr = as_numpy(self._data)
        return arr.astype(dtype) if dtype is not None else arr

    def _scalar(self, what):
        if self._data.size != 1:
            raise ValueError(f"{what} of a tensor needs exactly one element, got shape "
                             f"{self.shape}; reduce it first (e.g. .sum() or .any())")
        return self._data.reshape(()).item()

    def __bool__(self):
        return bool(self._scalar("bool()"))

    def __int__(self):
        return int(self._scalar("int()"))

    def __float__(self):
        return float(self._scalar("float()"))

    def __index__(self):
        if not _dtypes.is_integer(self.dtype) and not _dtypes.is_bool(self.dtype):
            raise TypeError(f"a {self.dtype} tensor cannot be used as an index; cast it to int")
        return int(self._scalar("index"))

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    def __repr__(self):
        values = np.array2string(self.numpy(), prefix="       ")
        return (f"Tensor(shape={self.shape}, dtype={self.dtype.name}, place={self.place}, "
                f"stop_gradient={self.stop_gradient},\n       {values})")

    __str__ = __repr__

    # -- autograd --------------------------------------------------------------------------------
    def backward(self, grad_tensor=None, retain_graph=False):
        """Accumulate d(self)/d(leaf) into every leaf that needs a gradient."""
        if not _mode.in_dynamic_mode():
            raise RuntimeError("Tensor.backward() is for eager mode; in a static program use "
                               "core.append_backward(loss) or optimizer.minimize(loss)")
        if grad_tensor is not None and not isinstance(grad_tensor, Tensor) and \
                not hasattr(grad_tensor, "shape"):
            grad_tensor = None  # a fluid BackwardStrategy object: nothing to configure here
        if self._data.dtype.kind != "f":
            raise TypeError(f"backward() needs a floating-point tensor, got {self.dtype.name} "
                            f"'{self.name}': gradients are defined for float dtypes only")
        grad = grad_tensor._data if isinstance(grad_tensor, Tensor) else grad_tensor
        run_backward(self, grad, retain_graph)

    def gradient(self):
        """A copy of the accumulated gradient as a numpy array the caller owns (later steps and
        ``clear_gradient`` never change it), or None when there is none. After
        ``loss.backward()``, ``loss.gradient()`` is the seed gradient (ones by default)."""
        if self._grad is None:
            return None
        g = as_numpy(self._grad)
        # NOTE: as_numpy copies a device array but returns a host array itself: copy that.
        return g.copy() if g is self._grad else g

    def clear_gradient(self, set_to_zero=True):
        """Zero the gradient in place (or drop it with ``set_to_zero=False``)."""
        if self._grad is not None and set_to_zero:
            # NOTE: a 0-d gradient may be held as a numpy scalar, which cannot be zeroed in place
            if isinstance(self._grad, np.generic):
                self._grad = np.zeros_like(self._grad)
            else:
                self._grad[...] = 0
        else:
            self._grad = None

    def detach(self):
        """A new tensor sharing the data, cut off from the graph (stop_gradient=True)."""
        t = _wrap(self._data, None, (0, None))
        t._detached = True
        return t

    def clone(self):
        return apply("assign", [self])

    # ``+ - * /``: the dispatch path shortened for numpy-backed tensors and Python scalars
    __add__ = _make_binary("add", "elementwise_add", np.add, False)
    __radd__ = _make_binary("add", "elementwise_add", np.add, True)
    __sub__ = _make_binary("sub", "elementwise_sub", np.subtract, False)
    __rsub__ = _make_binary("sub", "elementwise_sub", np.subtract, True)
    __mul__ = _make_binary("mul", "elementwise_mul", np.multiply, False)
    __rmul__ = _make_binary("mul", "elementwise_mul", np.multiply, True)
    __truediv__ = _make_binary("truediv", "elementwise_div", np.true_divide, False)
    __rtruediv__ = _make_binary("truediv", "elementwise_div", np.true_divide, True)


class Parameter(Tensor):
    """A trainable eager tensor owned by a Layer (stop_gradient False, persistable)."""

    __slots__ = ("trainable", "optimize_attr", "regularizer", "need_clip", "is_distributed",
                 "do_model_average")

    def __init__(self, data, name=None, trainable=True, optimize_attr=None, regularizer=None,
                 need_clip=True):
        super().__init__(data, name=name, stop_gradient=not trainable, persistable=True)
        self.trainable = trainable
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.is_distributed = False
        self.do_model_average = None

    def __repr__(self):
        return "Parameter " + self.name + ": " + super().__repr__()


_new = object.__new__


def _wrap(data, node, out_idx):
    """A Tensor around ``data``; needs a gradient (and links to ``node``) when node is set."""
    t = _new(Tensor)
    t._data = data
    t._name = None
    t._grad = None
    t._node = node
    t._out_idx = out_idx
    t._detached = False
    t.persistable = False
    t.stop_gradient = node is None
    return t


register_tensor_type(Tensor)
_register_with_dispatch(Tensor, _wrap)
register_eager_types(Tensor, Parameter)


def tensor_from_node(data, node, out_idx):
    """A Tensor around ``data`` produced by tape node ``node`` (output ``out_idx``), or a
    constant when ``node`` is None: how code outside the eager core (the translator's run of a
    whole Program as one tape node) hands results back as tensors."""
    return _wrap(data, node, out_idx)


def data_of(t):
    """The array behind eager tensor ``t`` (numpy or cupy), not a copy: how code outside the
    eager core (the translator's run of a whole Program) passes tensors to compiled plans."""
    return t._data


def rebind_data(t, array):
    """Make ``t`` hold ``array`` (same dtype; not copied): a Program run as one tape node hands
    back the persistables it updated (batch_norm statistics) this way. A Parameter keeps its
    shape; another persistable tensor (a buffer a ``paddle.assign`` replaced) takes the new
    one, as eagerly."""
    old = t._data
    if (tuple(array.shape) != tuple(old.shape) and isinstance(t, Parameter)) or \
            array.dtype != old.dtype:
        raise ValueError(f"rebind_data on '{t.name}': {array.dtype}{list(array.shape)} does not "
                         f"match the tensor's {old.dtype}{list(old.shape)}")
    t._data = array


def is_tensor(x):
    return isinstance(x, Tensor)


def _default_float(arr):
    """Python floats (numpy's float64) as the default dtype (float32 unless
    ``set_default_dtype`` changed it)."""
    return arr.astype(_dtypes.get_default_dtype()) if arr.dtype == np.float64 else arr


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """An eager tensor from a scalar, (nested) list, ndarray or Tensor (always a copy).

    Python floats become the default dtype (float32, see ``set_default_dtype``) and ints int64
    unless ``dtype`` says otherwise; a numpy array
    keeps its dtype. Inside a static program this emits an ``assign`` op instead (see
    :func:`to_variable`).
    """
    if not _mode.in_dynamic_mode():
        return _static_tensor(data, dtype, stop_gradient)
    if isinstance(data, Tensor):
        arr = data._data.copy()
    else:
        arr = _host_array(data, dtype is None)
    if dtype is not None:
        arr = arr.astype(_dtypes.convert_dtype(dtype), copy=False)
    else:
        _dtypes.convert_dtype(arr.dtype)  # rejects unsupported dtypes with a clear message
    arr = to_place(arr, place if place is not None else default_place())
    return Tensor(arr, stop_gradient=stop_gradient)


def _host_array(data, default_float):
    """``data`` (numbers, nested lists, an ndarray) as a new ndarray; Python floats as
    float32 when ``default_float``, as eager ``to_tensor`` gives them."""
    from_python = not hasattr(data, "dtype") and not hasattr(data, "__array__")
    try:
        arr = np.array(data)
    except (ValueError, TypeError) as e:
        raise TypeError(f"to_tensor: cannot make a tensor from {type(data).__name__}: {e}") \
            from None
    if arr.dtype == object:
        raise TypeError(f"to_tensor: data of type {type(data).__name__} is ragged or not "
                        "numeric")
    return _default_float(arr) if from_python and default_float else arr


def _is_value(x):
    """An eager tensor or a static Variable."""
    return isinstance(x, Tensor) or (hasattr(x, "block") and hasattr(x, "persistable"))


def _leaves(data):
    if isinstance(data, (list, tuple)):
        for d in data:
            yield from _leaves(d)
    else:
        yield data


def _static_tensor(data, dtype, stop_gradient):
    """:func:`to_tensor` inside a static program: what eager mode gives, as ops. Python data
    (numbers, nested lists of them) becomes a constant by eager's dtype rule; a (nested) list
    holding tensors or Variables is stacked as ``np.array`` stacks them (Python numbers among
    them as constants), every element cast to the dtype eager gives: numpy's promotion,
    float64 as float32. The result is a copy, built under ``no_grad`` when ``stop_gradient``
    (the default), else a value that needs a gradient, as eagerly."""
    target = None if dtype is None else _dtypes.convert_dtype(dtype)
    leaves = list(_leaves(data)) if isinstance(data, (list, tuple)) else []
    if any(_is_value(v) for v in leaves):
        for v in leaves:
            if not _is_value(v) and not isinstance(v, (numbers.Number, np.generic)):
                raise TypeError(f"to_tensor: a list holding tensors may hold only tensors and "
                                f"numbers, got {type(v).__name__} ({v!r:.40})")
        if target is None:
            target = _default_float(np.empty(0, np.result_type(
                *[v.dtype if _is_value(v) else np.asarray(v).dtype for v in leaves]))).dtype
        with _no_grad() if stop_gradient else _nullcontext():
            out = _stack_static(data, target)
        out.stop_gradient = bool(stop_gradient)
        return out
    if not _is_value(data):
        data = _host_array(data, True)
        if target is not None:
            data = data.astype(target)
    with _no_grad() if stop_gradient else _nullcontext():
        out = apply("assign", [data])
        if target is not None and out.dtype != target:
            out = apply("cast", [out], {"out_dtype": target.name})
    out.stop_gradient = bool(stop_gradient)
    return out


def _stack_static(data, dtype):
    if isinstance(data, (list, tuple)):
        return apply("stack", [[_stack_static(d, dtype) for d in data]], {"axis": 0})
    if not _is_value(data):
        return apply("assign", [np.asarray(data).astype(dtype)])
    if data.dtype != dtype:
        return apply("cast", [data], {"out_dtype": dtype.name})
    return apply("assign", [data])


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """fluid's ``to_variable``: an eager tensor from an ndarray (dtype kept) or a Tensor.

    Inside a declarative function or a static program it accepts a Variable or an ndarray
    and emits an ``assign`` op, so converted ``forward`` code can keep calling it.
    """
    if not _mode.in_dynamic_mode():
        if dtype is not None and hasattr(value, "astype") and not hasattr(value, "block"):
            value = np.asarray(value).astype(_dtypes.convert_dtype(dtype))
        return apply("assign", [value])
    if isinstance(value, Tensor):
        t = Tensor(value._data.copy(), name=name)
        return t
    if isinstance(value, (list, tuple, numbers.Number)):
        return to_tensor(value, dtype=dtype)
    if not hasattr(value, "shape"):
        raise TypeError(f"to_variable expects an ndarray or a Tensor, got {type(value).__name__}")
    arr = to_place(value, default_place())
    if arr is value:
        arr = arr.copy()
    if dtype is not None:
        arr = arr.astype(_dtypes.convert_dtype(dtype), copy=False)
    _dtypes.convert_dtype(arr.dtype)
    return Tensor(arr, name=name)
