"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_tsm.py with
tsm_config_utils.py and tsm.yaml (2.x releases): the temporal shift module video classifier
(TSM_ResNet: ``temporal_shift`` before each bottleneck block, dropout, an L1-decayed bias)
trained with Momentum and L2 decay with the translator off and on from the same seed; the
losses and accuracies agree step by step. Model code as Paddle wrote it (``paddle.fluid`` ->
``core``, ``paddle`` -> ``dy2static``) with one addition: depth 14 (one bottleneck block per
stage) beside 50. The yaml config is a dict here; the optimizer's
``fluid.layers.piecewise_decay`` (boundaries far past the test's steps) reads
``paddle.optimizer.lr.PiecewiseDecay``; the 1-element ``.numpy()[0]`` reads read
``float(...)`` (results of a full reduction are 0-d here). Tiny config: depth 14, 2 segments,
32x32 frames, 10 classes, batch 2, 3 steps (Paddle: depth 50, 8 segments, 224x224, 400
classes, batch 4)."""
import math
import random
from ast import literal_eval

import numpy as np

import core as fluid
import dy2static as paddle
from core.dygraph import to_variable
from core.dygraph.nn import BatchNorm
from dy2static.jit import ProgramTranslator, declarative
from dy2static.nn import Linear


# -- tsm_config_utils.py, tsm.yaml ----------------------------------------------------------------
class AttrDict(dict):

    def __getattr__(self, key):
        return self[key]

    def __setattr__(self, key, value):
        if key in self.__dict__:
            self.__dict__[key] = value
        else:
            self[key] = value


def create_attr_dict(yaml_config):
    for key, value in yaml_config.items():
        if type(value) is dict:
            yaml_config[key] = value = AttrDict(value)
        if isinstance(value, str):
            try:
                value = literal_eval(value)
            except BaseException:
                pass
        if isinstance(value, AttrDict):
            create_attr_dict(yaml_config[key])
        else:
            yaml_config[key] = value
    return


def parse_config():
    """tsm.yaml with the tiny sizes, as an AttrDict"""
    config = AttrDict({
        "MODEL": {"name": "TSM", "format": "pkl", "num_classes": 10, "seg_num": 2,
                  "seglen": 1, "image_mean": [0.485, 0.456, 0.406],
                  "image_std": [0.229, 0.224, 0.225], "num_layers": 14, "topk": 5},
        "TRAIN": {"epoch": 1, "short_size": 40, "target_size": 32, "batch_size": 2,
                  "use_gpu": False, "learning_rate": 0.01, "learning_rate_decay": 0.1,
                  "decay_epochs": [40, 60], "l2_weight_decay": "1e-4", "momentum": 0.9,
                  "total_videos": 8000},
    })
    create_attr_dict(config)
    return config


# -- test_tsm.py ----------------------------------------------------------------------------------
class ConvBNLayer(fluid.dygraph.Layer):
    def __init__(
        self,
        num_channels,
        num_filters,
        filter_size,
        stride=1,
        groups=1,
        act=None,
    ):
        super().__init__()

        self._conv = paddle.nn.Conv2D(
            in_channels=num_channels,
            out_channels=num_filters,
            kernel_size=filter_size,
            stride=stride,
            padding=(filter_size - 1) // 2,
            groups=1,
            weight_attr=fluid.param_attr.ParamAttr(),
            bias_attr=False,
        )

        self._batch_norm = BatchNorm(
            num_filters,
            act=act,
            param_attr=fluid.param_attr.ParamAttr(),
            bias_attr=fluid.param_attr.ParamAttr(),
        )

    def forward(self, inputs):
        y = self._conv(inputs)
        y = self._batch_norm(y)

        return y


class BottleneckBlock(fluid.dygraph.Layer):
    def __init__(
        self, num_channels, num_filters, stride, shortcut=True, seg_num=8
    ):
        super().__init__()

        self.conv0 = ConvBNLayer(
            num_channels=num_channels,
            num_filters=num_filters,
            filter_size=1,
            act='relu',
        )
        self.conv1 = ConvBNLayer(
            num_channels=num_filters,
            num_filters=num_filters,
            filter_size=3,
            stride=stride,
            act='relu',
        )
        self.conv2 = ConvBNLayer(
            num_channels=num_filters,
            num_filters=num_filters * 4,
            filter_size=1,
            act=None,
        )

        if not shortcut:
            self.short = ConvBNLayer(
                num_channels=num_channels,
                num_filters=num_filters * 4,
                filter_size=1,
                stride=stride,
            )
        self.shortcut = shortcut
        self.seg_num = seg_num
        self._num_channels_out = int(num_filters * 4)

    def forward(self, inputs):
        shifts = fluid.layers.temporal_shift(inputs, self.seg_num, 1.0 / 8)
        y = self.conv0(shifts)
        conv1 = self.conv1(y)
        conv2 = self.conv2(conv1)
        if self.shortcut:
            short = inputs
        else:
            short = self.short(inputs)
        y = fluid.layers.elementwise_add(x=short, y=conv2, act="relu")
        return y


class TSM_ResNet(fluid.dygraph.Layer):
    def __init__(self, name_scope, config, mode):
        super().__init__(name_scope)

        self.layers = config.MODEL.num_layers
        self.seg_num = config.MODEL.seg_num
        self.class_dim = config.MODEL.num_classes
        self.reshape_list = [
            config.MODEL.seglen * 3,
            config[mode.upper()]['target_size'],
            config[mode.upper()]['target_size'],
        ]

        if self.layers == 14:  # (the port's tiny depth)
            depth = [1, 1, 1, 1]
        elif self.layers == 50:
            depth = [3, 4, 6, 3]
        else:
            raise NotImplementedError
        num_filters = [64, 128, 256, 512]

        self.conv = ConvBNLayer(
            num_channels=3, num_filters=64, filter_size=7, stride=2, act='relu'
        )
        self.pool2d_max = paddle.nn.MaxPool2D(
            kernel_size=3, stride=2, padding=1
        )

        self.bottleneck_block_list = []
        num_channels = 64

        for block in range(len(depth)):
            shortcut = False
            for i in range(depth[block]):
                bottleneck_block = self.add_sublayer(
                    'bb_%d_%d' % (block, i),
                    BottleneckBlock(
                        num_channels=num_channels,
                        num_filters=num_filters[block],
                        stride=2 if i == 0 and block != 0 else 1,
                        shortcut=shortcut,
                        seg_num=self.seg_num,
                    ),
                )
                num_channels = int(bottleneck_block._num_channels_out)
                self.bottleneck_block_list.append(bottleneck_block)
                shortcut = True
        self.pool2d_avg = fluid.dygraph.nn.Pool2D(
            pool_size=7, pool_type='avg', global_pooling=True
        )

        stdv = 1.0 / math.sqrt(2048 * 1.0)

        self.out = Linear(
            2048,
            self.class_dim,
            weight_attr=paddle.ParamAttr(
                initializer=paddle.nn.initializer.Uniform(-stdv, stdv)
            ),
            bias_attr=paddle.ParamAttr(
                learning_rate=2.0, regularizer=paddle.regularizer.L1Decay()
            ),
        )

    @declarative
    def forward(self, inputs):
        y = paddle.reshape(inputs, [-1] + self.reshape_list)
        y = self.conv(y)
        y = self.pool2d_max(y)
        for bottleneck_block in self.bottleneck_block_list:
            y = bottleneck_block(y)
        y = self.pool2d_avg(y)
        y = fluid.layers.dropout(y, dropout_prob=0.5)
        y = paddle.reshape(y, [-1, self.seg_num, y.shape[1]])
        y = paddle.mean(y, axis=1)
        y = paddle.reshape(y, shape=[-1, 2048])
        y = self.out(y)
        y = paddle.nn.functional.softmax(y)
        return y


class FakeDataReader:
    def __init__(self, mode, cfg):
        random.seed(0)
        np.random.seed(0)
        self.format = cfg.MODEL.format
        self.num_classes = cfg.MODEL.num_classes
        self.seg_num = cfg.MODEL.seg_num
        self.seglen = cfg.MODEL.seglen

        self.target_size = cfg[mode.upper()]['target_size']
        self.img_mean = (
            np.array(cfg.MODEL.image_mean).reshape([3, 1, 1]).astype(np.float32)
        )
        self.img_std = (
            np.array(cfg.MODEL.image_std).reshape([3, 1, 1]).astype(np.float32)
        )

        self.batch_size = cfg[mode.upper()]['batch_size']
        self.generator_out = []
        self.total_iter = 3
        for i in range(self.total_iter):
            batch_out = []
            for j in range(self.batch_size):
                label = np.int64(random.randint(0, self.num_classes - 1))
                random_mean = self.img_mean[0][0][0]
                random_std = self.img_std[0][0][0]
                imgs = np.random.normal(
                    random_mean,
                    random_std,
                    [
                        self.seg_num,
                        self.seglen * 3,
                        self.target_size,
                        self.target_size,
                    ],
                ).astype(np.float32)
                batch_out.append((imgs, label))
            self.generator_out.append(batch_out)

    def create_reader(self):
        def batch_reader():
            for i in range(self.total_iter):
                yield self.generator_out[i]

        return batch_reader


def create_optimizer(cfg, params):
    total_videos = cfg.total_videos
    batch_size = cfg.batch_size
    step = int(total_videos / batch_size + 1)
    bd = [e * step for e in cfg.decay_epochs]
    base_lr = cfg.learning_rate
    lr_decay = cfg.learning_rate_decay
    lr = [base_lr, base_lr * lr_decay, base_lr * lr_decay * lr_decay]
    l2_weight_decay = cfg.l2_weight_decay
    momentum = cfg.momentum

    optimizer = fluid.optimizer.Momentum(
        learning_rate=paddle.optimizer.lr.PiecewiseDecay(boundaries=bd, values=lr),
        momentum=momentum,
        regularization=fluid.regularizer.L2Decay(l2_weight_decay),
        parameter_list=params,
    )

    return optimizer


def train(fake_data_reader, to_static):
    program_translator = ProgramTranslator()
    program_translator.enable(to_static)

    train_config = parse_config()

    place = fluid.CPUPlace()

    random.seed(0)
    np.random.seed(0)
    with fluid.dygraph.guard(place):
        paddle.seed(1000)

        video_model = TSM_ResNet("TSM", train_config, 'Train')

        optimizer = create_optimizer(
            train_config.TRAIN, video_model.parameters()
        )

        train_reader = fake_data_reader.create_reader()

        ret = []
        for epoch in range(train_config.TRAIN.epoch):
            video_model.train()
            total_loss = 0.0
            total_acc1 = 0.0
            total_acc5 = 0.0
            total_sample = 0
            for batch_id, data in enumerate(train_reader()):
                x_data = np.array([item[0] for item in data])
                y_data = np.array([item[1] for item in data]).reshape([-1, 1])

                imgs = to_variable(x_data)
                labels = to_variable(y_data)
                labels.stop_gradient = True
                outputs = video_model(imgs)
                loss = fluid.layers.cross_entropy(
                    input=outputs, label=labels, ignore_index=-1
                )
                avg_loss = paddle.mean(loss)
                acc_top1 = fluid.layers.accuracy(
                    input=outputs, label=labels, k=1
                )
                acc_top5 = fluid.layers.accuracy(
                    input=outputs, label=labels, k=5
                )

                avg_loss.backward()
                optimizer.minimize(avg_loss)
                video_model.clear_gradients()

                total_loss += float(avg_loss)
                total_acc1 += float(acc_top1)
                total_acc5 += float(acc_top5)
                total_sample += 1

                ret.extend(
                    [
                        float(avg_loss),
                        float(acc_top1),
                        float(acc_top5),
                    ]
                )
        program_translator.enable(True)
        return ret


def test_dygraph_static_same_loss():
    fake_data_reader = FakeDataReader("train", parse_config())
    dygraph_loss = train(fake_data_reader, to_static=False)
    static_loss = train(fake_data_reader, to_static=True)
    assert len(dygraph_loss) == 9
    np.testing.assert_allclose(dygraph_loss, static_loss, rtol=1e-05)
