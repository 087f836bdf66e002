"""2.x names the ported PaddlePaddle model tests use: ``paddle.regularizer`` (``L1Decay``,
``L2Decay``, the objects of ``core.regularizer``) and ``paddle.batch`` (``core.batch``)."""
import numpy as np

import core
import dy2static as paddle
import dy2static.regularizer as reg


def test_regularizer_namespace():
    assert reg is paddle.regularizer
    assert paddle.regularizer.L1Decay is core.regularizer.L1Decay
    assert paddle.regularizer.L2Decay is core.regularizer.L2Decay
    for name in paddle.regularizer.__all__:
        assert getattr(paddle.regularizer, name) is getattr(core.regularizer, name)
    attr = paddle.ParamAttr(regularizer=paddle.regularizer.L1Decay(0.5))
    assert isinstance(attr.regularizer, core.regularizer.L1Decay)


def test_batch():
    assert paddle.batch is core.batch

    def reader():
        yield from (np.array([i]) for i in range(5))

    batches = list(paddle.batch(reader, batch_size=2, drop_last=True)())
    assert len(batches) == 2 and [int(a[0]) for a in batches[1]] == [2, 3]
