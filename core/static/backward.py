"""Static autograd: ``append_backward`` and ``gradients`` add gradient operators to a Program.

For every operator on a path from the inputs to the targets, in reverse order, one
``<type>_grad`` operator is emitted whose kernel is the forward op's registered ``backward``
(see ``core/static/grad_kernels.py``). Gradient variables are named ``<name>@GRAD``; when a
variable feeds several operators its contributions (``<name>@GRAD@RENAME@<n>``) are added by a
``grad_sum`` operator. An operator that writes a variable in place ends that variable's
gradient: readers before it see an older value.

``cond`` gets a ``cond_grad`` whose two sub-blocks differentiate the branches (only the branch
taken runs); ``while`` gets a ``while_grad`` whose sub-block differentiates one iteration of
the body and which replays it over the iterations the forward loop saved, last first.
"""
import itertools

from ..ops.registry import get_op, slot_name
from .analysis import op_writes
from .builder import op_role_guard
from .program import EMPTY_VAR_NAME, GRAD_SUFFIX, Variable
from .variable import names_of

__all__ = ["append_backward", "gradients"]


def _float_like(v):
    return v is not None and v.dtype is not None and v.dtype.kind == "f"


def _cut(block, op, opdef, slots):
    """True when ``op`` was built where gradients were off (``core.no_grad``) or the user cut
    its outputs: every differentiable output is a new ``stop_gradient`` variable of the op's
    block although an input it reads is not (the builder marks a new output stop_gradient
    only when all inputs are, otherwise). An op writing an existing variable (in place, or
    an outer one from a sub-block) is no cut: that variable's flag is from its first value."""
    names = [n for s in opdef.outputs if slot_name(s) not in opdef.nondiff_outputs
             for n in op.outputs.get(slot_name(s), [])]
    read = {n for v in op.inputs.values() for n in v}
    outs = [block._find_var_recursive(n) for n in names if n not in read]
    outs = [v for v in outs if _float_like(v)]
    if len(outs) != len(names) or not outs or \
            not all(v.stop_gradient and v.block is block and not v.persistable for v in outs):
        return False
    ins = [block._find_var_recursive(n) for s in slots for n in op.inputs.get(s, [])]
    return any(v is not None and not v.stop_gradient for v in ins)


