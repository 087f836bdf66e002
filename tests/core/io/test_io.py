"""core.io on static programs: save_inference_model prunes and round-trips bit for bit,
save/load of persistables, params and vars (one file per variable or one combined file),
program JSON (de)serialisation and its strict validation, and clear errors for damaged,
truncated, newer, foreign and mismatched saves."""
import json
import os
import re
import runpy

import numpy as np
import pytest

import core
from core import io, layers
from core.dispatch import apply
from core.serialization import ModelFormatError
from core.static.builder import op_role_guard
from core.static.serialize import program_from_dict, program_to_dict

FEED = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
LABEL = np.random.default_rng(1).standard_normal((5, 2)).astype(np.float32)


def _build(train_ops="hand"):
    """x -> fc(relu) -> dropout -> y; a loss on a label; unrelated and feed-independent
    branches; and training ops (hand-made backward / optimize ops, or a real SGD.minimize)."""
    main, startup = core.Program(), core.Program()
    main.random_seed = startup.random_seed = 7
    with core.program_guard(main, startup), core.unique_name.guard():
        x = core.static.data("x", [-1, 3], "float32")
        label = core.static.data("label", [-1, 2], "float32")
        hidden = layers.fc(input=x, size=2, act="relu")
        y = layers.dropout(hidden, 0.5)
        layers.exp(x)  # feed-dependent but not needed
        layers.scale(layers.fill_constant([2], "float32", 3.0), 2.0)  # needs no feed at all
        loss = layers.reduce_mean(layers.square(y - label))
        if train_ops == "hand":
            w = main.global_block().var("fc_0.w_0")
            with op_role_guard("backward", main):
                fake_grad = layers.scale(loss, 0.0)
            with op_role_guard("optimize", main):
                lr = core.static.create_global_var([1], 0.1, "float32", persistable=True,
                                                   name="learning_rate_0")
                grad = layers.expand(layers.reshape(fake_grad, [1, 1]), [3, 2])
                apply("sgd", [w, grad, lr], outputs={0: w})
        else:
            core.optimizer.SGD(learning_rate=0.01).minimize(loss)
    return main, startup, y, loss


def _build_in_static_mode():
    """:func:`_build` with ``core.enable_static()`` switched on around it (and off after)."""
    core.enable_static()
    try:
        return _build()
    finally:
        core.disable_static()


def _run_startup(startup, scope):
    exe = core.Executor(core.CPUPlace())
    exe.run(startup, scope=scope)
    return exe


def _reference(main, y, scope):
    exe = core.Executor(core.CPUPlace())
    test_prog = main.clone(for_test=True)
    return exe.run(test_prog, feed={"x": FEED}, fetch_list=[y.name], scope=scope)[0]


def _model_doc(dirname, name=io.MODEL_FILENAME):
    from core.serialization import DirectoryReader

    return DirectoryReader(dirname).read_json(name)


# -- inference models -----------------------------------------------------------------------------
@pytest.mark.parametrize("train_ops", ["hand", "minimize"])
def test_inference_model_is_pruned_and_round_trips_bit_for_bit(static_mode, tmp_path, train_ops):
    main, startup, y, _ = _build(train_ops)
    scope = core.Scope()
    exe = _run_startup(startup, scope)
    exe.run(main, feed={"x": FEED, "label": LABEL}, scope=scope)  # one training step
    expected = _reference(main, y, scope)
    with core.scope_guard(scope):
        names = io.save_inference_model(str(tmp_path / "m"), ["x"], [y], exe, main_program=main)
    assert names == [y.name]
    program = _model_doc(tmp_path / "m")["program"]
    ops = [op for b in program["blocks"] for op in b["ops"]]
    assert [op["type"] for op in ops] == ["mul", "elementwise_add", "relu", "dropout"]
    assert all(op["role"] == "forward" for op in ops)
    assert [op["attrs"]["is_test"] for op in ops if op["type"] == "dropout"] == [True]
    var_names = {v["name"] for v in program["blocks"][0]["vars"]}
    assert "label" not in var_names and not any("@GRAD" in n for n in var_names)
    assert {"x", "fc_0.w_0", "fc_0.b_0", y.name} <= var_names
    with core.scope_guard(core.Scope()) as fresh:
        prog, feeds, fetches = io.load_inference_model(str(tmp_path / "m"), exe)
        assert feeds == ["x"] and [v.name for v in fetches] == [y.name]
        assert sorted(fresh.local_var_names()) == ["fc_0.b_0", "fc_0.w_0"]
        (out,) = exe.run(prog, feed={"x": FEED}, fetch_list=fetches)
    assert out.dtype == expected.dtype and out.tobytes() == expected.tobytes()


