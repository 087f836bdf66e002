"""``translator.lint``: find, without running anything, the constructs of converted functions
that will not convert or will behave differently once converted.

What is checked: functions decorated with ``@declarative`` / ``@to_static`` (any spelling),
the ``forward`` methods of Layer classes (what ``declarative(layer)`` converts; a class counts
when a base's name ends in ``Layer`` or is such a class of the same file), and the
functions and methods of the same file they call by name (``helper(...)``,
``self.helper(...)``), transitively. Each file is parsed with :mod:`ast`; nothing is imported.

Which values are tensors is not known without running, so the checks follow the data: a
function's parameters (except ``self`` / ``cls`` and those whose default is a Python
constant) and every name assigned from an expression
that uses one, or from a call into ``core`` / ``layers`` / ``paddle`` / ``fluid`` / a Layer
attribute, count as tensors. The rules (:data:`RULES`) say what each finding means and how to
fix it; ``error`` findings will not convert (``dy2static lint`` exits with 1), ``warning``
findings convert but may compute something else than eager code does.
"""
import ast
import inspect
import os

__all__ = ["Finding", "RULES", "lint", "lint_paths", "lint_source"]

RULES = {
    "D2S101": ("error", "generator function ('yield'): generators are not converted",
               "return a list (or a stacked Tensor) instead, or move the generator out of the "
               "converted function"),
    "D2S102": ("error", "'async' / 'await' is not converted",
               "make the converted function synchronous"),
    "D2S103": ("warning", "numpy call on a Tensor value: in converted code it is a static "
               "Variable without data, so numpy sees no numbers",
               "use the core.layers / tensor method of the same name"),
    "D2S104": ("error", "'.{attr}()' on a Tensor value: a static Variable has no data",
               "keep it a Tensor (use tensor ops), or call it outside the converted function"),
    "D2S105": ("warning", "isinstance() on a converted value: inside a converted function a "
               "Tensor argument is a static Variable, not a core.Tensor",
               "test the value's type outside, or use hasattr(x, 'shape') / "
               "core.in_dynamic_mode()"),
    "D2S106": ("warning", "mutation of the outer container '{name}' under control flow: with a "
               "Tensor condition both branches run once while translating, and a Tensor loop's "
               "body runs once, so it changes at translation, not per step",
               "build a new value and return it, or keep the container local"),
    "D2S107": ("error", "'del' on list '{name}': a list appended to under Tensor control flow "
               "becomes a tensor array, which has no 'del'",
               "build a new list (a slice or a comprehension) instead"),
    "D2S108": ("error", "slice assignment to list '{name}': not supported on a converted list",
               "build a new list, or use a Tensor and core.layers.assign"),
    "D2S109": ("error", "'{name}' calls itself: recursion is inlined while translating and "
               "does not end on a Tensor condition",
               "rewrite the recursion as a while loop"),
    "D2S110": ("warning", "'{call}' is evaluated once, when the function is translated; its "
               "value is frozen into the Program",
               "pass the value in as an argument (a Tensor if it changes between calls)"),
    "D2S111": ("warning", "'global {name}' assigned in a converted function: it changes when "
               "the function is translated, not at each call",
               "keep the state in a Tensor (a Layer parameter or buffer) or outside"),
    "D2S112": ("warning", "try/except around Tensor control flow: errors of the Program happen "
               "when it runs, outside this try",
               "check values with Assert, or handle errors around the call"),
    "D2S100": ("error", "cannot parse the file: {msg}", "fix the syntax error"),
}

_DECORATORS = ("declarative", "to_static")
_TENSOR_MODULES = ("core", "layers", "fluid", "paddle", "F", "nn", "L", "dygraph", "static")
_NUMPY = ("np", "numpy")
_FROZEN = {("time", "time"), ("time", "perf_counter"), ("time", "monotonic"),
           ("random", "random"), ("random", "randint"), ("random", "uniform"),
           ("random", "choice"), ("datetime", "now")}
