"""``paddle.callbacks``: hooks ``Model.fit`` / ``evaluate`` / ``predict`` call, as
PaddlePaddle's (``Callback``, ``LRScheduler``, ``EarlyStopping``, ``ModelCheckpoint``)."""
import os

import numpy as np

from core.lr import LRScheduler as _Schedule

__all__ = ["Callback", "EarlyStopping", "LRScheduler", "ModelCheckpoint"]


class Callback:
    """Base class: override the ``on_*`` methods you need; ``self.model`` is the Model."""

    def __init__(self):
        self.model, self.params = None, {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_eval_begin(self, logs=None):
        pass

    def on_eval_end(self, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_train_batch_begin(self, step, logs=None):
        pass

    def on_train_batch_end(self, step, logs=None):
        pass

    def on_eval_batch_begin(self, step, logs=None):
        pass

    def on_eval_batch_end(self, step, logs=None):
        pass

    def on_predict_batch_begin(self, step, logs=None):
        pass

    def on_predict_batch_end(self, step, logs=None):
        pass


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate schedule after every batch (``by_step``) or every
    epoch (``by_epoch``). ``Model.fit`` adds one stepping per batch when none is given."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step == by_epoch:
            raise ValueError("LRScheduler: exactly one of by_step and by_epoch must be True")
        self.by_step, self.by_epoch = by_step, by_epoch

    def _step(self):
        opt = getattr(self.model, "_optimizer", None)
        schedule = getattr(opt, "_learning_rate", None)
        if isinstance(schedule, _Schedule):
            schedule.step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()


class EarlyStopping(Callback):
    """Stops training when the evaluated ``monitor`` has not improved by ``min_delta`` for
    ``patience`` evaluations; ``save_best_model`` saves the best weights to
    ``<save_dir>/best_model``."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode must be 'auto', 'min' or 'max', got {mode!r}")
        self.monitor, self.patience, self.verbose = monitor, int(patience), verbose
        self.save_best_model = save_best_model
        larger = mode == "max" or (mode == "auto" and "acc" in monitor)
        self.sign = 1.0 if larger else -1.0
        self.min_delta = abs(float(min_delta))
        self.baseline = baseline
        self.wait, self.best, self.stopped_epoch = 0, None, 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.best = None if self.baseline is None else float(self.baseline)

    def on_eval_end(self, logs=None):
        if not logs or self.monitor not in logs:
            return
        value = logs[self.monitor]
        value = float(np.asarray(value).reshape(-1)[0])
        if self.best is None or self.sign * (value - self.best) > self.min_delta:
            self.best, self.wait = value, 0
            save_dir = self.params.get("save_dir")
            if self.save_best_model and save_dir:
                self.model.save(os.path.join(save_dir, "best_model"))
            return
        self.wait += 1
        if self.wait > self.patience:
            self.model.stop_training = True
            if self.verbose:
                print(f"Epoch {self.params.get('epoch', 0) + 1}: Early stopping.")


class ModelCheckpoint(Callback):
    """Saves the model to ``<save_dir>/<epoch>`` every ``save_freq`` epochs and to
    ``<save_dir>/final`` at the end (what ``fit(save_dir=...)`` does)."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq, self.save_dir = int(save_freq), save_dir

    def on_epoch_end(self, epoch, logs=None):
        if self.save_dir and (epoch + 1) % self.save_freq == 0:
            self.model.save(os.path.join(self.save_dir, str(epoch)))

    def on_train_end(self, logs=None):
        if self.save_dir:
            self.model.save(os.path.join(self.save_dir, "final"))
