"""Why a declarative function was translated again: per-argument signatures of its cache.

A :class:`StaticFunction` keeps one translated Program per call signature
(:func:`translator.input_spec.signature_of`). When a call misses the cache, :class:`CacheLog`
compares the new call's arguments with those of the most recent translation and says, through
the ``translator`` logger (level INFO), which arguments changed and how (old and new shape,
dtype or Python value). A function translated more than :data:`RETRANSLATION_WARNING` times
logs one WARNING naming the argument that changed most often, with the usual remedy (an
``input_spec`` with ``None`` for a varying dimension, or a Tensor for a varying number).

:func:`describe` turns one argument's signature into text (``Tensor float32[4, 784]``,
``int 3``); ``ProgramTranslator().cache_info(func)`` lists the cached signatures that way,
marking with ``'fallback'`` (and why) those that run eagerly because their translation failed
on a construct the translator cannot express.
"""
import logging

import numpy as np

from .input_spec import signature_of

__all__ = ["CacheLog", "RETRANSLATION_WARNING", "describe", "logger"]

logger = logging.getLogger("translator")

RETRANSLATION_WARNING = 4  # translations of one function after which it warns (once)


def _describe_part(part):
    tag = part[0]
    if tag == "t":
        _, shape, dtype, _sg = part
        return f"Tensor {np.dtype(dtype).name}{list(shape)}"
    if tag == "s":
        shape = [None if d == -1 else d for d in part[1]]
        return f"InputSpec {np.dtype(part[2]).name}{shape}"
    if tag in ("list", "tuple"):
        return f"{tag} of {part[1]}"
    if tag == "dict":
        return f"dict with keys {[k[-1] for k in part[1]]}"
    if tag == "id":
        return f"{part[1]} object at {part[2]:#x}"
    if tag == "type":
        return f"class {part[1]}.{part[2]}"
    return f"{tag} {part[1]!r}"


def describe(key):
    """Text for one argument's signature ``key`` (a tuple of parts, see ``signature_of``)."""
    parts = [_describe_part(p) for p in key]
    if len(parts) == 1:
        return parts[0]
    return f"{parts[0]}: " + ", ".join(parts[1:])


def argument_keys(names, values, declared=None):
    """``{name: signature}`` per parameter, each argument on its own."""
    out = {}
    for i, (name, value) in enumerate(zip(names, values)):
        d = [declared[i]] if declared is not None and i < len(declared) else None
        out[name] = signature_of([value], d)[0]
    return out


class CacheLog:
    """The per-argument signatures of one function's translations, in translation order."""

    def __init__(self, qualname):
        self.qualname = qualname
        self.entries = {}  # cache key -> {argument name: signature}
        self.last = None
        self.changes = {}  # argument name -> how many retranslations it caused
        self.warned = False
        self.fallbacks = {}  # cache key -> why that signature runs eagerly

    def record(self, key, names, values, declared=None, training=None, fallback=None):
        """Note a translation for cache ``key``; log what changed since the previous one.
        ``fallback``: why this signature runs eagerly instead (None when it has a Program)."""
        args = argument_keys(names, values, declared)
        if training is not None:
            args["self.training"] = (("bool", training),)
        if fallback is not None:
            self.fallbacks[key] = fallback
        previous, self.last = self.last, args
        self.entries[key] = args
        if previous is None:
            return
        changed = [n for n in args if previous.get(n) != args[n]]
        for n in changed:
            self.changes[n] = self.changes.get(n, 0) + 1
        what = "; ".join(f"'{n}' {describe(previous[n]) if n in previous else 'absent'} -> "
                         f"{describe(args[n])}" for n in changed) or "no argument"
        logger.info("retranslating %s (translation %d): %s changed", self.qualname,
                    len(self.entries), what)
        if len(self.entries) > RETRANSLATION_WARNING and not self.warned and self.changes:
            self.warned = True
            name = max(self.changes, key=lambda n: self.changes[n])
            logger.warning(
                "%s has been translated %d times, %d of them because argument '%s' changed "
                "(now %s); give a Tensor argument an input_spec with None for the dimension "
                "that varies, or pass a varying number as a Tensor", self.qualname,
                len(self.entries), self.changes[name], name, describe(args[name]))

    def info(self, cache):
        """``[{argument: description}]`` for the keys still in ``cache``, oldest first; an
        entry that runs eagerly (the fallback) also has ``'fallback'``: why."""
        out = []
        for key, args in self.entries.items():
            if key in cache:
                entry = {n: describe(k) for n, k in args.items()}
                if key in self.fallbacks:
                    entry["fallback"] = self.fallbacks[key]
                out.append(entry)
        return out
