"""Run a translated static Program from eager mode as one op of the eager tape.

:class:`PartialProgram` wraps the Program of one :class:`~translator.program_translator.
ConcreteProgram`. A call feeds the input tensors' arrays and the *current* arrays of the Layer
parameters the Program reads (parameters are shared with the eager Layer, never copied, so an
eager optimizer's update is seen by the next call) and fetches the outputs.

When a gradient is needed, the call also records one tape node (:class:`core.autograd.Node`)
for the ``run_program`` op defined here. Its backward runs the Program's backward: once per
PartialProgram, the Program is cloned and ``core.static.gradients`` appends the gradient ops of
the outputs with respect to the inputs that may need a gradient and the trainable parameters,
and the optimisation passes (:mod:`core.static.passes`) rewrite forward and gradient operators
together, so that a fused forward chain comes with its fused gradient (as in a static
training program). The forward ops of that clone run at call time (pruned to what the
outputs and the saved values need); the values the gradient ops read from the forward
pass (activations, dropout masks, a loop's saved iterations) are fetched then and kept in the
node, like the eager tape keeps its arrays. ``backward`` runs only the gradient ops on those
values and the output gradients and returns the gradients of the inputs and parameters, so
``loss.backward()`` gives the same parameter gradients as the eager model.

Both halves are compiled once into plans (``core.static.codegen.compile_plan``, memory
planning only: the passes already ran) and run with :meth:`core.static.plan.Plan.run`, as the
executor runs its plans, so a warm call costs a few list operations around the plan.
"""
import numpy as np

from core import io as _io
from core.io import inference as _inference
from core import static as _static
from core.autograd import Node, is_grad_enabled
from core.backend import CPUPlace, array_module_of, default_place, get_array_module, place_of
from core.ops.registry import OpDef, get_op
from core.static.analysis import op_reads, op_writes
from core.static.clone import clone_program
from core.static import passes as _passes
from core.static.codegen import compile_plan
from core.tensor import Tensor, data_of, rebind_data, tensor_from_node

__all__ = ["PartialProgram", "RunProgramOp", "save_program", "save_program_files"]


class RunProgramOp(OpDef):
    """The tape op of a PartialProgram call: inputs, parameters -> outputs (+ saved values).

    Not registered: it exists only on the eager tape (its attrs hold Python objects)."""

    type = "run_program"
    inputs = ("X*", "Params*")
    outputs = ("Out*", "Saved*")
    nondiff_outputs = ("Saved",)
    attrs = {"program": None, "run_seed": None}  # declared as the OpDef contract says
    checked_by_registry = False

    def backward(self, ctx, ins, outs, douts, program=None, run_seed=None):
        return program._backward(ins, outs, douts, run_seed)


_RUN_PROGRAM = RunProgramOp()
_CPU = CPUPlace()


class _Runner:
    """One compiled plan (:class:`core.static.plan.Plan`) and the positions of its external
    values in the caller's value list."""

    __slots__ = ("plan", "index", "writes")

    def __init__(self, program, feed_names, fetch_names, place, strategy=None):
        self.plan = compile_plan(program, feed_names, fetch_names, get_array_module(place), place,
                                 strategy)
        index = self.plan.positions(feed_names)
        # None: the plan reads the caller's values as they are, in order
        self.index = None if index == list(range(len(feed_names))) else index
        self.writes = self.plan.writes

    def __call__(self, values, run_seed=None):
        if self.index is None:
            return self.plan.run(values, run_seed=run_seed)
        return self.plan.run([values[i] for i in self.index], run_seed=run_seed)


#: the strategy the two halves of an optimised forward + gradient program are compiled with
_HALF = _static.BuildStrategy.memory_planning_only()


def _is_random(op_type):
    try:
        return get_op(op_type).random
    except KeyError:  # control flow and gradient ops are not registered ops
        return False


def _eager_output(value, node, j):
    """Output ``j`` as an eager Tensor; a tensor array (a list appended in a loop) as the
    Python list of Tensors it stands for, of its run-time length (no gradient)."""
    if isinstance(value, list):
        return [tensor_from_node(a, None, (0, j)) for a in value]
    return tensor_from_node(value, node, (0, j))


