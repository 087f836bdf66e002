"""``paddle.Model``: PaddlePaddle's high-level training API over a Layer.

``Model(network, inputs=None, labels=None)``; ``prepare(optimizer, loss, metrics)``;
``fit`` / ``evaluate`` / ``predict`` over a ``Dataset`` (batched here by a ``DataLoader``) or
any iterable of batches; ``train_batch`` / ``eval_batch`` / ``predict_batch`` for one batch;
``save`` / ``load`` (parameters and optimizer state, or with ``training=False`` an inference
model through ``jit.save``); ``summary``. The network runs eagerly (a ``to_static`` forward runs
its translated program). A batch is split into the network's inputs (as many as ``inputs``
declares, else as many as ``forward`` takes) and the labels (the rest).
"""
import inspect
import os

import numpy as np

import core
from core.io import DataLoader, Dataset
from core.io.state_dict import load_object, save_object
from core.metric import Metric
from core.tensor_functions import add_n
from .. import jit
from .callbacks import Callback, LRScheduler, ModelCheckpoint
from .progressbar import ProgressBar
from .summary import summary as _summary

__all__ = ["Model"]


def _to_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _numpy(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _tensor(value):
    return value if isinstance(value, core.Tensor) else core.to_tensor(np.asarray(value))


def _forward_arity(network):
    try:
        params = inspect.signature(network.forward).parameters.values()
    except (TypeError, ValueError):
        return 1
    plain = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
             and p.default is p.empty]
    return max(len(plain), 1)


