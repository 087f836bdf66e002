"""Load converted source as Python code without temporary files.

:func:`load` compiles the text under a synthetic file name (``<dy2static FILE:LINE NAME#k>``)
registered in ``linecache``, so tracebacks, ``inspect.getsource`` and ``pdb`` show the
converted code, and registers its line map with ``origin_info``. The text defines one factory
function whose parameters are the free names the converted function needs; :func:`load`
returns the factory's code object for the converted function, so the caller can build the
function with the original function's globals and *the original closure cells*.
"""
import itertools
import linecache
import types

from . import origin_info

__all__ = ["load", "make_function"]

_counter = itertools.count()


def load(text, user_filename, user_line, fn_name, line_map, tree=None):
    """Compile ``text`` (a module defining one factory) → the inner function's code object.
    ``tree``, the ``ast`` parse of ``text`` when the caller has it, is compiled instead.
    ``text`` may also be a sequence of lines rendered on demand
    (:class:`tree_compile.VirtualSource`), with ``tree`` numbered to match it."""
    filename = f"<dy2static {user_filename}:{user_line} {fn_name}#{next(_counter)}>"
    lines = text.splitlines(True) if isinstance(text, str) else text
    # NOTE: the size field is only read by checkcache for files with an mtime
    linecache.cache[filename] = (0, None, lines, filename)
    origin_info.register(filename, user_filename, line_map)
    module_code = compile(text if tree is None else tree, filename, "exec", dont_inherit=True)
    factory = next(c for c in module_code.co_consts if isinstance(c, types.CodeType))
    return next(c for c in factory.co_consts
                if isinstance(c, types.CodeType) and c.co_name == fn_name)


def make_function(code, original, cells):
    """A function running ``code`` with ``original``'s globals, defaults and metadata.

    ``cells`` maps free-variable names to cells; names of ``original``'s closure keep their
    original cells, so rebinding them on either side is seen by both.
    """
    own = dict(zip(original.__code__.co_freevars, original.__closure__ or ()))
    closure = tuple(own[n] if n in own else cells[n] if n in cells else _global_cell(original, n)
                    for n in code.co_freevars)
    fn = types.FunctionType(code, original.__globals__, original.__name__,
                            original.__defaults__, closure or None)
    fn.__kwdefaults__ = original.__kwdefaults__
    fn.__qualname__ = original.__qualname__
    fn.__module__ = original.__module__
    fn.__doc__ = original.__doc__
    fn.__dict__.update(original.__dict__)
    fn.__dy2static_original__ = original
    return fn


def _global_cell(original, name):
    """A cell for a name the factory binds but ``original`` reads as a global: the function's
    own name when it calls itself (the ``def`` inside the factory binds it there). The cell
    holds the global's value (it is unbound when there is none, as the lookup would fail)."""
    if name in original.__globals__:
        return types.CellType(original.__globals__[name])
    return types.CellType()
