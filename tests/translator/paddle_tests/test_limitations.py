"""The examples of PaddlePaddle's dygraph-to-static "Limitations" guide
(PaddlePaddle/docs, docs/guides/jit/limitations_cn.md), which PaddlePaddle's converter rejects
or gets wrong: here each runs converted as it runs eagerly (values, types, structure), or --
where a static program cannot hold what eager code does -- raises a clear error naming the
variable or line. Bodies as PaddlePaddle wrote them; only the imports changed."""
import numpy as np
import pytest

import dy2static as paddle
from dy2static.jit import to_static
from translator import ProgramTranslator


def eager_and_static(fn, *args):
    """(eager result, converted result) of the undecorated function ``fn``."""
    pt = ProgramTranslator()
    pt.enable(False)
    try:
        want = fn(*args)
    finally:
        pt.enable(True)
    got = to_static(fn)(*args)
    return want, got


def same(a, b):
    if isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), (a, b)
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, paddle.Tensor):
        assert isinstance(b, paddle.Tensor), (a, b)
        assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)
    else:
        assert type(a) is type(b) and a == b, (a, b)


# 1.1 a name that is a Tensor on one branch and a bool on the other
def branch_types(x, y):
    if x > y:
        y = paddle.to_tensor(3)
    else:
        y = True

    if y == True:  # noqa: E712
        x = x + 1
    return x, y


@pytest.mark.parametrize("xy", [(1, 2), (3, 2)])
def test_branch_types(xy):
    # the bool of one path is carried as a number (API: Python numbers promote across a
    # tensor ``if``): same values, the returned y a Tensor on both paths
    (wx, wy), (gx, gy) = eager_and_static(branch_types, *(paddle.to_tensor(v) for v in xy))
    same(wx, gx)
    assert float(gy) == float(wy)


# 1.2 different shapes on the two branches, then a concat that fits one of them
def branch_shapes(x, y):
    z = paddle.ones([2, 3])

    if x > y:
        y = paddle.ones([2, 2])
    else:
        y = paddle.ones([4, 5])

    out = paddle.concat([y, z], axis=-1)
    return out


def test_branch_shapes_that_fit():
    same(*eager_and_static(branch_shapes, paddle.to_tensor(3), paddle.to_tensor(2)))


def test_branch_shapes_that_do_not_fit_raise():
    # eagerly numpy's concat error; converted, the op's error naming the shapes and the line
    with pytest.raises(RuntimeError, match=r"concat.*float32\[4, 5\].*float32\[2, 3\]"):
        to_static(branch_shapes)(paddle.to_tensor(1), paddle.to_tensor(2))


# 2.1 a while condition that starts as a Python bool and becomes a Tensor
def while_pred_changes(x):
    t = 2
    while t < 10:               # <--- a bool first, a Tensor after one trip
        t = paddle.shape(x)[0]
        x = paddle.concat([x, x])
    return x


def test_while_pred_changes_type():
    same(*eager_and_static(while_pred_changes, paddle.ones([2, 3])))


# 2.2 None before the loop, a Tensor after one trip
def none_then_tensor(x):
    cache = None
    y = paddle.to_tensor(0.)
    while y.mean() < 10:
        if cache is None:
            y = x + 1
        else:
            y = x + cache
        cache = y

    return y


@pytest.mark.parametrize("start", [1.0, 20.0])
def test_none_then_tensor(start):
    # eagerly the first trip sees None, the later ones the Tensor: the first trip is an if on
    # the condition with the (now typed) loop inside it
    same(*eager_and_static(none_then_tensor, paddle.to_tensor(start)))


def none_then_tensor_returned(x):
    cache = None
    y = x
    while y.mean() < 10:
        if cache is None:
            y = y + 1
        else:
            y = y + cache
        cache = y
    return y, cache


@pytest.mark.parametrize("start", [1.0, 9.5, 10.0, 20.0])
def test_none_then_tensor_returned_after_zero_or_more_trips(start):
    # zero trips leave cache None: the result is None on that path, the Tensor on the others
    want, got = eager_and_static(none_then_tensor_returned, paddle.to_tensor(start))
    same(want[0], got[0])
    assert (got[1] is None) == (want[1] is None)
    if want[1] is not None:
        same(want[1], got[1])


def do_while(x):
    y = x + 1
    cache = y
    while y.mean() < 10:
        y = x + cache
        cache = y

    return y


@pytest.mark.parametrize("start", [1.0, 20.0])
def test_do_while(start):
    same(*eager_and_static(do_while, paddle.to_tensor(start)))


# 2.3 a loop variable whose shape grows
def growing(x, y):
    for i in range(paddle.to_tensor(3)):
        x = paddle.concat([x, y], axis=0)
    return x


def test_growing_shape():
    want, got = eager_and_static(growing, paddle.ones([2, 3]), paddle.ones([2, 3]) * 2)
    same(want, got)
    assert got.shape == [8, 3]