_DATA_METHODS = ("numpy", "item", "tolist")
_MUTATORS = ("append", "extend", "insert", "update", "add", "pop", "remove", "setdefault",
             "clear", "popitem", "discard")


class Finding:
    """One finding: ``path``, ``line``, ``col``, ``code`` (a key of :data:`RULES`),
    ``severity`` ('error' / 'warning'), ``message``, ``fix`` and ``function`` (qualname)."""

    __slots__ = ("path", "line", "col", "code", "severity", "message", "fix", "function")

    def __init__(self, path, node, code, function, **fmt):
        severity, message, fix = RULES[code]
        self.path, self.code, self.severity, self.function = path, code, severity, function
        self.line = getattr(node, "lineno", 1)
        self.col = getattr(node, "col_offset", 0) + 1
        self.message, self.fix = message.format(**fmt), fix

    def __str__(self):
        where = f" (in {self.function})" if self.function else ""
        return (f"{self.path}:{self.line}:{self.col}: {self.code} {self.severity}: "
                f"{self.message}{where}\n    fix: {self.fix}")

    def __repr__(self):
        return f"<Finding {self.code} {self.path}:{self.line}>"


def _decorator_name(node):
    if isinstance(node, ast.Call):
        node = node.func
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return tuple(reversed(parts))
    return ()


def _functions(tree):
    """``{qualname: (node, class name or None)}`` of module-level functions and methods."""
    found, stack = {}, [(tree.body, "", None)]
    while stack:
        body, prefix, cls = stack.pop()
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[prefix + node.name] = (node, cls)
            elif isinstance(node, ast.ClassDef):
                stack.append((node.body, prefix + node.name + ".", prefix + node.name))
    return found


def _layer_classes(tree):
    """Names of the classes deriving (in this file's view) from a ``...Layer`` class."""
    classes = {n.name: [_dotted(b)[-1:] for b in n.bases] for n in ast.walk(tree)
               if isinstance(n, ast.ClassDef)}
    layers, changed = set(), True
    while changed:
        changed = False
        for name, bases in classes.items():
            if name not in layers and any(b and (b[0].endswith("Layer") or b[0] in layers)
                                          for b in bases):
                layers.add(name)
                changed = True
    return layers


def _own_nodes(fn):
    """The nodes of ``fn``'s body, not descending into nested classes."""
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.ClassDef):
            todo.extend(ast.iter_child_nodes(node))


def _callees(fn, cls, functions):
    out = []
    for node in _own_nodes(fn):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if len(name) == 1 and name[0] in functions:
                out.append(name[0])
            elif len(name) == 2 and name[0] in ("self", "cls") and cls and \
                    f"{cls}.{name[1]}" in functions:
                out.append(f"{cls}.{name[1]}")
    return out