def test_works_in_eager_mode_too(tmp_path):
    main, startup, y, _ = _build_in_static_mode()
    scope = core.Scope()
    exe = _run_startup(startup, scope)
    expected = _reference(main, y, scope)
    assert core.in_dynamic_mode()
    io.save_inference_model(str(tmp_path / "m"), "x", y, exe, main_program=main, scope=scope,
                            model_filename="model", params_filename="params")
    prog, feeds, fetches = io.load_inference_model(str(tmp_path / "m"), exe, "model", "params",
                                                   scope=scope)
    assert feeds == ["x"]
    (out,) = exe.run(prog, feed={"x": FEED}, fetch_list=fetches, scope=scope)
    assert out.tobytes() == expected.tobytes()
    with pytest.raises(ValueError, match="saved with params_filename='params', not 'other'"):
        io.load_inference_model(str(tmp_path / "m"), exe, "model", "other", scope=scope)
    with pytest.raises(FileNotFoundError, match=r"no file '__model__.json'.*'model'"):
        io.load_inference_model(str(tmp_path / "m"), exe, scope=scope)


def test_missing_feed_and_unknown_names(static_mode, tmp_path):
    main, startup, y, loss = _build()
    scope = core.Scope()
    exe = _run_startup(startup, scope)
    with pytest.raises(ValueError, match=r"need \['label'\].*neither fed"):
        io.save_inference_model(str(tmp_path / "a"), ["x"], [loss], exe, main, scope=scope)
    with pytest.raises(ValueError, match="feeded_var_names names 'nope'"):
        io.save_inference_model(str(tmp_path / "b"), ["nope"], [y], exe, main, scope=scope)
    with pytest.raises(ValueError, match=r"'fc_0.w_0' has no value in the scope"):
        io.save_inference_model(str(tmp_path / "c"), ["x"], [y], exe, main, scope=core.Scope())
    assert not os.path.exists(tmp_path / "a") or not os.listdir(tmp_path / "a")


def test_program_only_and_unpruned_export(static_mode, tmp_path):
    main, startup, y, loss = _build()
    scope = core.Scope()
    exe = _run_startup(startup, scope)
    io.save_inference_model(str(tmp_path / "p"), ["x"], [y], exe, main, program_only=True,
                            scope=scope)
    fresh = core.Scope()
    prog, _, fetches = io.load_inference_model(str(tmp_path / "p"), exe, scope=fresh)
    assert fresh.local_var_names() == []
    with pytest.raises(RuntimeError, match=r"fc_0.w_0"):
        exe.run(prog, feed={"x": FEED}, fetch_list=fetches, scope=fresh)
    io.save_params(exe, str(tmp_path / "params"), main, scope=scope)
    io.load_params(exe, str(tmp_path / "params"), prog, scope=fresh)
    (out,) = exe.run(prog, feed={"x": FEED}, fetch_list=fetches, scope=fresh)
    assert out.tobytes() == _reference(main, y, scope).tobytes()
    io.save_inference_model(str(tmp_path / "full"), ["x", "label"], [loss], exe, main,
                            export_for_deployment=False, scope=scope)
    roles = {op["role"] for b in _model_doc(tmp_path / "full")["program"]["blocks"]
             for op in b["ops"]}
    assert roles == {"forward", "backward", "optimize"}


