"""Normalisation functions (2.x spellings): ``batch_norm`` and ``layer_norm``."""
from ...checks import check_choice, check_int, check_number, check_probability
from ...dispatch import apply
from .common import first_output

__all__ = ["batch_norm", "layer_norm"]

BN_FORMATS = ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC")


def bn_layout(data_format):
    """The ``batch_norm`` op's ``data_layout`` for a 2.x ``data_format``."""
    return "NHWC" if data_format in ("NHWC", "NLC", "NDHWC") else "NCHW"


def batch_norm(x, running_mean, running_var, weight, bias, training=False, momentum=0.9,
               epsilon=1e-05, data_format="NCHW", use_global_stats=None, name=None):
    """Batch normalisation; while ``training`` the running statistics are updated in place.
    ``use_global_stats=True`` normalises with the running statistics even while training."""
    api = "batch_norm"
    check_choice(data_format, "data_format", BN_FORMATS, api)
    attrs = {"momentum": float(check_probability(momentum, "momentum", api)),
             "epsilon": float(check_number(epsilon, "epsilon", api, minimum=0)),
             "is_test": not training,
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