class _Backward:
    def __init__(self, program, no_grad, honor_stop_gradient, callbacks=None):
        self.program = program
        self.no_grad = set(no_grad)
        self.honor_stop = honor_stop_gradient
        self.callbacks = list(callbacks or [])
        self.req = set()
        self.recorded = {}
        self.watch = set()
        self.rename = itertools.count()

    # -- which variables need a gradient ---------------------------------------------------------
    def requires(self, block, seeds):
        self.req.update(n for n in seeds if n not in self.no_grad)
        self._analyse(block)

    def _mark(self, block, name, force=False):
        v = block._find_var_recursive(name)
        if not _float_like(v) or name in self.no_grad or name in self.req:
            return False
        # NOTE: stop_gradient set on a global-block variable cuts the gradient, as in Paddle;
        # inside sub-blocks the flags describe the first trace only (a loop variable may start
        # from a constant and pick up a gradient in the body), so they are not consulted.
        if self.honor_stop and not force and v.stop_gradient and v.block.idx == 0:
            return False
        self.req.add(name)
        return True

    def _analyse(self, block):
        for op in block.ops:
            if op.type == "cond":
                if not any(n in self.req for n in op.inputs.get("Input", [])):
                    continue
                for side in ("true", "false"):
                    self._analyse(self.program.block(op.attrs[f"{side}_block"]))
                for k, out in enumerate(op.outputs.get("Out", [])):
                    if op.attrs["true_outs"][k] in self.req or \
                            op.attrs["false_outs"][k] in self.req:
                        self._mark(block, out)
            elif op.type == "while":
                self._analyse_while(block, op)
            else:
                try:
                    opdef = get_op(op.type)
                except KeyError:
                    continue
                if not opdef.differentiable:
                    continue
                slots = [slot_name(opdef.inputs[i]) for i in opdef.grad_slots()]
                if not any(n in self.req for s in slots for n in op.inputs.get(s, [])):
                    continue
                if _cut(block, op, opdef, slots):
                    continue
                for s in opdef.outputs:
                    if slot_name(s) not in opdef.nondiff_outputs:
                        for n in op.outputs.get(slot_name(s), []):
                            self._mark(block, n)

    def _analyse_while(self, block, op):
        body = self.program.block(op.attrs["sub_block"])
        params, outs = op.attrs["loop_vars"], op.attrs["body_outs"]
        xs = op.inputs["X"]
        if not any(n in self.req for n in xs):
            return
        for p, x in zip(params, xs):
            if x in self.req:
                self._mark(body, p, force=True)
        while True:
            self._analyse(body)
            changed = False
            for p, o in zip(params, outs):
                if o in self.req and p not in self.req:
                    changed |= self._mark(body, p, force=True)
            if not changed:
                break
        for p, out in zip(params, op.outputs["Out"]):
            if p in self.req:
                self._mark(block, out)

    # -- gradient variables --------------------------------------------------------------------
    def _taken(self, name):
        return any(name in b.vars for b in self.program.blocks)

    def new_grad(self, fwd_block, grad_block, name):
        v = fwd_block._find_var_recursive(name)
        base = name + GRAD_SUFFIX
        gname = base
        # NOTE: inside a sub-block, the gradient of an outer variable is one branch's or one
        # iteration's share; the plain ``<name>@GRAD`` is kept for the global total.
        while self._taken(gname) or (grad_block.idx != 0 and gname == base and
                                     v.block.idx != fwd_block.idx and v.block.idx == 0):
            gname = f"{base}@RENAME@{next(self.rename)}"
        g = grad_block.create_var(name=gname, shape=v.shape, dtype=v.dtype, type=v.type,
                                  stop_gradient=True)
        return g.name

    def finalize(self, grad_block, contrib, name):
        """The one gradient variable of ``name`` (contributions summed), or None; the
        contributions are consumed."""
        cs = contrib.pop(name, None)
        if not cs:
            return None
        if len(cs) > 1:
            grad_block.append_op("grad_sum", {"X": cs}, {"Out": [cs[0]]}, {}, role="backward")
        if name in self.watch and grad_block.idx == 0:
            self.recorded[name] = cs[0]
        return cs[0]

    def _sub_grad_block(self, fwd_block):
        old = self.program._current_block_idx
        gb = self.program._create_block(parent_idx=fwd_block.idx)
        gb.forward_block_idx = fwd_block.idx
        self.program._current_block_idx = old
        return gb

    # -- the reverse walk ------------------------------------------------------------------------
    def walk(self, block, grad_block, contrib):
        for op in reversed(list(block.ops)):
            outs = op_writes(op)
            if not any(o in contrib for o in outs):
                continue
            if op.type == "cond":
                self._cond(block, grad_block, op, contrib)
            elif op.type == "while":
                self._while(block, grad_block, op, contrib)
            else:
                self._generic(block, grad_block, op, contrib)
            for cb in self.callbacks:
                cb(grad_block, {"__current_op_desc__": op})

    def _generic(self, block, grad_block, op, contrib):
        try:
            opdef = get_op(op.type)
        except KeyError:
            raise ValueError(f"append_backward: op '{op.type}' in block {block.idx} is not "
                             "registered, so it has no gradient") from None
        douts = {}
        for s in opdef.outputs:
            name = slot_name(s)
            douts[name] = [self.finalize(grad_block, contrib, n) or EMPTY_VAR_NAME
                           for n in op.outputs.get(name, [])]
        grad_slots = {slot_name(opdef.inputs[i]) for i in opdef.grad_slots()}
        needs = {slot_name(s): slot_name(s) in grad_slots and
                 any(n in self.req for n in op.inputs.get(slot_name(s), []))
                 for s in opdef.inputs}
        if not any(needs.values()) or all(d == EMPTY_VAR_NAME for v in douts.values() for d in v):
            return
        inputs = {k: list(v) for k, v in op.inputs.items()}
        for s in opdef.outputs:
            name = slot_name(s)
            if name in inputs:
                raise ValueError(f"append_backward: op '{op.type}' has an input and an output "
                                 f"both named '{name}'")
            inputs[name] = list(op.outputs.get(name, []))
            inputs[name + GRAD_SUFFIX] = douts[name]
        outputs = {}
        pending = []
        for s in opdef.inputs:
            name = slot_name(s)
            names = []
            for n in op.inputs.get(name, []):
                if needs[name] and n in self.req:
                    g = self.new_grad(block, grad_block, n)
                    names.append(g)
                    pending.append((n, g))
                else:
                    names.append(EMPTY_VAR_NAME)
            outputs[name + GRAD_SUFFIX] = names
        grad_block.append_op(op.type + "_grad", inputs, outputs, dict(op.attrs), role="backward",
                             origin=op.origin)
        for n, g in pending:
            contrib.setdefault(n, []).append(g)

    def _cond(self, block, grad_block, op, contrib):
        outs = op.outputs.get("Out", [])
        douts = [self.finalize(grad_block, contrib, o) or EMPTY_VAR_NAME for o in outs]
        ins = op.inputs.get("Input", [])
        if all(d == EMPTY_VAR_NAME for d in douts) or not any(n in self.req for n in ins):
            return
        attrs = {}
        for side in ("true", "false"):
            fb = self.program.block(op.attrs[f"{side}_block"])
            gb = self._sub_grad_block(fb)
            branch = {}
            seeds = []
            for bo, d in zip(op.attrs[f"{side}_outs"], douts):
                if d == EMPTY_VAR_NAME or bo not in self.req:
                    seeds.append("")
                    continue
                g = self.new_grad(fb, gb, bo)
                branch.setdefault(bo, []).append(g)
                seeds.append(g)
            self.walk(fb, gb, branch)
            attrs[f"{side}_block"] = gb.idx
            attrs[f"{side}_out_grads"] = seeds
            attrs[f"{side}_in_grads"] = [
                (self.finalize(gb, branch, n) or "") if n in self.req else "" for n in ins]
        igs = []
        pending = []
        for k, n in enumerate(ins):
            if n in self.req and (attrs["true_in_grads"][k] or attrs["false_in_grads"][k]):
                g = self.new_grad(block, grad_block, n)
                igs.append(g)
                pending.append((n, g))
            else:
                igs.append(EMPTY_VAR_NAME)
        grad_block.append_op("cond_grad", {"Cond": op.inputs["Cond"], "Input": ins, "Out": outs,
                                           "Out@GRAD": douts}, {"Input@GRAD": igs}, attrs,
                             role="backward", origin=op.origin)
        for n, g in pending:
            contrib.setdefault(n, []).append(g)

    def _while(self, block, grad_block, op, contrib):
        outs = op.outputs["Out"]
        douts = [self.finalize(grad_block, contrib, o) or EMPTY_VAR_NAME for o in outs]
        for s in op.outputs.get("StepScopes", []):
            contrib.pop(s, None)
        body = self.program.block(op.attrs["sub_block"])
        params, body_outs = op.attrs["loop_vars"], op.attrs["body_outs"]
        n = len(params)
        xs = op.inputs["X"]
        active = [p in self.req for p in params]
        if all(d == EMPTY_VAR_NAME for d in douts) or not any(active):
            return
        if op.attrs.get("is_test"):
            raise ValueError(f"append_backward: while loop (block {body.idx}) was built with "
                             "is_test=True and saves no iterations, so it has no gradient")
        gb = self._sub_grad_block(body)
        inner = {}
        out_grads = []
        for i in range(n):
            if not active[i]:
                out_grads.append("")
                continue
            g = self.new_grad(body, gb, body_outs[i])
            inner.setdefault(body_outs[i], []).append(g)
            out_grads.append(g)
        self.walk(body, gb, inner)
        param_grads = [(self.finalize(gb, inner, params[i]) or "") if active[i] else ""
                       for i in range(n)]
        captured_grads = [(self.finalize(gb, inner, c) or "") if c in self.req else ""
                          for c in xs[n:]]
        xgs, pending = [], []
        for k, x in enumerate(xs):
            has = active[k] if k < n else bool(captured_grads[k - n])
            if has and x in self.req:
                g = self.new_grad(block, grad_block, x)
                xgs.append(g)
                pending.append((x, g))
            else:
                xgs.append(EMPTY_VAR_NAME)
        grad_block.append_op("while_grad", {"X": xs, "Out": outs, "Out@GRAD": douts,
                                            "StepScopes": op.outputs["StepScopes"]},
                             {"X@GRAD": xgs},
                             {"sub_block": gb.idx, "fwd_block": body.idx, "loop_vars": params,
                              "out_grads": out_grads, "param_grads": param_grads,
                              "captured_grads": captured_grads},
                             role="backward", origin=op.origin)
        for x, g in pending:
            contrib.setdefault(x, []).append(g)