def test_control_flow_sub_blocks_are_kept_and_renumbered(static_mode, tmp_path):
    main, startup = core.Program(), core.Program()
    with core.program_guard(main, startup):
        x = core.static.data("x", [-1, 3], "float32")
        gb = main.global_block()
        unused = main._create_block()  # block 1: belongs to no kept op
        layers.scale(x, 5.0)
        main._rollback()
        pred = layers.less_than(layers.reduce_sum(x), layers.fill_constant([], "float32", 0.0))
        outs = []
        for factor in (2.0, 3.0):
            main._create_block()
            outs.append(layers.scale(x, factor).name)
            main._rollback()
        out = gb.create_var(name="out", shape=[-1, 3], dtype="float32")
        gb.append_op("cond", {"Cond": [pred.name], "Input": [x.name]}, {"Out": ["out"]},
                     {"true_block": 2, "false_block": 3, "true_outs": [outs[0]],
                      "false_outs": [outs[1]]})
    assert unused.idx == 1
    exe = core.Executor(core.CPUPlace())
    for sign in (1, -1):
        expected = exe.run(main, feed={"x": sign * np.abs(FEED)}, fetch_list=[out])[0]
        io.save_inference_model(str(tmp_path / "cf"), ["x"], [out], exe, main,
                                scope=core.Scope())
        blocks = _model_doc(tmp_path / "cf")["program"]["blocks"]
        assert [b["idx"] for b in blocks] == [0, 1, 2]
        cond = next(op for op in blocks[0]["ops"] if op["type"] == "cond")
        assert (cond["attrs"]["true_block"], cond["attrs"]["false_block"]) == (1, 2)
        prog, _, fetches = io.load_inference_model(str(tmp_path / "cf"), exe, scope=core.Scope())
        got = exe.run(prog, feed={"x": sign * np.abs(FEED)}, fetch_list=fetches)[0]
        assert got.tobytes() == expected.tobytes()


def test_fit_a_line_example_trains_exports_and_predicts(tmp_path, capsys):
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples",
                        "fit_a_line.py")
    example = runpy.run_path(path)
    assert example["main"](["fit_a_line.py", str(tmp_path / "model")]) == 0
    out = capsys.readouterr().out
    found = re.search(r"prediction for \[9.0, 5.0, 2.0, 10.0\]: ([0-9.]+) \(true value 100.0\)",
                      out)
    assert found, out
    assert abs(float(found.group(1)) - 100.0) < 1.0  # the seed's 9a+5b+2c+10d for 4a+6b+7c+2d
    assert core.in_dynamic_mode()
    program, feeds, fetches = io.load_inference_model(str(tmp_path / "model"),
                                                      core.Executor(), scope=core.Scope())
    assert len(fetches) == 1 and feeds == ["x"]
    assert [op.type for op in program.global_block().ops] == ["mul", "elementwise_add"]


# -- variables ------------------------------------------------------------------------------------
@pytest.mark.parametrize("filename", [None, "all_vars"])
@pytest.mark.parametrize("which", ["persistables", "params"])
def test_save_load_variables(static_mode, tmp_path, filename, which):
    main, startup, _, _ = _build()
    save, load = getattr(io, f"save_{which}"), getattr(io, f"load_{which}")
    scope = core.Scope()
    exe = _run_startup(startup, scope)
    exe.run(main, feed={"x": FEED, "label": LABEL}, scope=scope)
    saved = {n: np.array(scope.find_var(n).get_tensor()) for n in scope.local_var_names()
             if scope.find_var(n).is_initialized()}
    with core.scope_guard(scope):
        save(exe, str(tmp_path / "v"), main, filename=filename)
    fresh = core.Scope()
    with core.scope_guard(fresh):
        load(exe, str(tmp_path / "v"), main, filename=filename)
    expected = ({v.name for v in main.list_vars() if io.is_persistable(v)} if
                which == "persistables" else {p.name for p in main.all_parameters()})
    assert set(fresh.local_var_names()) == expected
    assert ("learning_rate_0" in expected) == (which == "persistables")
    for n in expected:
        assert np.array(fresh.find_var(n).get_tensor()).tobytes() == saved[n].tobytes()