def _grad_dtype(var):
    return var.dtype is not None and np.dtype(var.dtype).kind == "f" and var.type == "lod_tensor"


class _Backward:
    """The forward-with-saved-values and gradient halves of one Program."""

    def __init__(self, owner):
        main = owner.program
        full = main.clone()
        gb = full.global_block()
        in_vars = [gb.var(v.name) for v in owner.inputs]
        self.wrt_inputs = [i for i, v in enumerate(in_vars)
                           if not v.stop_gradient and _grad_dtype(v)]
        self.wrt_params = [i for i, (n, p) in enumerate(owner.params)
                           if getattr(p, "trainable", False) and _grad_dtype(gb.var(n))]
        wrt = [in_vars[i] for i in self.wrt_inputs] + \
            [gb.var(owner.params[i][0]) for i in self.wrt_params]
        wrt_names = {v.name for v in wrt}
        # outputs: differentiable ones, deduplicated; an output that *is* an input or a
        # parameter passes its gradient straight through
        self.targets, self.passthrough, target_pos = [], [], {}
        for j in owner.diff_outputs:
            name = owner.out_names[j]
            if name in wrt_names:
                self.passthrough.append((j, name))
            elif name in target_pos:
                target_pos[name].append(j)
            else:
                target_pos[name] = [j]
                self.targets.append(name)
        self.target_pos = [target_pos[n] for n in self.targets]
        seeds = []
        grads = []
        if self.targets and wrt:
            with _static.program_guard(full):
                for name in self.targets:
                    v = gb.var(name)
                    seeds.append(_static.data(name + "@SEED", v.shape, v.dtype.name))
                grads = _static.gradients([gb.var(n) for n in self.targets], wrt, seeds)
        self.seed_names = [s.name for s in seeds]
        self.grad_names = [None if g is None else g.name for g in grads] or [None] * len(wrt)
        self.wrt_names = [v.name for v in wrt]
        # NOTE: forward and gradient operators are optimised together, before the split, so
        # that a fusion covers a forward chain and its gradient chain (conv2d + bias + relu
        # + max pool and its gradient as conv2d_pool2d_fusion and its gradient op, which
        # reuses the windows and the map the forward kept); the halves are then compiled
        # with memory planning only.
        if _passes.active(None):
            full, _ = _passes.optimize(
                full, owner.in_names + owner.param_names + self.seed_names,
                owner.out_names + [n for n in self.grad_names if n is not None])
        bwd = full.clone()
        bgb = bwd.global_block()
        for k in range(len(bgb.ops) - 1, -1, -1):
            op = bgb.ops[k]
            # NOTE: a cond_grad replays the branch taken using the values computed inside it,
            # which only the forward cond op defines: cond ops are re-run (from their saved
            # inputs) in the backward half. Constants are kept too; all else is fed.
            if op.role != "backward" and op.type != "cond" and \
                    (op_reads(op) or not op_writes(op)):
                bgb.remove_op(k)
        written = {n for op in bgb.ops for n in op_writes(op)}
        fed = set(owner.in_names) | set(owner.param_names) | set(self.seed_names)
        saved = []
        for op in bgb.ops:
            for n in op_reads(op):
                if n not in written and n not in fed and n not in saved:
                    saved.append(n)
        self.saved = saved
        # NOTE: only programs with random ops need a per-call seed (see PartialProgram.__call__)
        self.has_random = any(_is_random(op.type) for b in full.blocks for op in b.ops)
        self.full = full
        self.bwd = bwd
        self._fwd_runners = {}
        self._bwd_runners = {}

    def forward_runner(self, owner, place):
        r = self._fwd_runners.get(place)
        if r is None:
            r = _Runner(self.full, owner.in_names + owner.param_names,
                        owner.out_names + self.saved, place, _HALF)
            self._fwd_runners[place] = r
        return r

    def backward_runner(self, owner, place):
        r = self._bwd_runners.get(place)
        if r is None:
            fetch = [n for n in self.grad_names if n is not None]
            r = _Runner(self.bwd, owner.in_names + owner.param_names + self.saved +
                        self.seed_names, fetch, place, _HALF)
            self._bwd_runners[place] = r
        return r


