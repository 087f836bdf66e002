"""Variables of the static Program IR: :class:`Variable` (a named value of a Block, with the
fields listed in :mod:`core.static.program`) and :class:`Parameter`, plus the naming rule for
gradient variables, :func:`names_of` (the Variables or names given to an API, as names) and
:func:`merge_shape` (the shape of a value that may have either of two shapes). Arithmetic on
a Variable appends ops (:class:`core.operator_mixin.TensorOps`, through the dispatcher that
registers itself there); asking for its value while the program is built is an error that says
what to do instead."""
from .. import operator_mixin
from ..dtypes import convert_dtype
from ..errors import StaticValueError
from ..operator_mixin import TensorOps

__all__ = ["GRAD_SUFFIX", "VAR_TYPES", "Parameter", "Variable", "grad_var_name", "merge_shape",
           "names_of"]

GRAD_SUFFIX = "@GRAD"
VAR_TYPES = ("lod_tensor", "tensor_array", "step_scopes")


def grad_var_name(name):
    return name + GRAD_SUFFIX


class Variable(TensorOps):
    """A named value of a Block. Operators on it append ops to the current block."""

    __slots__ = (
        "__weakref__",
        "_shape",
        "block",
        "dtype",
        "_name",
        "is_data",
        "persistable",
        "stop_gradient",
        "type",
        "weak",
    )

    def __init__(self, block, name, shape, dtype, type="lod_tensor", persistable=False,
                 stop_gradient=False, is_data=False):
        if type not in VAR_TYPES:
            raise ValueError(f"variable '{name}': type must be one of {VAR_TYPES}, got {type!r}")
        self.block = block
        self.name = name
        self.shape = shape
        self.dtype = convert_dtype(dtype) if dtype is not None else None
        self.type = type
        self.persistable = bool(persistable)
        self.stop_gradient = bool(stop_gradient)
        self.is_data = bool(is_data)
        #: True when the value stands for a Python number (a loop counter the translator
        #: promoted to a tensor): elementwise ops promote it as a weak scalar of its kind, as
        #: numpy 2 promotes Python numbers, so static dtypes equal eager ones
        self.weak = False

    # -- name --------------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        """Renaming a Variable of a block renames it there and in every op of the program
        that reads or writes it (``x.name = "y"`` as PaddlePaddle's Variable allows); a name
        another variable of the program holds is an error."""
        if not isinstance(value, str) or not value:
            raise TypeError(f"variable name must be a non-empty str, got {value!r}")
        old = getattr(self, "_name", None)
        block = getattr(self, "block", None)
        if old is None or old == value or block is None or block.vars.get(old) is not self:
            self._name = value
            return
        program = block.program
        if any(value in b.vars for b in program.blocks):
            raise ValueError(f"cannot rename variable '{old}' to '{value}': the program already "
                             f"has a variable named '{value}'")
        block.vars = {value if n == old else n: v for n, v in block.vars.items()}
        for b in program.blocks:
            for op in b.ops:
                for slots in (op.inputs, op.outputs):
                    for key, names in slots.items():
                        if old in names:
                            slots[key] = [value if n == old else n for n in names]
        self._name = value
        program._bump()

    # -- shape -------------------------------------------------------------------------------
    @property
    def shape(self):
        return None if self._shape is None else list(self._shape)

    @shape.setter
    def shape(self, value):
        if value is None:
            self._shape = None
            return
        try:
            dims = tuple(-1 if d is None else int(d) for d in value)
        except TypeError:
            raise TypeError(f"variable '{self.name}': shape must be a list of int (-1 or None "
                            f"for unknown dims), got {value!r}") from None
        if any(d < -1 for d in dims):
            raise ValueError(f"variable '{self.name}': shape {list(dims)} has a dim below -1")
        self._shape = dims
        if getattr(self, "block", None) is not None:
            self.block.program._bump()

    @property
    def ndim(self):
        return len(self._shape or ())

    @property
    def program(self):
        return self.block.program

    def _meta_shape(self):
        return self._shape if self._shape is not None else ()

    def _rebind(self, new):
        """Make this object stand for Variable ``new`` (``x[i] = v``: the new value of ``x``),
        and ``new`` for the value this object stood for, so ops already built keep reading
        the old value and later uses of the object read the new one."""
        for slot in ("_shape", "block", "dtype", "is_data", "_name", "persistable",
                     "stop_gradient", "type", "weak"):
            a, b = getattr(self, slot), getattr(new, slot)
            object.__setattr__(self, slot, b)
            object.__setattr__(new, slot, a)
        self.block.vars[self.name] = self
        new.block.vars[new.name] = new
        self.block.program._bump()

    # -- Python protocol errors ----------------------------------------------------------------
    def _static_error(self, what):
        return StaticValueError(
            f"{what} of static Variable '{self.name}' (shape {self.shape}, dtype "
            f"{getattr(self.dtype, 'name', self.dtype)}) is not known while the program is "
            "built: its value exists only when the Executor runs. Use translator.declarative "
            "to convert Python control flow, or core.layers.cond / while_loop for a tensor "
            "condition")

    def __bool__(self):
        raise self._static_error("the truth value")

    def __int__(self):
        raise self._static_error("int()")

    def __float__(self):
        raise self._static_error("float()")

    def __index__(self):
        raise self._static_error("using as an index the value")

    def __array__(self, dtype=None, copy=None):
        raise self._static_error("the array value (numpy())")

    def numpy(self):
        raise self._static_error("the value (numpy())")

    def __len__(self):
        if self._shape and self._shape[0] >= 0:
            return self._shape[0]
        raise StaticValueError(f"len() of static Variable '{self.name}' with shape {self.shape}: "
                        "dim 0 is unknown until the Executor runs; use core.layers.shape(x)[0] "
                        "or translator.declarative, which converts len()")

    def __iter__(self):
        if self.type == "lod_tensor" and self._shape and self._shape[0] >= 0:
            return (self[i] for i in range(self._shape[0]))
        raise StaticValueError(f"cannot iterate over static Variable '{self.name}' with shape "
                        f"{self.shape}: dim 0 is unknown; use core.layers.while_loop or "
                        "translator.declarative")

    def detach(self):
        out = operator_mixin.apply("assign", [self])
        out.stop_gradient = True
        return out

    def __repr__(self):
        dt = getattr(self.dtype, "name", "")
        extra = ", persistable" if self.persistable else ""
        kind = "" if self.type == "lod_tensor" else f", {self.type}"
        shape = "" if self._shape is None else list(self._shape)
        return f"var {self.name} : {dt}{shape}{kind}{extra}"

    __str__ = __repr__


class Parameter(Variable):
    """A trainable persistable Variable of the global block, initialised by the startup
    program."""

    __slots__ = (
        "do_model_average",
        "is_distributed",
        "need_clip",
        "optimize_attr",
        "regularizer",
        "trainable",
    )

    def __init__(self, block, name, shape, dtype, trainable=True, optimize_attr=None,
                 regularizer=None, need_clip=True):
        super().__init__(block, name, shape, dtype, persistable=True,
                         stop_gradient=not trainable)
        self.trainable = bool(trainable)
        self.optimize_attr = dict(optimize_attr or {"learning_rate": 1.0})
        self.regularizer = regularizer
        self.need_clip = bool(need_clip)
        self.is_distributed = False
        self.do_model_average = None

    def __repr__(self):
        return "param " + super().__repr__()[4:]

    __str__ = __repr__


def names_of(values, expected, allow_none=True):
    """The names of ``values``: a Variable or a name, or an iterable (list, tuple, set) of
    them; None gives no names unless ``allow_none`` is False. Anything else raises
    ``TypeError(f"{expected}, got {type name}")``, so ``expected`` says who asks and what it
    takes (``"Executor.run: fetch_list entries must be Variables or names"``)."""
    if values is None and allow_none:
        return []
    if isinstance(values, (str, Variable)) or not hasattr(values, "__iter__"):
        values = [values]
    names = []
    for v in values:
        if isinstance(v, Variable):
            names.append(v.name)
        elif isinstance(v, str):
            names.append(v)
        else:
            raise TypeError(f"{expected}, got {type(v).__name__}")
    return names


def merge_shape(a, b):
    """The static shape of a value that has shape ``a`` or shape ``b`` (None: unknown): dims
    equal in both stay, differing dims become -1; False for different ranks."""
    if a is None or b is None:
        return a if b is None else b
    if len(a) != len(b):
        return False
    return [x if x == y else -1 for x, y in zip(a, b)]