def test_save_vars_by_list_and_predicate_accumulate(static_mode, tmp_path):
    main, startup, _, _ = _build()
    scope = core.Scope()
    exe = _run_startup(startup, scope)
    d = str(tmp_path / "v")
    io.save_vars(exe, d, main, vars=["fc_0.w_0"], scope=scope)
    io.save_vars(exe, d, main, predicate=lambda v: v.name == "fc_0.b_0", scope=scope)
    fresh = core.Scope()
    io.load_vars(exe, d, main, vars=[main.global_block().var("fc_0.w_0"), "fc_0.b_0"],
                 scope=fresh)
    assert sorted(fresh.local_var_names()) == ["fc_0.b_0", "fc_0.w_0"]
    with pytest.raises(ValueError, match="'x' was not saved there"):
        io.load_vars(exe, d, main, vars=["x"], scope=fresh)
    with pytest.raises(ValueError, match=r"'fc_0.b_0' is not in the file 'one'"):
        io.save_vars(exe, d, main, vars=["fc_0.w_0"], filename="one", scope=scope)
        io.load_vars(exe, d, main, vars=["fc_0.b_0"], filename="one", scope=fresh)


def test_parameter_shape_and_dtype_mismatch(static_mode, tmp_path):
    main, startup, _, _ = _build()
    scope = core.Scope()
    exe = _run_startup(startup, scope)
    io.save_params(exe, str(tmp_path / "v"), main, scope=scope)
    other, other_startup = core.Program(), core.Program()
    with core.program_guard(other, other_startup), core.unique_name.guard():
        layers.fc(input=core.static.data("x", [-1, 4], "float32"), size=2)
    with pytest.raises(ValueError, match=r"'fc_0.w_0' is declared with shape \[4, 2\] but the "
                                         r"saved value has shape \[3, 2\]"):
        io.load_params(exe, str(tmp_path / "v"), other, scope=core.Scope())
    other.global_block().var("fc_0.w_0").shape = [3, 2]
    other.global_block().var("fc_0.w_0").dtype = np.dtype("float64")
    with pytest.raises(ValueError, match="declared as float64 but the saved value is float32"):
        io.load_params(exe, str(tmp_path / "v"), other, scope=core.Scope())


# -- damaged model directories ------------------------------------------------------------------
def _saved_model(tmp_path, **save_options):
    main, startup, y, _ = _build_in_static_mode()
    scope = core.Scope()
    exe = _run_startup(startup, scope)
    d = tmp_path / "m"
    io.save_inference_model(str(d), ["x"], [y], exe, main, scope=scope, **save_options)
    gen = next(n for n in os.listdir(d) if n.startswith("gen-"))
    return d, d / gen, exe


def test_damaged_truncated_newer_foreign_model_dirs(tmp_path):
    d, gen, exe = _saved_model(tmp_path)
    model = gen / "__model__.json"
    good = model.read_bytes()
    model.write_bytes(good.replace(b'"relu"', b'"reLU"'))
    with pytest.raises(ModelFormatError, match=r"__model__.json: checksum mismatch"):
        io.load_inference_model(str(d), exe, scope=core.Scope())
    model.write_bytes(good[:-10])
    with pytest.raises(ModelFormatError, match=r"__model__.json is truncated"):
        io.load_inference_model(str(d), exe, scope=core.Scope())
    model.write_bytes(good)
    w = gen / "fc_0.w_0.npy"
    w_good = w.read_bytes()
    w.write_bytes(w_good[:-1] + bytes([w_good[-1] ^ 1]))
    with pytest.raises(ModelFormatError, match=r"fc_0\.w_0\.npy \(array 'fc_0\.w_0'\): checksum"):
        io.load_inference_model(str(d), exe, scope=core.Scope())
    w.write_bytes(w_good)
    manifest = d / "__manifest__.json"
    doc = json.loads(manifest.read_text())
    doc["version"] = 2
    manifest.write_text(json.dumps(doc))
    with pytest.raises(ModelFormatError, match=r"version 2 .*up to 1"):
        io.load_inference_model(str(d), exe, scope=core.Scope())
    manifest.write_text("<html>not a model</html>")
    with pytest.raises(ModelFormatError, match="damaged JSON"):
        io.load_inference_model(str(d), exe, scope=core.Scope())
    os.unlink(manifest)
    with pytest.raises(FileNotFoundError, match="holds no dy2static save"):
        io.load_inference_model(str(d), exe, scope=core.Scope())


