"""Package attributes that import their module on first use (PEP 562 ``__getattr__``).

``import core`` should not pay for what a program may never use (data loaders and their worker
processes, datasets, distributed training, the ONNX exporter, graph HTML): a package lists such
names in a table and installs :func:`lazy_attributes`' functions as its module-level
``__getattr__`` and ``__dir__``. ``from package import name`` and ``package.name`` work as
for an eager import; the value is kept in the package's namespace after the first use.
"""
import importlib
import sys

__all__ = ["lazy_attributes"]


def lazy_attributes(package, table):
    """``(__getattr__, __dir__)`` for the package named ``package``: ``table`` maps an
    attribute name to ``(module, attribute)``, the module relative to the package and the
    attribute None for the module itself."""

    def __getattr__(name):
        entry = table.get(name)
        if entry is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(entry[0], package)
        value = module if entry[1] is None else getattr(module, entry[1])
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
