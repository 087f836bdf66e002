"""Why tracing is not enough: control flow that depends on the data.

    python examples/tree_sum.py

``TreeSum`` adds the rows of its input pairwise, level by level, like a reduction tree: the
number of levels depends on the number of rows. ``SignedScale`` doubles positive sums and
negates the others: a branch on a tensor *value*.

* ``TracedLayer.trace`` records what one call did. The tree traced on 4 rows is two fixed
  levels of fixed slices, so called on 8 rows it silently sums only the first 4. The
  value-dependent branch cannot be traced at all (a static Variable has no truth value).
* ``@declarative`` rewrites the source: the tree is retranslated for each input shape (the
  shape is part of the call signature) and the branch becomes a ``cond`` op that picks a
  side at run time, so every input gets the right answer.
"""
import sys

import numpy as np

import core
from translator import ProgramTranslator, TracedLayer, declarative


class TreeSum(core.nn.Layer):
    """Sum of the rows of ``x`` ([rows, width]) by pairwise addition."""

    def forward(self, x):
        while x.shape[0] > 1:
            if x.shape[0] % 2 == 1:
                x = core.layers.concat([x, core.layers.zeros([1, x.shape[1]], x.dtype)], axis=0)
            half = x.shape[0] // 2
            x = x[:half] + x[half:2 * half]
        return x


class DeclarativeTreeSum(TreeSum):
    @declarative
    def forward(self, x):
        while x.shape[0] > 1:
            if x.shape[0] % 2 == 1:
                x = core.layers.concat([x, core.layers.zeros([1, x.shape[1]], x.dtype)], axis=0)
            half = x.shape[0] // 2
            x = x[:half] + x[half:2 * half]
        return x


class SignedScale(core.nn.Layer):
    """``2 * sum(x)`` when the sum is positive, else ``-sum(x)``."""

    def forward(self, x):
        total = core.layers.reduce_sum(x)
        if total > 0:
            out = total * 2.0
        else:
            out = -total
        return out


class DeclarativeSignedScale(SignedScale):
    forward = declarative(SignedScale.forward)


def main():
    rng = np.random.default_rng(0)
    four = rng.standard_normal((4, 3)).astype(np.float32)
    eight = rng.standard_normal((8, 3)).astype(np.float32)
    want4, want8 = four.sum(axis=0, keepdims=True), eight.sum(axis=0, keepdims=True)

    _, traced = TracedLayer.trace(TreeSum(), [core.to_tensor(four)])
    traced4, traced8 = traced([four])[0], traced([eight])[0]
    tree = DeclarativeTreeSum()
    decl4, decl8 = tree(core.to_tensor(four)).numpy(), tree(core.to_tensor(eight)).numpy()
    print("tree sum of 4 rows, then of 8 rows (traced on 4 rows):")
    print(f"  traced:      4 rows ok={np.allclose(traced4, want4, atol=1e-5)}  "
          f"8 rows ok={np.allclose(traced8, want8, atol=1e-5)}")
    print(f"  declarative: 4 rows ok={np.allclose(decl4, want4, atol=1e-5)}  "
          f"8 rows ok={np.allclose(decl8, want8, atol=1e-5)}  "
          f"({tree.forward.translations} programs, one per shape)")

    pos, neg = np.ones((2, 2), np.float32), -np.ones((2, 2), np.float32)
    try:
        TracedLayer.trace(SignedScale(), [core.to_tensor(pos)])
        trace_error = None
    except TypeError as e:
        trace_error = str(e).splitlines()[0]
    scale = DeclarativeSignedScale()
    got_pos, got_neg = float(scale(core.to_tensor(pos))), float(scale(core.to_tensor(neg)))
    print("value-dependent branch:")
    print(f"  traced:      cannot trace: {trace_error}")
    print(f"  declarative: sum 4 -> {got_pos:g} (want 8), sum -4 -> {got_neg:g} (want 4)")
    ok = (not np.allclose(traced8, want8, atol=1e-5) and np.allclose(decl8, want8, atol=1e-5)
          and trace_error is not None and (got_pos, got_neg) == (8.0, 4.0))
    ProgramTranslator().enable(True)
    return ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
