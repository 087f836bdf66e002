"""State outside a function that converted code writes: attributes of Layers, ``global`` and
``nonlocal`` names.

Eager code leaves in such state the values each call computed. A converted function runs its
Python once, while the Program is built, so what it writes there are static Variables (or the
Python values of the path traced). As Dynamo replays side effects, the translator records
these writes during the trace (:class:`Writes`), gives the state back the values it held
before, and after every run of the Program writes the values the run computed
(:class:`Replay`): the static leaves of each written value are fetched with the outputs; a
leaf standing for a Python number (a weak Variable, ``convert_state.is_weak``) comes back as
that Python number, a tensor leaf as an eager Tensor. A write of Python values only (decided
by Python conditions while tracing) is written again after each run while every place
written holds the value it had before the trace (``self.steps = self.steps + 1`` traces
again when ``steps`` changed: a guard, as Dynamo's on the Python values it read; a guard on
the places written only, not on every Python value read); a write of another Python object
(a list changed in place) is left as the trace made it.
A saved inference model has only the function's return values: it does not perform these
writes.

Attribute writes are seen on Layers (``core.nn.layer.ATTRIBUTE_OBSERVERS``), wherever the
Layer code runs during the trace, except on Layers the trace itself creates; item writes
(``self.cache['k'] = v``, ``self.outs.append(v)``) into the dicts and lists the traced Layer
and its sublayers hold in attributes are found by comparing their items after the trace
with a shallow copy taken before (each key changed is a place; a list whose length changed
is one place, its items replaced in place); ``global`` and
``nonlocal`` names are those the traced function itself rebinds (``STORE_GLOBAL`` /
``STORE_DEREF`` in its code and its nested code) and the functions it calls through
``convert_call``. A value holding a Variable local to a ``cond`` / ``while`` block (not
carried out of it) cannot be fetched: the state keeps the value it had before the call.
"""
import copy
import dis
import types
import weakref

from core.nn import layer as _layer
from core.static import Variable, structure

from .control_flow import entry_flag
from .convert_state import is_weak

__all__ = ["Replay", "Writes", "host_value", "note_function"]

_MISSING = object()


_GLOBAL_STORES = ("STORE_GLOBAL", "DELETE_GLOBAL")
_DEREF_STORES = ("STORE_DEREF", "DELETE_DEREF")
_STORE_OPS = bytes(dis.opmap[n] for n in _GLOBAL_STORES + _DEREF_STORES)
_stores = weakref.WeakKeyDictionary()  # code object -> (globals stored, cells stored)


def _stored_names(code):
    """``(global names, cell names)`` that ``code`` and the code nested in it store or
    delete (cached per code object; code without such an opcode is not disassembled)."""
    found = _stores.get(code)
    if found is None:
        found, todo = (set(), set()), [code]
        while todo:
            c = todo.pop()
            opcodes = c.co_code[::2]  # wordcode: (opcode, argument) pairs
            if any(op in opcodes for op in _STORE_OPS):
                for ins in dis.get_instructions(c):
                    if ins.opname in _GLOBAL_STORES:
                        found[0].add(ins.argval)
                    elif ins.opname in _DEREF_STORES:
                        found[1].add(ins.argval)
            todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        _stores[code] = found
    return found


class _Global:
    __slots__ = ("namespace", "name")

    def __init__(self, namespace, name):
        self.namespace, self.name = namespace, name

    def label(self):
        return f"global {self.name}"

    def get(self):
        return self.namespace.get(self.name, _MISSING)

    def set(self, value):
        if value is _MISSING:
            self.namespace.pop(self.name, None)
        else:
            self.namespace[self.name] = value


class _Cell:
    __slots__ = ("cell", "name")

    def __init__(self, cell, name):
        self.cell, self.name = cell, name

    def label(self):
        return f"nonlocal {self.name}"

    def get(self):
        try:
            return self.cell.cell_contents
        except ValueError:
            return _MISSING

    def set(self, value):
        if value is _MISSING:
            try:
                del self.cell.cell_contents
            except ValueError:
                pass
        else:
            self.cell.cell_contents = value


class _Contents:
    """The items of a list (replaced in place, so every name for it sees them)."""
    __slots__ = ("container", "label_text")

    def __init__(self, container, label_text):
        self.container, self.label_text = container, label_text

    def label(self):
        return self.label_text

    def get(self):
        return copy.copy(self.container)

    def set(self, value):
        self.container[:] = value


