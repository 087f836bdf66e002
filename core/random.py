"""Random state for eager mode: one generator per array module, reseeded by :func:`seed`."""
import numpy as np

__all__ = ["seed", "default_generator", "get_seed"]

_state = {"seed": None, "generators": {}}


def seed(value):
    """Seed every eager random op (initializers, dropout, ``uniform_random``, ...)."""
    value = int(value)
    _state["seed"] = value
    _state["generators"] = {}
    return value


def get_seed():
    return _state["seed"]


def make_generator(xp, value):
    """A fresh generator of module ``xp`` (numpy or cupy) seeded with ``value``."""
    if xp is np:
        return np.random.default_rng(value)
    return xp.random.default_rng(value)  # cupy


def default_generator(xp=np):
    """The eager generator for module ``xp``, created from the global seed on first use."""
    gens = _state["generators"]
    gen = gens.get(xp.__name__)
    if gen is None:
        gen = make_generator(xp, _state["seed"])
        gens[xp.__name__] = gen
    return gen
