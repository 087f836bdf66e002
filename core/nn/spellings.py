"""One layer, two spellings: the constructors of layers whose name exists in PaddlePaddle 1.8
(fluid) and in 2.x (``Conv2D``, ``Linear``, ``Embedding``, ``LayerNorm``) are written with
the fluid parameters; :func:`two_spellings` lets the same constructor take the 2.x keywords.

Keyword names decide: a 2.x keyword reaches the constructor under its fluid name
(``in_features`` -> ``input_dim``), and a call that is 2.x by its shape (``Embedding(10,
16)``) is rewritten as a whole by the layer's ``translate`` function. Positional arguments
mean what they mean in both spellings. ``inspect.signature`` shows the fluid signature (the
wrapper keeps ``__wrapped__``)."""
import functools
import inspect

__all__ = ["bind_2x", "two_spellings"]


def two_spellings(layer, renames, translate=None):
    """Decorator of ``layer``'s fluid ``__init__``: each 2.x keyword in ``renames`` is passed
    on under its fluid name (a name of None drops it: ``name=``); ``translate(args, kwargs)``,
    when given, may first rewrite a 2.x call as a whole and returns the new pair."""
    def wrap(init):
        @functools.wraps(init)
        def adapted(self, *args, **kwargs):
            if translate is not None:
                args, kwargs = translate(args, kwargs)
            for new, old in renames.items():
                if new not in kwargs:
                    continue
                value = kwargs.pop(new)
                if old is None:
                    continue
                if old in kwargs:
                    raise TypeError(f"{layer}(): got both '{new}' and '{old}', the 2.x and the "
                                    "fluid spelling of one argument; pass one of them")
                kwargs[old] = value
            return init(self, *args, **kwargs)
        return adapted
    return wrap


def bind_2x(layer, signature_of, args, kwargs):
    """The 2.x arguments of a call, bound to the parameters of the function ``signature_of``
    (defaults applied), with the error Python gives, prefixed by the layer's name."""
    try:
        bound = inspect.signature(signature_of).bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{layer}(): {e}") from None
    bound.apply_defaults()
    return bound.arguments