class _Checker:
    def __init__(self, path, qualname, fn, cls):
        self.path, self.qualname, self.fn, self.cls = path, qualname, fn, cls
        self.findings = []
        args = fn.args
        params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
        positional = args.posonlyargs + args.args
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]],
                            args.defaults))
        defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d})
        # a parameter whose default is a Python constant (flag=True, n=3) is a Python value
        self.tensors = {p for p in params if p not in ("self", "cls") and
                        not isinstance(defaults.get(p), ast.Constant)}
        self.locals = set(params)
        self._taint()

    def add(self, node, code, **fmt):
        self.findings.append(Finding(self.path, node, code, self.qualname, **fmt))

    # -- which names hold tensors -----------------------------------------------------------------
    def _is_tensor_expr(self, expr):
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and node.id in self.tensors:
                return True
            if isinstance(node, ast.Call):
                name = _dotted(node.func)
                if name and (name[0] in _TENSOR_MODULES or
                             (name[0] == "self" and len(name) >= 2)):
                    return True
        return False

    def _taint(self):
        for _ in range(2):  # twice: a loop may use a name before the line assigning it
            for node in _own_nodes(self.fn):
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and \
                        node.value is not None:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names = [n.id for t in targets for n in ast.walk(t)
                             if isinstance(n, ast.Name)]
                    self.locals.update(names)
                    if self._is_tensor_expr(node.value):
                        self.tensors.update(names)
                elif isinstance(node, (ast.For, ast.comprehension)):
                    names = [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)]
                    self.locals.update(names)
                    if self._is_tensor_expr(node.iter):
                        self.tensors.update(names)

    # -- the rules --------------------------------------------------------------------------------
    def run(self):
        lists = self._local_lists()
        globals_ = set()
        for node in _own_nodes(self.fn):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                self.add(node, "D2S101")
            elif isinstance(node, (ast.Await, ast.AsyncFor, ast.AsyncWith)):
                self.add(node, "D2S102")
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Delete):
                for t in node.targets:
                    base = t.value if isinstance(t, ast.Subscript) else t
                    if isinstance(base, ast.Name) and base.id in lists:
                        self.add(node, "D2S107", name=base.id)
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Slice) and \
                            isinstance(t.value, ast.Name) and t.value.id in lists:
                        self.add(t, "D2S108", name=t.value.id)
            elif isinstance(node, ast.Global):
                globals_.update(node.names)
            elif isinstance(node, (ast.If, ast.While, ast.For)):
                self._control_flow(node)
            elif isinstance(node, ast.Try) and any(
                    isinstance(n, (ast.If, ast.While, ast.For)) and self._is_tensor_expr(
                        n.test if not isinstance(n, ast.For) else n.iter)
                    for b in node.body for n in ast.walk(b)):
                self.add(node, "D2S112")
        if isinstance(self.fn, ast.AsyncFunctionDef):
            self.add(self.fn, "D2S102")
        for node in _own_nodes(self.fn):
            if isinstance(node, (ast.Assign, ast.AugAssign)) and globals_:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id in globals_:
                        self.add(node, "D2S111", name=t.id)
        return self.findings

    def _local_lists(self):
        """Local lists appended to in a loop over a Tensor or with a Tensor condition: the
        translator turns those into tensor arrays."""
        lists = set()
        for node in _own_nodes(self.fn):
            if isinstance(node, ast.Assign) and (
                    isinstance(node.value, ast.List) or
                    (isinstance(node.value, ast.Call) and _dotted(node.value.func) == ("list",))):
                lists.update(t.id for t in node.targets if isinstance(t, ast.Name))
        converted = set()
        for node in _own_nodes(self.fn):
            if isinstance(node, (ast.For, ast.While)) and self._is_tensor_expr(
                    node.iter if isinstance(node, ast.For) else node.test):
                for n in ast.walk(node):
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                            n.func.attr == "append" and isinstance(n.func.value, ast.Name) and \
                            n.func.value.id in lists:
                        converted.add(n.func.value.id)
        return converted

    def _call(self, node):
        name = _dotted(node.func)
        if name and name[0] in _NUMPY and len(name) >= 2:
            if name[1] == "random":
                self.add(node, "D2S110", call=".".join(name) + "()")
            elif any(self._is_tensor_expr(a) for a in node.args):
                self.add(node, "D2S103")
        elif len(name) >= 2 and name[-2:] in _FROZEN:
            self.add(node, "D2S110", call=".".join(name) + "()")
        elif name == ("isinstance",) and node.args and self._is_tensor_expr(node.args[0]):
            self.add(node, "D2S105")
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _DATA_METHODS and \
                not node.args and self._is_tensor_expr(node.func.value):
            self.add(node, "D2S104", attr=node.func.attr)
        short = self.qualname.rsplit(".", 1)[-1]
        if (name == (short,) and self.cls is None) or \
                (self.cls and name == ("self", short)):
            self.add(node, "D2S109", name=self.qualname)

    def _control_flow(self, node):
        test = node.iter if isinstance(node, ast.For) else node.test
        if not self._is_tensor_expr(test):
            return
        for stmt in node.body + node.orelse:
            for n in ast.walk(stmt):
                target = None
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                        n.func.attr in _MUTATORS:
                    target = n.func.value
                elif isinstance(n, (ast.Assign, ast.AugAssign)):
                    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                    target = next((t.value for t in targets if isinstance(t, ast.Subscript)),
                                  None)
                if target is None:
                    continue
                outer = (isinstance(target, ast.Name) and target.id not in self.locals) or \
                    (isinstance(target, ast.Attribute) and _dotted(target)[:1] == ("self",))
                if outer:
                    self.add(n, "D2S106", name=ast.unparse(target))


