"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_ptb_lm_v2.py
(2.x releases), the 2.x spelling of test_ptb_lm: an LSTM language model (SimpleLSTMRNN +
PtbModel, as Paddle wrote them; ``paddle.fluid`` -> ``core``, ``paddle`` -> ``dy2static``) trained with the translator off and
on from the same seed; the losses, last hidden and last cell agree. Tiny config: batch 4,
3 steps, hidden 10, vocabulary 20, 8 training steps (Paddle: vocabulary 1000, 200 steps)."""
import numpy as np
import pytest

import core as fluid
import dy2static as paddle

SEED = 2020


@pytest.fixture(autouse=True)
def _eager_after():
    # Paddle's train() ends in paddle.enable_static(); later tests expect eager mode
    yield
    paddle.disable_static()


program_translator = paddle.jit.ProgramTranslator()


class SimpleLSTMRNN(paddle.nn.Layer):
    def __init__(
        self, hidden_size, num_steps, num_layers=2, init_scale=0.1, dropout=None
    ):
        super().__init__()
        self._hidden_size = hidden_size
        self._num_layers = num_layers
        self._init_scale = init_scale
        self._dropout = dropout
        self._num_steps = num_steps
        self.cell_array = []
        self.hidden_array = []

        self.weight_1_arr = []
        self.weight_2_arr = []
        self.bias_arr = []
        self.mask_array = []

        for i in range(self._num_layers):
            weight_1 = self.create_parameter(
                attr=paddle.ParamAttr(
                    initializer=paddle.nn.initializer.Uniform(
                        low=-self._init_scale, high=self._init_scale
                    )
                ),
                shape=[self._hidden_size * 2, self._hidden_size * 4],
                dtype="float32",
                default_initializer=paddle.nn.initializer.Uniform(
                    low=-self._init_scale, high=self._init_scale
                ),
            )
            self.weight_1_arr.append(self.add_parameter('w_%d' % i, weight_1))
            bias_1 = self.create_parameter(
                attr=paddle.ParamAttr(
                    initializer=paddle.nn.initializer.Uniform(
                        low=-self._init_scale, high=self._init_scale
                    )
                ),
                shape=[self._hidden_size * 4],
                dtype="float32",
                default_initializer=paddle.nn.initializer.Constant(0.0),
            )
            self.bias_arr.append(self.add_parameter('b_%d' % i, bias_1))

    def forward(self, input_embedding, init_hidden=None, init_cell=None):
        cell_array = []
        hidden_array = []

        for i in range(self._num_layers):
            hidden_array.append(init_hidden[i])
            cell_array.append(init_cell[i])

        res = []
        for index in range(self._num_steps):
            step_input = input_embedding[:, index, :]
            for k in range(self._num_layers):
                pre_hidden = hidden_array[k]
                pre_cell = cell_array[k]
                weight_1 = self.weight_1_arr[k]
                bias = self.bias_arr[k]

                nn = paddle.concat(x=[step_input, pre_hidden], axis=1)
                gate_input = paddle.matmul(x=nn, y=weight_1)

                gate_input = paddle.add(x=gate_input, y=bias)
                i, j, f, o = paddle.split(
                    x=gate_input, num_or_sections=4, axis=-1
                )
                c = pre_cell * paddle.nn.functional.sigmoid(
                    f
                ) + paddle.nn.functional.sigmoid(i) * paddle.tanh(j)
                m = paddle.tanh(c) * paddle.nn.functional.sigmoid(o)
                hidden_array[k] = m
                cell_array[k] = c
                step_input = m

                if self._dropout is not None and self._dropout > 0.0:
                    step_input = paddle.nn.functional.dropout(
                        step_input,
                        dropout_prob=self._dropout,
                        dropout_implementation='upscale_in_train',
                    )
            res.append(step_input)
        real_res = paddle.concat(x=res, axis=1)
        real_res = paddle.reshape(
            real_res, [-1, self._num_steps, self._hidden_size]
        )
        last_hidden = paddle.concat(x=hidden_array, axis=1)
        last_hidden = paddle.reshape(
            last_hidden, shape=[-1, self._num_layers, self._hidden_size]
        )
        last_hidden = paddle.transpose(x=last_hidden, perm=[1, 0, 2])
        last_cell = paddle.concat(x=cell_array, axis=1)
        last_cell = paddle.reshape(
            last_cell, shape=[-1, self._num_layers, self._hidden_size]
        )
        last_cell = paddle.transpose(x=last_cell, perm=[1, 0, 2])
        return real_res, last_hidden, last_cell


class PtbModel(paddle.nn.Layer):
    def __init__(
        self,
        hidden_size,
        vocab_size,
        num_layers=2,
        num_steps=20,
        init_scale=0.1,
        dropout=None,
    ):
        super().__init__()
        self.hidden_size = hidden_size
        self.vocab_size = vocab_size
        self.init_scale = init_scale
        self.num_layers = num_layers
        self.num_steps = num_steps
        self.dropout = dropout
        self.simple_lstm_rnn = SimpleLSTMRNN(
            hidden_size,
            num_steps,
            num_layers=num_layers,
            init_scale=init_scale,
            dropout=dropout,
        )
        self.embedding = fluid.dygraph.nn.Embedding(
            size=[vocab_size, hidden_size],
            dtype='float32',
            is_sparse=False,
            param_attr=paddle.ParamAttr(
                name='embedding_para',
                initializer=paddle.nn.initializer.Uniform(
                    low=-init_scale, high=init_scale
                ),
            ),
        )
        self.softmax_weight = self.create_parameter(
            attr=paddle.ParamAttr(),
            shape=[self.hidden_size, self.vocab_size],
            dtype="float32",
            default_initializer=paddle.nn.initializer.Uniform(
                low=-self.init_scale, high=self.init_scale
            ),
        )
        self.softmax_bias = self.create_parameter(
            attr=paddle.ParamAttr(),
            shape=[self.vocab_size],
            dtype="float32",
            default_initializer=paddle.nn.initializer.Uniform(
                low=-self.init_scale, high=self.init_scale
            ),
        )

    def build_once(self, input, label, init_hidden, init_cell):
        pass

    @paddle.jit.to_static
    def forward(self, input, label, init_hidden, init_cell):

        init_h = paddle.reshape(
            init_hidden, shape=[self.num_layers, -1, self.hidden_size]
        )

        init_c = paddle.reshape(
            init_cell, shape=[self.num_layers, -1, self.hidden_size]
        )

        x_emb = self.embedding(input)

        x_emb = paddle.reshape(
            x_emb, shape=[-1, self.num_steps, self.hidden_size]
        )
        if self.dropout is not None and self.dropout > 0.0:
            x_emb = paddle.nn.functional.dropout(
                x_emb,
                dropout_prob=self.dropout,
                dropout_implementation='upscale_in_train',
            )
        rnn_out, last_hidden, last_cell = self.simple_lstm_rnn(
            x_emb, init_h, init_c
        )

        projection = paddle.matmul(x=rnn_out, y=self.softmax_weight)
        projection = paddle.add(x=projection, y=self.softmax_bias)

        loss = paddle.nn.functional.softmax_with_cross_entropy(
            logits=projection, label=label, soft_label=False
        )
        loss = paddle.reshape(loss, shape=[-1, self.num_steps])
        loss = paddle.mean(loss, axis=[0])
        loss = fluid.layers.reduce_sum(loss)

        return loss, last_hidden, last_cell


def train(place, num_layers=1):

    batch_size = 4
    hidden_size = 10
    num_steps = 3
    init_scale = 0.1
    max_epoch = 1
    dropout = 0.0
    vocab_size = 20
    batch_num = 8

    paddle.disable_static(place)
    if True:
        paddle.seed(SEED)
        ptb_model = PtbModel(
            hidden_size=hidden_size,
            vocab_size=vocab_size,
            num_layers=num_layers,
            num_steps=num_steps,
            init_scale=init_scale,
            dropout=dropout,
        )

        sgd = paddle.optimizer.SGD(
            learning_rate=1e-3, parameters=ptb_model.parameters()
        )

        losses = []
        for epoch_id in range(max_epoch):
            init_hidden_data = np.zeros(
                (num_layers, batch_size, hidden_size), dtype='float32'
            )
            init_cell_data = np.zeros(
                (num_layers, batch_size, hidden_size), dtype='float32'
            )

            init_hidden = paddle.to_tensor(
                data=init_hidden_data, dtype=None, place=None, stop_gradient=True
            )
            init_cell = paddle.to_tensor(
                data=init_cell_data, dtype=None, place=None, stop_gradient=True
            )
            for step_id in range(batch_num):
                x_data = np.arange(12).reshape(4, 3).astype('int64')
                y_data = np.arange(1, 13).reshape(4, 3).astype('int64')
                y_data = y_data.reshape((-1, 1))

                x_data = x_data.reshape((-1, num_steps, 1))
                y_data = y_data.reshape((-1, num_steps, 1))

                x = paddle.to_tensor(
                    data=x_data, dtype=None, place=None, stop_gradient=True
                )
                y = paddle.to_tensor(
                    data=y_data, dtype=None, place=None, stop_gradient=True
                )

                dy_loss, last_hidden, last_cell = ptb_model(
                    x, y, init_hidden, init_cell
                )
                out_loss = dy_loss.numpy()
                losses.append(float(out_loss))

                dy_loss.backward()
                sgd.minimize(dy_loss)
                ptb_model.clear_gradients()

    ret = np.array(losses), last_hidden.numpy(), last_cell.numpy()
    paddle.enable_static()
    return ret


def train_dygraph(place, **kw):
    program_translator.enable(False)
    try:
        return train(place, **kw)
    finally:
        program_translator.enable(True)


def train_static(place, **kw):
    program_translator.enable(True)
    return train(place, **kw)


def test_check_result():
    place = paddle.CPUPlace()
    loss_1, hidden_1, cell_1 = train_static(place)
    loss_2, hidden_2, cell_2 = train_dygraph(place)

    np.testing.assert_allclose(loss_1, loss_2, rtol=1e-05)
    np.testing.assert_allclose(hidden_1, hidden_2, rtol=1e-05)
    np.testing.assert_allclose(cell_1, cell_2, rtol=1e-05)
    assert loss_2[-1] < loss_2[0]


def test_two_layers():
    # Paddle runs one layer; two layers carry a list of per-layer states through the steps
    place = paddle.CPUPlace()
    loss_1, hidden_1, cell_1 = train_static(place, num_layers=2)
    loss_2, hidden_2, cell_2 = train_dygraph(place, num_layers=2)
    np.testing.assert_allclose(loss_1, loss_2, rtol=1e-05)
    np.testing.assert_allclose(hidden_1, hidden_2, rtol=1e-05)
    np.testing.assert_allclose(cell_1, cell_2, rtol=1e-05)
