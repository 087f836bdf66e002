"""The pass pipeline: a clone of the Program, optimised for one feed and fetch signature.

:func:`optimize` never changes the Program it is given: it clones it (``Program.clone``),
records every operator's original position (random operators draw from a generator keyed by
it, so a pass that removes or fuses operators before a random one does not change what it
draws) and runs the passes the strategy turns on, in this order:

1. constant folding (:mod:`.fold`),
2. fusion: ``conv2d`` chains (:mod:`.fuse_conv`), GEMM + bias + activation (:mod:`.fuse_fc`),
   elementwise chains (:mod:`.fuse_elementwise`), then loop-invariant GEMMs hoisted out of
   ``while`` bodies (:mod:`.loop_gemm`),
3. dead-code elimination (:mod:`.dce`),
4. memory planning (:mod:`.memory`), which annotates the program for the plan compiler.

Each pass preserves the fetched values and every persistable write; the pipeline's result
computes what the original computes.
"""
from ..clone import clone_program
from . import dce, fold, fuse_conv, fuse_elementwise, fuse_fc, loop_gemm, memory
from .graph import changed
from .strategy import BuildStrategy, enabled

__all__ = ["PASSES", "active", "optimize"]

#: (strategy field, pass module) in the order they run
PASSES = (
    ("constant_folding", fold),
    ("fuse_conv_bias_act_ops", fuse_conv),
    ("fuse_gemm_epilogue", fuse_fc),
    ("fuse_elewise_add_act_ops", fuse_elementwise),
    ("hoist_loop_invariant_gemm", loop_gemm),
    ("remove_dead_ops", dce),
    ("enable_inplace", memory),
)

_DEFAULT = BuildStrategy()


def active(strategy):
    """Whether ``strategy`` (None: the default) runs any pass under the global switch."""
    strategy = strategy or _DEFAULT
    return enabled() and strategy.enable_passes


def optimize(program, feed_names, fetch_names, strategy=None):
    """``(optimised clone, report)``; the clone carries ``_op_keys`` (operator id -> original
    position key) and ``report`` lists ``(pass name, changes)`` for the passes that ran
    (none when ``strategy.enable_passes`` is False; the global switch is the caller's to
    check, see :func:`active`)."""
    strategy = strategy or _DEFAULT
    clone = clone_program(program)
    keys = {}
    for b in clone.blocks:
        for i, op in enumerate(b.ops):
            keys[id(op)] = b.idx * 65536 + i
    # NOTE: the original operators stay referenced, so no operator a pass creates can reuse
    # the id() of one it removed
    clone._op_keys, clone._original_ops = keys, [op for b in clone.blocks for op in b.ops]
    report = []
    for field, module in PASSES:
        if strategy.enable_passes and getattr(strategy, field):
            n = module.run(clone, list(feed_names), list(fetch_names))
            report.append((module.__name__.rsplit(".", 1)[-1], n))
    changed(clone)  # NOTE: the compiled clone does not keep the passes' use tables alive
    return clone, report
