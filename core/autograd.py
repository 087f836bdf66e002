"""The eager tape: grad nodes recorded by ops, and the iterative backward pass.

Every eager op whose inputs need a gradient records one :class:`Node` holding the op, its
input tensors and the arrays its ``backward`` needs. :func:`run_backward` orders the nodes
reachable from the root topologically (iteratively, in a deterministic order), then calls each
op's registered ``backward`` once, accumulating gradients per output and, for leaves, into
``Tensor._grad``. Registered backward hooks (:func:`register_backward_hook`) hear when each
leaf's gradient is complete and when the pass ends.
"""
import functools
import weakref

from .backend import array_module_of, place_of
from .errors import describe_value
from .ops.registry import KernelContext, is_list_slot, slot_name

__all__ = ["Node", "no_grad", "is_grad_enabled", "set_grad_enabled", "run_backward",
           "partial_grads", "register_tensor_type", "register_backward_hook"]

_grad_state = {"enabled": True}
_backward_hooks = []  # weak references to hook objects, in registration order


def register_backward_hook(hook):
    """Tell ``hook`` about every backward pass: ``hook.grad_ready(tensor)`` when a leaf's
    gradient for this pass is complete (no node left to add to it), ``hook.backward_end()``
    after the pass. The hook is held by a weak reference: once nothing else refers to it, it
    is dropped. Data-parallel training uses this to start reducing gradients while the rest
    of the backward pass runs."""
    _backward_hooks.append(weakref.ref(hook))


def _live_hooks():
    live = [r() for r in _backward_hooks]
    if None in live:
        _backward_hooks[:] = [r for r, h in zip(_backward_hooks, live) if h is not None]
        live = [h for h in live if h is not None]
    return live


def is_grad_enabled():
    return _grad_state["enabled"]


def set_grad_enabled(flag):
    _grad_state["enabled"] = bool(flag)


class no_grad:
    """Context manager and decorator: eager ops inside record no tape.

    ``with no_grad():``, ``@no_grad()`` (2.0) and the bare ``@no_grad`` (fluid 1.8) all work.
    """

    def __new__(cls, func=None):
        self = super().__new__(cls)
        return self if func is None else self(func)

    def __enter__(self):
        self._old = _grad_state["enabled"]
        _grad_state["enabled"] = False
        return self

    def __exit__(self, *exc):
        _grad_state["enabled"] = self._old
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with no_grad():
                return func(*args, **kwargs)

        # converted code converts ``func`` (``__wrapped__``) and wraps the result again
        wrapper._d2s_rewrap = no_grad
        return wrapper


class Node:
    """One recorded op application: what ``backward`` needs, and the input tensors to route
    gradients to. ``inputs`` holds per slot a Tensor, a list of Tensors, or a constant."""

    __slots__ = ("op", "inputs", "in_arrays", "out_arrays", "attrs")

    def __init__(self, op, inputs, in_arrays, out_arrays, attrs):
        self.op = op
        self.inputs = inputs
        self.in_arrays = in_arrays
        self.out_arrays = out_arrays
        self.attrs = attrs


_tensor_type = []  # core.tensor registers Tensor here (it imports this module first)


def register_tensor_type(cls):
    _tensor_type.append(cls)


# ``x[i] = v`` on an eager tensor gives the object ``x`` a new value (a new array and the
# ``setitem`` node); the value it had lives on in a shell tensor, the node's input. Ops
# recorded before that still name ``x`` among their inputs: ``_rebound`` maps ``id(x)`` to
# ``(weakref to x, [shells])`` so the backward pass gives their gradient to the shell whose
# array they read. Only tensors that were assigned into are listed.
_rebound = {}


def record_rebind(t, shell):
    """Note that tensor ``t`` took a new value and ``shell`` holds the one it had."""
    entry = _rebound.get(id(t))
    if entry is None or entry[0]() is not t:
        key = id(t)
        entry = _rebound[key] = (weakref.ref(t, lambda _, k=key: _rebound.pop(k, None)), [])
    entry[1].append(shell)


def _as_read(t, arr):
    """The identity of rebound tensor ``t`` whose array ``arr`` an op read."""
    entry = _rebound.get(id(t))
    if entry is None or entry[0]() is not t or arr is None or arr is t._data:
        return t
    for shell in entry[1]:
        if shell._data is arr:
            return shell
    return t


def _input_tensors(node):
    """[(slot index, position or None, tensor)] for every Tensor input of ``node``."""
    tensor = _tensor_type[0]
    res = []
    rebound = _rebound
    for i, v in enumerate(node.inputs):
        tv = type(v)
        if tv is list or tv is tuple:
            for j, t in enumerate(v):
                if isinstance(t, tensor):
                    if rebound and id(t) in rebound and node.in_arrays is not None:
                        t = _as_read(t, node.in_arrays[i][j])
                    res.append((i, j, t))
        elif isinstance(v, tensor):
            if rebound and id(v) in rebound and node.in_arrays is not None:
                v = _as_read(v, node.in_arrays[i])
            res.append((i, None, v))
    return res


