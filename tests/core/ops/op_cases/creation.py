"""Cases for core/ops/creation.py. Random ops are checked against the same draws made with
numpy directly (generator seeded with the case seed, or with the op's own ``seed``)."""
import numpy as np

from . import Case


def _uniform(shape, dtype, min=-1.0, max=1.0, seed=0, _case_seed=0):
    u = np.random.default_rng(seed or _case_seed).random(tuple(shape))
    return (min + (max - min) * u).astype(dtype)


def _gaussian(shape, dtype, mean=0.0, std=1.0, seed=0, _case_seed=0):
    z = np.random.default_rng(seed or _case_seed).standard_normal(tuple(shape))
    return (mean + std * z).astype(dtype)


def _truncated(shape, dtype, mean=0.0, std=1.0, seed=0, _case_seed=0):
    g = np.random.default_rng(seed or _case_seed)
    z = g.standard_normal(tuple(shape))
    while (np.abs(z) > 2).any():
        bad = np.abs(z) > 2
        z[bad] = g.standard_normal(int(bad.sum()))
    return (mean + std * z).astype(dtype)


def _random_case(ref, attrs, seed, name):
    return Case([], attrs, ref=lambda **a: ref(**a, _case_seed=seed), seed=seed, name=name)


CASES = {
    "fill_constant": [
        Case([], {"shape": [2, 3], "dtype": "float32", "value": 1.5},
             ref=lambda **a: np.full((2, 3), 1.5, np.float32)),
        Case([], {"shape": [], "dtype": "int64", "value": 7},
             ref=lambda **a: np.array(7, np.int64), name="scalar-int"),
        Case([], {"shape": [2], "dtype": "bool", "value": True},
             ref=lambda **a: np.ones(2, bool), name="bool"),
    ],
    "fill_any_like": [
        Case([np.zeros((2, 3), np.float32)], {"value": 1.0},
             ref=lambda x, value: np.ones((2, 3), np.float32)),
        Case([np.zeros((2,), np.float32)], {"value": 3, "dtype": "int32"},
             ref=lambda x, value, dtype: np.full(2, 3, np.int32), name="dtype"),
    ],
    "range": [
        Case([], {"start": 0, "end": 5, "step": 1, "dtype": "int64"},
             ref=lambda **a: np.arange(5, dtype=np.int64)),
        Case([], {"start": 1.0, "end": 2.0, "step": 0.25, "dtype": "float32"},
             ref=lambda **a: np.arange(1.0, 2.0, 0.25, dtype=np.float32), name="float"),
        Case([], {"start": 5, "end": 0, "step": -2, "dtype": "int32"},
             ref=lambda **a: np.array([5, 3, 1], np.int32), name="negative-step"),
        Case([], {"start": 3, "end": 1, "step": 1, "dtype": "int64"},
             ref=lambda **a: np.zeros(0, np.int64), name="empty"),
    ],
    "range_tensor": [
        Case([np.array([0], np.int64), np.array([5], np.int64), np.array([1], np.int64)],
             {"dtype": "int64"}, ref=lambda *a, **k: np.arange(5, dtype=np.int64)),
        Case([np.array([1.0]), np.array(2, np.int32), np.array([0.25], np.float32)],
             {"dtype": "float32"}, ref=lambda *a, **k: np.arange(1.0, 2.0, 0.25, np.float32),
             name="mixed-dtypes"),
        Case([np.array([5], np.int64), np.array([0], np.int64), np.array([-2], np.int64)],
             {"dtype": "int32"}, ref=lambda *a, **k: np.array([5, 3, 1], np.int32),
             name="negative-step"),
        Case([np.array([3], np.int64), np.array([1], np.int64), np.array([1], np.int64)],
             {"dtype": "int64"}, ref=lambda *a, **k: np.zeros(0, np.int64), name="empty"),
    ],
    "linspace": [
        Case([], {"start": 0.0, "stop": 1.0, "num": 5, "dtype": "float32"},
             ref=lambda **a: np.linspace(0, 1, 5).astype(np.float32)),
        Case([], {"start": -2.0, "stop": 2.0, "num": 1, "dtype": "float64"},
             ref=lambda **a: np.array([-2.0]), name="one"),
    ],
    "uniform_random": [
        _random_case(_uniform, {"shape": [2, 3], "dtype": "float32", "min": -2.0, "max": 3.0},
                     5, "ctx-rng"),
        _random_case(_uniform, {"shape": [4], "dtype": "float64", "seed": 11}, 5, "own-seed"),
    ],
    "gaussian_random": [
        _random_case(_gaussian, {"shape": [2, 3], "dtype": "float32", "mean": 1.0, "std": 2.0},
                     6, "ctx-rng"),
        _random_case(_gaussian, {"shape": [3], "dtype": "float64", "seed": 12}, 6, "own-seed"),
    ],
    "truncated_gaussian_random": [
        _random_case(_truncated, {"shape": [5, 6], "dtype": "float32", "mean": 0.5, "std": 3.0},
                     7, "ctx-rng"),
        _random_case(_truncated, {"shape": [4, 4], "dtype": "float64", "seed": 13}, 7,
                     "own-seed"),
    ],
    "fill_constant_tensor": [
        Case([np.array([2, 3], np.int64)], {"shape": [-1, 3], "dtype": "float32", "value": 2.5},
             ref=lambda t, **a: np.full((2, 3), 2.5, np.float32)),
        Case([np.array([4], np.int32)], {"shape": [-1], "dtype": "int64", "value": 7},
             ref=lambda t, **a: np.full(4, 7, np.int64), name="int32-shape"),
    ],
    "uniform_random_tensor": [
        Case([np.array([2, 3], np.int64)],
             {"shape": [-1, -1], "dtype": "float32", "min": -2.0, "max": 3.0},
             ref=lambda t, **a: _uniform((2, 3), "float32", -2.0, 3.0, _case_seed=5), seed=5),
        Case([np.array([4], np.int64)], {"shape": [4], "dtype": "float64", "seed": 11},
             ref=lambda t, **a: _uniform((4,), "float64", seed=11), seed=5, name="own-seed"),
    ],
    "gaussian_random_tensor": [
        Case([np.array([3, 2], np.int64)],
             {"shape": [-1, 2], "dtype": "float32", "mean": 1.0, "std": 2.0},
             ref=lambda t, **a: _gaussian((3, 2), "float32", 1.0, 2.0, _case_seed=6), seed=6),
    ],
}
