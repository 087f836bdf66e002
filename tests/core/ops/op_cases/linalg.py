"""Cases for core/ops/linalg.py."""
import numpy as np

from . import Case

r = np.random.default_rng(5)


def f64(*shape):
    return r.uniform(-1.0, 1.0, shape)


def _well_conditioned(*batch, n=3):
    return (f64(*batch, n, n) + 3 * np.eye(n)).astype(np.float32)


CASES = {
    "inverse": [
        Case([_well_conditioned()], ref=np.linalg.inv, atol=1e-4),
        Case([_well_conditioned(2).astype(np.float64)], ref=np.linalg.inv, name="batch-f64"),
    ],
    "einsum": [
        Case([[f64(2, 3).astype(np.float32), f64(3, 4).astype(np.float32)]],
             {"equation": "ij,jk->ik"}, ref=lambda xs, equation: np.einsum(equation, *xs)),
        Case([[f64(2, 3, 4), f64(2, 4, 5)]], {"equation": "bij,bjk->bik"},
             ref=lambda xs, equation: np.einsum(equation, *xs), name="batched"),
        Case([[f64(3, 4), f64(4)]], {"equation": "ij,j->i"},
             ref=lambda xs, equation: np.einsum(equation, *xs), name="matvec"),
        Case([[f64(2, 3)]], {"equation": "ij->ji"},
             ref=lambda xs, equation: np.einsum(equation, *xs), name="transpose"),
        Case([[f64(2, 3), f64(4)]], {"equation": "ij,k->i"},
             ref=lambda xs, equation: np.einsum(equation, *xs), name="summed-out"),
        Case([[f64(3), f64(4)]], {"equation": "i,j->ij"},
             ref=lambda xs, equation: np.einsum(equation, *xs), name="outer"),
    ],
}
