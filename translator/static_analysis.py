"""Name analysis: what each statement reads and writes, and which names are live after it.

Contract (a separate pass; transformers call :func:`analyze` on the current tree and then
read the annotations, so an analysis always matches the tree it describes):

* :func:`reads` / :func:`writes` of a node or a list of statements: the names of the
  *enclosing function's scope* that the code may read / may bind. Scopes follow Python:
  parameters and locals of a nested ``def``/``lambda``/comprehension are not names of the
  enclosing scope, but the free names a nested function reads are reads, and names it declares
  ``nonlocal`` are both reads and (possible) writes of the enclosing scope. So an already
  converted ``if`` (nested functions with ``nonlocal`` plus a helper call) reads and writes the
  same names as the original statement.
* :func:`analyze(fn_node)` annotates every statement of the function (and of each nested
  function, as its own scope) with three frozensets:

  - ``"live_in"`` / ``"live_out"``: names whose current value may be read before being
    rebound, on some path from just before / just after the statement (classic backward
    liveness; loops iterate to a fixed point; a ``for`` loop's ``extra_test``
    annotation counts as read at its head; ``break``/``continue`` are treated
    conservatively as reaching both the loop exit and the loop head; a ``try`` body is
    assumed to stop anywhere; a ``match`` may run no case);
    A nested function annotated ``"live_at_exit"`` (a generated branch function, whose
    ``nonlocal`` names the enclosing function reads after the ``if``) has those names live
    where it returns; other functions have none.
  - ``"defined_before"``: names bound by any statement that precedes it in source order in
    the same function, the parameters, and the names the function declares ``nonlocal``. A
    name outside this set cannot hold a value yet.

Results are sets; every consumer orders them with ``sorted`` so generated code never depends
on set iteration order.

Within one :func:`analyze` call the tree does not change, so the names of each statement are
collected once and remembered (keyed on the statement node itself, which the tree keeps alive;
never on a temporary list): liveness revisits loop bodies until a fixed point, and a nested
function's statements are seen both from the enclosing scope and as their own scope.
"""
import gast

from .gast_nodes import get_anno, set_anno
from .visitor import NodeVisitor, child_statements

__all__ = [
    "analyze",
    "declared_globals",
    "defined_before",
    "kills",
    "live_in",
    "live_out",
    "reads",
    "writes",
]

_FUNCS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_COMPS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


