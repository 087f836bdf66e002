"""Compile a converted gast tree without printing and re-parsing it.

:func:`to_ast` turns a gast module into an ``ast`` module in one walk and numbers the lines of
the code itself: every statement, and every ``else:`` / ``except ...:`` / ``finally:`` /
``case ...:`` clause, takes the next line of a *virtual source* that holds one line per
statement, indented by depth (a statement's expressions all sit on its line). Contexts
(``Load`` / ``Store`` / ``Del``) follow from where a node stands, as a parser would set them,
so templates need not get them right. It returns the tree, ready for ``compile``, the map from
virtual lines to the user's lines (``node.lineno + line_offset``; a statement without a line
has its parent's), and a :class:`VirtualSource`: a sequence of the virtual lines that renders
them (with ``ast.unparse``) only when something reads them -- a traceback, ``inspect``,
``pdb`` -- so a first call does not pay for printing code nobody looks at.

``ProgramTranslator.get_code`` still prints the whole converted tree (``origin_info``).
"""
import ast
import collections.abc
import copy

import gast

__all__ = ["VirtualSource", "to_ast"]

_AST = {}  # gast class -> (ast class, fields, position attributes)
_LOAD, _STORE, _DEL = ast.Load(), ast.Store(), ast.Del()
_CTX = {gast.Load: _LOAD, gast.Store: _STORE, gast.Del: _DEL, gast.Param: _LOAD}
_NAMED_CONSTANTS = {"None": None, "True": True, "False": False}
_END = 1 << 15  # end column: past any line, so tracebacks underline nothing
_KEYWORD = {"orelse": "else:", "finalbody": "finally:"}  # the clause lines and their text
_TARGET_FIELDS = {"Assign": ("targets",), "AugAssign": ("target",), "AnnAssign": ("target",),
                  "For": ("target",), "AsyncFor": ("target",), "comprehension": ("target",),
                  "withitem": ("optional_vars",), "NamedExpr": ("target",),
                  "Delete": ("targets",)}
_TARGET_KINDS = (gast.Name, gast.Attribute, gast.Subscript, gast.Tuple, gast.List,
                 gast.Starred)


def _ast_class(kind):
    entry = _AST.get(kind)
    if entry is None:
        cls = getattr(ast, kind.__name__, None)
        if cls is None:
            raise TypeError(f"no ast node for gast.{kind.__name__}")
        entry = (cls, cls._fields, "lineno" in cls._attributes)
        _AST[kind] = entry
    return entry


class _Converter:
    def __init__(self, line_offset):
        self.offset = line_offset
        self.line = 0
        self.slots = []  # (depth, kind, ast node) per virtual line
        self.line_map = {}

    # -- statements -------------------------------------------------------------------------
    def block(self, stmts, depth, origin):
        return [self.stmt(s, depth, origin) for s in stmts]

    def take(self, depth, kind, node, origin):
        self.line += 1
        self.slots.append((depth, kind, node))
        if origin is not None:
            self.line_map[self.line] = origin + self.offset
        return self.line

    def stmt(self, node, depth, origin):
        lineno = getattr(node, "lineno", None)
        if lineno is not None:
            origin = lineno
        cls, fields, _ = _ast_class(type(node))
        new = cls.__new__(cls)
        line = self.take(depth, "stmt", new, origin)
        targets = _TARGET_FIELDS.get(cls.__name__, ())
        ctx = _DEL if cls is ast.Delete else _STORE
        later = []
        for field in fields:
            value = getattr(node, field, None)
            if field in ("body", "orelse", "finalbody", "handlers", "cases"):
                later.append((field, value or []))
                continue
            if field in targets:
                value = self.target(value, line, ctx)
            elif field == "args" and cls in (ast.FunctionDef, ast.AsyncFunctionDef):
                value = self.arguments(value, line)
            elif field == "decorator_list" or field == "type_params":
                value = [self.expr(v, line) for v in value or []]
            else:
                value = self.value(value, line)
            setattr(new, field, value)
        for field, value in later:
            if field == "handlers":
                setattr(new, field, [self.handler(h, depth, origin) for h in value])
            elif field == "cases":
                setattr(new, field, [self.case(c, depth + 1, origin) for c in value])
            else:
                if field in _KEYWORD and value:
                    self.take(depth, field, new, origin)
                setattr(new, field, self.block(value, depth + 1, origin))
        self.place(new, line)
        return new

    def handler(self, node, depth, origin):
        lineno = getattr(node, "lineno", None)
        if lineno is not None:
            origin = lineno
        new = ast.ExceptHandler.__new__(ast.ExceptHandler)
        line = self.take(depth, "stmt", new, origin)
        new.type = self.value(node.type, line)
        name = node.name
        new.name = name.id if isinstance(name, gast.Name) else name
        new.body = self.block(node.body, depth + 1, origin)
        self.place(new, line)
        return new

    def case(self, node, depth, origin):
        new = ast.match_case.__new__(ast.match_case)
        line = self.take(depth, "stmt", new, origin)
        new.pattern = self.value(node.pattern, line)
        new.guard = self.value(node.guard, line)
        new.body = self.block(node.body, depth + 1, origin)
        return new

    # -- expressions ------------------------------------------------------------------------
    @staticmethod
    def place(node, line):
        node.lineno = node.end_lineno = line
        node.col_offset = 0
        node.end_col_offset = _END

    def value(self, value, line):
        if isinstance(value, gast.AST):
            return self.expr(value, line)
        if isinstance(value, list):
            return [self.expr(v, line) if isinstance(v, gast.AST) else v for v in value]
        return value

    def expr(self, node, line, ctx=_LOAD):
        kind = type(node)
        if kind is gast.Name:
            if node.id in _NAMED_CONSTANTS:  # a hand-built name, as printing would read it
                new = ast.Constant(value=_NAMED_CONSTANTS[node.id], kind=None)
            else:
                new = ast.Name(id=node.id, ctx=ctx)
            self.place(new, line)
            return new
        if kind in _CTX:
            return _CTX[kind]
        cls, fields, positioned = _ast_class(kind)
        new = cls.__new__(cls)
        targets = _TARGET_FIELDS.get(cls.__name__, ())
        for field in fields:
            value = getattr(node, field, None)
            if field == "ctx":
                value = ctx
            elif field in targets:
                value = self.target(value, line, _STORE)
            elif field == "args" and cls is ast.Lambda:
                value = self.arguments(value, line)
            elif kind in (gast.Tuple, gast.List, gast.Starred) and ctx is not _LOAD and \
                    field in ("elts", "value"):
                value = self.target(value, line, ctx)
            else:
                value = self.value(value, line)
            setattr(new, field, value)
        if positioned:
            self.place(new, line)
        return new

    def target(self, value, line, ctx):
        if isinstance(value, list):
            return [self.target(v, line, ctx) for v in value]
        if value is None:
            return None
        if isinstance(value, _TARGET_KINDS):
            return self.expr(value, line, ctx)
        return self.expr(value, line)

    def arguments(self, node, line):
        if node is None:
            return None
        new = ast.arguments.__new__(ast.arguments)
        for field in ast.arguments._fields:
            value = getattr(node, field, None)
            if field in ("args", "posonlyargs", "kwonlyargs"):
                value = [self.arg(a, line) for a in value or []]
            elif field in ("vararg", "kwarg"):
                value = self.arg(value, line)
            else:
                value = [None if v is None else self.expr(v, line) for v in value or []]
            setattr(new, field, value)
        return new

    def arg(self, node, line):
        if node is None:
            return None
        new = ast.arg(arg=node.id, annotation=self.value(node.annotation, line),
                      type_comment=getattr(node, "type_comment", None))
        self.place(new, line)
        return new