class PartialProgram:
    """Runs ``program`` on eager tensors; see the module docstring.

    ``inputs``: the Program's data Variables, one per tensor fed; ``outputs``: the Variables
    fetched; ``parameters``: ``[(name, eager Parameter)]`` read by the Program.
    """

    def __init__(self, program, inputs, outputs, parameters):
        self.program = program
        self.inputs = list(inputs)
        self.in_names = [v.name for v in self.inputs]
        self.outputs = list(outputs)
        self.out_names = [v.name for v in self.outputs]
        self.params = list(parameters)
        self.param_names = [n for n, _ in self.params]
        self.param_tensors = [p for _, p in self.params]
        self.diff_outputs = [j for j, v in enumerate(self.outputs)
                             if not v.stop_gradient and _grad_dtype(v)]
        self._plain = {}
        self._cpu_runner = None
        self._grad = None

    def _place(self, arrays):
        """Where the call runs: the place of its first input (or parameter)."""
        if arrays:
            return _CPU if type(arrays[0]) is np.ndarray else place_of(arrays[0])
        if self.param_tensors:
            return self.param_tensors[0].place
        return default_place()

    def _grad_program(self):
        if self._grad is None:
            self._grad = _Backward(self)
        return self._grad

    def training_programs(self):
        """``(forward, gradient)``: the Programs a call that needs gradients compiles (built
        on first use): the forward and gradient operators optimised together, and the
        gradient half of it, which reads the saved forward values."""
        grad = self._grad_program()
        return grad.full, grad.bwd

    def __call__(self, tensors):
        """The eager output tensors (in ``outputs`` order) for input ``tensors``."""
        arrays, needs = [], False
        for t in tensors:
            if isinstance(t, Tensor):
                arrays.append(data_of(t))
                if not t.stop_gradient:
                    needs = True
            else:
                arrays.append(t)
        params = self.param_tensors
        if params:
            values = arrays + [data_of(p) for p in params]
            if not needs:
                for p in params:
                    if not p.stop_gradient:
                        needs = True
                        break
        else:
            values = arrays
        place = _CPU if arrays and type(arrays[0]) is np.ndarray else self._place(arrays)
        needs = needs and bool(self.diff_outputs) and is_grad_enabled()
        if not needs:
            # NOTE: the CPU runner is an attribute: a Place's hash is a Python-level method
            runner = self._cpu_runner if place is _CPU else self._plain.get(place)
            if runner is None:
                runner = _Runner(self.program, self.in_names + self.param_names,
                                 self.out_names, place)
                self._plain[place] = runner
                if place is _CPU:
                    self._cpu_runner = runner
            fetched, written = runner(values)
            if written:
                self._write_back(runner, written)
            return [_eager_output(a, None, j) for j, a in enumerate(fetched)]
        grad = self._grad_program()
        runner = grad.forward_runner(self, place)
        # NOTE: the forward's random ops draw from the eager generator (the masks eager code
        # draws under the same seed) and log its state, which the backward half restores: that
        # half re-runs cond branches, whose dropout masks must be the ones the forward drew.
        run_seed = {} if grad.has_random else None
        fetched, written = runner(values, run_seed)
        self._write_back(runner, written)
        n_out = len(self.out_names)
        outs, saved = list(fetched[:n_out]), list(fetched[n_out:])
        node = Node(_RUN_PROGRAM, [list(tensors), list(params)], [arrays, values[len(arrays):]],
                    [outs, saved], {"program": self, "run_seed": run_seed})
        diff = set(self.diff_outputs)
        return [_eager_output(a, node if j in diff else None, j) for j, a in enumerate(outs)]

    def _write_back(self, runner, written):
        """Persistables the program updated (batch_norm statistics) go back to the Layer."""
        if written:
            by_name = dict(self.params)
            for name, value in zip(runner.writes, written):
                p = by_name.get(name)
                if p is not None:
                    rebind_data(p, value)

    def _backward(self, ins, outs, douts, run_seed=None):
        grad = self._grad
        arrays, param_arrays = ins
        saved = outs[1]
        dout = douts[0]
        xp = array_module_of(arrays[0] if arrays else param_arrays[0])
        seeds = []
        for positions in grad.target_pos:
            g = dout[positions[0]]
            for j in positions[1:]:
                g = g + dout[j]
            seeds.append(g)
        in_grads = [None] * len(arrays)
        param_grads = [None] * len(param_arrays)
        if grad.seed_names and grad.wrt_names:
            place = place_of(arrays[0] if arrays else param_arrays[0])
            runner = grad.backward_runner(self, place)
            fetched, _ = runner(list(arrays) + list(param_arrays) + list(saved) + seeds,
                                run_seed)
            it = iter(fetched)
            results = [None if n is None else next(it) for n in grad.grad_names]
            for k, i in enumerate(grad.wrt_inputs):
                in_grads[i] = results[k]
            for k, i in enumerate(grad.wrt_params):
                param_grads[i] = results[len(grad.wrt_inputs) + k]
        for j, name in grad.passthrough:
            _add_passthrough(self, in_grads, param_grads, name, dout[j], xp)
        return [in_grads, param_grads]


