"""Cases for core/ops/collective.py in a one-process job (no communicator installed): every
collective is the identity there, which the numeric gradient and eager-equals-static checks
cover; the multi-process behaviour is tested in tests/core/distributed/test_distributed.py."""
import numpy as np

from . import Case

r = np.random.default_rng(11)


def f32(*shape):
    return r.uniform(-1.0, 1.0, shape).astype(np.float32)


def _same(x, **attrs):
    return x.copy()


CASES = {
    "c_allreduce_sum": [Case([f32(3, 4)], ref=_same),
                        Case([f32(5)], {"ring_id": 0}, ref=_same, name="1d")],
    "c_allreduce_max": [Case([f32(2, 3)], ref=_same)],
    "c_allreduce_min": [Case([f32(2, 3)], ref=_same)],
    "c_allreduce_prod": [Case([f32(4)], ref=_same)],
    "c_broadcast": [Case([f32(2, 2)], {"root": 0}, ref=_same)],
    "c_allgather": [Case([f32(3, 2)], {"nranks": 1}, ref=_same)],
}