def to_ast(module, line_offset=0):
    """``(ast module, {virtual line: user line}, VirtualSource)`` for a gast ``Module``."""
    conv = _Converter(line_offset)
    body = conv.block(module.body, 0, 1)
    tree = ast.Module(body=body, type_ignores=[])
    return tree, conv.line_map, VirtualSource(conv.slots)


#: unrendered sources hold their statements' trees (several times the text's size): past this
#: many, the oldest is rendered, so a process converting many functions holds little more
#: than their text
MAX_PENDING = 64
_pending = collections.deque()


class VirtualSource(collections.abc.Sequence):
    """The lines of the virtual source (``"...\\n"`` each), rendered on first use."""

    def __init__(self, slots):
        self._slots = slots
        self._lines = None
        _pending.append(self)
        while len(_pending) > MAX_PENDING:
            _pending.popleft()._render()

    def _render(self):
        if self._lines is None:
            self._lines = [("    " * depth) + _text(kind, node) + "\n"
                           for depth, kind, node in self._slots]
            self._slots = None
        return self._lines

    def __len__(self):
        return len(self._render())

    def __getitem__(self, index):
        return self._render()[index]

    def __iter__(self):
        return iter(self._render())

    def __add__(self, other):
        return list(self._render()) + list(other)

    def __radd__(self, other):
        return list(other) + list(self._render())

    def text(self):
        return "".join(self._render())


def _text(kind, node):
    if kind in _KEYWORD:
        return _KEYWORD[kind]
    if isinstance(node, ast.match_case):
        head = copy.copy(node)
        head.body = [ast.Pass()]
        text = _unparse_first(ast.Match(subject=ast.Name(id="_", ctx=_LOAD), cases=[head]), 1)
        return text
    if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        return "try:"
    if any(hasattr(node, f) for f in ("body", "handlers", "cases")):
        head = copy.copy(node)
        for field in ("body", "orelse", "finalbody", "handlers", "cases", "decorator_list"):
            if hasattr(head, field):
                setattr(head, field, [ast.Pass()] if field == "body" else [])
        return _unparse_first(head, 0)
    return " ".join(_unparse(node).splitlines())


def _unparse_first(node, skip):
    lines = [line for line in _unparse(node).splitlines() if line.strip()]
    return lines[skip].strip() if len(lines) > skip else "..."


def _unparse(node):
    try:
        return ast.unparse(node)
    except Exception as e:  # the text is only shown, never compiled
        return f"<{type(node).__name__}: {e}>"
