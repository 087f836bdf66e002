"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_save_load.py
(2.x releases): as written (``paddle.fluid`` -> ``core``; ``Linear`` is Paddle's from
test_fetch_feed, in test_partial_program here). A declarative Layer trained three Adam
steps, saved with ``save_dygraph`` and reloaded with ``load_dygraph`` / ``set_dict`` into a
fresh Layer, predicts in eval mode with the translator off what the converted Layer
predicts; also a batch of one row."""
import numpy as np
import pytest

import core as fluid
from core.optimizer import AdamOptimizer
from translator import ProgramTranslator

from .test_partial_program import Linear

np.random.seed(2020)

place = fluid.CPUPlace()


@pytest.mark.parametrize("rows", [30, 1])
def test_save_load_same_result(rows, tmp_path):
    model_path = str(tmp_path / "test_dy2stat_save_load")
    program_translator = ProgramTranslator()
    x_data = np.random.randn(rows, 10, 32).astype('float32')
    batch_num = 3

    try:
        program_translator.enable(True)
        x = fluid.dygraph.to_variable(x_data)
        net = Linear(32, 64)
        adam = AdamOptimizer(learning_rate=0.1, parameter_list=net.parameters())

        for i in range(batch_num):
            static_out, static_loss = net(x)
            # Update parameters
            static_loss.backward()
            adam.minimize(static_loss)
            net.clear_gradients()
        # Save parameters

        fluid.save_dygraph(net.state_dict(), model_path)
        # minimize() will update parameter, call net() to get output and avg_loss.
        # Switch into eval mode.
        net.eval()
        static_out, static_loss = net(x)

        # load parameters into dygraph
        dygraph_net = Linear(32, 64)

        # Load parameters
        model_dict, _ = fluid.load_dygraph(model_path)
        dygraph_net.set_dict(model_dict)
        # Switch into eval mode.
        dygraph_net.eval()

        x = fluid.dygraph.to_variable(x_data)
        # predict output
        program_translator.enable(False)
        dygraph_out, dygraph_loss = dygraph_net(x)
    finally:
        program_translator.enable(True)

    np.testing.assert_allclose(dygraph_out.numpy(), static_out.numpy(), rtol=1e-05)
    np.testing.assert_allclose(dygraph_loss.numpy(), static_loss.numpy(), rtol=1e-05)
    assert not np.allclose(dygraph_net.fc.weight.numpy(), 0.99)  # the training moved it
