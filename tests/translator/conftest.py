"""Helpers for translator tests: run a function eagerly and converted, and build/run the
Program of a converted function in static mode.

* ``convert(fn, passes=None)`` -- the converted function (only the named passes if given).
* ``both(fn, *args)`` -- ``(fn(*args), converted(*args))``.
* ``run_static(fn, inputs, passes=None)`` -- builds a Program from the converted ``fn`` with
  one ``core.static.data`` per input array (named ``in0``, ``in1``, ...; Python values are
  passed through unchanged), runs it on CPU and returns ``(outputs as arrays, main program)``.
* ``op_types(program)`` -- every op type in every block of ``program``.
"""
import numpy as np

import core
from translator import convert as _convert

def convert(fn, passes=None):
    return _convert.convert_to_static(fn, passes=passes)


def both(fn, *args, passes=None):
    return fn(*args), convert(fn, passes)(*args)


def run_static(fn, inputs, passes=None):
    main, startup = core.static.Program(), core.static.Program()
    converted = convert(fn, passes)
    feed, args = {}, []
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            for k, value in enumerate(inputs):
                if isinstance(value, np.ndarray):
                    name = f"in{k}"
                    args.append(core.static.data(name, list(value.shape), str(value.dtype)))
                    feed[name] = value
                else:
                    args.append(value)
            outs = converted(*args)
        finally:
            core.disable_static()
    single = not isinstance(outs, (list, tuple))
    fetch = [outs] if single else list(outs)
    exe = core.Executor(core.CPUPlace())
    exe.run(startup)
    results = exe.run(main, feed=feed, fetch_list=fetch)
    return (results[0] if single else results), main


def op_types(program):
    return {op.type for block in program.blocks for op in block.ops}


def as_array(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)
