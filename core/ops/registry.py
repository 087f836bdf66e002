"""The op registry: every op is defined once and serves eager mode, static mode and autograd.

An op is a small subclass of :class:`OpDef` registered with :func:`register_op`. It declares

* ``inputs`` / ``outputs``: slot names in order. A trailing ``*`` marks a list slot
  (``"X*"``: the op takes a list of arrays there, e.g. ``concat``).
* ``attrs``: attribute names and defaults. Attribute values are plain data (bool, int, float,
  str, None, lists of those) so programs serialise to JSON.
* ``infer(*metas, **attrs)``: output shapes and dtypes from input ``Meta``s (shape is a tuple
  with -1 for unknown dims). Returns one ``Meta`` per output slot (a list for a list slot); a
  single ``Meta`` when there is one output slot. Used by static mode only.
* ``forward(ctx, *arrays, **attrs)``: the kernel, written against ``ctx.xp`` (numpy or cupy).
  Returns one array per output slot (a list for a list slot); a single array when there is
  one output slot. Inputs may be Python scalars where the public function allows them.
* ``backward(ctx, ins, outs, douts, **attrs)``: gradients of the inputs, one entry per input
  slot (a list for a list slot, ``None`` where there is no gradient), from the forward inputs,
  the forward outputs and the output gradients. ``douts`` holds zeros for differentiable
  outputs that received no gradient and ``None`` for ``nondiff_outputs``. ``ctx.needs_grad``
  says per input slot whether its gradient is wanted, so work for the others can be skipped.

Kernel selection has one path, :meth:`OpDef.kernel_for`: eager dispatch asks it with no
input metas (and gets ``forward``), the static plan compiler asks it once per operator with
the operator's static input metas. In that order it offers

1. ``fast_kernel(xp, metas, **attrs)`` (optional, static only): a callable taking only the
   input arrays, equivalent to ``forward`` for those attrs and metas (a bound ufunc, a
   pre-decoded index, an axis alignment resolved once), or None;
2. ``make_kernel(**attrs)`` (optional): ``kernel(ctx, *arrays)`` with state of its own, built
   once per operator of a compiled plan (``print``'s call counter);
3. ``forward``.

The result is a :class:`Kernel`. Static autograd emits ``<type>_grad`` operators whose kernel
is ``backward``; the eager tape calls ``backward`` directly.
"""
import collections
import copy

from .. import random as _random

__all__ = ["OpDef", "Meta", "Kernel", "KernelContext", "register_op", "get_op", "all_ops",
           "slot_name", "is_list_slot"]

Meta = collections.namedtuple("Meta", ["shape", "dtype"])
Meta.__doc__ = "Static shape (tuple, -1 for unknown dims) and numpy dtype of an op input or output."

_REGISTRY = {}


class Kernel:
    """The kernel :meth:`OpDef.kernel_for` chose. ``kernel(ctx, *arrays, **attrs)`` returns
    what ``forward(ctx, *arrays, **attrs)`` would; a caller may call ``fn`` directly, by
    ``takes``:

    * ``"arrays"``: ``fn(*arrays)`` (a fast kernel: attrs and input metas bound);
    * ``"ctx"``: ``fn(ctx, *arrays)`` (a made kernel: attrs bound);
    * ``"attrs"``: ``fn(ctx, *arrays, **attrs)`` (``forward``).
    """

    __slots__ = ("fn", "takes")

    def __init__(self, fn, takes):
        self.fn = fn
        self.takes = takes

    def __call__(self, ctx, *arrays, **attrs):
        if self.takes == "arrays":
            return self.fn(*arrays)
        if self.takes == "ctx":
            return self.fn(ctx, *arrays)
        return self.fn(ctx, *arrays, **attrs)

    def __repr__(self):
        return f"<Kernel {getattr(self.fn, '__name__', self.fn)!r} takes {self.takes}>"


class KernelContext:
    """What a kernel may use besides its arrays: the array module, the place, a random
    generator (``rng()``, for random ops) and, in ``backward``, which inputs need gradients."""

    __slots__ = ("xp", "place", "_rng_source", "needs_grad", "run_seed", "_counts")

    def __init__(self, xp, place, rng_source=None, needs_grad=None):
        self.xp = xp
        self.place = place
        self._rng_source = rng_source
        self.needs_grad = needs_grad
        self.run_seed = None
        self._counts = None

    def begin_run(self, log, rng_source=None):
        """Record or replay every random op's draws for the run that follows (see
        :meth:`op_ctx`): ``log`` is a dict shared by the plans of one run (a forward plan and
        the gradient plan that replays part of it); None restores the shared generator.
        ``rng_source`` (``xp -> generator``, None: the shared one) is what :meth:`rng` draws
        from in that run."""
        self._rng_source = rng_source
        self.run_seed = log
        self._counts = {} if log is not None else None

    def op_ctx(self, key):
        """The context random op ``key`` (unique in its program) runs with. Under
        :meth:`begin_run` the first plan of a run draws from the shared generator, as eager
        mode does, and records the generator's state before the op drew under (key, how many
        times the op ran in this run); a second plan replaying part of the same run (a
        gradient plan re-running a ``cond`` branch) restores that state into a private
        generator, so it draws exactly the values the first one drew."""
        if self.run_seed is None:
            return self
        n = self._counts.get(key, 0)
        self._counts[key] = n + 1
        log, entry, gen = self.run_seed, (key, n), []

        def source(xp):
            if not gen:
                shared = _random.default_generator(xp)
                saved = log.get(entry)
                if saved is None:
                    try:
                        log[entry] = copy.deepcopy(shared)
                    except Exception:  # NOTE: a generator that cannot be copied: replay
                        seed = int(shared.integers(0, 2 ** 62))  # from a seed drawn from it
                        log[entry] = seed
                        shared = _random.make_generator(xp, seed)
                    gen.append(shared)
                elif isinstance(saved, int):
                    gen.append(_random.make_generator(xp, saved))
                else:
                    gen.append(copy.deepcopy(saved))
            return gen[0]

        return KernelContext(self.xp, self.place, rng_source=source)

    def rng(self):
        """The random generator for this run: a ``numpy.random.Generator`` (or cupy's)."""
        if self._rng_source is None:
            return _random.default_generator(self.xp)
        return self._rng_source(self.xp)


