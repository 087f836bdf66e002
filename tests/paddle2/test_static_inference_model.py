"""paddle.static.save_inference_model / load_inference_model with PaddlePaddle 2.x arguments
(Variables, a path prefix: ``prefix.pdmodel`` / ``.pdiparams``) and the 1.8 spelling (feed
names, a directory), loaded into a fresh Scope and run by an Executor to the same numbers."""
import os

import numpy as np
import pytest

import core
import dy2static as paddle

X = np.random.RandomState(0).rand(6, 4).astype("float32")


def _static_net():
    main, startup = paddle.static.Program(), paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 4], "float32")
            h = paddle.static.nn.fc(x, 8, activation="relu")
            y = paddle.static.nn.fc(h, 2)
    finally:
        paddle.disable_static()
    return main, startup, x, y


def test_static_save_inference_model_2x_round_trip(tmp_path):
    main, startup, x, y = _static_net()
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(core.CPUPlace())
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        expected, = exe.run(main, feed={"x": X}, fetch_list=[y])
        prefix = str(tmp_path / "infer" / "net")
        assert paddle.static.save_inference_model(prefix, [x], [y], exe, program=main) == \
            [y.name]
        paddle.static.save_inference_model(str(tmp_path / "one"), x, y, exe, program=main)
    assert {"net.pdmodel", "net.pdiparams"} <= set(os.listdir(tmp_path / "infer"))
    for path in (prefix, str(tmp_path / "one")):
        fresh = paddle.static.Scope()
        with paddle.static.scope_guard(fresh):
            program, feeds, fetches = paddle.static.load_inference_model(path, exe)
            assert feeds == ["x"] and [v.name for v in fetches] == [y.name]
            got, = exe.run(program, feed={"x": X}, fetch_list=fetches)
        np.testing.assert_allclose(got, expected, rtol=1e-6)
        ops = [op.type for op in program.global_block().ops]
        assert "sgd" not in ops and ops  # the pruned inference program


def test_static_save_inference_model_1x_spelling_writes_a_directory(tmp_path):
    main, startup, _, y = _static_net()
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(core.CPUPlace())
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        expected, = exe.run(main, feed={"x": X}, fetch_list=[y])
        paddle.static.save_inference_model(str(tmp_path / "dir"), ["x"], [y], exe, main)
        core.io.save_inference_model(str(tmp_path / "core"), ["x"], [y], exe,
                                     main_program=main, params_filename="__params__")
    assert os.path.isdir(tmp_path / "dir")
    for load, path, kwargs in ((paddle.static.load_inference_model, "dir", {}),
                               (core.io.load_inference_model, "dir", {}),
                               (paddle.static.load_inference_model, "core",
                                {"params_filename": "__params__"})):
        with paddle.static.scope_guard(paddle.static.Scope()):
            program, _, fetches = load(str(tmp_path / path), exe, **kwargs)
            got, = exe.run(program, feed={"x": X}, fetch_list=fetches)
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_static_save_inference_model_errors(tmp_path):
    main, startup, x, y = _static_net()
    exe = paddle.static.Executor(core.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        with pytest.raises(TypeError, match="'feed_vars'"):
            paddle.static.save_inference_model(str(tmp_path / "m"), 3, [y], exe, program=main)
        with pytest.raises(TypeError, match="'fetch_vars'"):
            paddle.static.save_inference_model(str(tmp_path / "m"), [x], [y.name], exe,
                                               program=main)
        with pytest.raises(ValueError, match="existing directory"):
            paddle.static.save_inference_model(str(tmp_path), [x], [y], exe, program=main)
        with pytest.raises(TypeError, match="unexpected"):
            paddle.static.save_inference_model(str(tmp_path / "m"), [x], [y], exe, main,
                                               model_filename="m")
    assert os.listdir(tmp_path) == []
    with pytest.raises(FileNotFoundError, match=r"nothing\.pdmodel"):
        paddle.static.load_inference_model(str(tmp_path / "nothing"), exe)