class _Names(NodeVisitor):
    """Collect the reads, may-writes and definite writes (kills) of one scope.

    ``memo`` (a dict, or None): statement results remembered across collectors for as long as
    the tree is unchanged (one :func:`analyze` call). Visiting a node only adds to the
    collector's sets, so a statement's own contribution can be computed once and merged.
    """

    def __init__(self, memo=None):
        self.reads, self.writes, self.kills = set(), set(), set()
        self.nonlocals, self.globals = set(), set()
        self.memo = memo

    def visit(self, node):
        if self.memo is None or not isinstance(node, gast.stmt):
            return super().visit(node)
        self.merge(self.own(node))
        return None

    def own(self, node):
        """The names of ``node`` alone, from the memo or collected now and remembered."""
        entry = self.memo.get(id(node))
        if entry is None or entry[0] is not node:
            own = _Names(self.memo)
            super(_Names, own).visit(node)
            entry = (node, own)
            self.memo[id(node)] = entry
        return entry[1]

    def merge(self, other):
        self.reads |= other.reads
        self.writes |= other.writes
        self.kills |= other.kills
        self.nonlocals |= other.nonlocals
        self.globals |= other.globals

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load):
            self.reads.add(node.id)
        elif isinstance(node.ctx, (gast.Store, gast.Del)):
            self.writes.add(node.id)
            self.kills.add(node.id)
        elif isinstance(node.ctx, gast.Param):
            self.writes.add(node.id)

    def visit_AugAssign(self, node):
        if isinstance(node.target, gast.Name):
            self.reads.add(node.target.id)
        self.generic_visit(node)

    def visit_Nonlocal(self, node):
        self.nonlocals.update(node.names)

    def visit_Global(self, node):
        self.globals.update(node.names)

    def visit_Import(self, node):
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            self.writes.add(bound)
            self.kills.add(bound)

    visit_ImportFrom = visit_Import

    def _bind(self, identifier):
        if identifier is not None:
            self.writes.add(identifier)
            self.kills.add(identifier)

    def visit_MatchAs(self, node):  # a capture pattern binds an identifier, not a Name node
        self.generic_visit(node)
        self._bind(node.name)

    def visit_MatchStar(self, node):
        self._bind(node.name)

    def visit_MatchMapping(self, node):
        self.generic_visit(node)
        self._bind(node.rest)

    def visit_ExceptHandler(self, node):
        if node.type is not None:
            self.visit(node.type)
        if node.name is not None:
            self.visit(node.name)
        for stmt in node.body:
            self.visit(stmt)

    def _inner_scope(self, params, body_nodes):
        inner = _Names(self.memo)
        for p in params:
            inner.visit(p)
        for b in body_nodes:
            inner.visit(b)
        local = (inner.writes - inner.nonlocals - inner.globals)
        self.reads |= (inner.reads - local) | inner.nonlocals
        self.writes |= inner.nonlocals

    def _visit_function(self, node):
        for d in getattr(node, "decorator_list", []):
            self.visit(d)
        for d in node.args.defaults + [k for k in node.args.kw_defaults if k is not None]:
            self.visit(d)
        a = node.args
        params = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p]
        for n in [p.annotation for p in params] + [getattr(node, "returns", None)]:
            if n is not None:  # annotations are evaluated in the enclosing scope
                self.visit(n)
        body = node.body if isinstance(node.body, list) else [node.body]
        self._inner_scope(params, body)
        if not isinstance(node, gast.Lambda):
            self.writes.add(node.name)
            self.kills.add(node.name)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _visit_function

    def visit_ClassDef(self, node):
        for n in node.bases + node.decorator_list + [k.value for k in node.keywords]:
            self.visit(n)
        self._inner_scope([], node.body)
        self.writes.add(node.name)
        self.kills.add(node.name)

    def _visit_comp(self, node):
        self.visit(node.generators[0].iter)
        inner = _Names(self.memo)
        for k, gen in enumerate(node.generators):
            inner.visit(gen.target)
            if k:
                inner.visit(gen.iter)
            for cond in gen.ifs:
                inner.visit(cond)
        for field in ("elt", "key", "value"):
            if getattr(node, field, None) is not None:
                inner.visit(getattr(node, field))
        targets = set()
        for gen in node.generators:
            targets |= {n.id for n in gast.walk(gen.target) if isinstance(n, gast.Name)}
        walrus = {n.target.id for n in gast.walk(node) if isinstance(n, gast.NamedExpr)}
        self.reads |= inner.reads - targets
        self.writes |= walrus

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_comp


def _collect(node, memo=None):
    """The names of a node or a list of nodes; with a ``memo`` every node given (statement or
    not) and every statement inside is looked up / remembered there."""
    c = _Names(memo)
    for n in (node if isinstance(node, list) else [node]):
        if memo is None:
            c.visit(n)
        else:
            c.merge(c.own(n))
    return c


def reads(node):
    """Names the code may read (a node or a list of statements); see the module doc."""
    return frozenset(_collect(node).reads)


def writes(node):
    """Names the code may bind in the enclosing scope; see the module doc."""
    return frozenset(_collect(node).writes)


def kills(node):
    """Names a simple statement always binds (plain assignment targets, defs, imports)."""
    return frozenset(_collect(node).kills)


def _statements(node):
    """``node`` and every statement under it, nested functions' included."""
    out, todo = [], [node]
    while todo:
        s = todo.pop()
        out.append(s)
        todo.extend(reversed(child_statements(s)))
    return out


def _declared(fn_node, kind, anno):
    cached = get_anno(fn_node, anno)
    if cached is None:
        cached = frozenset(n for s in _statements(fn_node) if isinstance(s, kind)
                           for n in s.names)
        # NOTE: passes add no ``global`` / ``nonlocal`` statements, so the answer holds for
        # the whole run.
        set_anno(fn_node, anno, cached)
    return cached


def declared_globals(fn_node):
    """Names the function declares ``global`` (they are not part of any local state)."""
    return _declared(fn_node, gast.Global, "declared_globals")


def declared_nonlocals(fn_node):
    """Names the function declares ``nonlocal``: state of an enclosing function, read after
    the call, so always live."""
    return _declared(fn_node, gast.Nonlocal, "declared_nonlocals")


def live_in(node):
    return get_anno(node, "live_in", frozenset())


def live_out(node):
    return get_anno(node, "live_out", frozenset())


def defined_before(node):
    return get_anno(node, "defined_before", frozenset())


