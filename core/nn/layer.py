"""``Layer``: the base class of models, in both modes.

A Layer owns parameters, buffers and sublayers, registered by plain attribute assignment
(``self.fc = Linear(...)``, ``self.w = self.create_parameter(...)``). ``forward`` runs ops
through :func:`core.dispatch.apply` / ``core.layers``, so the same layer computes eagerly or
appends operators to a static Program; only :func:`core.parameter.create_parameter` knows the
mode.

``state_dict()`` is keyed by structured attribute paths (``"conv.weight"``, 2.0 style). Its
values are the live parameters and persistable buffers. ``set_dict`` accepts a dict keyed by
those paths or by parameter names (1.8 style), checks every entry (present, same shape and
dtype) before changing anything, and raises an error naming the parameter otherwise.
"""
import collections
import re

import numpy as np

from .. import mode as _mode
from .. import unique_name
from ..dtypes import convert_dtype, get_default_dtype
from ..param_attr import ParamAttr
from ..parameter import create_parameter
from ..static.program import Parameter as StaticParameter
from ..static.program import default_main_program
from ..static.scope import global_scope
from ..tensor import Parameter, Tensor

__all__ = ["ATTRIBUTE_OBSERVERS", "HookRemoveHelper", "Layer"]


#: observers of plain attribute writes (``layer.x = value``): the innermost is called with
#: ``(layer, name, value)`` before the write, and with ``(layer, None, None)`` when a Layer is
#: created. The translator registers one while it traces a function, to replay such writes
#: after every run of the Program (see ``translator.outside_state``).
ATTRIBUTE_OBSERVERS = []


def _camel_to_snake(name):
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def is_parameter(value):
    """True for eager Parameters and static (Program) Parameters."""
    return isinstance(value, (Parameter, StaticParameter))


def _is_tensor_like(value):
    return isinstance(value, Tensor) or (hasattr(value, "block") and hasattr(value, "persistable"))


class HookRemoveHelper:
    """Returned by ``register_forward_*_hook``; ``remove()`` unregisters the hook."""

    _next_id = [0]

    def __init__(self, hooks):
        self._hooks = hooks
        self._id = HookRemoveHelper._next_id[0]
        HookRemoveHelper._next_id[0] += 1

    def remove(self):
        self._hooks.pop(self._id, None)


