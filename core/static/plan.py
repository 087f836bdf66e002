"""A compiled plan and the one way to run it.

:func:`core.static.codegen.compile_plan` turns a Program's global block into a :class:`Plan`;
:class:`~core.static.executor.Executor` and a declarative function's
:class:`translator.partial_program.PartialProgram` both run plans through :meth:`Plan.run`:

``plan.run(values, rng_source=None, run_seed=None) -> (fetched, written)``

* ``values``: one value per entry of ``plan.ext`` (feeds and scope values), in that order;
  :meth:`Plan.positions` maps a caller's list of names to those positions once.
* ``rng_source``: ``xp -> generator`` for the random ops (the program's ``random_seed``);
  None draws from the shared generator of :mod:`core.random`.
* ``run_seed``: a log shared by the plans of one run, so that a second plan replays the
  random draws of the first (see :meth:`core.ops.registry.KernelContext.begin_run`).
* ``fetched``: the values of ``plan.fetch_names``; ``written``: the new values of the
  persistables ``plan.writes`` (for the caller to store).

An exception raised by an operator's kernel comes back as :func:`op_error`'s error naming the
operator, its inputs and the user's line, chained from the original.
"""
from ..errors import describe_value, op_error_of

__all__ = ["Plan", "op_error"]


class Plan:
    """A compiled global block; see the module docstring for the call contract.

    ``ext``: ``(name, Variable)`` pairs the plan reads from the feed or the scope, in argument
    order; ``fetch_names``; ``writes``: persistable names written back after a run;
    ``context``: the plan's :class:`~core.ops.registry.KernelContext`; ``source`` /
    ``filename``: the generated code; ``line_ops``: source line -> ``(Operator, block
    index)``; ``idents``: ``id(Variable)`` -> the local name it has in the source;
    ``feed_specs``: ``{feed name: (dtype, shape)}`` the executor checks feeds against (None
    until its first run).
    """

    def __init__(self):
        self.feed_specs = None

    __slots__ = (
        "__weakref__",
        "_keep_alive",
        "context",
        "ext",
        "feed_specs",
        "fetch_names",
        "filename",
        "fn",
        "idents",
        "line_ops",
        "source",
        "writes",
    )

    def run(self, values, rng_source=None, run_seed=None):
        """``(fetched, written)`` for ``values`` (one per ``ext`` entry)."""
        ctx = self.context
        ctx.begin_run(run_seed, rng_source)
        try:
            return self.fn(ctx, values)
        except Exception as e:
            raise op_error(self, e) from e

    def positions(self, names):
        """For each ``ext`` entry, its index in ``names`` (the caller's value list); a
        RuntimeError names the ones ``names`` lacks."""
        pos = {n: i for i, n in enumerate(names)}
        missing = [n for n, _ in self.ext if n not in pos]
        if missing:
            raise RuntimeError(f"the program reads {missing} but nothing feeds them (a "
                               "variable used before it is assigned?)")
        return [pos[n] for n, _ in self.ext]


def op_error(plan, exc):
    """An error naming the operator whose generated line raised ``exc`` (``exc`` itself when
    no generated line of ``plan`` raised it)."""
    tb = exc.__traceback__
    found = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == plan.filename:
            found = tb
        tb = tb.tb_next
    if found is None:
        return exc
    op_info = plan.line_ops.get(found.tb_lineno)
    if op_info is None:
        return exc
    op, block_idx = op_info
    frame = found.tb_frame
    descs = []
    block = op.block
    for slot, names in op.inputs.items():
        for n in names:
            v = block._find_var_recursive(n)
            ident = plan.idents.get(id(v)) if v is not None else None
            value = frame.f_locals.get(ident, frame.f_globals.get(ident)) if ident else None
            if value is not None:
                what = describe_value(value)
            elif v is not None and v.dtype is not None:
                what = f"{v.dtype.name}{v.shape}"
            else:
                what = "?"
            descs.append(f"{slot}='{n}' {what}")
    origin = ""
    if op.origin:
        origin = f"\n  built at {op.origin[0]}:{op.origin[1]}: {op.origin[2]}".rstrip(": ")
    msg = (f"op '{op.type}' (block {block_idx}) failed at run time on inputs ({', '.join(descs)}) "
           f"with attrs {op.attrs}: {type(exc).__name__}: {exc}{origin}")
    del frame
    if isinstance(exc, AssertionError):
        return AssertionError(msg)
    return op_error_of(msg, exc)
