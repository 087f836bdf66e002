"""Origin information: map lines of converted code back to the user's file, line and source.

* :func:`to_source` prints a (converted) gast tree with ``ast.unparse`` and, for each
  statement, knows the user's line it stands for (every node keeps the ``lineno`` of the
  original node, and generated nodes get their origin's, see ``templates.replace``). With
  ``with_origin`` a ``# file:line`` comment line (file's base name) precedes each statement
  whose origin differs from the previous one's.
* :func:`register` records, for a synthetic file name (see ``loader.py``), the map from its
  lines to ``(user_file, user_line)``.
* :func:`current_user_origin` walks the Python stack to the innermost frame running converted
  code and returns ``(filename, lineno, source_line)`` of the user's code (None outside
  converted code); the static builder's origin provider.
* :func:`add_origin_notes` adds the user's file/line/source of every converted frame of a
  traceback to an exception as notes (PEP 678; ``__notes__`` on older Pythons), once per
  frame, keeping the exception object and its chain unchanged.
"""
import ast
import linecache
import os
import sys

import gast

__all__ = [
    "add_origin_notes",
    "current_user_origin",
    "is_converted_file",
    "lookup",
    "register",
    "to_source",
]

_maps = {}  # synthetic filename -> {converted line: (user filename, user line)}


def _stmt_lists(node):
    for field in ("body", "orelse", "finalbody"):
        value = getattr(node, field, None)
        if isinstance(value, list):
            yield value
    for handler in getattr(node, "handlers", []) or []:
        yield handler.body
    for case in getattr(node, "cases", []) or []:
        yield case.body


def _fill_lines(tree):
    """Give each statement without a ``lineno`` its parent's, as ``ast.fix_missing_locations``
    would (``ast.unparse`` reads statements' ``lineno``; expressions need none here, and
    walking only the statement lists is much cheaper than fixing every node)."""
    todo = [(tree, 1)]
    while todo:
        node, lineno = todo.pop()
        if "lineno" in node._attributes:
            if hasattr(node, "lineno"):
                lineno = node.lineno
            else:
                node.lineno = lineno
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                todo.extend((child, lineno) for child in children)


def _pair_lines(orig, printed, out):
    """Map printed statement lines to the original ``lineno`` (same structure, walked)."""
    todo = [(orig, printed)]
    while todo:
        a, b = todo.pop()
        if getattr(a, "lineno", None) is not None and isinstance(b, ast.stmt):
            out.setdefault(b.lineno, a.lineno)
        for la, lb in zip(_stmt_lists(a), _stmt_lists(b)):
            if len(la) == len(lb):
                todo.extend(zip(la, lb))


def to_source(tree, filename=None, line_offset=0, with_origin=False, parsed=None):
    """``(text, line_map)`` for a gast tree: ``line_map[converted_line] = user_line``.

    User lines are ``node.lineno + line_offset``. Comments name ``filename``. ``parsed``, a
    list, receives the ``ast`` tree of ``text`` (without origin comments it compiles to the
    same code as ``text``, so the loader need not parse the text again).
    """
    pytree = gast.gast_to_ast(tree)
    _fill_lines(pytree)
    text = ast.unparse(pytree)
    starts = {}
    reparsed = ast.parse(text)
    if parsed is not None:
        parsed.append(reparsed)
    _pair_lines(pytree, reparsed, starts)
    out, line_map, last, origin = [], {}, None, None
    label = os.path.basename(filename) if filename else None
    for k, line in enumerate(text.splitlines(), start=1):
        if k in starts:
            origin = starts[k] + line_offset
            if with_origin and origin != last and label:
                indent = line[:len(line) - len(line.lstrip())]
                out.append(f"{indent}# {label}:{origin}")
                last = origin
        out.append(line)
        if origin is not None:
            line_map[len(out)] = origin
    return "\n".join(out) + "\n", line_map


def register(synthetic_filename, user_filename, line_map):
    _maps[synthetic_filename] = (user_filename, dict(line_map))


def is_converted_file(filename):
    return filename in _maps


def lookup(synthetic_filename, lineno):
    """``(user_filename, user_line, source_line)`` for a line of converted code, or None."""
    entry = _maps.get(synthetic_filename)
    if entry is None:
        return None
    user_file, line_map = entry
    line = line_map.get(lineno)
    if line is None:
        earlier = [k for k in line_map if k <= lineno]
        if not earlier:
            return None
        line = line_map[max(earlier)]
    return user_file, line, linecache.getline(user_file, line).strip()


def current_user_origin():
    """The user's ``(filename, lineno, source_line)`` of the innermost converted frame."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename in _maps:  # NOTE: checked first: computing f_lineno scans the line table
            found = lookup(filename, frame.f_lineno)
            if found is not None:
                return found
        frame = frame.f_back
    return None


def add_origin_notes(exc):
    """Note the user's file/line/source of each converted frame in ``exc``'s traceback."""
    seen = getattr(exc, "_d2s_noted", None)
    if seen is None:
        seen = set()
        try:
            exc._d2s_noted = seen
        except AttributeError:
            return exc
    tb, notes = exc.__traceback__, []
    while tb is not None:
        code = tb.tb_frame.f_code
        key = (code.co_filename, tb.tb_lineno, id(code))
        found = lookup(code.co_filename, tb.tb_lineno)
        if found is not None and key not in seen:
            seen.add(key)
            notes.append(f'In converted code, from the user\'s "{found[0]}", line {found[1]}, '
                         f'in {code.co_name}: {found[2]}')
        tb = tb.tb_next
    for note in reversed(notes):
        if hasattr(exc, "add_note"):
            exc.add_note(note)
        else:
            exc.__notes__ = list(getattr(exc, "__notes__", [])) + [note]
    return exc
