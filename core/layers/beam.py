"""Functional API: beam search over padded batches (``gather_tree``, fluid's ``beam_search``
and ``beam_search_decode``).

fluid keeps beam hypotheses in LoD tensors; here a batch of ``batch`` sources is always
``batch * beam_size`` rows (source ``b`` owns rows ``b * beam_size`` to ``(b + 1) *
beam_size - 1``), a finished row repeats ``end_id`` with its score, and the row each new
hypothesis extends is the explicit ``parent_idx`` that ``beam_search(...,
return_parent_idx=True)`` returns. Gather the decoder state with it (``gather(state,
parent_idx)``) and pass the per-step parents to ``beam_search_decode``. On the first step,
give every source ``beam_size`` identical rows with ``pre_scores`` 0 for the first and a very
negative number for the others, so the beam starts from one hypothesis.
"""
from ..checks import check_int, check_variable
from ..dispatch import apply
from ..static.variable import Variable
from .shape import reshape, stack

__all__ = ["beam_gather", "beam_search", "beam_search_decode", "gather_tree"]

_INTS = ("int32", "int64")


def gather_tree(ids, parents):
    """The full id sequences of a beam search: ``ids`` (the id each beam chose at each step)
    and ``parents`` (the beam each one extends) are int ``[max_time, batch, beam]``; entry
    ``[t, b, k]`` of the result is the id at step ``t`` of the sequence that ends in beam
    ``k`` at the last step."""
    api = "gather_tree"
    check_variable(ids, "ids", api, _INTS)
    check_variable(parents, "parents", api, _INTS)
    for arg, v in (("ids", ids), ("parents", parents)):
        if len(v.shape) != 3:
            raise ValueError(f"gather_tree(): argument '{arg}' must be [max_time, batch, beam], "
                             f"got shape {list(v.shape)}")
    if any(a >= 0 and b >= 0 and a != b for a, b in zip(ids.shape, parents.shape)):
        raise ValueError(f"gather_tree(): 'ids' {list(ids.shape)} and 'parents' "
                         f"{list(parents.shape)} must have the same shape")
    return apply("gather_tree", [ids, parents])


def beam_search(pre_ids, pre_scores, ids, scores, beam_size, end_id, level=0,
                is_accumulated=True, name=None, return_parent_idx=False):
    """One beam search step (fluid ``layers.beam_search``) over ``batch * beam_size`` rows.

    ``pre_ids`` / ``pre_scores`` ``[batch * beam_size, 1]``: each hypothesis' last id and
    score; ``scores`` ``[batch * beam_size, K]`` the candidates' scores (accumulated, or
    probabilities when ``is_accumulated`` is False) and ``ids`` their ids (None: candidate
    ``j`` is id ``j``). Returns ``(selected_ids, selected_scores)`` ``[batch * beam_size,
    1]``, best first per source, and ``parent_idx`` ``[batch * beam_size]`` (the row each
    extends) when ``return_parent_idx``. ``level`` is accepted for fluid's signature; the
    padded layout has one level.
    """
    api = "beam_search"
    beam_size = check_int(beam_size, "beam_size", api, minimum=1, tensor=True,
                          integral_float=False)
    end_id = check_int(end_id, "end_id", api, minimum=0, tensor=True,
                       integral_float=False)
    if level not in (0, 1):
        raise ValueError(f"beam_search(): argument 'level' must be 0 or 1, got {level!r}")
    check_variable(pre_ids, "pre_ids", api, _INTS)
    check_variable(pre_scores, "pre_scores", api)
    check_variable(scores, "scores", api, ("float32", "float64"))
    if ids is not None:
        check_variable(ids, "ids", api, _INTS)
    if len(scores.shape) != 2:
        raise ValueError(f"beam_search(): argument 'scores' must be [batch * beam_size, K], "
                         f"got shape {list(scores.shape)}")
    n = scores.shape[0]
    if n >= 0 and n % beam_size:
        raise ValueError(f"beam_search(): 'scores' has {n} rows, not a multiple of "
                         f"beam_size={beam_size} (rows are batch * beam_size)")
    for arg, v in (("pre_ids", pre_ids), ("pre_scores", pre_scores)):
        ok = len(v.shape) in (1, 2) and (len(v.shape) == 1 or v.shape[1] == 1)
        if not ok or (n >= 0 and v.shape[0] >= 0 and v.shape[0] != n):
            raise ValueError(f"beam_search(): argument '{arg}' must be [{n}, 1] like the rows "
                             f"of 'scores' {list(scores.shape)}, got {list(v.shape)}")
    if ids is not None and list(ids.shape) != list(scores.shape) and \
            not any(d < 0 for d in list(ids.shape) + list(scores.shape)):
        raise ValueError(f"beam_search(): 'ids' {list(ids.shape)} must have the shape of "
                         f"'scores' {list(scores.shape)}")
    level = check_int(level, "level", api, minimum=0, integral_float=False)
    sel_ids, sel_scores, parent = apply(
        "beam_search", [pre_ids, pre_scores, ids, scores],
        {"beam_size": beam_size, "end_id": end_id, "level": level,
         "is_accumulated": bool(is_accumulated)})
    if return_parent_idx:
        return sel_ids, sel_scores, parent
    return sel_ids, sel_scores


