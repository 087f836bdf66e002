"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/
test_save_inference_model.py (2.x releases): the Layer as written (``paddle.fluid`` ->
``core``). A declarative Layer trained five SGD steps is saved with ``jit.save`` (with an
``output_spec`` of one output, of the loss, and with an InputSpec from a tensor) and the
files loaded by ``load_inference_model`` in static mode give the eager outputs; the saved
parameters are the Layer's. Paddle also hands a damaged ``concrete_program.parameters`` to
its internal ``partial_program_from`` (a TypeError; not ported); here the concrete
program's parameters are the Layer's own."""
import numpy as np

import core as fluid
import dy2static as paddle
from translator import declarative

SEED = 2020
np.random.seed(SEED)
place = fluid.CPUPlace()
INFER_MODEL_SUFFIX, INFER_PARAMS_SUFFIX = ".pdmodel", ".pdiparams"


class SimpleFcLayer(fluid.dygraph.Layer):
    def __init__(self, fc_size):
        super(SimpleFcLayer, self).__init__()
        self._linear = fluid.dygraph.Linear(fc_size, fc_size)

    @declarative
    def forward(self, x):
        y = self._linear(x)
        z = self._linear(y)
        out = fluid.layers.mean(z)
        return out, y


def load_and_run_inference(model_path, model_filename, params_filename, inputs):
    paddle.enable_static()
    try:
        exe = fluid.Executor(place)
        [inference_program, feed_target_names, fetch_targets] = fluid.io.load_inference_model(
            dirname=model_path, executor=exe, model_filename=model_filename,
            params_filename=params_filename)
        results = exe.run(inference_program, feed=dict(zip(feed_target_names, inputs)),
                          fetch_list=fetch_targets)
    finally:
        paddle.disable_static()
    return np.array(results[0])


def check_save_inference_model(tmp_path, model, inputs, gt_out, feed=None, fetch=None):
    infer_model_prefix = str(tmp_path / "test_dy2stat_inference" / "model")
    infer_model_dir = str(tmp_path / "test_dy2stat_inference")
    model_filename = "model" + INFER_MODEL_SUFFIX
    params_filename = "model" + INFER_PARAMS_SUFFIX
    paddle.jit.save(layer=model, path=infer_model_prefix, input_spec=feed if feed else None,
                    output_spec=fetch if fetch else None)
    infer_out = load_and_run_inference(infer_model_dir, model_filename, params_filename, inputs)
    np.testing.assert_allclose(gt_out, infer_out, rtol=1e-5, atol=1e-6)
    loaded = paddle.jit.load(infer_model_prefix)
    out = loaded(fluid.dygraph.to_variable(inputs[0]))
    np.testing.assert_allclose(gt_out, (out[0] if isinstance(out, (list, tuple)) else out)
                               .numpy(), rtol=1e-5, atol=1e-6)


def test_save_inference_model(tmp_path):
    fc_size = 20
    x_data = np.random.random((fc_size, fc_size)).astype('float32')
    paddle.seed(SEED)
    x = fluid.dygraph.to_variable(x_data)
    layer = SimpleFcLayer(fc_size)
    adam = fluid.optimizer.SGD(learning_rate=0.1, parameter_list=layer.parameters())

    for i in range(5):
        loss, pred = layer(x)
        loss.backward()
        adam.minimize(loss)
        layer.clear_gradients()
    # test for saving model in dygraph.guard
    infer_model_prefix = str(tmp_path / "test_dy2stat_inference_in_guard" / "model")
    paddle.jit.save(layer=layer, path=infer_model_prefix, input_spec=[x], output_spec=[pred])
    # Check the correctness of the inference
    dygraph_out, dygraph_pred = layer(x)
    np.testing.assert_allclose(
        load_and_run_inference(str(tmp_path / "test_dy2stat_inference_in_guard"),
                               "model" + INFER_MODEL_SUFFIX, "model" + INFER_PARAMS_SUFFIX,
                               [x_data]), dygraph_pred.numpy(), rtol=1e-5, atol=1e-6)
    check_save_inference_model(tmp_path, layer, [x_data], dygraph_out.numpy())
    check_save_inference_model(tmp_path, layer, [x_data], dygraph_out.numpy(), fetch=[loss])
    check_save_inference_model(tmp_path, layer, [x_data], dygraph_out.numpy(), feed=[x])
    # the eager reference: mean(linear(linear(x)))
    w, b = layer._linear.weight.numpy(), layer._linear.bias.numpy()
    np.testing.assert_allclose(dygraph_out.numpy(), ((x_data @ w + b) @ w + b).mean(),
                               rtol=1e-5)


def test_param_type():
    x_data = np.random.random((20, 20)).astype('float32')
    net = SimpleFcLayer(20)
    x = fluid.dygraph.to_variable(x_data)
    net(x)
    _, concrete_program = net.forward.program_cache.last()
    params = concrete_program.parameters
    assert sorted(name for name, _ in params) == sorted(p.name for p in net.parameters())
    assert all(tensor is p for (_, tensor), p in
               zip(sorted(params), sorted(net.parameters(), key=lambda p: p.name)))