# container 1.1: a nested list appended to in a tensor loop
def nested_list_append(x):
    t = paddle.shape(x)[0]
    out = [[1, 2], [2, 3]]
    for i in range(t):
        out.append(i)

    return out


def test_nested_list_append():
    # eagerly [[1, 2], [2, 3], 0, 1]; a list a tensor loop grows is a tensor array, which
    # cannot hold the nested lists: a clear error naming the list and the item
    assert nested_list_append(paddle.ones([2, 3])) == [[1, 2], [2, 3], 0, 1]
    with pytest.raises(TypeError, match=r"list 'out' changes length.*item 0 before the loop "
                                        r"is list \[1, 2\]"):
        to_static(nested_list_append)(paddle.ones([2, 3]))


def nested_list_as_tensors(x):
    # PaddlePaddle's suggested rewrite
    t = paddle.shape(x)[0]
    out = [paddle.to_tensor([1, 2]), paddle.to_tensor([2, 3])]
    for i in range(t):
        out.append(i)

    return out


def test_nested_list_as_tensors_of_other_shapes_names_the_line():
    # PaddlePaddle's suggested rewrite mixes [2]-shaped items with numbers: eagerly a list of
    # 4; a tensor array here holds items of one shape, and the error names the append
    assert len(nested_list_as_tensors(paddle.ones([2, 3]))) == 4
    with pytest.raises(ValueError, match=r"array_write\(\).*shape \[\].*have shape \[2\]"):
        to_static(nested_list_as_tensors)(paddle.ones([2, 3]))


# container 1.2: append / pop / setitem, then iterate
def list_ops(x):
    res = []
    for i in range(x):
        res.append(1)
        res.append(x)
        res.pop(-1)
        res[0] = 12
        del res[0]      # (unsupported in PaddlePaddle)
        res.append(12)

    out = 0.
    for i in res:
        out += i
    return out


@pytest.mark.parametrize("n", [0, 1, 3])
def test_list_ops(n):
    want, got = eager_and_static(list_ops, paddle.to_tensor(n))
    assert float(got) == float(want)


# container 1.3: a dict key added in a tensor loop
def dict_key_in_loop(x):
    res = {'a': 1}
    t = paddle.shape(x)[0]
    for i in range(t):
        res['b'] = i        # <--- (unsupported in PaddlePaddle)
    return res


@pytest.mark.parametrize("rows", [0, 2])
def test_dict_key_in_loop(rows):
    want, got = eager_and_static(dict_key_in_loop, paddle.ones([rows, 3]))
    assert list(got) == list(want)
    assert {k: int(v) for k, v in got.items()} == {k: int(v) for k, v in want.items()}


# container 2.1: item assignment without rebinding the dict
def dict_item_in_loop(x):
    a = {'a': 1}
    t = paddle.shape(x)[0]
    for i in range(t):
        a['a'] = i
    return a


@pytest.mark.parametrize("rows", [0, 3])
def test_dict_item_in_loop(rows):
    want, got = eager_and_static(dict_item_in_loop, paddle.ones([rows, 3]))
    assert {k: int(v) for k, v in got.items()} == {k: int(v) for k, v in want.items()}


# syntax 3: isinstance of a value set in both branches of a tensor if
def isinstance_after_if(x):
    a = paddle.to_tensor(2)
    b = None
    if a > 1:
        b = 1
    else:
        b = -1

    if isinstance(b, int):
        c = "b is int"
    else:
        c = "b is not int"

    return b, c


def test_isinstance_after_if():
    want, got = eager_and_static(isinstance_after_if, paddle.to_tensor([3]))
    assert got[1] == want[1] == "b is int" and int(got[0]) == want[0] == 1


# syntax 2: set_state_dict inside forward
class mylayer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(5, 2)

    def forward(self, x):
        old_dict = self.state_dict()
        wgt = old_dict['linear.weight']
        drop_w = wgt * 0.5
        old_dict['linear.weight'] = drop_w
        self.set_state_dict(old_dict)

        return self.linear(x)


def test_set_state_dict_in_forward_names_the_line():
    # set_state_dict copies computed values into parameters while the program is built: a
    # clear error naming the line (PaddlePaddle does not support it either); with
    # full_graph=False the call runs eagerly, as the code means
    x = paddle.ones([3, 5])
    with pytest.raises(Exception, match="not known while the program is built") as info:
        paddle.jit.to_static(mylayer(), full_graph=True)(x)
    assert "self.set_state_dict(old_dict)" in "\n".join(getattr(info.value, "__notes__", []))
    paddle.seed(3)
    a = mylayer()
    b = mylayer()
    b.set_state_dict(a.state_dict())
    want = [a(x).numpy() for _ in range(2)]
    sb = paddle.jit.to_static(b, full_graph=False)
    got = [sb(x).numpy() for _ in range(2)]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