class OpDef:
    """Base class of op definitions; see the module docstring for the contract."""

    type = None
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {}
    #: input slots that never receive a gradient (indices, labels, shapes)
    nondiff_inputs = ()
    #: output slots whose gradient is never used (masks, indices, saved statistics)
    nondiff_outputs = ()
    #: False for ops with no gradient at all (comparisons, argmax, random sampling, creation)
    differentiable = True
    #: True when forward draws from ``ctx.rng()``
    random = False
    #: False only for ops (control flow, program plumbing) whose own test module covers them
    checked_by_registry = True

    def infer(self, *metas, **attrs):
        raise NotImplementedError(f"op '{self.type}' has no shape inference")

    def forward(self, ctx, *arrays, **attrs):
        raise NotImplementedError(f"op '{self.type}' has no forward kernel")

    def backward(self, ctx, ins, outs, douts, **attrs):
        raise NotImplementedError(f"op '{self.type}' has no gradient")

    def fast_kernel(self, xp, metas, **attrs):
        """Optional: a kernel for these fixed ``attrs`` and input ``metas`` (static shapes and
        dtypes) taking only the input arrays and returning what ``forward`` would — the static
        compiler calls it instead of ``forward`` to save the per-call attribute handling. None
        (the default) means use ``forward``."""
        return None

    #: Optional ``make_kernel(**attrs) -> kernel(ctx, *arrays)``: see :meth:`kernel_for`.
    make_kernel = None

    def kernel_for(self, xp, metas, attrs):
        """The :class:`Kernel` this op runs for ``attrs`` (complete, see :meth:`full_attrs`)
        on module ``xp``; ``metas``: the input slots' static :class:`Meta` (a list for a list
        slot, None for an absent input), or None in eager mode where they are not known.
        The one selection path; see the module docstring for the order."""
        if metas is not None:
            fn = self.fast_kernel(xp, metas, **attrs)
            if fn is not None:
                return Kernel(fn, "arrays")
        if self.make_kernel is not None:
            return Kernel(self.make_kernel(**attrs), "ctx")
        kernel = self.__dict__.get("_forward_kernel")
        if kernel is None:  # NOTE: one per op: eager dispatch asks on every call
            kernel = self._forward_kernel = Kernel(self.forward, "attrs")
        return kernel

    # -- helpers used by the framework -------------------------------------------------------
    def full_attrs(self, attrs):
        """``attrs`` completed with the declared defaults; unknown names are an error."""
        if not attrs:
            return dict(self.attrs)
        unknown = [k for k in attrs if k not in self.attrs]
        if unknown:
            raise TypeError(f"op '{self.type}' got unknown attribute(s) {unknown}; "
                            f"it takes {sorted(self.attrs)}")
        full = dict(self.attrs)
        full.update(attrs)
        return full

    def grad_slots(self):
        """Indices of input slots that can receive a gradient."""
        if not self.differentiable:
            return ()
        return tuple(i for i, s in enumerate(self.inputs)
                     if slot_name(s) not in self.nondiff_inputs)

    def __repr__(self):
        return f"<op {self.type}: {self.inputs} -> {self.outputs}>"


def slot_name(slot):
    """``'X*'`` -> ``'X'``."""
    return slot[:-1] if slot.endswith("*") else slot


def is_list_slot(slot):
    return slot.endswith("*")


def register_op(cls):
    """Class decorator: instantiate the op definition once and register it under ``cls.type``
    (the class name when ``type`` is not set)."""
    if cls.type is None:
        cls.type = cls.__name__
    if cls.type in _REGISTRY:
        raise ValueError(f"op '{cls.type}' is registered twice")
    op = cls()
    _REGISTRY[cls.type] = op
    return cls


def get_op(op_type):
    """The registered op definition for ``op_type``; a clear error when there is none."""
    try:
        return _REGISTRY[op_type]
    except KeyError:
        raise KeyError(f"no op named '{op_type}' is registered") from None


def all_ops():
    """Every registered op definition, sorted by type name."""
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]
