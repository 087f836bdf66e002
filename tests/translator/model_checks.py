"""The checks every model-family test makes, eager vs declarative:

* ``eager_call(fn, *args)`` -- ``fn(*args)`` with the translator off (a ``declarative``
  function runs its Python eagerly), so it can be compared with the converted call.
* ``loss_curves(eager_model, converted_model, make_optimizer, batches, step)`` -- train each
  model over ``batches``, the first with the translator off and the second with it on;
  ``make_optimizer(model)`` builds each model's optimizer and ``step(model, opt, batch)`` runs
  one training step and returns its loss as a float (``minimize_step`` finishes one from a
  loss). Returns ``(eager_losses, converted_losses)``.
* ``assert_same_curves(eager, converted, rtol, atol)`` -- equal curves, and the eager one falls
  (the mean of its last ``window`` losses is below the mean of its first ``window``).
* ``saved_model_run(path, inputs, **save_kwargs)`` -- save the translator's most recent
  program as an inference model (``ProgramTranslator().save_inference_model``), reload it and
  run it on ``inputs`` (arrays, in feed order). Returns ``Saved(program, feeds, outputs)``.
"""
import contextlib
from collections import namedtuple

import numpy as np

import core
from translator import ProgramTranslator

Saved = namedtuple("Saved", "program feeds outputs")


@contextlib.contextmanager
def translator_enabled(on):
    ProgramTranslator().enable(on)
    try:
        yield
    finally:
        ProgramTranslator().enable(True)


def eager_call(fn, *args, **kwargs):
    with translator_enabled(False):
        return fn(*args, **kwargs)


def minimize_step(model, opt, loss):
    """Backward, update, clear the gradients; the loss as a float."""
    loss.backward()
    opt.minimize(loss)
    model.clear_gradients()
    return float(loss.numpy())


def train_losses(model, make_optimizer, batches, step, use_translator):
    with translator_enabled(use_translator):
        opt = make_optimizer(model)
        return [step(model, opt, batch) for batch in batches]


def loss_curves(eager_model, converted_model, make_optimizer, batches, step):
    return (train_losses(eager_model, make_optimizer, batches, step, False),
            train_losses(converted_model, make_optimizer, batches, step, True))


def assert_same_curves(eager, converted, rtol, atol, window=1):
    np.testing.assert_allclose(converted, eager, rtol=rtol, atol=atol)
    assert np.mean(eager[-window:]) < np.mean(eager[:window])


def saved_model_run(path, inputs, **save_kwargs):
    ProgramTranslator().save_inference_model(str(path), **save_kwargs)
    exe = core.Executor(core.CPUPlace())
    program, feeds, fetches = core.io.load_inference_model(str(path), exe)
    outputs = exe.run(program, feed=dict(zip(feeds, inputs)), fetch_list=fetches)
    return Saved(program, feeds, outputs)


def op_count(program, op_type):
    return [op.type for op in program.global_block().ops].count(op_type)
