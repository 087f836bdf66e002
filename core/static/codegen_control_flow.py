"""Plan generation for control-flow operators: ``cond`` becomes an ``if``/``else`` holding both
branches inline, ``while`` a Python ``while`` loop holding its body (recording each iteration's
values when its gradient needs them); ``cond_grad`` replays the branch taken and ``while_grad``
the saved iterations in reverse, accumulating the gradients of captured variables.

:class:`ControlFlowEmitter` is a mixin of the plan generator in :mod:`core.static.codegen`: it
uses the generator's ``ident``, ``emit``, ``emit_block``, ``new_local``, ``program``,
``read_set`` and ``hoisted``."""
from .analysis import body_defined_vars
from .operator import EMPTY_VAR_NAME

__all__ = ["ControlFlowEmitter"]


class ControlFlowEmitter:
    """Emits ``cond``, ``cond_grad``, ``while`` and ``while_grad`` operators."""

    def _assign(self, dsts, srcs, op, block):
        if dsts:
            self.emit(f"{''.join(d + ', ' for d in dsts)} = {''.join(s + ', ' for s in srcs)}",
                      op, block)

    def _cond(self, block, op):
        pred = self.ident(block, op.inputs["Cond"][0], op)
        outs = [self.ident(block, n, op) for n in op.outputs.get("Out", [])]
        self.emit(f"if {pred}:", op, block)
        for key, bkey in (("true_outs", "true_block"), ("false_outs", "false_block")):
            if key == "false_outs":
                self.emit("else:", op, block)
            sb = self.program.block(op.attrs[bkey])
            self.indent += 1
            self.emit_block(sb)
            self._assign(outs, [self.ident(sb, n, op) for n in op.attrs[key]], op, block)
            self.indent -= 1

    def _cond_grad(self, block, op):
        pred = self.ident(block, op.inputs["Cond"][0], op)
        fwd_outs = op.inputs.get("Out", [])
        ogs = op.inputs.get("Out@GRAD", [])
        ins = op.inputs.get("Input", [])
        igs = op.outputs.get("Input@GRAD", [])
        self.emit(f"if {pred}:", op, block)
        for side in ("true", "false"):
            if side == "false":
                self.emit("else:", op, block)
            gb = self.program.block(op.attrs[f"{side}_block"])
            self.indent += 1
            for seed, og, out in zip(op.attrs[f"{side}_out_grads"], ogs, fwd_outs):
                if seed:
                    self.emit(f"{self.ident(gb, seed, op)} = "
                              f"{self._grad_or_zeros(block, og, out, op)}", op, block)
            self.emit_block(gb)
            for res, ig, x in zip(op.attrs[f"{side}_in_grads"], igs, ins):
                if ig == EMPTY_VAR_NAME:
                    continue
                src = self.ident(gb, res, op) if res else f"_zl({self.ident(block, x, op)})"
                self.emit(f"{self.ident(block, ig, op)} = {src}", op, block)
            self.indent -= 1

    def _grad_or_zeros(self, block, grad_name, value_name, op):
        if grad_name == EMPTY_VAR_NAME:
            return f"_zl({self.ident(block, value_name, op)})"
        return self.ident(block, grad_name, op)

    def _saved(self, body, loop_vars, op):
        params = [self.ident(body, n, op) for n in loop_vars]
        ids = list(params)
        for v in body_defined_vars(self.program, body):
            i = self.ident(v.block, v.name, op)
            if i not in ids and id(v) not in self.hoisted:
                ids.append(i)
        return params, ids

    def _while(self, block, op):
        body = self.program.block(op.attrs["sub_block"])
        loop_vars = op.attrs["loop_vars"]
        n = len(loop_vars)
        inits = [self.ident(block, x, op) for x in op.inputs["X"][:n]]
        params, saved = self._saved(body, loop_vars, op)
        outs = [self.ident(block, x, op) for x in op.outputs["Out"]]
        steps = op.outputs.get("StepScopes", [])
        record = bool(steps) and steps[0] in self.read_set and not op.attrs.get("is_test")
        cvar = self.new_local("_c")
        self._assign(params, inits, op, block)
        self.emit(f"{cvar} = {self.ident(block, op.inputs['Condition'][0], op)}", op, block)
        if record:
            steps_id = self.ident(block, steps[0], op)
            self.emit(f"{steps_id} = []", op, block)
            extra = [s for s in saved if s not in params]
            if extra:
                self.emit(f"{' = '.join(extra)} = None", op, block)
        elif steps:
            self.emit(f"{self.ident(block, steps[0], op)} = None", op, block)
        self.emit(f"while {cvar}:", op, block)
        self.indent += 1
        self.emit_block(body)
        if record:
            self.emit(f"{steps_id}.append(({''.join(s + ', ' for s in saved)}))", op, block)
        body_outs = [self.ident(body, o, op) for o in op.attrs["body_outs"]]
        self._assign(params + [cvar], body_outs + [self.ident(body, op.attrs["cond_out"], op)],
                     op, block)
        self.indent -= 1
        self._assign(outs, params, op, block)

    def _while_grad(self, block, op):
        gblock = self.program.block(op.attrs["sub_block"])
        body = self.program.block(op.attrs["fwd_block"])
        loop_vars = op.attrs["loop_vars"]
        n = len(loop_vars)
        xs, fwd_outs = op.inputs["X"], op.inputs["Out"]
        ogs, xgs = op.inputs["Out@GRAD"], op.outputs["X@GRAD"]
        params, saved = self._saved(body, loop_vars, op)
        steps = self.ident(block, op.inputs["StepScopes"][0], op)
        gps = {}
        for i, seed in enumerate(op.attrs["out_grads"]):
            if seed:
                gps[i] = self.new_local("_gp")
                self.emit(f"{gps[i]} = {self._grad_or_zeros(block, ogs[i], fwd_outs[i], op)}",
                          op, block)
        accs = {}
        for j, res in enumerate(op.attrs["captured_grads"]):
            if res:
                accs[j] = self.new_local("_ga")
                self.emit(f"{accs[j]} = None", op, block)
        step = self.new_local("_s")
        self.emit(f"for {step} in reversed({steps}):", op, block)
        self.indent += 1
        self.emit(f"{''.join(s + ', ' for s in saved)} = {step}", op, block)
        for i, g in gps.items():
            self.emit(f"{self.ident(gblock, op.attrs['out_grads'][i], op)} = {g}", op, block)
        self.emit_block(gblock)
        for i, g in gps.items():
            res = op.attrs["param_grads"][i]
            src = self.ident(gblock, res, op) if res else f"_zl({params[i]})"
            self.emit(f"{g} = {src}", op, block)
        for j, a in accs.items():
            res = self.ident(gblock, op.attrs["captured_grads"][j], op)
            self.emit(f"{a} = _acc({a}, {res})", op, block)
        self.indent -= 1
        for i, name in enumerate(xgs):
            if name == EMPTY_VAR_NAME:
                continue
            dst = self.ident(block, name, op)
            x = self.ident(block, xs[i], op)
            if i < n:
                src = gps.get(i, f"_zl({x})")
            else:
                src = f"_or_zeros({accs[i - n]}, {x})" if (i - n) in accs else f"_zl({x})"
            self.emit(f"{dst} = {src}", op, block)
