"""The runtime helper modules on their own: the ``_d2s`` namespace, closure state, tensor-array
reads and ``stack`` / ``concat`` of a tensor array, each on the Python and the static path."""
import numpy as np
import pytest

import core
from translator import convert_ops, convert_state, tensor_list


def _static(build):
    """Build ``build()`` (returns fetch Variables) in a fresh Program and run it."""
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            fetch = build()
        finally:
            core.disable_static()
    exe = core.Executor(core.CPUPlace())
    exe.run(startup)
    return exe.run(main, fetch_list=list(fetch))


def test_namespace_exports_the_helpers_from_their_modules():
    for name in convert_ops.__all__:
        value = getattr(convert_ops, name)
        assert callable(value), name
        assert value.__module__ != convert_ops.__name__, f"{name} belongs in a concern module"
    assert convert_ops.convert_list_getitem is tensor_list.convert_list_getitem


def test_closure_state_reads_unbound_names_as_undefined():
    def outer():
        a = 1

        def body():
            nonlocal a, b
            a = b
        b = 2
        del b
        return body

    get_args, set_args = convert_state.closure_state(outer(), ("a", "b"))
    a, b = get_args()
    assert a == 1 and convert_state.is_undefined(b)
    with pytest.raises(UnboundLocalError, match="'b'"):
        b + 1
    set_args((5, 6))
    assert get_args() == (5, 6)


def test_closure_state_names_a_missing_cell():
    def body():
        return None

    with pytest.raises(RuntimeError, match="does not share"):
        convert_state.closure_state(body, ("x",))


@pytest.mark.parametrize("index", [0, 2, -1, -3])
def test_list_getitem_python(index):
    assert convert_ops.convert_list_getitem([4, 5, 6], index) == [4, 5, 6][index]


@pytest.mark.parametrize("index", [0, 2, -1, -3])
@pytest.mark.parametrize("static_index", [False, True])
def test_list_getitem_tensor_array(index, static_index):
    values = [np.full([2], v, dtype="float32") for v in (1.0, 2.0, 3.0)]

    def build():
        array = tensor_list.list_to_array([core.layers.assign(v) for v in values])
        i = core.layers.fill_constant([], "int64", index) if static_index else index
        return [convert_ops.convert_list_getitem(array, i)]

    (got,) = _static(build)
    np.testing.assert_allclose(got, values[index])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack_and_concat_take_a_tensor_array(axis):
    values = [np.arange(6, dtype="float32").reshape(2, 3) * k for k in (1, 2)]

    def build():
        array = tensor_list.list_to_array([core.layers.assign(v) for v in values])
        return [core.layers.stack(array, axis=axis), core.layers.concat(array, axis=axis)]

    stacked, joined = _static(build)
    np.testing.assert_allclose(stacked, np.stack(values, axis=axis))
    np.testing.assert_allclose(joined, np.concatenate(values, axis=axis))


def test_stack_of_an_unwritten_tensor_array_is_a_clear_error():
    def build():
        array = core.layers.create_array("float32")
        with pytest.raises(ValueError, match="nothing is written"):
            core.layers.stack(array)
        with pytest.raises(ValueError, match="out of range"):
            core.layers.concat(tensor_list.list_to_array([core.layers.zeros([2], "float32")]),
                               axis=1)
        return []

    assert _static(build) == []


def test_python_numbers_become_constants_of_their_kind():
    def build():
        outs = [convert_state.to_variable(v) for v in (True, 3, 2.5)]
        assert [convert_state.dtype_name(o) for o in outs] == ["bool", "int64", "float32"]
        like = core.layers.zeros([], "float64")
        same = convert_state.to_variable(7, like)
        assert convert_state.dtype_name(same) == "float64"
        assert convert_state.to_variable([1]) is None
        return outs + [same]

    got = _static(build)
    assert [v.item() for v in got] == [True, 3, 2.5, 7.0]
