"""Collect the public names of submodules into a package namespace (their ``__all__``)."""
import types

__all__ = ["reexport"]


def reexport(namespace, modules, lazy=None):
    """Copy each module's ``__all__`` names into ``namespace``; return the names, in order.
    A name the module imports on first use (see :mod:`core._lazy`) is not copied: it goes
    into ``lazy`` as ``(module name, name)``, for the namespace's own lazy attributes."""
    names = []
    for m in modules:
        for n in m.__all__:
            if lazy is not None and n not in vars(m) and n in getattr(m, "__dir__", list)():
                lazy[n] = (m.__name__, n)
                names.append(n)
                continue
            old = namespace.get(n)
            # NOTE: a public function may share its name with a submodule (``layers.shape``);
            # the function wins, the module stays importable by its dotted name.
            if old is not None and old is not getattr(m, n) and \
                    not isinstance(old, types.ModuleType):
                raise ImportError(f"{m.__name__}.{n} clashes with another public name")
            namespace[n] = getattr(m, n)
            names.append(n)
    return names
