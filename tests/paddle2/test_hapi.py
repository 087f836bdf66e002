"""paddle.Model, paddle.summary, paddle.callbacks, the progress bar and paddle.metric."""
import io
import os

import numpy as np
import pytest

import dy2static as paddle
from dy2static.hapi.progressbar import ProgressBar, format_value


class Blobs(paddle.io.Dataset):
    def __init__(self, n, seed=0):
        rng = np.random.RandomState(seed)
        self.y = rng.randint(0, 3, n).astype("int64")
        self.x = (rng.randn(n, 4) + 3.0 * self.y[:, None]).astype("float32")

    def __getitem__(self, i):
        return self.x[i], self.y[i:i + 1]

    def __len__(self):
        return len(self.y)


def _model(seed=0):
    paddle.seed(seed)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 3))
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    return model


def test_train_batch_equals_a_manual_step():
    data = Blobs(8)
    model = _model(1)
    paddle.seed(1)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 3))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    x, y = paddle.to_tensor(data.x), paddle.to_tensor(data.y[:, None])
    loss = paddle.nn.CrossEntropyLoss()(net(x), y)
    loss.backward()
    opt.step()
    losses, metrics = model.train_batch([data.x], [data.y[:, None]])
    np.testing.assert_allclose(losses[0], loss.numpy(), rtol=1e-6)
    for a, b in zip(model.parameters(), net.parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    acc = (net(x).numpy().argmax(1) == data.y).mean()
    assert 0 <= metrics[0] <= 1 and isinstance(acc, float)


def test_fit_evaluate_predict(capsys):
    model = _model()
    logs = model.fit(Blobs(96), Blobs(32, 1), batch_size=16, epochs=8, verbose=2, log_freq=3)
    out = capsys.readouterr().out
    assert "Epoch 8/8" in out and "step 6/6" in out and "Eval samples: 32" in out
    assert set(logs) >= {"loss", "acc"}
    result = model.evaluate(Blobs(32, 1), batch_size=8, verbose=0)
    assert result["acc"] > 0.8 and result["loss"][0] < 0.6
    # the loss is the mean over the samples, as evaluate's batches weigh them
    x, y = Blobs(32, 1).x, Blobs(32, 1).y[:, None]
    model.network.eval()
    full = paddle.nn.CrossEntropyLoss()(model.network(paddle.to_tensor(x)), paddle.to_tensor(y))
    np.testing.assert_allclose(result["loss"][0], float(full), rtol=1e-5)
    pred = model.predict(Blobs(10, 2), batch_size=4, verbose=0)
    assert len(pred) == 1 and [p.shape for p in pred[0]] == [(4, 3), (4, 3), (2, 3)]
    stacked = model.predict(Blobs(10, 2), batch_size=4, stack_outputs=True, verbose=0)
    np.testing.assert_allclose(stacked[0], np.concatenate(pred[0]))


def test_fit_steps_the_lr_schedule_per_batch():
    paddle.seed(0)
    net = paddle.nn.Linear(4, 3)
    model = paddle.Model(net)
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
    model.prepare(paddle.optimizer.SGD(learning_rate=sched, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss())
    model.fit(Blobs(32), batch_size=8, epochs=1, verbose=0)
    assert sched.last_epoch == 4


def test_save_load_and_early_stopping(tmp_path):
    model = _model(3)
    stop = paddle.callbacks.EarlyStopping(monitor="acc", mode="max", patience=0,
                                          min_delta=0.5, verbose=0)
    model.fit(Blobs(64), Blobs(16, 1), batch_size=16, epochs=5, save_dir=str(tmp_path),
              callbacks=[stop], verbose=0)
    assert model.stop_training and stop.wait == 1
    files = sorted(os.listdir(tmp_path))
    assert "best_model.pdparams" in files and "final.pdparams" in files and "1.pdopt" in files
    assert "2.pdparams" not in files  # stopped after the second epoch
    other = _model(4)
    other.load(str(tmp_path / "final"))
    for a, b in zip(model.parameters(), other.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_prepare_and_train_errors():
    model = paddle.Model(paddle.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="prepare"):
        model.train_batch([np.zeros((1, 2), "float32")], [np.zeros((1, 1), "int64")])
    with pytest.raises(TypeError, match="Metric"):
        model.prepare(metrics=["acc"])
    with pytest.raises(TypeError, match="Layer"):
        paddle.Model(lambda x: x)


def test_summary_counts_and_table(capsys):
    net = paddle.vision.models.LeNet()
    info = paddle.summary(net, (1, 1, 28, 28))
    assert info == {"total_params": 61610, "trainable_params": 61610}
    out = capsys.readouterr().out
    assert "Conv2D-1" in out and "[1, 6, 28, 28]" in out and "Total params: 61,610" in out
    bn = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.BatchNorm1D(4))
    info = paddle.summary(bn, paddle.static.InputSpec([None, 3], "float32"))
    assert info == {"total_params": 16 + 16, "trainable_params": 16 + 8}
    assert bn.training  # restored after the probe run
    with pytest.raises(ValueError, match="input_size"):
        paddle.summary(bn)


def test_progress_bar_format():
    buf = io.StringIO()
    bar = ProgressBar(10, verbose=2, file=buf)
    bar.update(3, [("loss", [0.123456]), ("acc", 0.5), ("lr", 1e-5)])
    line = buf.getvalue()
    assert line.startswith("step 3/10 - loss: 0.1235 - acc: 0.5000 - lr: 1.0000e-05 - ")
    assert line.rstrip().endswith("/step")
    assert format_value([0.25, 0.5]) == "[0.2500, 0.5000]"
    quiet = io.StringIO()
    ProgressBar(10, verbose=0, file=quiet).update(1, [("loss", 1.0)])
    assert quiet.getvalue() == ""


def test_accuracy_metric_topk_and_one_hot_labels():
    pred = paddle.to_tensor(np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.2, 0.3, 0.5]],
                                     "float32"))
    label = paddle.to_tensor(np.array([[2], [0], [1]]))
    m = paddle.metric.Accuracy(topk=(1, 2))
    assert m.name() == ["acc_top1", "acc_top2"]
    np.testing.assert_allclose(m.update(m.compute(pred, label)), [1 / 3, 1.0])
    m.update(m.compute(pred, paddle.to_tensor(np.array([[1], [0], [2]]))))
    np.testing.assert_allclose(m.accumulate(), [4 / 6, 1.0])
    m.reset()
    assert m.accumulate() == [0.0, 0.0]
    one_hot = paddle.to_tensor(np.eye(3, dtype="float32")[[1, 0, 2]])
    single = paddle.metric.Accuracy()
    assert single.update(single.compute(pred, one_hot)) == 1.0
    with pytest.raises(ValueError, match="topk"):
        paddle.metric.Accuracy(topk=(0,))


def test_precision_recall():
    p, r = paddle.metric.Precision(), paddle.metric.Recall()
    preds = np.array([0.9, 0.8, 0.2, 0.7, 0.1])
    labels = np.array([1, 0, 1, 1, 0])
    p.update(preds, labels)
    r.update(preds, labels)
    assert p.accumulate() == pytest.approx(2 / 3) and r.accumulate() == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="entries"):
        p.update(preds, labels[:2])
