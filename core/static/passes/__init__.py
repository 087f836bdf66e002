"""Program optimisation passes, run on a clone of a Program before its plan is compiled.

Every pass is a small module with a ``run(program, feed_names, fetch_names)`` that rewrites
the clone in place and returns how many changes it made; its docstring states what it
preserves. :func:`optimize` runs the pipeline (see :mod:`.pipeline`); :class:`BuildStrategy`
turns single passes off, :func:`set_enabled` (or ``DY2STATIC_PASSES=0``) all of them.

Sub-blocks: in programs without gradient operators every pass works in ``cond`` / ``while``
sub-blocks too; in training programs fusion and sub-block dead-code elimination only touch
the global block, because gradient sub-blocks replay and save what the forward sub-blocks
define.
"""
from .pipeline import PASSES, active, optimize
from .strategy import BuildStrategy, enabled, generation, set_enabled

__all__ = ["PASSES", "BuildStrategy", "active", "enabled", "generation", "optimize",
           "set_enabled"]
