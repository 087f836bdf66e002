"""The runtime helpers converted code calls, gathered in one namespace (``_d2s`` there).

Generated code refers to ``_d2s.<helper>``; ``translator.convert`` binds that name to this
module. Each helper decides at run time, from the actual values, which path to take: a static
``Variable`` (a value in a Program being built) gives the static op (``cond``,
``while_loop``, ``cast``, ``shape``, ``Print``, ``Assert``, tensor arrays, ...); anything
else -- Python values, numpy arrays, eager Tensors -- runs plain Python, with exactly
Python's semantics. The helpers live by concern:

* ``convert_state`` -- static-or-not, undefined names, closure state, values to Variables;
* ``control_flow`` -- tensor control flow: ``if``, conditional expressions,
  ``and``/``or``/``not``, comparisons, ``while`` / ``for`` (the Python-or-static decision,
  building ``cond`` / ``while_loop``, carried names and structures, one-path names' bound
  flags, rollback and re-tracing);
* ``convert_iter`` -- the iterables of ``for`` (``range`` / ``enumerate`` / ``zip``);
* ``tensor_list`` -- ``list.append`` / ``pop`` / indexing on lists or tensor arrays;
* ``convert_builtins`` -- ``len``, casts, ``x.item()``, ``x.numpy()``, ``print``, ``assert``,
  ``x.shape``, ``x[i] = v``, ``x[i] += v``;
* ``convert_calls`` -- ``convert_call`` (recursive conversion of called functions) and
  ``convert_super``.
"""
from .convert_builtins import convert_assert, convert_cast, convert_item, convert_len, \
    convert_numpy, convert_print, convert_setitem, convert_setitem_aug, convert_shape
from .convert_calls import convert_call, convert_super
from .control_flow import Targets, check_bound, convert_compare, convert_for_loop, \
    convert_ifelse, convert_ifexp, convert_in, convert_logical_and, convert_logical_not, \
    convert_logical_or, convert_while_loop
from .convert_iter import convert_enumerate, convert_range, convert_zip
from .convert_state import Deleted, PendingReturn, UndefinedVar, check_defined, \
    install_origin_provider, is_static
from .tensor_list import convert_list_append, convert_list_getitem, convert_list_pop, \
    convert_list_setitem

__all__ = [
    "Deleted",
    "PendingReturn",
    "Targets",
    "UndefinedVar",
    "check_bound",
    "check_defined",
    "convert_assert",
    "convert_call",
    "convert_cast",
    "convert_compare",
    "convert_enumerate",
    "convert_for_loop",
    "convert_ifelse",
    "convert_ifexp",
    "convert_in",
    "convert_item",
    "convert_len",
    "convert_list_append",
    "convert_list_getitem",
    "convert_list_pop",
    "convert_list_setitem",
    "convert_logical_and",
    "convert_logical_not",
    "convert_logical_or",
    "convert_numpy",
    "convert_print",
    "convert_range",
    "convert_setitem",
    "convert_setitem_aug",
    "convert_shape",
    "convert_super",
    "convert_while_loop",
    "convert_zip",
    "install_origin_provider",
    "is_static",
]