class _Liveness:
    """Backward liveness over the structured statements of one function."""

    def __init__(self, memo):
        self.loops = []  # (head_live, exit_live) of the enclosing loops
        self.memo = memo

    def reads(self, node):
        return frozenset(_collect(node, self.memo).reads)

    def kills(self, node):
        return frozenset(_collect(node, self.memo).kills)

    def block(self, stmts, live):
        for stmt in reversed(stmts):
            live = self.stmt(stmt, live)
        return live

    def stmt(self, s, live_after):
        set_anno(s, "live_out", frozenset(live_after))
        live = self._stmt(s, frozenset(live_after))
        set_anno(s, "live_in", live)
        return live

    def _loop(self, s, live_after, test_reads, target):
        head = frozenset(live_after) | test_reads
        orelse = self.block(s.orelse, live_after)
        while True:
            self.loops.append((head, live_after))
            body = self.block(s.body, head)
            self.loops.pop()
            if target is not None:
                body = (body - self.kills(target)) | self.reads(target)
            new = head | body | test_reads | orelse
            if new == head:
                return head
            head = new

    def _stmt(self, s, live):
        if isinstance(s, gast.If):
            return self.reads(s.test) | self.block(s.body, live) | self.block(s.orelse, live)
        if isinstance(s, gast.While):
            return self._loop(s, live, self.reads(s.test), None)
        if isinstance(s, (gast.For, gast.AsyncFor)):
            extra = get_anno(s, "extra_test")  # checked before each iteration
            test = self.reads(extra) if extra is not None else frozenset()
            return self._loop(s, live, test, s.target) | self.reads(s.iter)
        if isinstance(s, (gast.Break, gast.Continue)):
            head, exit_ = self.loops[-1] if self.loops else (frozenset(), frozenset())
            return head | exit_
        if isinstance(s, gast.Return):
            return self.reads(s.value) if s.value is not None else frozenset()
        if isinstance(s, gast.Match):  # no case may match: what is live after stays live
            out = live | self.reads(s.subject)
            for case in s.cases:  # the pattern binds, then the guard and the body run
                guard = self.reads(case.guard) if case.guard is not None else frozenset()
                body = self.block(case.body, live) | guard
                out |= (body - self.kills(case.pattern)) | self.reads(case.pattern)
            return out
        if isinstance(s, (gast.With, gast.AsyncWith)):
            body = self.block(s.body, live)
            items = [i.context_expr for i in s.items]
            targets = [i.optional_vars for i in s.items if i.optional_vars is not None]
            return (body - self.kills(targets)) | self.reads(items) | self.reads(targets)
        if isinstance(s, gast.Try):
            after = self.block(s.finalbody, live)
            handlers = frozenset().union(*[self.block(h.body, after) for h in s.handlers])
            orelse = self.block(s.orelse, after)
            body = self.block(s.body, orelse)
            everything = self.reads(s.body) | self.reads(s.handlers) | self.reads(s.orelse)
            return body | handlers | orelse | after | everything
        return (live - self.kills(s)) | self.reads(s)


def _defined(fn_node, memo):
    """Annotate ``defined_before`` on the statements of ``fn_node`` in source order."""

    def writes(node):
        return _collect(node, memo).writes

    a = fn_node.args
    defined = {n.id for n in a.posonlyargs + a.args + a.kwonlyargs}
    defined |= {p.id for p in (a.vararg, a.kwarg) if p is not None}
    defined |= _collect(fn_node.body, memo).nonlocals
    todo = list(reversed(fn_node.body))
    while todo:
        s = todo.pop()
        set_anno(s, "defined_before", frozenset(defined))
        if isinstance(s, (gast.For, gast.AsyncFor)):
            defined |= writes(s.target)
        if isinstance(s, (gast.With, gast.AsyncWith)):
            defined |= writes([i.optional_vars for i in s.items if i.optional_vars])
        children = []
        for case in getattr(s, "cases", None) or ():  # a match statement
            defined |= writes(case.pattern)
            children.extend(case.body)
        if not isinstance(s, _FUNCS + (gast.ClassDef,)):
            for field in ("body", "handlers", "orelse", "finalbody"):
                for child in getattr(s, field, []) or []:
                    children.extend(child.body if isinstance(child, gast.ExceptHandler)
                                    else [child])
                    if isinstance(child, gast.ExceptHandler) and child.name is not None:
                        defined.add(child.name.id)
        if children:
            todo.extend(reversed(children))
        else:
            defined |= writes(s)
        if isinstance(s, (gast.If, gast.While)):
            defined |= writes(s.test)


def analyze(fn_node):
    """Annotate liveness and definedness on ``fn_node`` and every nested function."""
    memo = {}  # id(node) -> (node, its _Names); valid while the tree is unchanged
    for node in _statements(fn_node):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            _Liveness(memo).block(node.body, get_anno(node, "live_at_exit", frozenset()))
            _defined(node, memo)
    return fn_node