class Model:
    """See the module docstring."""

    def __init__(self, network, inputs=None, labels=None):
        if not isinstance(network, core.nn.Layer):
            raise TypeError(f"Model: network must be a Layer, got {type(network).__name__}")
        self.network = network
        self._inputs, self._labels = _to_list(inputs), _to_list(labels)
        self._optimizer, self._loss, self._metrics = None, None, []
        self.stop_training = False

    # -- setup -------------------------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Set the optimizer, the loss (a callable of ``outputs + labels``) and the metrics."""
        if loss is not None and not callable(loss):
            raise TypeError(f"Model.prepare: loss must be a Layer or a callable, got "
                            f"{type(loss).__name__}")
        metrics = _to_list(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError(f"Model.prepare: metrics must be paddle.metric.Metric objects, "
                                f"got {type(m).__name__}")
        self._optimizer, self._loss, self._metrics = optimizer, loss, metrics

    def parameters(self, *args, **kwargs):
        return self.network.parameters(*args, **kwargs)

    def _n_inputs(self):
        return len(self._inputs) if self._inputs else _forward_arity(self.network)

    def _split(self, batch, with_labels=True):
        data = list(batch) if isinstance(batch, (list, tuple)) else [batch]
        n = self._n_inputs()
        ins, labels = data[:n], data[n:] if with_labels else []
        return [_tensor(v) for v in ins], [_tensor(v) for v in labels]

    # -- one batch ---------------------------------------------------------------------------------
    def _metric_values(self, outputs, labels):
        values = []
        for m in self._metrics:
            computed = _to_list(m.compute(*(outputs + labels)))
            values.append(m.update(*[_numpy(v) for v in computed]))
        return values

    def _losses(self, outputs, labels):
        return _to_list(self._loss(*(outputs + labels)))

    def train_batch(self, inputs, labels=None, update=True):
        """One training step; returns the losses (numpy) and, with metrics, their values."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("Model.train_batch: call prepare(optimizer=..., loss=...) first")
        self.network.train()
        inputs, labels = [_tensor(v) for v in _to_list(inputs)], \
            [_tensor(v) for v in _to_list(labels)]
        outputs = _to_list(self.network(*inputs))
        losses = self._losses(outputs, labels)
        total = losses[0] if len(losses) == 1 else add_n(losses)
        total.backward()
        if update:
            opt = self._optimizer
            if getattr(opt, "_parameter_list", None) is None:
                opt.minimize(total)
            else:
                opt.step()
            opt.clear_grad()
        losses = [_numpy(v) for v in losses]
        metrics = self._metric_values(outputs, labels)
        return (losses, metrics) if self._metrics else losses

    def eval_batch(self, inputs, labels=None):
        """One evaluation step (no gradients): the losses (when a loss is set) and metrics."""
        self.network.eval()
        inputs, labels = [_tensor(v) for v in _to_list(inputs)], \
            [_tensor(v) for v in _to_list(labels)]
        with core.no_grad():
            outputs = _to_list(self.network(*inputs))
            losses = [_numpy(v) for v in self._losses(outputs, labels)] if self._loss else []
            metrics = self._metric_values(outputs, labels)
        return (losses, metrics) if self._metrics else losses

    def predict_batch(self, inputs):
        """The network's outputs for one batch, as numpy arrays."""
        self.network.eval()
        with core.no_grad():
            outputs = self.network(*[_tensor(v) for v in _to_list(inputs)])
        return [_numpy(v) for v in _to_list(outputs)]

    # -- loops -------------------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle, drop_last, num_workers):
        if data is None:
            return None
        if isinstance(data, Dataset):
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                              num_workers=num_workers, return_list=True)
        return data

    def _metric_logs(self, values=None):
        logs = {}
        for i, m in enumerate(self._metrics):
            value = m.accumulate() if values is None else values[i]
            names = _to_list(m.name())
            value = _to_list(value) if len(names) > 1 else [value]
            logs.update(zip(names, value))
        return logs

    def _callbacks(self, callbacks, params):
        cbks = _to_list(callbacks)
        if not any(isinstance(c, LRScheduler) for c in cbks):
            cbks.append(LRScheduler(by_step=True))
        if params.get("save_dir") and not any(isinstance(c, ModelCheckpoint) for c in cbks):
            cbks.append(ModelCheckpoint(params.get("save_freq", 1), params["save_dir"]))
        for c in cbks:
            if not isinstance(c, Callback):
                raise TypeError(f"Model: callbacks must be paddle.callbacks.Callback objects, "
                                f"got {type(c).__name__}")
            c.set_model(self)
            c.set_params(params)
        return cbks

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1,
            log_freq=10, save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True,
            num_workers=0, callbacks=None, accumulate_grad_batches=1, num_iters=None):
        """Train for ``epochs`` epochs, evaluating on ``eval_data`` every ``eval_freq``
        epochs and saving to ``save_dir`` every ``save_freq`` epochs; returns the last
        epoch's logs."""
        if train_data is None:
            raise ValueError("Model.fit: train_data is required")
        loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers)
        params = {"epochs": epochs, "save_dir": save_dir, "save_freq": save_freq,
                  "verbose": verbose, "batch_size": batch_size}
        cbks = self._callbacks(callbacks, params)
        self.stop_training = False
        for c in cbks:
            c.on_train_begin()
        logs, done = {}, 0
        for epoch in range(int(epochs)):
            params["epoch"] = epoch
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs}")
            for c in cbks:
                c.on_epoch_begin(epoch)
            for m in self._metrics:
                m.reset()
            logs, done = self._train_epoch(loader, cbks, log_freq, verbose,
                                           accumulate_grad_batches, num_iters, done)
            for c in cbks:
                c.on_epoch_end(epoch, logs)
            if eval_data is not None and (epoch + 1) % eval_freq == 0:
                self.evaluate(eval_data, batch_size, log_freq, verbose, num_workers,
                              callbacks=cbks)
            if self.stop_training or (num_iters is not None and done >= num_iters):
                break
        for c in cbks:
            c.on_train_end(logs)
        return logs

    def _train_epoch(self, loader, cbks, log_freq, verbose, accumulate, num_iters, done):
        total = len(loader) if hasattr(loader, "__len__") else None
        bar = ProgressBar(total, verbose)
        logs, step = {}, 0
        for step, batch in enumerate(loader, 1):
            for c in cbks:
                c.on_train_batch_begin(step - 1)
            ins, labels = self._split(batch)
            update = step % max(int(accumulate), 1) == 0 or step == total
            result = self.train_batch(ins, labels, update=update)
            losses, metrics = result if self._metrics else (result, [])
            logs = {"loss": [float(np.mean(v)) for v in losses], **self._metric_logs(metrics),
                    "batch_size": len(_numpy(ins[0]))}
            for c in cbks:
                c.on_train_batch_end(step - 1, logs)
            if step % log_freq == 0 or step == total:
                bar.update(step, [(k, v) for k, v in logs.items() if k != "batch_size"])
            done += 1
            if self.stop_training or (num_iters is not None and done >= num_iters):
                break
        if step and bar.last_step != step:
            bar.update(step, [(k, v) for k, v in logs.items() if k != "batch_size"])
        logs.update(self._metric_logs())
        return logs, done

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0,
                 callbacks=None, num_iters=None):
        """Loss (mean over the batches) and metrics over ``eval_data``:
        ``{'loss': [value], '<metric>': value, ...}``."""
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cbks = [c for c in _to_list(callbacks) if isinstance(c, Callback)]
        for m in self._metrics:
            m.reset()
        for c in cbks:
            c.on_eval_begin()
        total = len(loader) if hasattr(loader, "__len__") else None
        if verbose:
            print("Eval begin...")
        bar = ProgressBar(total, verbose)
        sums, count, step = None, 0, 0
        for step, batch in enumerate(loader, 1):
            ins, labels = self._split(batch)
            result = self.eval_batch(ins, labels)
            losses = result[0] if self._metrics else result
            n = len(_numpy(ins[0]))
            batch_losses = [float(np.mean(v)) * n for v in losses]
            sums = batch_losses if sums is None else [a + b for a, b in zip(sums, batch_losses)]
            count += n
            if step % log_freq == 0 or step == total:
                shown = {"loss": [s / count for s in sums]} if sums else {}
                bar.update(step, list({**shown, **self._metric_logs()}.items()))
            if num_iters is not None and step >= num_iters:
                break
        logs = {"loss": [s / count for s in sums]} if sums and count else {}
        logs.update(self._metric_logs())
        for c in cbks:
            c.on_eval_end(logs)
        if verbose:
            print("Eval samples: %d" % count)
        return logs

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1,
                callbacks=None):
        """The network's outputs over ``test_data``: one list per output, of the batches'
        arrays (concatenated into one array per output with ``stack_outputs``)."""
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        outputs = None
        count = 0
        if verbose:
            print("Predict begin...")
        for batch in loader:
            ins, _ = self._split(batch, with_labels=False)
            outs = self.predict_batch(ins)
            outputs = [[] for _ in outs] if outputs is None else outputs
            for store, out in zip(outputs, outs):
                store.append(out)
            count += len(_numpy(ins[0]))
        if verbose:
            print("Predict samples: %d" % count)
        outputs = outputs or []
        if stack_outputs:
            return [np.concatenate(store, axis=0) for store in outputs]
        return outputs

    # -- persistence -------------------------------------------------------------------------------
    def save(self, path, training=True):
        """``training``: ``path.pdparams`` (and ``path.pdopt`` with an optimizer); else an
        inference model ``path.pdmodel`` / ``path.pdiparams`` (``jit.save`` with ``inputs``)."""
        head = os.path.dirname(os.fspath(path))
        if head:
            os.makedirs(head, exist_ok=True)
        if not training:
            return jit.save(self.network, path, input_spec=self._inputs or None)
        save_object(self.network.state_dict(), f"{path}.pdparams")
        if self._optimizer is not None:
            save_object(self._optimizer.state_dict(), f"{path}.pdopt")
        return None

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Load ``path.pdparams`` (and ``path.pdopt`` when present, unless
        ``reset_optimizer``); ``skip_mismatch`` drops entries whose shape differs."""
        state = load_object(f"{path}.pdparams")
        if skip_mismatch:
            own = self.network.state_dict()
            state = {k: v for k, v in state.items()
                     if k in own and list(own[k].shape) == list(v.shape)}
        self.network.set_state_dict(state)
        opt_path = f"{path}.pdopt"
        if self._optimizer is not None and not reset_optimizer and os.path.isfile(opt_path):
            self._optimizer.set_state_dict(load_object(opt_path))

    def summary(self, input_size=None, dtype=None):
        """:func:`paddle.summary` of the network (``input_size`` defaults to ``inputs``)."""
        size = input_size if input_size is not None else (self._inputs or None)
        return _summary(self.network, size, dtype)