def _topo_order(root):
    """Nodes reachable from ``root`` through inputs that need grad, producers before users,
    and each node's tensor inputs (computed once)."""
    order, inputs_of = [], {}
    ins = inputs_of[id(root)] = _input_tensors(root)
    stack = [(root, ins, 0)]
    while stack:
        node, ins, k = stack.pop()
        while k < len(ins):
            t = ins[k][2]
            k += 1
            child = t._node
            if child is None or t.stop_gradient or id(child) in inputs_of:
                continue
            cins = inputs_of[id(child)] = _input_tensors(child)
            stack.append((node, ins, k))
            stack.append((child, cins, 0))
            break
        else:
            order.append(node)
    return order, inputs_of


def _accumulate(slots, idx, g):
    slot, pos = idx
    if pos is None:
        slots[slot] = g if slots[slot] is None else slots[slot] + g
    else:
        lst = slots[slot]
        lst[pos] = g if lst[pos] is None else lst[pos] + g


def _empty_grads(node):
    return [[None] * len(a) if isinstance(a, list) else None for a in node.out_arrays]


def _douts(node, grads, xp):
    op = node.op
    result = []
    for k, slot in enumerate(op.outputs):
        out = node.out_arrays[k]
        if slot_name(slot) in op.nondiff_outputs:
            result.append(None)
        elif is_list_slot(slot):
            result.append([g if g is not None else xp.zeros_like(o)
                           for g, o in zip(grads[k], out)])
        else:
            result.append(grads[k] if grads[k] is not None else xp.zeros_like(out))
    return result


def _check_grad(node, t, g):
    if g.shape != t._data.shape:
        raise RuntimeError(
            f"gradient of op '{node.op.type}' has shape {list(g.shape)} for an input of shape "
            f"{list(t._data.shape)}")
    if g.dtype != t._data.dtype:
        g = g.astype(t._data.dtype)
    return g


def run_backward(root, grad=None, retain_graph=False):
    """Backpropagate from tensor ``root`` (seeded with ``grad``, ones by default)."""
    xp = array_module_of(root._data)
    seed = xp.ones_like(root._data) if grad is None else xp.asarray(grad, dtype=root._data.dtype)
    if seed.shape != root._data.shape:
        raise ValueError(f"backward: grad_tensor has shape {list(seed.shape)}, "
                         f"the tensor has shape {list(root._data.shape)}")
    if root.stop_gradient:
        raise RuntimeError(
            "backward() called on a tensor with stop_gradient=True: no input of the "
            "computation that produced it needs a gradient (set stop_gradient=False on them)")
    node = root._node
    # The root keeps its seed gradient (leaf or not), as Paddle's ``loss.gradient()`` shows.
    root._grad = seed.copy() if root._grad is None else root._grad + seed
    if node is None:  # a leaf
        return
    if node.in_arrays is None:
        raise RuntimeError(
            f"backward through op '{node.op.type}' a second time: its graph was freed by the "
            "first backward; pass retain_graph=True to the first call")
    order, inputs_of = _topo_order(node)
    hooks = _live_hooks() if _backward_hooks else None
    pending = _leaf_uses(order, inputs_of) if hooks else None
    grads = {id(n): _empty_grads(n) for n in order}
    _accumulate(grads[id(node)], root._out_idx, seed)
    ctx = KernelContext(xp, place_of(root._data))
    for n in reversed(order):
        if n.in_arrays is None:
            raise RuntimeError(
                f"backward through op '{n.op.type}' a second time: its graph was freed by an "
                "earlier backward; pass retain_graph=True to that call")
        op = n.op
        tensors = inputs_of[id(n)]
        needs = [False] * len(op.inputs)
        for i, _, t in tensors:
            if not t.stop_gradient:
                needs[i] = True
        if op.nondiff_inputs:
            for i in range(len(needs)):
                if needs[i] and slot_name(op.inputs[i]) in op.nondiff_inputs:
                    needs[i] = False
        if True in needs:
            ctx.needs_grad = tuple(needs)
            in_grads = op.backward(ctx, n.in_arrays, n.out_arrays, _douts(n, grads[id(n)], xp),
                                   **n.attrs)
            if not isinstance(in_grads, (tuple, list)) or len(in_grads) != len(op.inputs):
                raise RuntimeError(f"backward of op '{op.type}' must return one gradient per "
                                   f"input slot {op.inputs}, got {describe_value(in_grads)}")
        else:
            in_grads = None
        for i, j, t in tensors:
            if t.stop_gradient:
                if t._grad is None and (t._node is not None or t._detached):
                    t._grad = xp.zeros_like(t._data)  # Paddle: a cut-off tensor's grad is 0
                continue
            if not needs[i]:
                continue
            g = in_grads[i] if j is None else in_grads[i][j]
            if g is None:
                continue
            if g.shape != t._data.shape or g.dtype != t._data.dtype:
                g = _check_grad(n, t, g)
            if t._node is None:
                # NOTE: a copy on first store: kernels may return one array (or views of it)
                # for several inputs, and leaf gradients are modified in place later.
                t._grad = g.copy() if t._grad is None else t._grad + g
            else:
                _accumulate(grads[id(t._node)], t._out_idx, g)
        grads[id(n)] = None
        if not retain_graph:
            n.in_arrays = n.out_arrays = None
        if hooks:
            _notify_ready(hooks, pending, tensors)
    if hooks:
        for h in hooks:
            h.backward_end()


