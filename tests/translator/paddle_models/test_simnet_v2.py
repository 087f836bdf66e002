"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_simnet_v2.py
and simnet_dygraph_model_v2.py (2.x releases), the 2.x spelling of test_simnet: the pairwise SimNet BOW matcher (embedding,
bag-of-words sum, softsign, a shared Linear, cosine similarity) trained on the hinge loss with
Adam, with the translator off and on from the same seed; the losses agree step by step.
Model code as Paddle wrote it (``paddle.fluid`` -> ``core``, ``paddle`` -> ``dy2static``);
``paddle.metric.Auc`` (created, never read) is left out, and ``paddle.paddle.sum(x, dim=1)`` reads ``paddle.sum(x, axis=1)``. Tiny config: batch 4, 6 words,
dimensions 16, 16 samples (Paddle: batch 32, 32 words, dimensions 128, 128 samples)."""
import random
from functools import reduce

import numpy as np
import pytest

import core as fluid
import dy2static as paddle
from dy2static.static import Variable

SEED = 102


class EmbeddingLayer:
    """
    Embedding Layer class
    """

    def __init__(self, dict_size, emb_dim, name="emb", padding_idx=None):
        """
        initialize
        """
        self.dict_size = dict_size
        self.emb_dim = emb_dim
        self.name = name
        self.padding_idx = padding_idx

    def ops(self):
        """
        operation
        """
        # TODO(huihuangzheng): The original code set the is_sparse=True, but it
        # causes crush in dy2stat. Set it to True after fixing it.
        emb = fluid.dygraph.Embedding(
            size=[self.dict_size, self.emb_dim],
            is_sparse=True,
            padding_idx=self.padding_idx,
            param_attr=paddle.ParamAttr(
                name=self.name,
                initializer=paddle.nn.initializer.XavierUniform(),
            ),
        )

        return emb


class FCLayer:
    """
    Fully Connect Layer class
    """

    def __init__(self, fc_dim, act, name="fc"):
        """
        initialize
        """
        self.fc_dim = fc_dim
        self.act = act
        self.name = name

    def ops(self):
        """
        operation
        """
        fc = FC(
            size=self.fc_dim,
            param_attr=paddle.ParamAttr(name="%s.w" % self.name),
            bias_attr=paddle.ParamAttr(name="%s.b" % self.name),
            act=self.act,
        )
        return fc


class ConcatLayer:
    """
    Connection Layer class
    """

    def __init__(self, axis):
        """
        initialize
        """
        self.axis = axis

    def ops(self, inputs):
        """
        operation
        """
        concat = paddle.concat(x=inputs, axis=self.axis)
        return concat


class ReduceMeanLayer:
    """
    Reduce Mean Layer class
    """

    def __init__(self):
        """
        initialize
        """
        pass

    def ops(self, input):
        """
        operation
        """
        mean = paddle.mean(input)
        return mean


class CosSimLayer:
    """
    Cos Similarly Calculate Layer
    """

    def __init__(self):
        """
        initialize
        """
        pass

    def ops(self, x, y):
        """
        operation
        """
        sim = paddle.nn.functional.cosine_similarity(x, y)
        return sim


class ElementwiseMaxLayer:
    """
    Elementwise Max Layer class
    """

    def __init__(self):
        """
        initialize
        """
        pass

    def ops(self, x, y):
        """
        operation
        """
        max = paddle.maximum(x=x, y=y)
        return max


class ElementwiseAddLayer:
    """
    Elementwise Add Layer class
    """

    def __init__(self):
        """
        initialize
        """
        pass

    def ops(self, x, y):
        """
        operation
        """
        add = paddle.add(x=x, y=y)
        return add


class ElementwiseSubLayer:
    """
    Elementwise Add Layer class
    """

    def __init__(self):
        """
        initialize
        """
        pass

    def ops(self, x, y):
        """
        operation
        """
        sub = fluid.layers.elementwise_sub(x, y)
        return sub


class ConstantLayer:
    """
    Generate A Constant Layer class
    """

    def __init__(self):
        """
        initialize
        """
        pass

    def ops(self, input, shape, dtype, value):
        """
        operation
        """
        shape = list(shape)
        input_shape = paddle.shape(input)
        shape[0] = input_shape[0]
        constant = fluid.layers.fill_constant(shape, dtype, value)
        return constant


class SoftsignLayer:
    """
    Softsign Layer class
    """

    def __init__(self):
        """
        initialize
        """
        pass

    def ops(self, input):
        """
        operation
        """
        softsign = paddle.nn.functional.softsign(input)
        return softsign


class FC(paddle.nn.Layer):
    r"""
    A fully connected layer of fluid 1.x (Paddle's docstring shortened). Only built here:
    the pairwise task never calls it, and its body uses fluid's private LayerHelper.
    """

    def __init__(
        self,
        size,
        num_flatten_dims=1,
        param_attr=None,
        bias_attr=None,
        act=None,
        is_test=False,
        dtype="float32",
    ):
        super().__init__(dtype)

        self._size = size
        self._num_flatten_dims = num_flatten_dims
        self._dtype = dtype
        self._param_attr = param_attr
        self._bias_attr = bias_attr
        self._act = act
        self.__w = list()

    def _build_once(self, input):
        i = 0
        for inp, param in self._helper.iter_inputs_and_params(
            input, self._param_attr
        ):
            input_shape = inp.shape

            param_shape = [
                reduce(
                    lambda a, b: a * b, input_shape[self._num_flatten_dims :], 1
                )
            ] + [self._size]
            self.__w.append(
                self.add_parameter(
                    '_w%d' % i,
                    self.create_parameter(
                        attr=param,
                        shape=param_shape,
                        dtype=self._dtype,
                        is_bias=False,
                    ),
                )
            )
            i += 1

        size = list([self._size])
        self._b = self.create_parameter(
            attr=self._bias_attr, shape=size, dtype=self._dtype, is_bias=True
        )

    # TODO(songyouwei): We should remove _w property
    @property
    def _w(self, i=0):
        return self.__w[i]

    @_w.setter
    def _w(self, value, i=0):
        assert isinstance(self.__w[i], Variable)
        self.__w[i].set_value(value)

    @property
    def weight(self):
        if len(self.__w) > 1:
            return self.__w
        else:
            return self.__w[0]

    @weight.setter
    def weight(self, value):
        if len(self.__w) == 1:
            self.__w[0] = value

    @property
    def bias(self):
        return self._b

    @bias.setter
    def bias(self, value):
        self._b = value


class HingeLoss:
    """
    Hing Loss Calculate class
    """

    def __init__(self, conf_dict):
        """
        initialize
        """
        self.margin = conf_dict["loss"]["margin"]

    def compute(self, pos, neg):
        """
        compute loss
        """
        elementwise_max = ElementwiseMaxLayer()
        elementwise_add = ElementwiseAddLayer()
        elementwise_sub = ElementwiseSubLayer()
        constant = ConstantLayer()
        reduce_mean = ReduceMeanLayer()
        loss = reduce_mean.ops(
            elementwise_max.ops(
                constant.ops(neg, neg.shape, "float32", 0.0),
                elementwise_add.ops(
                    elementwise_sub.ops(neg, pos),
                    constant.ops(neg, neg.shape, "float32", self.margin),
                ),
            )
        )
        return loss


class BOW(paddle.nn.Layer):
    """
    BOW
    """

    def __init__(self, conf_dict):
        """
        initialize
        """
        super().__init__()
        self.dict_size = conf_dict["dict_size"]
        self.task_mode = conf_dict["task_mode"]
        self.emb_dim = conf_dict["net"]["emb_dim"]
        self.bow_dim = conf_dict["net"]["bow_dim"]
        self.seq_len = conf_dict["seq_len"]
        self.emb_layer = EmbeddingLayer(
            self.dict_size, self.emb_dim, "emb"
        ).ops()
        self.bow_layer = paddle.nn.Linear(
            in_features=self.bow_dim, out_features=self.bow_dim
        )
        self.bow_layer_po = FCLayer(self.bow_dim, None, "fc").ops()
        self.softmax_layer = FCLayer(2, "softmax", "cos_sim").ops()

    @paddle.jit.to_static
    def forward(self, left, right):
        """
        Forward network
        """

        # embedding layer
        left_emb = self.emb_layer(left)
        right_emb = self.emb_layer(right)
        left_emb = paddle.reshape(
            left_emb, shape=[-1, self.seq_len, self.bow_dim]
        )
        right_emb = paddle.reshape(
            right_emb, shape=[-1, self.seq_len, self.bow_dim]
        )

        bow_left = paddle.sum(left_emb, axis=1)
        bow_right = paddle.sum(right_emb, axis=1)
        softsign_layer = SoftsignLayer()
        left_soft = softsign_layer.ops(bow_left)
        right_soft = softsign_layer.ops(bow_right)

        # matching layer
        if self.task_mode == "pairwise":
            left_bow = self.bow_layer(left_soft)
            right_bow = self.bow_layer(right_soft)
            cos_sim_layer = CosSimLayer()
            pred = cos_sim_layer.ops(left_bow, right_bow)
            return left_bow, pred
        else:
            concat_layer = ConcatLayer(1)
            concat = concat_layer.ops([left_soft, right_soft])
            concat_fc = self.bow_layer_po(concat)
            pred = self.softmax_layer(concat_fc)
            return left_soft, pred


# -- test_simnet_v2.py -------------------------------------------------------------------------------
def create_conf_dict():
    conf_dict = {}
    conf_dict["task_mode"] = "pairwise"
    conf_dict["net"] = {"emb_dim": 16, "bow_dim": 16, "hidden_dim": 16}
    conf_dict["loss"] = {"margin": 0.1}
    return conf_dict


class args:
    batch_size = 4
    seq_len = 6
    epoch = 1
    fake_sample_size = 16


def fake_vocabulary():
    vocab = {}
    vocab["<unk>"] = 0
    for i in range(26):
        c = chr(ord('a') + i)
        vocab[c] = i + 1
    return vocab


vocab = fake_vocabulary()


class FakeReaderProcessor:
    def __init__(self, args, vocab):
        random.seed(SEED)
        self.vocab = vocab
        self.seq_len = args.seq_len
        self.sample_size = args.fake_sample_size
        self.data_samples = []
        for i in range(self.sample_size):
            query = [random.randint(0, 26) for i in range(self.seq_len)]
            pos_title = query[:]
            neg_title = [26 - q for q in query]
            self.data_samples.append(
                np.array([query, pos_title, neg_title]).astype(np.int64)
            )

    def get_reader(self, mode, epoch=0):
        def reader_with_pairwise():
            if mode == "train":
                for i in range(self.sample_size):
                    yield self.data_samples[i]

        return reader_with_pairwise


simnet_process = FakeReaderProcessor(args, vocab)


def train(conf_dict, to_static):
    """
    train process
    """
    program_translator = paddle.jit.ProgramTranslator()
    program_translator.enable(to_static)

    place = paddle.CPUPlace()

    paddle.disable_static(place)
    if True:
        paddle.seed(SEED)

        conf_dict['dict_size'] = len(vocab)
        conf_dict['seq_len'] = args.seq_len

        net = BOW(conf_dict)
        loss = HingeLoss(conf_dict)
        optimizer = paddle.optimizer.Adam(
            learning_rate=0.001,
            beta1=0.9,
            beta2=0.999,
            epsilon=1e-08,
            parameters=net.parameters(),
        )

        global_step = 0
        losses = []

        train_loader = paddle.io.DataLoader.from_generator(
            capacity=16, return_list=True, iterable=True, use_double_buffer=True
        )
        get_train_examples = simnet_process.get_reader(
            "train", epoch=args.epoch
        )
        train_loader.set_sample_list_generator(
            paddle.batch(get_train_examples, batch_size=args.batch_size), place
        )

        for left, pos_right, neg_right in train_loader():
            left = paddle.reshape(left, shape=[-1, 1])
            pos_right = paddle.reshape(pos_right, shape=[-1, 1])
            neg_right = paddle.reshape(neg_right, shape=[-1, 1])
            net.train()
            global_step += 1
            left_feat, pos_score = net(left, pos_right)
            pred = pos_score
            _, neg_score = net(left, neg_right)
            avg_cost = loss.compute(pos_score, neg_score)
            losses.append(np.mean(avg_cost.numpy()))
            avg_cost.backward()
            optimizer.minimize(avg_cost)
            net.clear_gradients()
    program_translator.enable(True)
    paddle.enable_static()
    return losses


@pytest.fixture(autouse=True)
def _eager_after():
    # Paddle's train() ends in paddle.enable_static(); later tests expect eager mode
    yield
    paddle.disable_static()


def test_dygraph_static_same_loss():
    conf_dict = create_conf_dict()
    dygraph_loss = train(conf_dict, to_static=False)
    static_loss = train(conf_dict, to_static=True)

    assert len(dygraph_loss) == len(static_loss) == 4
    np.testing.assert_allclose(dygraph_loss, static_loss, rtol=1e-5, atol=1e-7)
