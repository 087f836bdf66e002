"""Collect the public names of submodules into a package namespace (their ``__all__``)."""

__all__ = ["reexport"]


def reexport(namespace, modules):
    """Copy each module's ``__all__`` names into ``namespace``; return the names, in order."""
    names = []
    for m in modules:
        for n in m.__all__:
            if n in namespace and namespace[n] is not getattr(m, n):
                raise ImportError(f"{m.__name__}.{n} clashes with another public name")
            namespace[n] = getattr(m, n)
            names.append(n)
    return names
