"""Attention layers with PaddlePaddle 2.x signatures: ``MultiHeadAttention`` (masks, and
caches for incremental decoding), the Transformer encoder / decoder layers and stacks, and
``Transformer``.

They are built from registered ops (``matmul``, ``softmax``, ``layer_norm``, ``dropout``,
``reshape``, ``transpose``, ``concat``), so they run eagerly, in static programs and inside
``declarative`` code, export to ONNX, and their gradients are those of the ops. Parameter
names follow Paddle 2.x (``q_proj``, ``k_proj``, ``v_proj``, ``out_proj``; ``linear1``,
``linear2``, ``norm1``..``norm3``), so state dicts carry over.

Shapes: queries ``[batch, target_len, embed_dim]``, keys / values ``[batch, source_len,
kdim / vdim]``. An ``attn_mask`` broadcasts to ``[batch, num_heads, target_len,
source_len]``; a bool or int mask keeps the positions where it is True / nonzero, a float
mask is added to the attention scores (``-inf`` or a large negative number masks).
"""
import collections

import numpy as np

from .. import layers
from ..checks import check_int, check_probability
from ..dtypes import convert_dtype
from .common import Dropout, Linear
from .container import LayerList
from .functional import gelu, relu
from .layer import Layer
from .norm import LayerNorm

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]

_ACTIVATIONS = {"relu": relu, "gelu": gelu}


def _layer_norm(d_model, epsilon=1e-5):
    """A Paddle 2.x ``nn.LayerNorm(d_model)``: scale and shift over the last dim."""
    return LayerNorm(d_model, epsilon=epsilon)


def _dropout(p):
    return Dropout(p, dropout_implementation="upscale_in_train")


def _dims(x):
    return list(x.shape)


def convert_attention_mask(attn_mask, dtype):
    """An attention mask as scores to add: a bool / int mask becomes 0 where it keeps and
    ``-1e9`` where it masks; a float mask is returned as is (cast to ``dtype``)."""
    if attn_mask is None:
        return None
    mask_dtype = np.dtype(attn_mask.dtype)
    if mask_dtype == np.bool_ or mask_dtype.kind in "iu":
        keep = layers.cast(attn_mask, dtype)
        return layers.scale(keep, scale=1e9, bias=-1e9)
    if mask_dtype.kind != "f":
        raise TypeError(f"MultiHeadAttention: 'attn_mask' must be bool, int or float, got "
                        f"dtype {mask_dtype}")
    return attn_mask if mask_dtype == np.dtype(dtype) else layers.cast(attn_mask, dtype)


