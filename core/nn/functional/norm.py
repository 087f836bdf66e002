"""Normalisation functions (2.x spellings): ``batch_norm``, ``layer_norm``, ``instance_norm``
and ``group_norm``."""
from ...checks import check_choice, check_int, check_number, check_probability
from ...dispatch import apply
from .common import first_output

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm"]

BN_FORMATS = ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC")


def bn_layout(data_format):
    """The ``batch_norm`` op's ``data_layout`` for a 2.x ``data_format``."""
    return "NHWC" if data_format in ("NHWC", "NLC", "NDHWC") else "NCHW"


def batch_norm(x, running_mean, running_var, weight, bias, training=False, momentum=0.9,
               epsilon=1e-05, data_format="NCHW", use_global_stats=None, name=None):
    """Batch normalisation; with the batch's statistics the running ones are updated in place.
    ``use_global_stats``: None uses the batch's statistics while ``training`` and the running
    ones otherwise; True always the running ones (not updated); False always the batch's."""
    api = "batch_norm"
    check_choice(data_format, "data_format", BN_FORMATS, api)
    if use_global_stats is not None and not isinstance(use_global_stats, bool):
        raise TypeError(f"{api}(): argument 'use_global_stats' must be None, True or False, "
                        f"got {use_global_stats!r}")
    attrs = {"momentum": float(check_probability(momentum, "momentum", api)),
             "epsilon": float(check_number(epsilon, "epsilon", api, minimum=0)),
             "is_test": not training and use_global_stats is not False,
             "data_layout": bn_layout(data_format), "use_global_stats": bool(use_global_stats)}
    out = apply("batch_norm", [x, weight, bias, running_mean, running_var], attrs,
                outputs={1: running_mean, 2: running_var})
    return first_output(out)


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalisation over the trailing ``normalized_shape`` dims (which must be ``x``'s)."""
    api = "layer_norm"
    if not isinstance(normalized_shape, (list, tuple)):
        normalized_shape = [normalized_shape]
    dims = [check_int(d, "normalized_shape", api, minimum=1) for d in normalized_shape]
    begin = len(x.shape) - len(dims)
    if begin < 0 or any(d != s and s >= 0 for d, s in zip(dims, x.shape[begin:])):
        raise ValueError(f"{api}(): argument 'normalized_shape' must be the trailing dims of "
                         f"'x' (shape {list(x.shape)}), got {dims}")
    out = apply("layer_norm", [x, weight, bias], {"begin_norm_axis": begin,
                                                  "epsilon": float(check_number(
                                                      epsilon, "epsilon", api, minimum=0))})
    return first_output(out)


def _channels_first(x, data_format):
    """``x`` with its channels moved to axis 1, and the permutation that moves them back."""
    if data_format[1] == "C" or len(x.shape) < 3:
        return x, None
    rank = len(x.shape)
    perm = [0, rank - 1] + list(range(1, rank - 1))
    back = [0] + list(range(2, rank)) + [1]
    return apply("transpose", [x], {"axis": perm}), back


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW",
                  name=None):
    """Each channel of each sample normalised over its spatial axes, then scaled by ``weight``
    and shifted by ``bias`` (per channel, optional)."""
    api = "instance_norm"
    check_choice(data_format, "data_format", BN_FORMATS, api)
    if not use_input_stats or running_mean is not None or running_var is not None:
        raise ValueError(f"{api}(): running statistics are not supported (instance norm uses "
                         "each input's own statistics); pass use_input_stats=True and no "
                         "running_mean / running_var")
    xc, back = _channels_first(x, data_format)
    out = first_output(apply("instance_norm", [xc, weight, bias],
                             {"epsilon": float(check_number(eps, "eps", api, minimum=0))}))
    return out if back is None else apply("transpose", [out], {"axis": back})


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW",
               name=None):
    """The channels split into ``num_groups`` groups, each normalised per sample over its
    channels and spatial axes, then scaled and shifted per channel."""
    api = "group_norm"
    check_choice(data_format, "data_format", BN_FORMATS, api)
    attrs = {"epsilon": float(check_number(epsilon, "epsilon", api, minimum=0)),
             "groups": check_int(num_groups, "num_groups", api, minimum=1),
             "data_layout": bn_layout(data_format)}
    return first_output(apply("group_norm", [x, weight, bias], attrs))
