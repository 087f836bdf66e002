"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_typehint.py
(2.x releases): the function as written (annotated arguments, return and local). Paddle's
input (``zeros(1)`` int32) and others, eagerly, converted and as an Executor Program."""
import numpy as np

from ._port import check, f32, i32

SEED = 2020
np.random.seed(SEED)


class A:
    pass


def function(x: A) -> A:
    t: A = A()
    return 2 * x


def test_type_hint():
    check(function, (np.zeros(shape=(1), dtype=np.int32),), (i32(3, -4),), (f32(2, 3),),
          (f32(0, 3),))
