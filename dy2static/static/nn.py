"""``paddle.static.nn``: layers that create their parameters in the current static Program,
with 2.x argument names (``fc(x, size, weight_attr=, bias_attr=, activation=)``)."""
from core import layers as _L

__all__ = ["batch_norm", "conv2d", "embedding", "fc", "layer_norm"]


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None,
       name=None):
    """A fully connected layer: ``activation(x @ W + b)`` with ``x`` flattened after
    ``num_flatten_dims`` axes; ``x`` may be a list of inputs (their products are summed)."""
    return _L.fc(x, size, num_flatten_dims=num_flatten_dims, param_attr=weight_attr,
                 bias_attr=bias_attr, act=activation, name=name)


batch_norm, conv2d, embedding, layer_norm = _L.batch_norm, _L.conv2d, _L.embedding, \
    _L.layer_norm
