"""``load_inference_model(dirname, exe, model_filename='NAME.pdmodel',
params_filename='NAME.pdiparams')`` reads a path-prefix save (``save_inference_files``, what
``paddle.jit.save`` writes), as PaddlePaddle 2.x loads a jit-saved model in static mode."""
import os

import numpy as np
import pytest

import core
from core import static
from core.io import inference


def _saved(tmp_path):
    main, startup = static.Program(), static.Program()
    core.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [None, 3], "float32")
            y = core.layers.fc(x, 2)
    finally:
        core.disable_static()
    exe = static.Executor(core.CPUPlace())
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        inference.save_inference_files(os.path.join(tmp_path, "m"), [x], [y], exe,
                                       program=main)
        feed = np.arange(6, dtype="float32").reshape(2, 3)
        expected, = exe.run(main, feed={"x": feed}, fetch_list=[y])
    return feed, expected


def test_model_filename_names_a_path_prefix_save(tmp_path):
    feed, expected = _saved(tmp_path)
    exe = static.Executor(core.CPUPlace())
    with static.scope_guard(static.Scope()):
        program, feeds, fetches = inference.load_inference_model(
            str(tmp_path), exe, model_filename="m.pdmodel", params_filename="m.pdiparams")
        assert feeds == ["x"]
        got, = exe.run(program, feed={"x": feed}, fetch_list=fetches)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    with static.scope_guard(static.Scope()):  # params_filename may be left out
        program, _, fetches = inference.load_inference_model(str(tmp_path), exe,
                                                             model_filename="m.pdmodel")
        got, = exe.run(program, feed={"x": feed}, fetch_list=fetches)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_other_params_filename_of_a_path_prefix_save_raises(tmp_path):
    _saved(tmp_path)
    with pytest.raises(ValueError, match=r"params_filename=.m\.pdiparams."):
        inference.load_inference_model(str(tmp_path), static.Executor(core.CPUPlace()),
                                       model_filename="m.pdmodel", params_filename="w.bin")