def _add_passthrough(owner, in_grads, param_grads, name, g, xp):
    for i, n in enumerate(owner.in_names):
        if n == name:
            in_grads[i] = g if in_grads[i] is None else in_grads[i] + g
    for i, n in enumerate(owner.param_names):
        if n == name:
            param_grads[i] = g if param_grads[i] is None else param_grads[i] + g


def _inference_parts(program, inputs, outputs, parameters, feed, fetch):
    """``(inference program, feed vars, fetch vars, scope holding the parameter values,
    executor)`` for saving ``program``."""
    feed_vars = _pick(inputs, feed, "feed", "inputs")
    fetch_vars = _pick(outputs, fetch, "fetch", "outputs")
    if not fetch_vars:
        raise ValueError("save_inference_model: the program has no tensor outputs to fetch")
    infer = clone_program(program, for_test=True, keep_backward=True)
    gb = infer.global_block()
    scope = _static.Scope()
    for name, p in parameters:
        scope.var(name).get_tensor().set(data_of(p))
    exe = _static.Executor(parameters[0][1].place if parameters else default_place())
    return infer, [v.name for v in feed_vars], [gb.var(v.name) for v in fetch_vars], scope, exe


def save_program(dirname, program, inputs, outputs, parameters, feed=None, fetch=None):
    """Save ``program`` for inference with the current values of the eager ``parameters``
    into the directory ``dirname`` (:func:`core.io.save_inference_model`).

    ``feed`` / ``fetch`` are index lists into ``inputs`` / ``outputs`` (all when None).
    Returns the fetch names (as :func:`core.io.save_inference_model` does)."""
    infer, feeds, fetches, scope, exe = _inference_parts(program, inputs, outputs, parameters,
                                                         feed, fetch)
    with _static.scope_guard(scope):
        return _io.save_inference_model(dirname, feeds, fetches, exe, main_program=infer)


def save_program_files(path_prefix, program, inputs, outputs, parameters, var_info=None,
                       api="jit.save"):
    """:func:`save_program` in the path-prefix layout (``path_prefix.pdmodel`` /
    ``.pdiparams`` / ``.pdiparams.info``, :func:`core.io.inference.save_inference_files`);
    ``var_info`` adds JSON entries per parameter name to the info file."""
    infer, feeds, fetches, scope, exe = _inference_parts(program, inputs, outputs, parameters,
                                                         None, None)
    return _inference.save_inference_files(path_prefix, feeds, fetches, exe, program=infer,
                                           scope=scope, var_info=var_info, api=api)


def _pick(items, indices, what, where):
    if indices is None:
        return list(items)
    if isinstance(indices, int):
        indices = [indices]
    picked = []
    for i in indices:
        if not isinstance(i, int) or not -len(items) <= i < len(items):
            raise IndexError(f"save_inference_model: {what} index {i!r} is out of range; the "
                             f"program has {len(items)} {where} "
                             f"({[v.name for v in items]})")
        picked.append(items[i])
    return picked
