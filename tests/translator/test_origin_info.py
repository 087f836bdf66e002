"""Errors in converted code name the user's file, line and source; ops record origins."""
import numpy as np
import pytest

import core
from translator import convert as c
from translator import origin_info


def fails(x):
    y = x + 1
    if y > 0:
        y = y / 0
    return y


def where():
    if True:
        return origin_info.current_user_origin()


def test_exception_notes_point_to_user_line():
    with pytest.raises(ZeroDivisionError) as info:
        c.convert_to_static(fails)(1)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    line = fails.__code__.co_firstlineno + 3
    assert f"line {line}" in notes and "y = y / 0" in notes and "test_origin_info.py" in notes


def test_current_user_origin():
    filename, line, source = c.convert_to_static(where)()
    assert filename.endswith("test_origin_info.py")
    assert line == where.__code__.co_firstlineno + 2
    assert source == "return origin_info.current_user_origin()"
    assert origin_info.current_user_origin() is None


def test_converted_source_is_in_linecache():
    import inspect

    f = c.convert_to_static(fails).__wrapped__
    assert "convert_ifelse" in inspect.getsource(f)


def test_static_ops_record_the_user_line():
    def g(x):
        y = x * 3
        return y

    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            c.convert_to_static(g)(core.static.data("x", [2], "float32"))
        finally:
            core.disable_static()
    origins = [op.origin for op in main.global_block().ops if getattr(op, "origin", None)]
    assert any(o[1] == g.__code__.co_firstlineno + 1 for o in origins)
    assert np is not None
