"""PaddlePaddle 2.0 tensor functions at ``core.*`` and the fluid module aliases."""
import os
import subprocess
import sys

import numpy as np
import pytest

import core
import translator

A = np.arange(1, 7, dtype="float32").reshape(2, 3) / 3
B = np.linspace(0.5, 2.0, 6, dtype="float32").reshape(2, 3)

CASES = [
    ("matmul", lambda a, b: core.matmul(a, b, transpose_y=True), lambda a, b: a @ b.T),
    ("mean", lambda a, b: core.mean(a, axis=1, keepdim=True),
     lambda a, b: a.mean(1, keepdims=True)),
    ("mean all", lambda a, b: core.mean(a), lambda a, b: a.mean()),
    ("sum", lambda a, b: core.sum(a, axis=0), lambda a, b: a.sum(0)),
    ("sum dtype", lambda a, b: core.sum(a, dtype="float64"),
     lambda a, b: a.astype("float64").sum()),
    ("max", lambda a, b: core.max(a, axis=-1), lambda a, b: a.max(-1)),
    ("min", lambda a, b: core.min(a), lambda a, b: a.min()),
    ("prod", lambda a, b: core.prod(a, axis=1), lambda a, b: a.prod(1)),
    ("reshape", lambda a, b: core.reshape(a, [3, -1]), lambda a, b: a.reshape(3, 2)),
    ("concat", lambda a, b: core.concat([a, b], axis=1), lambda a, b: np.concatenate([a, b], 1)),
    ("stack", lambda a, b: core.stack([a, b], axis=0), lambda a, b: np.stack([a, b])),
    ("add", lambda a, b: core.add(a, b), lambda a, b: a + b),
    ("subtract", lambda a, b: core.subtract(a, b), lambda a, b: a - b),
    ("multiply", lambda a, b: core.multiply(a, b), lambda a, b: a * b),
    ("divide", lambda a, b: core.divide(a, b), lambda a, b: a / b),
    ("pow", lambda a, b: core.pow(a, b), lambda a, b: a ** b),
    ("maximum", lambda a, b: core.maximum(a, b), np.maximum),
    ("minimum", lambda a, b: core.minimum(a, b), np.minimum),
    ("transpose", lambda a, b: core.transpose(a, [1, 0]), lambda a, b: a.T),
    ("squeeze", lambda a, b: core.squeeze(core.reshape(a, [1, 2, 3])), lambda a, b: a),
    ("unsqueeze", lambda a, b: core.unsqueeze(a, 1), lambda a, b: a[:, None]),
    ("flatten", lambda a, b: core.flatten(core.reshape(a, [1, 2, 3]), 1),
     lambda a, b: a.reshape(1, 6)),
    ("exp", lambda a, b: core.exp(a), lambda a, b: np.exp(a)),
    ("sqrt", lambda a, b: core.sqrt(a), lambda a, b: np.sqrt(a)),
    ("tanh", lambda a, b: core.tanh(a), lambda a, b: np.tanh(a)),
    ("abs", lambda a, b: core.abs(-a), lambda a, b: a),
    ("argmax", lambda a, b: core.argmax(b * -1), lambda a, b: np.argmax(-b)),
    ("argmax axis", lambda a, b: core.argmax(a, axis=1, keepdim=True),
     lambda a, b: np.argmax(a, 1)[:, None]),
    ("where", lambda a, b: core.where(core.less_than(a, b), a, b), np.minimum),
    ("cast", lambda a, b: core.cast(a, "float64"), lambda a, b: a.astype("float64")),
    ("split", lambda a, b: core.split(a, 3, axis=1)[2], lambda a, b: a[:, 2:]),
    ("full", lambda a, b: core.full([2, 2], 7), lambda a, b: np.full((2, 2), 7, "int64")),
    ("zeros", lambda a, b: core.zeros([3]), lambda a, b: np.zeros(3, "float32")),
    ("ones", lambda a, b: core.ones([2], "int64"), lambda a, b: np.ones(2, "int64")),
    ("scale", lambda a, b: core.scale(a, 2.0, 1.0), lambda a, b: a * 2 + 1),
    ("gather", lambda a, b: core.gather(a, core.to_tensor(np.array([1, 0], "int64"))),
     lambda a, b: a[[1, 0]]),
    ("tile", lambda a, b: core.tile(a, [1, 2]), lambda a, b: np.tile(a, (1, 2))),
]


@pytest.mark.parametrize("name,fn,ref", CASES, ids=[c[0] for c in CASES])
def test_eager_matches_numpy(name, fn, ref):
    out = fn(core.to_tensor(A), core.to_tensor(B))
    expected = np.asarray(ref(A, B))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    assert out.numpy().dtype == expected.dtype


@pytest.mark.parametrize("name,fn,ref", CASES[:13], ids=[c[0] for c in CASES[:13]])
def test_static_matches_numpy(name, fn, ref):
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            a = core.static.data("a", [2, 3], "float32")
            b = core.static.data("b", [2, 3], "float32")
            out = fn(a, b)
        finally:
            core.disable_static()
    got, = core.Executor().run(main, feed={"a": A, "b": B}, fetch_list=[out])
    np.testing.assert_allclose(got, np.asarray(ref(A, B)), rtol=1e-6)


def test_in_declarative_code():
    @translator.declarative
    def f(a, b):
        return core.mean(core.matmul(a, b, transpose_y=True), axis=0)

    out = f(core.to_tensor(A), core.to_tensor(B))
    np.testing.assert_allclose(out.numpy(), (A @ B.T).mean(0), rtol=1e-6)


def test_dygraph_parallel_module_alias():
    # a fresh interpreter: the import statements must resolve on their own, not through a
    # module an earlier test already loaded
    code = ("import core.dygraph.parallel\n"
            "from core.dygraph.parallel import DataParallel, prepare_context\n"
            "import core.distributed.parallel as p\n"
            "assert core.dygraph.parallel is p and DataParallel is p.DataParallel\n"
            "assert prepare_context is p.prepare_context\n"
            "import core.dygraph.base\n"
            "print('ok')\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


def test_gather_axis_and_smallest_topk():
    index = core.to_tensor(np.array([2, 0], "int64"))
    np.testing.assert_array_equal(core.gather(core.to_tensor(A), index, axis=1).numpy(),
                                  A[:, [2, 0]])
    values, _ = core.topk(core.to_tensor(A), 1, largest=False)
    np.testing.assert_array_equal(values.numpy(), A.min(1, keepdims=True))


def test_module_aliases():
    from core.dygraph.base import to_variable
    import core.dygraph.base as base

    assert base is core.dygraph.base and to_variable is core.to_variable
    assert core.dygraph.base.enabled() is True
    assert core.Layer is core.nn.Layer and core.Linear is core.nn.Linear
    assert core.static.InputSpec is translator.InputSpec
    spec = core.static.InputSpec([None, 784], "float32", "img")
    assert spec.shape == (-1, 784) and spec.name == "img"
    scores = core.to_tensor(np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], "float32"))
    label = core.to_tensor(np.array([[1], [1], [1]], "int64"))
    acc = core.metric.accuracy(scores, label)
    np.testing.assert_allclose(acc.numpy(), [2 / 3], rtol=1e-6)
    assert core.metric.accuracy(scores, label, k=2).numpy()[0] == 1.0