def _steps(x, arg, api):
    """A list / tensor array of per-step ``[N]`` or ``[N, 1]`` tensors, or a stacked tensor,
    as one ``[steps, N]`` tensor."""
    if isinstance(x, (list, tuple)) or getattr(x, "type", None) == "tensor_array":
        if isinstance(x, (list, tuple)) and not x:
            raise ValueError(f"{api}(): argument '{arg}' holds no steps")
        x = stack(x, axis=0)
    check_variable(x, arg, api)
    if len(x.shape) == 3 and x.shape[2] == 1:
        x = reshape(x, [x.shape[0] if x.shape[0] >= 0 else -1, x.shape[1]])
    if len(x.shape) != 2:
        raise ValueError(f"{api}(): argument '{arg}' must be per-step [batch * beam_size] "
                         f"(or [.., 1]) tensors, got a stacked shape {list(x.shape)}")
    return x


def beam_search_decode(ids, scores, beam_size, end_id, parent_idx=None, name=None):
    """The sentences found by a run of :func:`beam_search` steps (fluid
    ``layers.beam_search_decode``) over the padded layout.

    ``ids``, ``scores`` and ``parent_idx`` are what each step returned (lists or tensor
    arrays of ``[batch * beam_size, 1]`` / ``[batch * beam_size]`` tensors, or them stacked).
    fluid reads the parents from LoD levels; here ``parent_idx`` is required. Returns
    ``(sentence_ids, sentence_scores)``, both ``[batch, beam_size, steps]``: the hypotheses of
    each source best first, ids after a sentence's ``end_id`` equal to ``end_id``, and the
    score after each step (kept at the final score after the end).
    """
    api = "beam_search_decode"
    beam_size = check_int(beam_size, "beam_size", api, minimum=1, tensor=True,
                          integral_float=False)
    end_id = check_int(end_id, "end_id", api, minimum=0, tensor=True,
                       integral_float=False)
    if parent_idx is None:
        raise ValueError("beam_search_decode(): argument 'parent_idx' is required: padded "
                         "beams have no LoD levels to read the parents from; collect the "
                         "parent_idx of beam_search(..., return_parent_idx=True) per step")
    ids = _steps(ids, "ids", api)
    scores = _steps(scores, "scores", api)
    parents = _steps(parent_idx, "parent_idx", api)
    check_variable(ids, "ids", api, _INTS)
    check_variable(parents, "parent_idx", api, _INTS)
    shapes = [list(v.shape) for v in (ids, scores, parents)]
    if any(isinstance(v, Variable) for v in (ids, scores, parents)):
        same = all(a == b or a < 0 or b < 0 for s in shapes[1:] for a, b in zip(shapes[0], s))
    else:
        same = shapes[0] == shapes[1] == shapes[2]
    if not same:
        raise ValueError(f"beam_search_decode(): 'ids', 'scores' and 'parent_idx' must have "
                         f"the same [steps, batch * beam_size] shape, got {shapes}")
    n = shapes[0][1]
    if n >= 0 and n % beam_size:
        raise ValueError(f"beam_search_decode(): {n} rows per step are not a multiple of "
                         f"beam_size={beam_size}")
    return apply("beam_search_decode", [ids, scores, parents],
                 {"beam_size": beam_size, "end_id": end_id})


def beam_gather(x, index):
    """``out[b, k, ...] = x[b, index[b, k], ...]``: each source's beams reordered (and
    repeated) as ``index`` ``[batch, beam]`` says, how a beam search carries its state to the
    hypotheses it keeps."""
    api = "beam_gather"
    check_variable(x, "x", api)
    check_variable(index, "index", api, _INTS)
    if len(x.shape) < 2 or len(index.shape) != 2 or \
            (x.shape[0] >= 0 and index.shape[0] >= 0 and x.shape[0] != index.shape[0]):
        raise ValueError(f"beam_gather(): argument 'x' must be [batch, beam, ...] and 'index' "
                         f"[batch, beam] with the same batch, got {list(x.shape)} and "
                         f"{list(index.shape)}")
    return apply("beam_gather", [x, index])
