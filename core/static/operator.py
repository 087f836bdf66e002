"""Operators of the static Program IR: :class:`Operator` (type, named input/output variable
lists, JSON attributes, role, origin; see :mod:`core.static.program`) and the conversion of
attribute values to JSON data."""
import numpy as np

from .variable import names_of

__all__ = ["EMPTY_VAR_NAME", "OP_ROLES", "Operator"]

EMPTY_VAR_NAME = "@EMPTY@"
OP_ROLES = ("forward", "backward", "optimize")


def _json_attr(name, value, where):
    """``value`` as JSON data (numpy scalars and arrays become Python values)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_json_attr(name, v, where) for v in value]
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, dict):
        return {str(k): _json_attr(name, v, where) for k, v in value.items()}
    raise TypeError(f"{where}: attribute '{name}' must be JSON data (bool, int, float, str, "
                    f"None, lists), got {type(value).__name__} ({value!r})")


class Operator:
    """One operator of a Block: type, named input/output variable lists, attributes."""

    __slots__ = ("attrs", "block", "inputs", "origin", "outputs", "role", "type")

    def __init__(self, block, type, inputs=None, outputs=None, attrs=None, role="forward",
                 origin=None):
        where = f"op '{type}'"
        self.block = block
        self.type = str(type)
        expected = f"{where}: variable lists hold names or Variables"
        self.inputs = {str(k): names_of(v, expected) for k, v in (inputs or {}).items()}
        self.outputs = {str(k): names_of(v, expected) for k, v in (outputs or {}).items()}
        self.attrs = {str(k): _json_attr(k, v, where) for k, v in (attrs or {}).items()}
        if role not in OP_ROLES:
            raise ValueError(f"{where}: role must be one of {OP_ROLES}, got {role!r}")
        self.role = role
        self.origin = list(origin) if origin is not None else None

    def input(self, slot):
        return self._slot(self.inputs, "input", slot)

    def output(self, slot):
        return self._slot(self.outputs, "output", slot)

    def _slot(self, slots, kind, slot):
        try:
            return list(slots[slot])
        except KeyError:
            raise KeyError(f"op '{self.type}' has no {kind} slot '{slot}'; it has "
                           f"{sorted(slots)}") from None

    @property
    def input_names(self):
        return list(self.inputs)

    @property
    def output_names(self):
        return list(self.outputs)

    @property
    def input_arg_names(self):
        return [n for v in self.inputs.values() for n in v if n != EMPTY_VAR_NAME]

    @property
    def output_arg_names(self):
        return [n for v in self.outputs.values() for n in v if n != EMPTY_VAR_NAME]

    def attr(self, name):
        try:
            return self.attrs[name]
        except KeyError:
            raise KeyError(f"op '{self.type}' has no attribute '{name}'; it has "
                           f"{sorted(self.attrs)}") from None

    def has_attr(self, name):
        return name in self.attrs

    def _set_attr(self, name, value):
        self.attrs[name] = _json_attr(name, value, f"op '{self.type}'")
        self.block.program._bump()

    @property
    def idx(self):
        for i, op in enumerate(self.block.ops):
            if op is self:
                return i
        return -1

    def __repr__(self):
        def fmt(d):
            return ", ".join(f"{k}={v}" for k, v in d.items())

        attrs = {k: v for k, v in self.attrs.items()}
        text = f"{{{fmt(self.outputs)}}} = {self.type}(inputs={{{fmt(self.inputs)}}}"
        if attrs:
            text += f", {fmt(attrs)}"
        text += ")"
        if self.role != "forward":
            text += f"  [{self.role}]"
        if self.origin:
            text += f"  # {self.origin[0]}:{self.origin[1]}"
        return text

    __str__ = __repr__