class _Item:
    """One key of a dict (one index of a list whose length the trace kept)."""
    __slots__ = ("container", "key", "label_text")

    def __init__(self, container, key, label_text):
        self.container, self.key, self.label_text = container, key, label_text

    def label(self):
        return f"{self.label_text}[{self.key!r}]"

    def get(self):
        if isinstance(self.container, dict):
            return self.container.get(self.key, _MISSING)
        return self.container[self.key]

    def set(self, value):
        if value is _MISSING:
            self.container.pop(self.key, None)
        else:
            self.container[self.key] = value


def _item_places(label, container, before):
    """``(key, place, value before)`` for what the trace changed in ``container`` (``before``
    its copy): each key of a dict, each index of a list of the same length, else the list's
    items as one place."""
    if isinstance(container, dict):
        keys = [k for k in container if k not in before or before[k] is not container[k]]
        keys += [k for k in before if k not in container]
        return [(("item", id(container), k), _Item(container, k, label), before.get(k, _MISSING))
                for k in keys]
    if len(container) != len(before):
        return [(("items", id(container)), _Contents(container, label), before)]
    return [(("item", id(container), k), _Item(container, k, label), before[k])
            for k, (a, b) in enumerate(zip(container, before)) if a is not b]


class _Attr:
    __slots__ = ("obj", "name")

    def __init__(self, obj, name):
        self.obj, self.name = obj, name

    def label(self):
        return f"{type(self.obj).__name__}.{self.name}"

    def get(self):
        return self.obj.__dict__.get(self.name, _MISSING)

    def set(self, value):
        if value is _MISSING:
            self.obj.__dict__.pop(self.name, None)
        else:
            setattr(self.obj, self.name, value)


# a Layer's own tables of parameters, sublayers, buffers and hooks: not user state
_LAYER_STORES = frozenset(("_parameters", "_sub_layers", "_buffers", "_forward_pre_hooks",
                           "_forward_post_hooks"))

_ACTIVE = []  # the Writes of the traces under way, innermost last


def note_function(function):
    """A function converted code calls while a trace is under way: its global and nonlocal
    writes are watched too."""
    if _ACTIVE:
        _ACTIVE[-1].add_function(function)


class Writes:
    """The outside state a trace of ``function`` writes; a context manager around the trace.
    On exit every place written holds its value from before again; :meth:`replay` gives
    what to write after each run."""

    def __init__(self, function, instance=None):
        self.places = {}  # key -> (place, value before the trace)
        self.born, self.keep = set(), []  # the Layers the trace created
        self.add_function(function)
        # the dicts and lists the Layer and its sublayers hold: (label, container, a copy)
        self.held = []
        if isinstance(instance, _layer.Layer):
            layers = [("", instance)] + [(f"{name}.", sub) for name, sub in
                                         instance.named_sublayers()]
            for prefix, obj in layers:
                for name, value in vars(obj).items():
                    if isinstance(value, (dict, list)) and name not in _LAYER_STORES:
                        label = f"{type(instance).__name__}.{prefix}{name}"
                        self.held.append((label, value, copy.copy(value)))

    def add_function(self, function):
        """Watch the globals and nonlocals ``function`` (a function traced, or one it calls
        through ``convert_call``) rebinds."""
        function = getattr(function, "__func__", function)
        code = getattr(function, "__code__", None)
        if code is not None:
            stored_globals, stored_cells = _stored_names(code)
            for name in sorted(stored_globals):
                self._add(("global", name), _Global(function.__globals__, name))
            cells = dict(zip(code.co_freevars, function.__closure__ or ()))
            for name in sorted(stored_cells & set(cells)):
                self._add(("cell", name), _Cell(cells[name], name))

    def _add(self, key, place):
        if key not in self.places:
            self.places[key] = (place, place.get())

    def _observe(self, obj, name, value):
        if name is None:  # a Layer created by the trace itself: its state is not outside
            self.born.add(id(obj))
            self.keep.append(obj)  # alive until the trace ends, so its id is not reused
        elif id(obj) not in self.born:
            self._add((id(obj), name), _Attr(obj, name))

    def __enter__(self):
        _layer.ATTRIBUTE_OBSERVERS.append(self._observe)
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc):
        _layer.ATTRIBUTE_OBSERVERS.remove(self._observe)
        _ACTIVE.remove(self)
        for label, container, before in self.held:
            for key, place, value in _item_places(label, container, before):
                self.places.setdefault(key, (place, value))
        self.held = []
        self.born, self.keep = set(), []
        self.after, self.plain = [], []
        for place, before in self.places.values():
            value = place.get()
            leaves, tree = structure.flatten(value, structure.ALL, sort_keys=False)
            if any(isinstance(v, Variable) for v in leaves):
                # a value set on some paths only carries its bound flag: when the run took
                # another path, the place keeps the value it holds
                self.after.append((place, tree, leaves, entry_flag(value)))
                place.set(before)
            elif _plain(before) and _plain(value):
                self.plain.append((place, before, value))
            # NOTE: any other write (an object changed in place, a Layer or list stored) stays
            # as the trace left it
        return False

    def replay(self, block):
        """A :class:`Replay` of the values the trace left (read on exit): those holding
        Variables, when the Variables are in ``block`` (the Program's global block), and the
        plain Python ones with the values they had before the trace; None when there is
        nothing to write."""
        entries = []
        for place, tree, leaves, flag in self.after:
            if any(block.vars.get(v.name) is not v for v in leaves + [flag]
                   if isinstance(v, Variable)):
                continue  # a Variable local to a sub-block: cannot be fetched
            entries.append((place, tree, leaves, flag))
        return Replay(entries, self.plain) if entries or self.plain else None