# -- program descriptions -----------------------------------------------------------------------
def _program_dict():
    main = _build_in_static_mode()[0]
    return main, program_to_dict(main)


def test_program_dict_round_trip_through_json():
    main, d = _program_dict()
    text = json.dumps(d)
    back = program_from_dict(json.loads(text))
    assert program_to_dict(back) == d
    assert str(back) == str(main)
    assert isinstance(back.global_block().var("fc_0.w_0"), core.static.program.Parameter)


def _break(d, path, value):
    target = d
    for k in path[:-1]:
        target = target[k]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value


@pytest.mark.parametrize("path,value,message", [
    (("blocks", 0, "ops", 0, "type"), "os_system", "unknown op type 'os_system'"),
    (("blocks", 0, "ops", 0, "type"), "__import__", "unknown op type '__import__'"),
    (("blocks", 0, "ops", 0, "attrs", "evil"), 1, r"no attribute\(s\) \['evil'\]"),
    (("blocks", 0, "ops", 0, "inputs", "Z"), ["x"], r"no input slot\(s\) \['Z'\]"),
    (("blocks", 0, "ops", 0, "inputs", "X"), ["ghost"], "uses variable 'ghost'"),
    (("blocks", 0, "ops", 0, "inputs", "X"), "x", "'inputs.X' must be a list"),
    (("blocks", 0, "ops", 0, "role"), "sometimes", "field 'role'"),
    (("blocks", 0, "ops", 0, "attrs"), KeyError, "missing field 'attrs'"),
    (("blocks", 0, "vars", 0, "dtype"), "float128", "field 'dtype'"),
    (("blocks", 0, "vars", 0, "shape"), [-2, 3], "field 'shape'"),
    (("blocks", 0, "vars", 0, "persistable"), "yes", "field 'persistable' has the wrong type"),
    (("blocks", 0, "vars", 1), {"name": "x"}, "declared twice|missing field"),
    (("blocks", 0, "parent_idx"), 0, "field 'parent_idx'"),
    (("blocks", 0, "idx"), 3, "field 'idx'"),
    (("blocks",), [], "field 'blocks' is empty"),
    (("random_seed",), "7", "field 'random_seed'"),
    (("version",), 9, "version 9 .*up to 1"),
    (("format",), "onnx", "foreign"),
])
def test_program_from_dict_rejects_malformed(path, value, message):
    _, d = _program_dict()
    _break(d, path, value)
    with pytest.raises(ModelFormatError, match=message):
        program_from_dict(d, "model.json")


def test_sub_block_index_is_validated():
    _, d = _program_dict()
    d["blocks"].append({"idx": 1, "parent_idx": 0, "vars": [], "ops": []})
    op = {"type": "cond", "inputs": {"Cond": ["x"], "Input": []}, "outputs": {"Out": []},
          "attrs": {"true_block": 1, "false_block": 5, "true_outs": [], "false_outs": []},
          "role": "forward"}
    d["blocks"][0]["ops"].append(op)
    with pytest.raises(ModelFormatError, match="'false_block' = 5 is not a sub-block index"):
        program_from_dict(d)
    op["attrs"]["false_block"] = 1
    assert program_from_dict(d).num_blocks == 2


