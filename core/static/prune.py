"""Pruning a program for inference: keep only the ops (and the sub-blocks they run, and the
variables those use) that compute the targets from the feeds, with ``is_test`` set. Used by
:func:`core.io.save_inference_model`."""
from .clone import clone_program
from .serialize import is_block_attr, sub_block_indices

__all__ = ["prune_for_inference"]


def _outer_names(program, op):
    """Names the sub-blocks of ``op`` (recursively) use but do not declare themselves."""
    out, stack = set(), list(sub_block_indices(op))
    seen = set()
    while stack:
        idx = stack.pop()
        if idx in seen or not 0 <= idx < len(program.blocks):
            continue
        seen.add(idx)
        block = program.blocks[idx]
        for sub in block.ops:
            for name in sub.input_arg_names + sub.output_arg_names:
                var = block._find_var_recursive(name)
                if var is None or var.block.idx not in seen:
                    out.add(name)
            stack.extend(sub_block_indices(sub))
    return out


def _attr_names(op):
    """The strings in ``op``'s attributes: control-flow ops name variables there (a ``while``
    op's ``loop_vars`` include parameters its body never reads, which must stay declared)."""
    for v in op.attrs.values():
        if isinstance(v, str):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (x for x in v if isinstance(x, str))


def _kept_blocks(program, ops):
    kept, stack = {0}, [i for op in ops for i in sub_block_indices(op)]
    while stack:
        idx = stack.pop()
        if idx in kept or not 0 < idx < len(program.blocks):
            continue
        kept.add(idx)
        block = program.blocks[idx]
        stack.append(block.parent_idx)
        stack.extend(i for op in block.ops for i in sub_block_indices(op))
    return sorted(kept)


def _renumber(program, kept_blocks, referenced):
    new_idx = {old: new for new, old in enumerate(kept_blocks)}
    blocks = [program.blocks[i] for i in kept_blocks]
    for b in blocks:
        b.idx = new_idx[b.idx]
        b.parent_idx = new_idx.get(b.parent_idx, -1)
        b.forward_block_idx = new_idx.get(b.forward_block_idx, -1)
        b.vars = {n: v for n, v in b.vars.items() if n in referenced}
        for op in b.ops:
            for k, v in op.attrs.items():
                if is_block_attr(k) and isinstance(v, int) and not isinstance(v, bool):
                    op.attrs[k] = new_idx[v]
                elif is_block_attr(k) and isinstance(v, list):
                    op.attrs[k] = [new_idx[i] for i in v]
    program.blocks = blocks


def prune_for_inference(program, feeded_var_names, target_names):
    """A copy of ``program`` for inference: optimizer ops dropped, ``is_test`` set, and of
    the rest only the ops the targets need given the feeds (with the sub-blocks those ops run
    and the variables they all use): backward ops only where a target is a gradient (of
    ``paddle.grad`` in the program). A needed variable that is neither fed, persistable nor
    computed is an error naming it."""
    pruned = clone_program(program, for_test=True, keep_backward=True)
    gb = pruned.global_block()
    for kind, names in (("feeded_var_names", feeded_var_names), ("target_vars", target_names)):
        for n in names:
            if gb._find_var_recursive(n) is None:
                raise ValueError(f"save_inference_model: {kind} names '{n}', which is not a "
                                 "variable of the program's global block")
    feeds, needed, kept = set(feeded_var_names), set(target_names), []
    for op in reversed(gb.ops):
        outs = set(op.output_arg_names)
        if not (outs & needed) - feeds:
            continue
        kept.append(op)
        reads = set(op.input_arg_names) | _outer_names(pruned, op)
        needed = (needed - (outs - reads)) | reads
    kept.reverse()
    missing = sorted(n for n in needed - feeds
                     if gb._find_var_recursive(n) is None or
                     not gb._find_var_recursive(n).persistable)
    if missing:
        raise ValueError(f"save_inference_model: the targets {list(target_names)} need "
                         f"{missing}, which are neither fed (feeded_var_names="
                         f"{list(feeded_var_names)}) nor computed from the feeds")
    gb.ops = kept
    blocks = _kept_blocks(pruned, kept)
    referenced = feeds | set(target_names)
    for i in blocks:
        for op in pruned.blocks[i].ops:
            referenced.update(op.input_arg_names)
            referenced.update(op.output_arg_names)
            referenced.update(_attr_names(op))
    _renumber(pruned, blocks, referenced)
    pruned._bump()
    return pruned