_PLAIN = (type(None), bool, int, float, complex, str, bytes)


def _plain(value):
    """A value that is nothing but Python scalars (a number, a string, None, or tuples /
    lists / dicts of them), or no value: what a guard can compare."""
    if value is _MISSING:
        return True
    leaves, _ = structure.flatten(value, structure.ALL, sort_keys=False)
    return all(type(v) in _PLAIN for v in leaves)


def _same(a, b):
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # a comparison that does not give a truth value
        return False


def host_value(value):
    """A fetched value as an array: an eager Tensor's (a declarative call), or the array
    itself (``Executor.run``)."""
    return value.numpy() if hasattr(value, "numpy") else value


def _python_number(var):
    """The Python type a weak scalar Variable stands for, else None."""
    if not is_weak(var) or any(d != 1 for d in (var.shape or ())):
        return None
    kind = var.dtype.kind if hasattr(var.dtype, "kind") else ""
    return {"b": bool, "i": int, "u": int, "f": float}.get(kind)


class Replay:
    """Writes the outside state after a run: ``variables`` are fetched with the outputs, and
    :meth:`write` takes their values (in order); the plain Python values the trace wrote are
    written again. Those hold only while the state they were computed from is as it was
    before the trace (:meth:`holds`, checked before each call: else the function is traced
    again, as Dynamo guards on the Python values it read)."""

    def __init__(self, entries, plain=()):
        self.entries = entries
        self.plain = list(plain)  # (place, value before the trace, value after it)
        values = [v for _, _, leaves, _ in entries for v in leaves
                  if isinstance(v, Variable)]
        self.numbers = [_python_number(v) for v in values]
        self.flags = [flag for _, _, _, flag in entries if flag is not None]
        self.variables = values + self.flags

    def holds(self):
        """True when every plain place written holds the value it had before the trace."""
        return all(_same(place.get(), before) for place, before, _ in self.plain)

    def changed(self):
        """The places whose value no longer is the one the trace started from (labels)."""
        return [place.label() for place, before, _ in self.plain
                if not _same(place.get(), before)]

    def write(self, values):
        for place, _, after in self.plain:
            place.set(after)
        flags = iter(values[len(values) - len(self.flags):])
        it = iter(zip(values, self.numbers))
        for place, tree, leaves, flag in self.entries:
            if flag is not None and not bool(host_value(next(flags))):
                # the path that sets it did not run: the place keeps what it holds
                for _ in range(sum(isinstance(v, Variable) for v in leaves)):
                    next(it)
                continue
            out = []
            for leaf in leaves:
                if not isinstance(leaf, Variable):
                    out.append(leaf)
                    continue
                value, number = next(it)
                if number is not None:
                    value = number(host_value(value).reshape(-1)[0])
                out.append(value)
            place.set(structure.pack(tree, out))