def _leaf_uses(order, inputs_of):
    """``{id(leaf): number of node inputs that still add to its gradient}`` for the leaves
    needing a gradient."""
    counts = {}
    for n in order:
        for _, _, t in inputs_of[id(n)]:
            if t._node is None and not t.stop_gradient:
                counts[id(t)] = counts.get(id(t), 0) + 1
    return counts


def _notify_ready(hooks, pending, tensors):
    for _, _, t in tensors:
        k = id(t)
        if k in pending:
            pending[k] -= 1
            if pending[k] == 0:
                del pending[k]
                for h in hooks:
                    h.grad_ready(t)


def _flat_grads(slots):
    for g in slots:
        if isinstance(g, list):
            yield from g
        else:
            yield g


def partial_grads(roots, seeds, inputs, retain_graph=False, no_grad=()):
    """``paddle.grad`` eagerly: the gradient arrays of the sum of ``roots`` (each seeded with
    the array in ``seeds``, ones where None) with respect to each tensor of ``inputs`` (leaf or
    not; None for one the roots do not reach). No tensor's ``.grad`` changes; only the nodes
    between the roots and the inputs run their backward. Tensors in ``no_grad`` pass no
    gradient on. Without ``retain_graph`` the nodes that ran are freed, as by ``backward``."""
    targets = {id(t): k for k, t in enumerate(inputs)}
    blocked = {id(t) for t in no_grad}
    result = [None] * len(inputs)
    order, inputs_of, seen = [], {}, set()
    for root in roots:
        if root._node is not None and id(root._node) not in seen:
            part, ins = _topo_order(root._node)
            inputs_of.update(ins)
            for n in part:
                if id(n) not in seen:
                    seen.add(id(n))
                    order.append(n)
    # the nodes from which an input is reachable (producers come first in ``order``)
    needed = set()
    for n in order:
        for _, _, t in inputs_of[id(n)]:
            if t.stop_gradient or id(t) in blocked:
                continue
            if id(t) in targets or (t._node is not None and id(t._node) in needed):
                needed.add(id(n))
                break
    grads = {id(n): _empty_grads(n) for n in order}
    for root, seed in zip(roots, seeds):
        xp = array_module_of(root._data)
        seed = xp.ones_like(root._data) if seed is None else seed
        k = targets.get(id(root))
        if root._node is not None:
            _accumulate(grads[id(root._node)], root._out_idx, seed)
        elif k is not None:
            result[k] = seed if result[k] is None else result[k] + seed
    by_node = {}
    for t in inputs:
        if t._node is not None and id(t._node) in grads:
            by_node.setdefault(id(t._node), []).append(t)
    ctx = KernelContext(xp, place_of(roots[0]._data))
    for n in reversed(order):
        for t in by_node.get(id(n), ()):  # a non-leaf input: its users have all run
            slots = grads[id(n)]
            slot, pos = t._out_idx
            g = slots[slot] if pos is None else slots[slot][pos]
            k = targets[id(t)]
            if g is not None:
                result[k] = g if result[k] is None else result[k] + g
        if id(n) not in needed or not any(
                g is not None for g in _flat_grads(grads[id(n)])):  # no gradient reached it
            continue
        if n.in_arrays is None:
            raise RuntimeError(f"grad through op '{n.op.type}' a second time: its graph was "
                               "freed by an earlier backward; pass retain_graph=True to it")
        op = n.op
        tensors = [(i, j, t) for i, j, t in inputs_of[id(n)]
                   if not t.stop_gradient and id(t) not in blocked and
                   (id(t) in targets or (t._node is not None and id(t._node) in needed))]
        needs = [False] * len(op.inputs)
        for i, _, _ in tensors:
            needs[i] = slot_name(op.inputs[i]) not in op.nondiff_inputs
        if True not in needs:
            continue
        ctx.needs_grad = tuple(needs)
        in_grads = op.backward(ctx, n.in_arrays, n.out_arrays, _douts(n, grads[id(n)], xp),
                               **n.attrs)
        for i, j, t in tensors:
            g = in_grads[i] if j is None else in_grads[i][j]
            if g is None or not needs[i]:
                continue
            if g.shape != t._data.shape or g.dtype != t._data.dtype:
                g = _check_grad(n, t, g)
            if t._node is None:  # a leaf: one of the inputs
                k = targets[id(t)]
                result[k] = g if result[k] is None else result[k] + g
            else:  # complete when its node comes (a non-leaf input is read there)
                _accumulate(grads[id(t._node)], t._out_idx, g)
        if not retain_graph:
            n.in_arrays = n.out_arrays = None
    return result