def _check_mask_shape(mask, scores, who):
    """The mask must broadcast to the scores ``[batch, heads, target_len, source_len]``."""
    m, s = _dims(mask), _dims(scores)
    if len(m) > len(s):
        raise ValueError(f"{who}: 'attn_mask' of shape {m} has more dims than the attention "
                         f"scores {s} ([batch, num_heads, target_len, source_len])")
    for a, b in zip(reversed(m), reversed(s)):
        if a not in (1, -1) and b not in (-1,) and a != b:
            raise ValueError(f"{who}: 'attn_mask' of shape {m} does not broadcast to the "
                             f"attention scores {s} ([batch, num_heads, target_len, "
                             f"source_len])")


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over ``num_heads`` heads (Paddle 2.x
    ``nn.MultiHeadAttention``).

    ``forward(query, key=None, value=None, attn_mask=None, cache=None)`` returns the output
    ``[batch, target_len, embed_dim]``, followed by the attention weights when
    ``need_weights`` and by the updated cache when ``cache`` is given (a tuple then).
    ``key`` and ``value`` default to ``query`` (self-attention).

    Caches: ``gen_cache(key, value=None, type=MultiHeadAttention.Cache)``.
    ``StaticCache(k, v)`` holds the projected keys / values of a fixed memory (encoder
    output), computed once; ``Cache(k, v)`` grows by the current step's keys / values on each
    call (incremental self-attention while decoding). Both hold ``[batch, num_heads, len,
    head_dim]`` tensors.
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        who = "MultiHeadAttention"
        self.embed_dim = check_int(embed_dim, "embed_dim", who, minimum=1)
        self.num_heads = check_int(num_heads, "num_heads", who, minimum=1)
        if self.embed_dim % self.num_heads:
            raise ValueError(f"{who}: 'embed_dim' ({embed_dim}) must be divisible by "
                             f"'num_heads' ({num_heads})")
        self.kdim = self.embed_dim if kdim is None else check_int(kdim, "kdim", who, minimum=1)
        self.vdim = self.embed_dim if vdim is None else check_int(vdim, "vdim", who, minimum=1)
        self.head_dim = self.embed_dim // self.num_heads
        self.dropout = check_probability(dropout, "dropout", who)
        self.need_weights = bool(need_weights)
        self.q_proj = Linear(self.embed_dim, self.embed_dim, weight_attr, bias_attr)
        self.k_proj = Linear(self.kdim, self.embed_dim, weight_attr, bias_attr)
        self.v_proj = Linear(self.vdim, self.embed_dim, weight_attr, bias_attr)
        self.out_proj = Linear(self.embed_dim, self.embed_dim, weight_attr, bias_attr)

    def _split_heads(self, x):
        # [batch, len, embed_dim] -> [batch, num_heads, len, head_dim]
        x = layers.reshape(x, [0, 0, self.num_heads, self.head_dim])
        return layers.transpose(x, [0, 2, 1, 3])

    def _check_input(self, x, dim, name):
        shape = _dims(x)
        if len(shape) != 3 or shape[-1] not in (-1, dim):
            raise ValueError(f"MultiHeadAttention: '{name}' must have shape [batch, length, "
                             f"{dim}], got {shape}")

    def compute_kv(self, key, value):
        """Projected keys and values, ``[batch, num_heads, source_len, head_dim]`` each."""
        self._check_input(key, self.kdim, "key")
        self._check_input(value, self.vdim, "value")
        return self._split_heads(self.k_proj(key)), self._split_heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):
        """A cache for :meth:`forward`. ``type=StaticCache``: the projections of ``key`` /
        ``value`` (``value`` defaults to ``key``). ``type=Cache`` with ``value=None``: an
        empty incremental cache whose batch size is ``key``'s; with ``value``: ``Cache(key,
        value)`` as given (already projected)."""
        if type is MultiHeadAttention.StaticCache:
            k, v = self.compute_kv(key, key if value is None else value)
            return MultiHeadAttention.StaticCache(k, v)
        if type is not MultiHeadAttention.Cache:
            raise TypeError(f"MultiHeadAttention.gen_cache: 'type' must be "
                            f"MultiHeadAttention.Cache or .StaticCache, got {type!r}")
        if value is not None:
            return MultiHeadAttention.Cache(key, value)
        # [batch, 0, 1, 1] -> [batch, num_heads, 0, head_dim]: no step decoded yet; only
        # key's batch size is used.
        empty = layers.slice(key, axes=[1, 2], starts=[0, 0], ends=[0, 1])
        empty = layers.cast(layers.unsqueeze(empty, [3]), self.q_proj.weight.dtype)
        empty = layers.expand(empty, [1, 1, self.num_heads, self.head_dim])
        empty = layers.transpose(empty, [0, 2, 1, 3])
        return MultiHeadAttention.Cache(empty, empty)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        self._check_input(query, self.embed_dim, "query")
        q = self._split_heads(self.q_proj(query))
        if isinstance(cache, MultiHeadAttention.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, MultiHeadAttention.Cache):
            k = layers.concat([cache.k, k], axis=2)
            v = layers.concat([cache.v, v], axis=2)
            cache = MultiHeadAttention.Cache(k, v)
        elif cache is not None and not isinstance(cache, MultiHeadAttention.StaticCache):
            raise TypeError(f"MultiHeadAttention: 'cache' must be a MultiHeadAttention.Cache "
                            f"or .StaticCache, got {type(cache).__name__}")
        scores = layers.matmul(q, k, transpose_y=True, alpha=self.head_dim ** -0.5)
        if attn_mask is not None:
            _check_mask_shape(attn_mask, scores, "MultiHeadAttention")
            scores = scores + convert_attention_mask(attn_mask, scores.dtype)
        weights = layers.softmax(scores)
        if self.dropout:
            weights = layers.dropout(weights, self.dropout, is_test=not self.training,
                                     dropout_implementation="upscale_in_train")
        out = layers.matmul(weights, v)
        out = layers.reshape(layers.transpose(out, [0, 2, 1, 3]), [0, 0, self.embed_dim])
        out = self.out_proj(out)
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)

    def extra_repr(self):
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}"