def _check_target(t, api):
    if not isinstance(t, Variable):
        raise TypeError(f"{api}: expected a static Variable, got {type(t).__name__}")
    if t.block.idx != 0:
        raise ValueError(f"{api}: '{t.name}' belongs to block {t.block.idx}; differentiate a "
                         "variable of the global block (a cond/while output)")


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None):
    """Append the gradient operators of scalar ``loss`` to its program.

    Returns ``[(parameter, gradient variable)]`` for the trainable parameters (or those of
    ``parameter_list``) that ``loss`` depends on.
    """
    _check_target(loss, "append_backward")
    if loss.shape and any(d != 1 for d in loss.shape):
        raise ValueError(f"append_backward: loss '{loss.name}' must hold one element, got shape "
                         f"{loss.shape}; reduce it (e.g. mean) first")
    program = loss.block.program
    gb = program.global_block()
    if parameter_list is not None:
        names = names_of(parameter_list,
                         "append_backward: 'parameter_list' must hold Variables or names")
    else:
        names = [p.name for p in gb.all_parameters() if p.trainable]
    for n in names:
        if gb._find_var_recursive(n) is None:
            raise ValueError(f"append_backward: parameter '{n}' is not in the loss's program")
    no_grad = names_of(no_grad_set, "append_backward: 'no_grad_set' must hold Variables or names")
    bw = _Backward(program, no_grad, True, callbacks)
    bw.watch = set(names)
    bw.requires(gb, names)
    with op_role_guard("backward", program):
        seed = bw.new_grad(gb, gb, loss.name)
        gb.append_op("fill_any_like", {"X": [loss.name]}, {"Out": [seed]},
                     {"value": 1.0, "dtype": None}, role="backward")
        contrib = {loss.name: [seed]}
        bw.walk(gb, gb, contrib)
        for n in names:
            if n not in bw.recorded:
                bw.finalize(gb, contrib, n)
    result = []
    for n in names:
        g = bw.recorded.get(n)
        if g is not None:
            result.append((gb.var(n), gb.var(g)))
    return result


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """Gradient variables of the sum of ``targets`` with respect to each of ``inputs`` (None
    for an input the targets do not depend on). ``target_gradients`` seed the targets
    (default: ones)."""
    targets = list(targets) if isinstance(targets, (list, tuple)) else [targets]
    single = not isinstance(inputs, (list, tuple))
    inputs = [inputs] if single else list(inputs)
    for t in targets + inputs:
        _check_target(t, "gradients")
    program = targets[0].block.program
    gb = program.global_block()
    if target_gradients is None:
        target_gradients = [None] * len(targets)
    elif not isinstance(target_gradients, (list, tuple)):
        target_gradients = [target_gradients]
    if len(target_gradients) != len(targets):
        raise ValueError(f"gradients: {len(targets)} targets but {len(target_gradients)} "
                         "target_gradients")
    names = [x.name for x in inputs]
    no_grad = names_of(no_grad_set, "gradients: 'no_grad_set' must hold Variables or names")
    bw = _Backward(program, no_grad, False)
    bw.watch = set(names)
    bw.requires(gb, names)
    contrib = {}
    with op_role_guard("backward", program):
        for t, tg in zip(targets, target_gradients):
            if tg is None:
                seed = bw.new_grad(gb, gb, t.name)
                gb.append_op("fill_any_like", {"X": [t.name]}, {"Out": [seed]},
                             {"value": 1.0, "dtype": None}, role="backward")
            else:
                if not isinstance(tg, Variable) or len(tg.shape) != len(t.shape) or any(
                        a != b and -1 not in (a, b) for a, b in zip(tg.shape, t.shape)):
                    raise ValueError(f"gradients: target_gradient for '{t.name}' must be a "
                                     f"Variable of shape {t.shape}")
                seed = tg.name
            contrib.setdefault(t.name, []).append(seed)
        bw.walk(gb, gb, contrib)
        for n in names:
            if n not in bw.recorded:
                bw.finalize(gb, contrib, n)
    return [gb._find_var_recursive(bw.recorded[n]) if n in bw.recorded else None for n in names]