class Layer:
    """Base class of layers. Subclasses call ``super().__init__()`` first, then create their
    parameters and sublayers, and define ``forward``."""

    def __init__(self, name_scope=None, dtype=None):
        d = self.__dict__
        d["training"] = True
        d["_dtype"] = convert_dtype(dtype or get_default_dtype()).name
        d["_full_name"] = unique_name.generate(name_scope or _camel_to_snake(type(self).__name__))
        d["_parameters"] = collections.OrderedDict()
        d["_sub_layers"] = collections.OrderedDict()
        d["_buffers"] = collections.OrderedDict()
        d["_non_persistable_buffer_names"] = set()
        d["_forward_pre_hooks"] = collections.OrderedDict()
        d["_forward_post_hooks"] = collections.OrderedDict()
        if ATTRIBUTE_OBSERVERS:
            ATTRIBUTE_OBSERVERS[-1](self, None, None)

    # -- identity --------------------------------------------------------------------------------
    def full_name(self):
        """The layer's unique name (``"linear_0"``), the prefix of its parameters' names."""
        return self._full_name

    # -- running ---------------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} does not define forward()")

    def __call__(self, *inputs, **kwargs):
        self._check_init("__call__")
        for hook in list(self._forward_pre_hooks.values()):
            res = hook(self, inputs)
            if res is not None:
                inputs = res if isinstance(res, tuple) else (res,)
        # NOTE: functional calls in forward (fluid dropout / batch_norm with is_test=None)
        # follow this Layer's training flag, as PaddlePaddle 2.x's tracer train mode
        with _mode.train_mode_guard(self.training):
            outputs = self.forward(*inputs, **kwargs)
        for hook in list(self._forward_post_hooks.values()):
            res = hook(self, inputs, outputs)
            if res is not None:
                outputs = res
        return outputs

    def register_forward_pre_hook(self, hook):
        """``hook(layer, inputs)`` runs before ``forward``; a non-None result replaces inputs."""
        helper = HookRemoveHelper(self._forward_pre_hooks)
        self._forward_pre_hooks[helper._id] = hook
        return helper

    def register_forward_post_hook(self, hook):
        """``hook(layer, inputs, outputs)`` runs after ``forward``; a non-None result replaces
        the outputs."""
        helper = HookRemoveHelper(self._forward_post_hooks)
        self._forward_post_hooks[helper._id] = hook
        return helper

    def train(self):
        """Training mode for this layer and all sublayers (dropout active, batch statistics)."""
        for layer in self._self_and_sublayers():
            layer.__dict__["training"] = True
        return self

    def eval(self):
        """Inference mode for this layer and all sublayers."""
        for layer in self._self_and_sublayers():
            layer.__dict__["training"] = False
        return self

    # -- registration ----------------------------------------------------------------------------
    def _check_init(self, what):
        if "_parameters" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}.{what}: Layer.__init__ was not called; "
                               "call super().__init__() at the start of __init__")

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None):
        """A new parameter named after this layer (``<full_name>.w_N`` / ``.b_N``); assign it
        to an attribute to register it. ``attr=False`` returns None (no parameter)."""
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        prefix = f"{self._full_name}.{'b' if is_bias else 'w'}"
        return create_parameter(shape, dtype or self._dtype, attr, is_bias, default_initializer,
                                prefix=prefix)

    def create_variable(self, name=None, persistable=None, dtype=None, shape=None):
        """A new non-trainable variable named after this layer (``<full_name>.var_N`` unless
        ``name`` is given; fluid's ``Layer.create_variable``): an eager tensor of zeros in eager
        mode, a variable of the current block in static mode. ``shape`` defaults to ``[1]``
        eagerly and to unknown (``[-1]``) in a static block."""
        dtype = convert_dtype(dtype or self._dtype)
        name = name or unique_name.generate(f"{self._full_name}.var")
        if _mode.in_dynamic_mode():
            shape = [1] if shape is None else [int(d) for d in shape]
            if any(d < 0 for d in shape):
                raise ValueError(f"{type(self).__name__}.create_variable('{name}'): an eager "
                                 f"tensor needs a known shape, got {shape}")
            t = Tensor(np.zeros(shape, dtype), name=name)
            t.persistable = bool(persistable)
            return t
        block = default_main_program().current_block()
        return block.create_var(name=name, shape=[-1] if shape is None else list(shape),
                                dtype=dtype, persistable=bool(persistable), stop_gradient=True)

    def create_tensor(self, name=None, persistable=None, dtype=None):
        """PaddlePaddle 2.x's ``Layer.create_tensor``: :meth:`create_variable` with its default
        shape, a tensor to write into (``paddle.assign(y, self.t)``) or register as a buffer."""
        return self.create_variable(name=name, persistable=persistable, dtype=dtype)

    def add_parameter(self, name, parameter):
        """Register ``parameter`` (or None) under attribute ``name``."""
        self._check_init("add_parameter")
        if not isinstance(name, str) or not name or "." in name:
            raise ValueError(f"add_parameter: 'name' must be a non-empty str without '.', got "
                             f"{name!r}")
        if parameter is not None and not is_parameter(parameter):
            raise TypeError(f"add_parameter('{name}'): expected a Parameter or None, got "
                            f"{type(parameter).__name__}")
        self._drop_attr(name)
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name, sublayer):
        """Register ``sublayer`` under attribute ``name``."""
        self._check_init("add_sublayer")
        if not isinstance(sublayer, Layer) and sublayer is not None:
            raise TypeError(f"add_sublayer('{name}'): expected a Layer, got "
                            f"{type(sublayer).__name__}")
        self._drop_attr(str(name))
        self._sub_layers[str(name)] = sublayer
        return sublayer

    def register_buffer(self, name, tensor, persistable=True):
        """Register a non-trainable tensor (e.g. running statistics) under ``name``; persistable
        buffers are part of :meth:`state_dict`."""
        self._check_init("register_buffer")
        if not isinstance(name, str) or not name or "." in name:
            raise ValueError(f"register_buffer: 'name' must be a non-empty str without '.', got "
                             f"{name!r}")
        if tensor is not None and not _is_tensor_like(tensor):
            raise TypeError(f"register_buffer('{name}'): expected a Tensor or None, got "
                            f"{type(tensor).__name__}")
        self._drop_attr(name)
        self._buffers[name] = tensor
        if persistable:
            if isinstance(tensor, Tensor):
                # a static program reads and writes it as a persistable variable
                tensor.persistable = True
            self._non_persistable_buffer_names.discard(name)
        else:
            self._non_persistable_buffer_names.add(name)
        return tensor

    def _drop_attr(self, name):
        self.__dict__.pop(name, None)
        for d in (self._parameters, self._sub_layers, self._buffers):
            d.pop(name, None)

    def __setattr__(self, name, value):
        d = self.__dict__
        if is_parameter(value):
            self._check_init(f"setting '{name}'")
            self._drop_attr(name)
            self._parameters[name] = value
        elif isinstance(value, Layer):
            self._check_init(f"setting '{name}'")
            self._drop_attr(name)
            self._sub_layers[name] = value
        elif "_parameters" in d and name in self._parameters:
            if value is not None:
                raise TypeError(f"attribute '{name}' of {type(self).__name__} is a parameter; "
                                f"assign a Parameter or None, not {type(value).__name__}")
            self._parameters[name] = None
        elif "_buffers" in d and name in self._buffers:
            if value is not None and not _is_tensor_like(value):
                raise TypeError(f"attribute '{name}' of {type(self).__name__} is a buffer; "
                                f"assign a Tensor or None, not {type(value).__name__}")
            self._buffers[name] = value
        elif "_sub_layers" in d and name in self._sub_layers and value is None:
            self._sub_layers[name] = None
        else:
            if ATTRIBUTE_OBSERVERS:
                ATTRIBUTE_OBSERVERS[-1](self, name, value)
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_sub_layers", "_buffers"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_sub_layers", "_buffers"):
            if store in d and name in d[store]:
                del d[store][name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        extra = list(self._parameters) + list(self._sub_layers) + list(self._buffers)
        return sorted(set(super().__dir__()) | set(extra))

    # -- traversal -------------------------------------------------------------------------------
    def named_sublayers(self, prefix="", include_sublayers=True, include_self=False,
                        layers_set=None):
        """``(path, layer)`` for each sublayer, depth first, each layer once."""
        if layers_set is None:
            layers_set = set()
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None or id(layer) in layers_set:
                continue
            path = f"{prefix}.{key}" if prefix else key
            layers_set.add(id(layer))
            yield path, layer
            if include_sublayers:
                yield from layer.named_sublayers(path, True, False, layers_set)

    def sublayers(self, include_sublayers=True):
        """Every sublayer (recursively unless ``include_sublayers`` is False), not self."""
        return [layer for _, layer in self.named_sublayers(include_sublayers=include_sublayers)]

    def named_children(self):
        for name, layer in self._sub_layers.items():
            if layer is not None:
                yield name, layer

    def children(self):
        return [layer for _, layer in self.named_children()]

    def _self_and_sublayers(self):
        return [self] + self.sublayers()

    def named_parameters(self, prefix="", include_sublayers=True):
        """``(path, parameter)`` for every parameter, each once, in registration order."""
        seen = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers \
            else [(prefix, self)]
        for path, layer in layers:
            for key, p in layer._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{path}.{key}" if path else key), p

    def parameters(self, include_sublayers=True):
        """Every parameter of this layer (and its sublayers), each once."""
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True):
        seen = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers \
            else [(prefix, self)]
        for path, layer in layers:
            for key, b in layer._buffers.items():
                if b is None or id(b) in seen:
                    continue
                seen.add(id(b))
                yield (f"{path}.{key}" if path else key), b

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn):
        """Call ``fn(layer)`` on every sublayer, then on self; returns self."""
        for layer in self.sublayers():
            fn(layer)
        fn(self)
        return self

    def clear_gradients(self):
        """Zero the gradients of every trainable parameter."""
        for p in self.parameters():
            if getattr(p, "trainable", True) and hasattr(p, "clear_gradient"):
                p.clear_gradient()

    # -- state -----------------------------------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix=""):
        """An ordered dict ``{structured name: parameter or persistable buffer}``."""
        dest = collections.OrderedDict() if destination is None else destination
        for name, p in self._parameters.items():
            if p is not None:
                dest[structured_name_prefix + name] = p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistable_buffer_names:
                dest[structured_name_prefix + name] = b
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                if layer is not None:
                    layer.state_dict(dest, True, f"{structured_name_prefix}{name}.")
        return dest

    def set_dict(self, state_dict, include_sublayers=True, use_structured_name=True):
        """Load values into this layer's parameters and buffers.

        Each entry of :meth:`state_dict` is looked up in ``state_dict`` by its structured name
        (or, with ``use_structured_name=False``, by the parameter's own name), falling back to
        the other key. A missing entry, or one whose shape or dtype differs, raises an error
        naming the parameter; nothing is changed unless every entry fits. Extra keys (an
        optimizer's state, say) are ignored.
        """
        if not hasattr(state_dict, "items"):
            raise TypeError(f"set_dict: expected a dict of arrays/tensors, got "
                            f"{type(state_dict).__name__}")
        own = self.state_dict(include_sublayers=include_sublayers)
        plan = []
        for key, target in own.items():
            tname = getattr(target, "name", key)
            keys = (key, tname) if use_structured_name else (tname, key)
            found = next((k for k in keys if k in state_dict), None)
            if found is None:
                raise KeyError(f"set_dict: no value for parameter '{key}' (name '{tname}', shape "
                               f"{list(target.shape)}) in the given state dict; it has "
                               f"{len(state_dict)} entries, e.g. {list(state_dict)[:5]}")
            value = state_dict[found]
            arr = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
            if list(arr.shape) != list(target.shape):
                raise ValueError(f"set_dict: parameter '{key}' (name '{tname}') has shape "
                                 f"{list(target.shape)} but the state dict gives shape "
                                 f"{list(arr.shape)}")
            want = convert_dtype(target.dtype)
            if arr.dtype != want:
                raise TypeError(f"set_dict: parameter '{key}' (name '{tname}') has dtype "
                                f"{want.name} but the state dict gives dtype {arr.dtype.name}")
            plan.append((target, arr))
        for target, arr in plan:
            _assign(target, arr)

    load_dict = set_dict
    set_state_dict = set_dict

    # -- display ---------------------------------------------------------------------------------
    def extra_repr(self):
        """One line describing this layer's configuration (shown by ``repr``)."""
        return ""

    def __repr__(self):
        lines = []
        for name, layer in self._sub_layers.items():
            child = repr(layer).replace("\n", "\n  ")
            lines.append(f"({name}): {child}")
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


def _assign(target, arr):
    """Write ``arr`` into a parameter/buffer: eager in place, static through the global scope."""
    if isinstance(target, Tensor):
        target.set_value(arr)
        return
    if hasattr(target, "block"):
        var = global_scope().find_var(target.name)
        if var is None:
            raise RuntimeError(f"set_dict: static parameter '{target.name}' is not in the global "
                               "scope; run the startup program first")
        var.get_tensor().set(arr, None)
        return
    raise TypeError(f"set_dict: cannot assign to {type(target).__name__}")
