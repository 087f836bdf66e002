"""Compiling a Program into a plan: one generated Python function of straight-line kernel calls.

The result is a :class:`~core.static.plan.Plan`, run with ``Plan.run``; each operator's kernel
is the one the registry chooses for its static input metas (``OpDef.kernel_for``, through
:func:`core.static.specialize.kernel_of`), bound once.

The global block (pruned to what the fetches and side effects need) becomes the body of one
function. Every Variable becomes a local name ``v<N>``; every kernel, attribute value and
constant becomes a global of the generated function's namespace, so nothing from the Program
(names, attribute values - possibly from a loaded file) is ever pasted into the source: the
source is built only from generated identifiers and from attribute *names* declared by the
registered op definitions. ``cond`` becomes an ``if``/``else`` holding both branches inline,
``while`` a Python ``while`` loop holding its body; their gradients replay the branch taken and
the saved iterations in reverse (see :mod:`core.static.codegen_control_flow`). Constant ops
(``fill_constant``, ``assign_value``) whose output is written once are evaluated at compile
time. Temporaries of the global block are
deleted after their last use. The source is compiled under a synthetic file name registered in
:mod:`linecache`, so tracebacks show it, and each line maps back to its operator for error
messages.
"""
import collections
import difflib
import itertools
import keyword
import linecache
import types
import weakref

import numpy as _np

from ..ops.registry import KernelContext, get_op, is_list_slot, slot_name
from .analysis import CONTROL_FLOW_OPS, has_side_effect, op_reads, op_writes, sub_blocks
from . import passes
from .codegen_control_flow import ControlFlowEmitter
from .grad_kernels import make_grad_kernel, make_helpers
from .operator import EMPTY_VAR_NAME
from .plan import Plan
from .specialize import kernel_of

__all__ = ["CompileError", "Plan", "compile_plan"]

HOISTABLE = ("fill_constant", "assign_value")
_counter = itertools.count()


class CompileError(ValueError):
    """A Program that cannot run: an unknown op, a name that resolves to no variable, a fetch
    nothing computes."""


def compile_plan(program, feed_names, fetch_names, xp, place, strategy=None):
    """Compile ``program``'s global block for the given feed and fetch names, after the
    optimisation passes ``strategy`` (a :class:`~core.static.passes.BuildStrategy`, None: the
    default) turns on; ``program`` itself is never changed (the passes work on a clone)."""
    gb = program.global_block()
    for n in fetch_names:  # NOTE: checked on the program as built, for the error's hints
        if gb._find_var_recursive(n) is None:
            raise CompileError(_unknown_fetch_message(program, n))
    if passes.active(strategy):
        program, _ = passes.optimize(program, feed_names, fetch_names, strategy)
    gen = _Generator(program, xp, place, set(fetch_names))
    return gen.build(list(feed_names), list(fetch_names))


_codes = collections.OrderedDict()  # plan source -> the code object of its function
_CODES_KEPT = 256


def _plan_code(source, filename):
    """The code object of the function ``source`` defines, under ``filename``. Programs of the
    same structure (a function translated again, a new function object of the same code)
    give the same source: it is compiled once and the code object renamed after that."""
    code = _codes.get(source)
    if code is None:
        module = compile(source, filename, "exec", dont_inherit=True)
        code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
        _codes[source] = code
        if len(_codes) > _CODES_KEPT:
            _codes.popitem(last=False)
        return code
    _codes.move_to_end(source)
    return _renamed(code, filename)