def test_trained_control_flow_model_round_trips_without_gradient_blocks(static_mode, tmp_path):
    """A model whose parameters are read inside a while loop and a cond, trained with Adam: the
    saved program keeps the forward sub-blocks, none of the gradient blocks or optimizer ops, and
    reloads to the same outputs bit for bit whichever branch the data takes."""
    main, startup = core.Program(), core.Program()
    main.random_seed = startup.random_seed = 3
    with core.program_guard(main, startup), core.unique_name.guard():
        x = core.static.data("x", [-1, 3], "float32")
        n = core.static.data("n", [1], "int64")
        w = core.static.create_parameter([3, 3], "float32", name="w_rnn")
        i = layers.fill_constant([1], "int64", 0)

        def body(i, h):
            h = layers.tanh(layers.matmul(h, w) + x)
            h = layers.cond(layers.reduce_sum(h) > 0.0, lambda: h * 2.0, lambda: h)
            return [i + 1, h]

        _, h = layers.while_loop(lambda i, h: i < n, body, [i, x])
        y = layers.fc(h, 2)
        loss = layers.mean(layers.square(y))
        core.optimizer.Adam(0.01).minimize(loss)
    assert any(b.forward_block_idx >= 0 for b in main.blocks)  # gradient blocks exist
    scope = core.Scope()
    exe = _run_startup(startup, scope)
    for _ in range(2):
        exe.run(main, feed={"x": FEED, "n": np.array([3])}, scope=scope)
    test_prog = main.clone(for_test=True)
    io.save_inference_model(str(tmp_path / "rnn"), ["x", "n"], [y], exe, main, scope=scope)
    program = _model_doc(tmp_path / "rnn")["program"]
    types = {op["type"] for b in program["blocks"] for op in b["ops"]}
    assert {"while", "cond", "tanh", "matmul"} <= types
    assert not any(t.endswith("_grad") or t in ("adam", "grad_sum") for t in types), types
    assert all(b["forward_block_idx"] == -1 for b in program["blocks"])
    assert len(program["blocks"]) == 4  # global, loop body, two branches
    kept = {v["name"] for b in program["blocks"] for v in b["vars"]}
    assert not any("moment" in v or "@GRAD" in v for v in kept) and "w_rnn" in kept
    fresh = core.Scope()
    prog, feeds, fetches = io.load_inference_model(str(tmp_path / "rnn"), exe, scope=fresh)
    assert feeds == ["x", "n"]
    assert sorted(fresh.local_var_names()) == ["fc_0.b_0", "fc_0.w_0", "w_rnn"]
    for sign, steps in ((1, 3), (-1, 2), (1, 0)):
        feed = {"x": sign * FEED, "n": np.array([steps])}
        want, = exe.run(test_prog, feed=feed, fetch_list=[y.name], scope=scope)
        got, = exe.run(prog, feed=feed, fetch_list=fetches, scope=fresh)
        assert got.tobytes() == want.tobytes()


def _rewrite_model(d, edit):
    """Re-save the inference model in ``d`` with its model document changed by ``edit`` (a
    consistent, checksummed save: only the content is wrong)."""
    from core.serialization import DirectoryReader, DirectoryWriter

    reader = DirectoryReader(d)
    doc = reader.read_json(io.MODEL_FILENAME)
    arrays = {n: reader.read_array(n) for n in reader.names() if n != io.MODEL_FILENAME}
    edit(doc)
    with DirectoryWriter(d, kind="inference_model") as w:
        w.write_json(io.MODEL_FILENAME, doc)
        for n, a in arrays.items():
            w.write_array(n, a)


