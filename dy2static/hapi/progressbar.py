"""The progress line ``Model.fit`` / ``evaluate`` / ``predict`` print, as PaddlePaddle's
``ProgressBar``: ``step 10/938 - loss: 0.2965 - acc: 0.8937 - 12ms/step``."""
import sys
import time

import numpy as np

__all__ = ["ProgressBar", "format_value"]


def format_value(value):
    """A logged value as PaddlePaddle prints it: numbers with 4 decimals (scientific below
    1e-3), one-element lists and arrays as their element."""
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(-1)[0]
    if isinstance(value, (float, np.floating)):
        return f"{value:.4e}" if 0 < abs(value) < 1e-3 else f"{value:.4f}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return str(value)


class ProgressBar:
    """``verbose`` 0: silent; 1: one line rewritten in place; 2: one line per update."""

    def __init__(self, num=None, verbose=2, file=None):
        self.num, self.verbose = num, int(verbose)
        self.file = file if file is not None else sys.stdout
        self.start = time.time()
        self.last_step = 0

    def update(self, step, values=()):
        """Show ``step`` (1-based) and the ``(name, value)`` pairs ``values``."""
        if self.verbose == 0:
            return
        elapsed = time.time() - self.start
        per_step = elapsed / max(step, 1)
        total = f"/{self.num}" if self.num else ""
        parts = [f"step {step}{total}"]
        parts += [f"{name}: {format_value(v)}" for name, v in values]
        unit = f"{per_step * 1000:.0f}ms/step" if per_step < 1 else f"{per_step:.0f}s/step"
        parts.append(unit)
        line = " - ".join(parts)
        if self.verbose == 1:
            end = "\n" if self.num and step >= self.num else ""
            self.file.write("\r" + line + end)
        else:
            self.file.write(line + "\n")
        self.file.flush()
        self.last_step = step
