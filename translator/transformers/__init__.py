"""The conversion passes, in the order they run. Each module has ``transform(node, ctx)``
taking and returning the function's gast ``FunctionDef``; ``ctx`` carries the file name, line
offset and a fresh-name generator (see ``translator.convert.Context``).

Order, and why:

1. ``print_assert`` -- ``print(...)`` / ``assert`` become helper calls first, so ``call``
   leaves them alone (helpers live under the ``_d2s`` name and are never wrapped).
2. ``cast`` -- ``int``/``float``/``bool``/``len`` calls, for the same reason.
3. ``shape`` -- ``x.shape`` loads.
4. ``list_`` -- ``l.append(v)`` / ``l.pop()`` statements become rebinding helper calls, so the
   list is a name written in the loop (a loop variable the runtime can turn into a tensor
   array) before ``call`` would wrap the method call.
5. ``setitem`` -- ``x[i] = v`` of a local name becomes ``x = _d2s.convert_setitem(x, i, v)``,
   a rebinding the control-flow passes carry like any other; before ``call`` so the helper
   call is never wrapped.
6. ``call`` -- every remaining call ``f(a)`` becomes ``_d2s.convert_call(f)(a)``; it runs
   before the control-flow passes so it never sees their generated functions.
7. ``return_`` -- ``return`` anywhere becomes a return-value variable and flag; a return
   inside a loop becomes ``break``, which is why it runs before ``break_continue``.
8. ``break_continue`` -- ``break``/``continue`` become flags, guarded statements and an extra
   loop test (annotation ``extra_test``, read by ``loop``).
9. ``logical`` -- ``and``/``or``/``not``, chained comparisons, including the flag tests the
   two passes above generated.
10. ``ifelse`` -- ``if`` statements and conditional expressions.
11. ``loop`` -- ``while`` and ``for``; runs after ``ifelse`` so every statement in a loop body
    is final.
12. ``unbound`` -- reads of the names the two passes above start as ``UndefinedVar`` check,
    at run time, that the path taken bound them; last, so it sees all those names.
"""
from . import (break_continue, call, cast, ifelse, list_, logical, loop, print_assert, return_,
               setitem, shape, unbound)

PASSES = (
    ("print_assert", print_assert),
    ("cast", cast),
    ("shape", shape),
    ("list", list_),
    ("setitem", setitem),
    ("call", call),
    ("return", return_),
    ("break_continue", break_continue),
    ("logical", logical),
    ("ifelse", ifelse),
    ("loop", loop),
    ("unbound", unbound),
)

__all__ = ["PASSES"]