def _targets(functions, layers):
    roots = [q for q, (node, cls) in functions.items()
             if any(_decorator_name(d) in _DECORATORS for d in node.decorator_list)
             or (q.rsplit(".", 1)[-1] == "forward" and cls and cls.rsplit(".", 1)[-1] in layers)]
    chosen, todo = [], list(roots)
    while todo:
        q = todo.pop(0)
        if q in chosen:
            continue
        chosen.append(q)
        node, cls = functions[q]
        todo.extend(c for c in _callees(node, cls, functions) if c not in chosen)
    return chosen


def lint_source(source, path="<string>", only=None):
    """Findings for the source text of one file (``only``: a qualname to start from instead
    of the decorated functions and ``forward`` methods)."""
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        node = ast.Pass(lineno=e.lineno or 1, col_offset=max((e.offset or 1) - 1, 0))
        return [Finding(path, node, "D2S100", None, msg=e.msg)]
    functions = _functions(tree)
    if only is not None:
        if only not in functions:
            raise ValueError(f"{path}: no function or method named '{only}'")
        chosen, todo = [], [only]
        while todo:
            q = todo.pop(0)
            if q not in chosen:
                chosen.append(q)
                todo.extend(_callees(functions[q][0], functions[q][1], functions))
    else:
        chosen = _targets(functions, _layer_classes(tree))
    findings = []
    for q in chosen:
        node, cls = functions[q]
        findings.extend(_Checker(path, q, node, cls).run())
    findings.sort(key=lambda f: (f.line, f.col, f.code))
    return findings


def _python_files(path):
    if os.path.isfile(path):
        return [path]
    files = []
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        files.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".py"))
    return files


def lint_paths(paths):
    """Findings for files and directories (every ``*.py`` below, hidden folders skipped)."""
    findings = []
    for path in paths:
        if not os.path.exists(path):
            raise FileNotFoundError(f"lint: {path}: no such file or directory")
        for filename in _python_files(path):
            with open(filename, "rb") as f:
                source = f.read()
            findings.extend(lint_source(source, filename))
    return findings


def lint(path_or_func):
    """Findings (a list of :class:`Finding`) for a file or directory path, a list of paths,
    or a function / ``declarative`` function / method (it and the functions of its file it
    calls)."""
    if isinstance(path_or_func, (str, os.PathLike)):
        return lint_paths([os.fspath(path_or_func)])
    if isinstance(path_or_func, (list, tuple)):
        return lint_paths([os.fspath(p) for p in path_or_func])
    func = getattr(path_or_func, "dygraph_function", path_or_func)
    func = getattr(func, "__func__", func)
    if not inspect.isfunction(func):
        raise TypeError(f"lint expects a path or a function, got {type(path_or_func).__name__}")
    path = inspect.getsourcefile(func)
    with open(path, "rb") as f:
        source = f.read()
    qualname = func.__qualname__.replace(".<locals>", "")
    if "<locals>" in func.__qualname__ or qualname not in _functions(ast.parse(source)):
        text = inspect.getsource(func)
        lines = text.splitlines()
        indent = len(lines[0]) - len(lines[0].lstrip())
        body = "\n".join(line[indent:] for line in lines)
        found = lint_source(body, path, only=func.__name__)
        for f in found:  # the text starts at the first decorator, as co_firstlineno does
            f.line += func.__code__.co_firstlineno - 1
        return found
    return lint_source(source, path, only=qualname)