@pytest.mark.parametrize("edit,error,message", [
    (lambda doc: doc.update(format="onnx.model"), ModelFormatError, r"'onnx.model'.*foreign"),
    (lambda doc: doc.update(version=7), ModelFormatError, r"version 7 .*up to 1.*upgrade"),
    (lambda doc: doc["program"].update(version=3), ModelFormatError, r"version 3 .*up to 1"),
    (lambda doc: doc.update(fetch_target_names=["ghost"]), ModelFormatError,
     r"__model__.json: field 'fetch_target_names' names 'ghost'"),
    (lambda doc: doc["program"]["blocks"][0]["ops"][0].update(type="exec"), ModelFormatError,
     r"__model__.json.*unknown op type 'exec'"),
    (lambda doc: next(v for v in doc["program"]["blocks"][0]["vars"]
                      if v["name"] == "fc_0.w_0").update(shape=[4, 2]), ValueError,
     r"'fc_0.w_0' is declared with shape \[4, 2\] but the saved value has shape \[3, 2\]"),
])
def test_inconsistent_model_documents_are_refused(tmp_path, edit, error, message):
    d, _, exe = _saved_model(tmp_path)
    _rewrite_model(d, edit)
    fresh = core.Scope()
    with pytest.raises(error, match=message):
        io.load_inference_model(str(d), exe, scope=fresh)
    assert fresh.local_var_names() == []  # nothing half-loaded


def test_loading_runs_nothing_and_unpickles_nothing(tmp_path, monkeypatch):
    import pickle

    d, _, exe = _saved_model(tmp_path)

    def forbidden(*args, **kwargs):
        raise AssertionError("loading a model must not run or unpickle anything")

    monkeypatch.setattr(core.Executor, "run", forbidden)
    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    prog, feeds, fetches = io.load_inference_model(str(d), exe, scope=core.Scope())
    assert feeds == ["x"] and len(fetches) == 1 and prog.num_blocks == 1


def test_combined_params_file_damage_and_truncation(tmp_path):
    d, gen, exe = _saved_model(tmp_path, model_filename="model.json",
                               params_filename="params.npz")
    bundle = next(p for p in gen.iterdir() if p.name.startswith("params"))
    good = bundle.read_bytes()
    bundle.write_bytes(good[: len(good) // 2])
    with pytest.raises(ModelFormatError, match=r"params.*truncated"):
        io.load_inference_model(str(d), exe, "model.json", "params.npz", scope=core.Scope())
    flipped = bytearray(good)
    flipped[len(good) // 3] ^= 0xFF
    bundle.write_bytes(bytes(flipped))
    with pytest.raises(ModelFormatError, match=r"params"):
        io.load_inference_model(str(d), exe, "model.json", "params.npz", scope=core.Scope())
    bundle.write_bytes(good)
    prog, _, fetches = io.load_inference_model(str(d), exe, "model.json", "params.npz",
                                               scope=core.Scope())
    assert len(fetches) == 1 and prog.global_block().var("fc_0.w_0").shape == [3, 2]


def test_a_gradient_the_program_returns_is_kept_in_the_inference_model(static_mode, tmp_path):
    """``gradients`` inside the program (``paddle.grad`` in converted code) builds backward ops
    a target needs: pruning keeps them (PaddlePaddle prunes without dropping them first)."""
    main, startup = core.Program(), core.Program()
    with core.program_guard(main, startup), core.unique_name.guard():
        x = core.static.data("x", [-1, 3], "float32")
        x.stop_gradient = False
        y = layers.reduce_sum(x * x * 3.0)
        (dx,) = core.static.gradients([y], [x])
        z = layers.scale(dx, 2.0)
    scope = core.Scope()
    exe = _run_startup(startup, scope)
    with core.scope_guard(scope):
        io.save_inference_model(str(tmp_path / "g"), ["x"], [z, y], exe, main_program=main)
    with core.scope_guard(core.Scope()):
        prog, _, fetches = io.load_inference_model(str(tmp_path / "g"), exe)
        got_z, got_y = exe.run(prog, feed={"x": FEED}, fetch_list=fetches)
    np.testing.assert_allclose(got_z, 12.0 * FEED, rtol=1e-6)
    np.testing.assert_allclose(got_y, (3.0 * FEED * FEED).sum(), rtol=1e-5)
    ops = [op["type"] for b in _model_doc(tmp_path / "g")["program"]["blocks"] for op in b["ops"]]
    assert "fill_any_like" in ops and ops[-1] == "scale"
