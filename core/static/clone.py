"""Deep copies of Programs (``Program.clone``), including the ``for_test`` variant.

:mod:`core.static.program` calls :func:`clone_program`, so this module takes the Program and
Block classes from the program it copies instead of importing them."""
from ..ops.registry import _REGISTRY
from .operator import Operator
from .variable import Parameter, Variable

__all__ = ["clone_program"]


def _copy_var(v, block):
    if isinstance(v, Parameter):
        c = Parameter(block, v.name, v.shape, v.dtype, trainable=v.trainable,
                      optimize_attr=v.optimize_attr, regularizer=v.regularizer,
                      need_clip=v.need_clip)
        c.is_distributed, c.do_model_average = v.is_distributed, v.do_model_average
    else:
        c = Variable(block, v.name, v.shape, v.dtype, type=v.type, persistable=v.persistable,
                     stop_gradient=v.stop_gradient, is_data=v.is_data)
    return c


def _is_training_op(op, keep_backward=False):
    """Backward and optimizer ops: dropped by ``clone(for_test=True)`` (backward ones kept
    with ``keep_backward``)."""
    if op.role == "optimize" or (op.role != "forward" and not keep_backward):
        return True
    opdef = _REGISTRY.get(op.type)
    return opdef is not None and type(opdef).__module__.endswith("ops.optimizer")


def clone_program(program, for_test=False, keep_backward=False):
    """A deep copy of ``program``; ``for_test`` drops the training ops and sets ``is_test``.
    ``keep_backward`` (with ``for_test``) keeps the backward ops: a pruning that follows
    keeps those a target needs (a ``paddle.grad`` result the program returns) and drops the
    rest, as PaddlePaddle's ``save_inference_model`` prunes without dropping them first."""
    Program, Block = type(program), type(program.global_block())
    new = Program()
    new.random_seed = program.random_seed
    new._op_role = program._op_role
    new.blocks = []
    for b in program.blocks:
        nb = Block(new, b.idx, b.parent_idx)
        nb.forward_block_idx = b.forward_block_idx
        for name, v in b.vars.items():
            nb.vars[name] = _copy_var(v, nb)
        for op in b.ops:
            if for_test and _is_training_op(op, keep_backward):
                continue
            attrs = dict(op.attrs)
            if for_test and "is_test" in attrs:
                attrs["is_test"] = True
            nb.ops.append(Operator(nb, op.type, op.inputs, op.outputs, attrs, role=op.role,
                                   origin=op.origin))
        new.blocks.append(nb)
    if for_test:
        _drop_unused_grad_vars(new)
    new._current_block_idx = 0
    new._version = 0
    return new


def _drop_unused_grad_vars(program):
    used = set()
    for b in program.blocks:
        for op in b.ops:
            used.update(op.input_arg_names)
            used.update(op.output_arg_names)
    for b in program.blocks:
        for name in [n for n, v in b.vars.items() if "@GRAD" in n and n not in used]:
            del b.vars[name]