def _renamed(code, filename):
    """``code`` (and the code objects nested in it) under another file name."""
    consts = tuple(_renamed(c, filename) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _is_ident(name):
    return name.isidentifier() and not keyword.iskeyword(name)


class _Generator(ControlFlowEmitter):
    """Builds the source of one plan; see the module docstring."""

    def __init__(self, program, xp, place, fetch_set):
        self.program = program
        self.xp = xp
        self.place = place
        self.fetch_set = fetch_set
        self.lines = []
        self.indent = 1
        self.ns = {"__builtins__": __builtins__}
        self.ids = {}
        self.keep_alive = []
        self.line_ops = {}
        self.hoisted = {}
        self.tmp = itertools.count()
        self.ctx = KernelContext(xp, place)
        self.ns["_zl"], self.ns["_acc"], self.ns["_or_zeros"] = make_helpers(xp)
        self.write_count = collections.Counter(
            n for b in program.blocks for op in b.ops for n in op_writes(op))
        self.inplace = getattr(program, "_inplace", None) or {}
        # NOTE: fetched names count as read: a while loop records its iterations when they are
        # read by a while_grad or fetched (saved for a gradient plan of their own)
        self.read_set = {n for b in program.blocks for op in b.ops for n in op_reads(op)} | \
            fetch_set

    # -- names ---------------------------------------------------------------------------------
    def const(self, value, prefix="c"):
        name = f"{prefix}{len(self.ns)}"
        self.ns[name] = value
        return name

    def var(self, block, name, op):
        v = block._find_var_recursive(name)
        if v is None:
            raise CompileError(f"op '{op.type}' in block {block.idx} refers to variable "
                               f"'{name}', which is not declared in block {block.idx} or its "
                               "parents")
        return v

    def ident(self, block, name, op):
        v = self.var(block, name, op)
        key = id(v)
        got = self.ids.get(key)
        if got is None:
            got = self.hoisted.get(key) or f"v{len(self.ids)}"
            self.ids[key] = got
            self.keep_alive.append(v)
        return got

    def new_local(self, prefix="_t"):
        return f"{prefix}{next(self.tmp)}"

    def emit(self, text, op=None, block=None):
        self.lines.append("    " * self.indent + text)
        if op is not None:
            self.line_ops[len(self.lines) + 1] = (op, block.idx)  # +1: the def line

    # -- top level ---------------------------------------------------------------------------
    def build(self, feed_names, fetch_names):
        gb = self.program.global_block()
        ops = self._prune(gb, fetch_names)
        self._plan_hoisting()
        ext, defined = [], set()
        for op in ops:
            for n in op_reads(op):
                if n not in defined and n not in ext:
                    ext.append(n)
            defined.update(op_writes(op))
        for n in fetch_names:
            if gb._find_var_recursive(n) is None:
                raise CompileError(_unknown_fetch_message(self.program, n))
            if n not in defined and n not in ext:
                ext.append(n)
        ext_vars = [(n, self.var(gb, n, _Fetch)) for n in ext]
        ext_ids = [self.ident(gb, n, _Fetch) for n in ext]
        if ext_ids:
            self.emit(f"{', '.join(ext_ids)}, = ext")
        last_use = self._last_uses(gb, ops)
        top_defined = set()
        for i, op in enumerate(ops):
            self.emit_op(gb, op)
            for n in op_writes(op):
                top_defined.add(self.ident(gb, n, op))
            dead = [d for d in last_use.get(i, ()) if d in top_defined]
            if dead:
                self.emit(f"del {', '.join(dead)}")
        fetch_ids = [self.ident(gb, n, _Fetch) for n in fetch_names]
        writes = []
        for op in ops:
            for n in op_writes(op):
                v = self.var(gb, n, op)
                if v.persistable and v.block is gb and n not in writes:
                    writes.append(n)
        write_ids = [self.ident(gb, n, _Fetch) for n in writes]
        self.emit(f"return ({''.join(i + ', ' for i in fetch_ids)}), "
                  f"({''.join(i + ', ' for i in write_ids)})")
        plan = Plan()
        plan.filename = f"<dy2static-plan-{next(_counter)}>"
        plan.source = "def __plan(ctx, ext):\n" + "\n".join(self.lines) + "\n"
        linecache.cache[plan.filename] = (len(plan.source), None,
                                          plan.source.splitlines(True), plan.filename)
        # source generated from program structure only; its globals are this plan's
        plan.fn = types.FunctionType(_plan_code(plan.source, plan.filename), self.ns, "__plan")
        plan.context = self.ctx
        plan.ext = ext_vars
        plan.fetch_names = list(fetch_names)
        plan.writes = writes
        plan.line_ops = self.line_ops
        plan.idents = self.ids
        plan._keep_alive = self.keep_alive
        weakref.finalize(plan, linecache.cache.pop, plan.filename, None)
        return plan

    def _prune(self, block, fetch_names):
        needed = set(fetch_names)
        kept = []
        for op in reversed(block.ops):
            if has_side_effect(self.program, block, op) or \
                    any(n in needed for n in op_writes(op)):
                kept.append(op)
                needed.update(op_reads(op))
        kept.reverse()
        return kept

    def _plan_hoisting(self):
        for b in self.program.blocks:
            for op in b.ops:
                if op.type not in HOISTABLE or op_reads(op):
                    continue
                outs = op_writes(op)
                if len(outs) != 1 or self.write_count[outs[0]] != 1 or \
                        outs[0] in self.fetch_set:
                    continue
                v = b._find_var_recursive(outs[0])
                if v is None or v.persistable:
                    continue
                self.hoisted[id(v)] = f"h{len(self.hoisted)}"
                # NOTE: evaluated now, not when its op is emitted: a gradient block may read a
                # constant of a forward block whose op this plan never emits (a while_grad
                # without its while, in a backward-only plan).
                opdef = self._opdef(op, b)
                self._hoist(b, op, opdef, self._full_attrs(opdef, op, b))

    def _last_uses(self, block, ops):
        """top-level op index -> identifiers last used there (candidates for ``del``)."""
        last = {}
        for i, op in enumerate(ops):
            for ident in self._referenced(block, op):
                last[ident] = i
        keep = {self.ident(block, n, _Fetch) for n in self.fetch_set}
        for op in ops:
            for n in op_writes(op):
                if self.var(block, n, op).persistable:
                    keep.add(self.ident(block, n, op))
        keep.update(self.hoisted.values())
        out = collections.defaultdict(list)
        for ident, i in last.items():
            if ident not in keep:
                out[i].append(ident)
        return out

    def _referenced(self, block, op):
        ids = [self.ident(block, n, op) for n in op_reads(op) + op_writes(op)]
        for idx in sub_blocks(op):
            sb = self.program.block(idx)
            for o in sb.ops:
                ids.extend(self._referenced(sb, o))
        for key in ("true_outs", "false_outs", "body_outs", "loop_vars"):
            for n in op.attrs.get(key, ()) if op.type in CONTROL_FLOW_OPS else ():
                blk = self.program.block(op.attrs.get("sub_block", op.attrs.get(
                    "true_block" if key == "true_outs" else "false_block", block.idx)))
                v = blk._find_var_recursive(n)
                if v is not None and v.block.idx == block.idx:
                    ids.append(self.ident(blk, n, op))
        return ids

    # -- ops ---------------------------------------------------------------------------------
    def emit_block(self, block):
        start = len(self.lines)
        for op in block.ops:
            self.emit_op(block, op)
        if len(self.lines) == start:
            self.emit("pass")

    def emit_op(self, block, op):
        if op.type == "cond":
            return self._cond(block, op)
        if op.type == "while":
            return self._while(block, op)
        if op.type == "cond_grad":
            return self._cond_grad(block, op)
        if op.type == "while_grad":
            return self._while_grad(block, op)
        if op.type.endswith("_grad"):
            return self._grad(block, op)
        return self._forward(block, op)

    def _opdef(self, op, block):
        try:
            return get_op(op.type)
        except KeyError:
            raise CompileError(f"op '{op.type}' in block {block.idx} is not a registered op "
                               "(is the module that defines it imported?)") from None

    def _full_attrs(self, opdef, op, block):
        try:
            return opdef.full_attrs(op.attrs)
        except TypeError as e:
            raise CompileError(f"block {block.idx}: {e}") from None

    def _in_expr(self, block, op, opdef):
        args = []
        for slot in opdef.inputs:
            names = op.inputs.get(slot_name(slot), [])
            ids = [self.ident(block, n, op) if n != EMPTY_VAR_NAME else "None" for n in names]
            if is_list_slot(slot):
                args.append("[" + ", ".join(ids) + "]")
            else:
                if len(ids) > 1:
                    raise CompileError(f"op '{op.type}' in block {block.idx}: input slot "
                                       f"'{slot}' holds {len(ids)} variables, expected one")
                args.append(ids[0] if ids else "None")
        return args

    def _out_target(self, block, op, slots, key=lambda s: s):
        targets = []
        for slot in slots:
            names = op.outputs.get(key(slot_name(slot)), [])
            ids = [self.ident(block, n, op) if n != EMPTY_VAR_NAME else "_" for n in names]
            if all(i == "_" for i in ids):
                targets.append("_")
            elif is_list_slot(slot):
                targets.append("[" + ", ".join(ids) + "]")
            else:
                targets.append(ids[0])
        return targets

    def _forward(self, block, op):
        opdef = self._opdef(op, block)
        attrs = self._full_attrs(opdef, op, block)
        outs = op_writes(op)
        if len(outs) == 1 and id(self.var(block, outs[0], op)) in self.hoisted:
            return  # evaluated at compile time (_plan_hoisting)
        # NOTE: a random op gets its own context (KernelContext.op_ctx), keyed by its position,
        # which stays the same in programs cloned from this one.
        ctx_arg = f"ctx.op_ctx({self._op_key(block, op)})" if opdef.random else "ctx"
        args = [ctx_arg] + self._in_expr(block, op, opdef)
        kernel = kernel_of(block, op, opdef, attrs, self.xp, self.var)
        fast = kernel.fn if kernel.takes == "arrays" else None
        ufunc, extra = (self.xp.maximum, ["0"]) if op.type == "relu" else (fast, [])
        slot = self.inplace.get(id(op)) if fast is not None else None
        if slot is not None and isinstance(ufunc, _np.ufunc):
            # NOTE: memory planning (passes.memory) found the input dead and owned: the numpy
            # ufunc writes into its buffer (relu's kernel is maximum(x, 0)); maximum and
            # minimum take their output by keyword only (numpy 2)
            ins = args[1:]
            kname = self.const(ufunc, "k")
            buf = ins[[slot_name(s) for s in opdef.inputs].index(slot)]
            kw = "out=" if ufunc in (_np.maximum, _np.minimum) else ""
            args = ins + extra + [kw + buf]
        elif fast is not None:
            kname = self.const(fast, "k")
            args = args[1:]
        else:
            kname = self.const(kernel.fn, "k")
            for k, v in attrs.items() if kernel.takes == "attrs" else ():
                if _is_ident(k):
                    args.append(f"{k}={self.const(v)}")
                else:
                    args.append(f"**{self.const({k: v})}")
        call = f"{kname}({', '.join(args)})"
        targets = self._out_target(block, op, opdef.outputs)
        if op.type == "assert" and args[1] != "None":
            # NOTE: the condition is tested inline (one truth test for a 0-d predicate, no
            # reduction call); the kernel runs, and raises with its message, when it fails
            cond = args[1]
            self.emit(f"if not ({cond}.all() if {cond}.ndim else {cond}):", op, block)
            self.indent += 1
            self.emit(call, op, block)
            self.indent -= 1
        elif not targets:
            self.emit(call, op, block)
        elif len(targets) == 1:
            self.emit(f"{targets[0]} = {call}", op, block)
        else:
            self.emit(f"{', '.join(targets)} = {call}", op, block)

    def _op_key(self, block, op):
        """The operator's position key in the program as built (passes record it)."""
        keys = getattr(self.program, "_op_keys", None)
        key = keys.get(id(op)) if keys else None
        return block.idx * 65536 + block.ops.index(op) if key is None else key

    def _hoist(self, block, op, opdef, attrs):
        v = self.var(block, op_writes(op)[0], op)
        try:
            value = opdef.forward(self.ctx, **attrs)
        except Exception as e:
            raise CompileError(f"constant op '{op.type}' in block {block.idx} failed with attrs "
                               f"{attrs}: {type(e).__name__}: {e}") from e
        if getattr(value, "ndim", None) == 0 and type(value) is _np.ndarray:
            # NOTE: a 0-d numpy constant becomes a numpy scalar (what ufuncs return for 0-d
            # inputs anyway): same values and dtype, and cheap Python-operator arithmetic.
            value = value[()]
        self.ns[self.hoisted[id(v)]] = value

    def _grad(self, block, op):
        fwd = self._opdef(_FwdType(op.type[:-5]), block)
        attrs = self._full_attrs(fwd, op, block)
        ins = self._in_expr(block, op, fwd)
        outs = []
        douts = []
        for slot in fwd.outputs:
            s = slot_name(slot)
            for src, dst in ((s, outs), (s + "@GRAD", douts)):
                names = op.inputs.get(src, [])
                ids = [self.ident(block, n, op) if n != EMPTY_VAR_NAME else "None"
                       for n in names]
                if is_list_slot(slot):
                    dst.append("[" + ", ".join(ids) + "]")
                else:
                    dst.append(ids[0] if ids else "None")
        needs = tuple(any(n != EMPTY_VAR_NAME for n in op.outputs.get(slot_name(s) + "@GRAD", []))
                      for s in fwd.inputs)
        ctx = self.const(KernelContext(self.xp, self.place, needs_grad=needs), "g")
        kname = self.const(make_grad_kernel(fwd, attrs), "k")
        targets = self._out_target(block, op, fwd.inputs, key=lambda s: s + "@GRAD")
        call = (f"{kname}({ctx}, ({''.join(a + ', ' for a in ins)}), "
                f"({''.join(a + ', ' for a in outs)}), ({''.join(a + ', ' for a in douts)}))")
        self.emit(f"{''.join(t + ', ' for t in targets)} = {call}", op, block)


class _FwdType:
    """Stand-in carrying the forward type of a ``<type>_grad`` op for error messages."""

    def __init__(self, type):
        self.type = type


class _FetchOp:
    type = "fetch"


_Fetch = _FetchOp()


def _unknown_fetch_message(program, name):
    """Why ``name`` cannot be fetched: where it lives, or which names come close."""
    msg = f"fetch '{name}' is not a variable of the program's global block"
    inner = [b.idx for b in program.blocks[1:] if name in b.vars]
    if inner:
        return (f"{msg}: it is local to block {inner[0]} (the body of a cond / while); fetch "
                "the control-flow op's outputs instead")
    close = difflib.get_close_matches(name, list(program.global_block().vars), n=3)
    return msg + (f"; did you mean {close}?" if close else
                  "; expected a Variable of the program or its name")