def _activation(name, who):
    if name not in _ACTIVATIONS:
        raise ValueError(f"{who}: 'activation' must be one of {sorted(_ACTIVATIONS)}, got "
                         f"{name!r}")
    return _ACTIVATIONS[name]


class _TransformerLayer(Layer):
    """What the encoder and decoder layers share: their configuration (so a stack can build
    copies), self-attention, the feed-forward block, two layer norms and dropouts."""

    def __init__(self, who, d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                 act_dropout, normalize_before, weight_attr, bias_attr):
        super().__init__()
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr)
        dropout = check_probability(dropout, "dropout", who)
        self._attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = bool(normalize_before)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=self._attn_dropout,
                                            weight_attr=weight_attr, bias_attr=bias_attr)
        dim_feedforward = check_int(dim_feedforward, "dim_feedforward", who, minimum=1)
        self.linear1 = Linear(d_model, dim_feedforward, weight_attr, bias_attr)
        self.dropout = _dropout(check_probability(act_dropout, "act_dropout", who))
        self.linear2 = Linear(dim_feedforward, d_model, weight_attr, bias_attr)
        self.norm1 = _layer_norm(d_model)
        self.norm2 = _layer_norm(d_model)
        self.dropout1 = _dropout(dropout)
        self.dropout2 = _dropout(dropout)
        self.activation = _activation(activation, who)

    def _feed_forward(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class TransformerEncoderLayer(_TransformerLayer):
    """Self-attention then a feed-forward block, each with a residual connection and layer
    norm (post-norm, or pre-norm with ``normalize_before``). ``forward(src, src_mask=None,
    cache=None)``; with a ``cache`` (from :meth:`gen_cache`) it returns ``(out,
    new_cache)``."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None):
        super().__init__("TransformerEncoderLayer", d_model, nhead, dim_feedforward, dropout,
                         activation, attn_dropout, act_dropout, normalize_before, weight_attr,
                         bias_attr)

    def forward(self, src, src_mask=None, cache=None):
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self._feed_forward(src)
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, cache)

    def gen_cache(self, src):
        """An empty incremental self-attention cache with ``src``'s batch size."""
        return self.self_attn.gen_cache(src, type=MultiHeadAttention.Cache)


def _clones(layer, num_layers, who):
    num_layers = check_int(num_layers, "num_layers", who, minimum=1)
    return LayerList([layer if i == 0 else type(layer)(**layer._config)
                      for i in range(num_layers)])


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers (the first is ``encoder_layer``, the others new layers
    with its configuration), then an optional final ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        if not isinstance(encoder_layer, TransformerEncoderLayer):
            raise TypeError(f"TransformerEncoder: 'encoder_layer' must be a "
                            f"TransformerEncoderLayer, got {type(encoder_layer).__name__}")
        self.layers = _clones(encoder_layer, num_layers, "TransformerEncoder")
        self.num_layers = len(self.layers)
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        output = src
        new_caches = []
        for i, mod in enumerate(self.layers):
            if cache is None:
                output = mod(output, src_mask=src_mask)
            else:
                output, new_cache = mod(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(_TransformerLayer):
    """Self-attention, attention over the encoder ``memory``, then a feed-forward block,
    each with a residual connection and layer norm. ``forward(tgt, memory, tgt_mask=None,
    memory_mask=None, cache=None)``; ``cache`` is ``(incremental_cache, static_cache)`` from
    :meth:`gen_cache`, and the layer then returns ``(out, (new_incremental_cache,
    static_cache))``."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None):
        super().__init__("TransformerDecoderLayer", d_model, nhead, dim_feedforward, dropout,
                         activation, attn_dropout, act_dropout, normalize_before, weight_attr,
                         bias_attr)
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=self._attn_dropout,
                                             weight_attr=weight_attr, bias_attr=bias_attr)
        self.norm3 = _layer_norm(d_model)
        self.dropout3 = _dropout(check_probability(dropout, "dropout", "TransformerDecoderLayer"))

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        if cache is not None and (not isinstance(cache, (tuple, list)) or len(cache) != 2):
            raise TypeError("TransformerDecoderLayer: 'cache' must be (incremental_cache, "
                            "static_cache) as gen_cache returns")
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask)
        else:
            tgt, incremental_cache = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = residual + self.dropout1(tgt)
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask)
        else:
            tgt, static_cache = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = residual + self.dropout2(tgt)
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self._feed_forward(tgt)
        tgt = residual + self.dropout3(tgt)
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt if cache is None else (tgt, (incremental_cache, static_cache))

    def gen_cache(self, memory):
        """``(empty incremental cache, static cache of memory's projections)``."""
        incremental = self.self_attn.gen_cache(memory, type=MultiHeadAttention.Cache)
        static = self.cross_attn.gen_cache(memory, memory, type=MultiHeadAttention.StaticCache)
        return incremental, static


class TransformerDecoder(Layer):
    """``num_layers`` decoder layers (the first is ``decoder_layer``, the others new layers
    with its configuration), then an optional final ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        if not isinstance(decoder_layer, TransformerDecoderLayer):
            raise TypeError(f"TransformerDecoder: 'decoder_layer' must be a "
                            f"TransformerDecoderLayer, got {type(decoder_layer).__name__}")
        self.layers = _clones(decoder_layer, num_layers, "TransformerDecoder")
        self.num_layers = len(self.layers)
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        output = tgt
        new_caches = []
        for i, mod in enumerate(self.layers):
            if cache is None:
                output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)
            else:
                output, new_cache = mod(output, memory, tgt_mask=tgt_mask,
                                        memory_mask=memory_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip=False):
        """One ``(incremental, static)`` cache per layer; ``do_zip`` regroups them as
        ``[incrementals, statics]``."""
        caches = [layer.gen_cache(memory) for layer in self.layers]
        if do_zip:
            caches = [list(group) for group in zip(*caches)]
        return caches


class Transformer(Layer):
    """An encoder-decoder Transformer (Paddle 2.x ``nn.Transformer``): ``forward(src, tgt,
    src_mask=None, tgt_mask=None, memory_mask=None)`` encodes ``src`` and decodes ``tgt``
    attending to it. Both stacks end with a layer norm."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        self.d_model, self.nhead = check_int(d_model, "d_model", "Transformer", minimum=1), nhead
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, attn_dropout, act_dropout,
                                            normalize_before, weight_attr, bias_attr)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, _layer_norm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, attn_dropout, act_dropout,
                                            normalize_before, weight_attr, bias_attr)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, _layer_norm(d_model))

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask=src_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    @staticmethod
    def generate_square_subsequent_mask(length, dtype="float32"):
        """A ``[length, length]`` float mask: 0 on and below the diagonal, ``-inf`` above
        (position i attends to positions <= i). An eager tensor, or a constant in static
        mode."""
        length = check_int(length, "length", "Transformer.generate_square_subsequent_mask",
                           minimum=1)
        mask = np.triu(np.full((length, length), -np.inf, dtype=convert_dtype(dtype)), 1)
        return layers.assign(mask)

