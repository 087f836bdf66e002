"""Container layers: ``Sequential``, ``LayerList``, ``LayerDict``, ``ParameterList``."""
import collections

from .layer import Layer, is_parameter

__all__ = ["LayerDict", "LayerList", "ParameterList", "Sequential"]


def _index(i, n, who):
    i = int(i)
    if not -n <= i < n:
        raise IndexError(f"{who}: index {i} is out of range for {n} items")
    return i % n


class Sequential(Layer):
    """Runs its sublayers in order, each on the previous one's output. Built from layers
    (named ``"0"``, ``"1"``, ...) or from ``(name, layer)`` pairs."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (list, tuple, collections.OrderedDict)) \
                and not isinstance(layers[0], Layer):
            layers = layers[0].items() if isinstance(layers[0], dict) else layers[0]
        for i, item in enumerate(layers):
            if isinstance(item, (list, tuple)) and len(item) == 2:
                self.add_sublayer(str(item[0]), item[1])
            elif isinstance(item, Layer):
                self.add_sublayer(str(i), item)
            else:
                raise TypeError(f"Sequential: item {i} must be a Layer or a (name, Layer) pair, "
                                f"got {type(item).__name__}")

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input

    def __getitem__(self, name):
        if isinstance(name, slice):
            return Sequential(*list(self._sub_layers.items())[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        layers = list(self._sub_layers.values())
        return layers[_index(name, len(layers), "Sequential")]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())


class LayerList(Layer):
    """A list of sublayers, registered under ``"0"``, ``"1"``, ... (indexable, iterable)."""

    def __init__(self, sublayers=None):
        super().__init__()
        for layer in sublayers or []:
            self.append(layer)

    def _layers(self):
        return list(self._sub_layers.values())

    def _reindex(self, layers):
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self.add_sublayer(str(i), layer)

    def append(self, sublayer):
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerList.append: expected a Layer, got {type(sublayer).__name__}")
        self.add_sublayer(str(len(self._sub_layers)), sublayer)
        return self

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self

    def insert(self, index, sublayer):
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerList.insert: expected a Layer, got {type(sublayer).__name__}")
        layers = self._layers()
        layers.insert(index, sublayer)
        self._reindex(layers)

    def __getitem__(self, idx):
        layers = self._layers()
        if isinstance(idx, slice):
            return LayerList(layers[idx])
        return layers[_index(idx, len(layers), "LayerList")]

    def __setitem__(self, idx, sublayer):
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerList: item must be a Layer, got {type(sublayer).__name__}")
        idx = _index(idx, len(self._sub_layers), "LayerList")
        self._sub_layers[str(idx)] = sublayer

    def __delitem__(self, idx):
        layers = self._layers()
        del layers[_index(idx, len(layers), "LayerList") if not isinstance(idx, slice) else idx]
        self._reindex(layers)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._layers())

    def forward(self, *inputs):
        raise TypeError("LayerList is a container and has no forward(); call its items")


class LayerDict(Layer):
    """Sublayers by name, in insertion order (a dict of layers: ``d["conv"]``, ``in``,
    ``keys()`` / ``values()`` / ``items()``, ``update``, ``pop``, ``clear``)."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerDict: the value for {key!r} must be a Layer, got "
                            f"{type(sublayer).__name__}")
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        """Adds ``(name, layer)`` pairs from a dict / LayerDict or a sequence of pairs."""
        items = sublayers.items() if hasattr(sublayers, "items") else sublayers
        for i, item in enumerate(items):
            if not isinstance(item, (list, tuple)) or len(item) != 2:
                raise TypeError(f"LayerDict.update: item {i} must be a (name, Layer) pair, got "
                                f"{item!r:.60}")
            self[item[0]] = item[1]

    def forward(self, *inputs):
        raise TypeError("LayerDict is a container and has no forward(); call its items")


class ParameterList(Layer):
    """A list of parameters, registered under ``"0"``, ``"1"``, ..."""

    def __init__(self, parameters=None):
        super().__init__()
        for p in parameters or []:
            self.append(p)

    def append(self, parameter):
        if not is_parameter(parameter):
            raise TypeError(f"ParameterList.append: expected a Parameter, got "
                            f"{type(parameter).__name__}")
        self.add_parameter(str(len(self._parameters)), parameter)
        return self

    def __getitem__(self, idx):
        params = list(self._parameters.values())
        return params[_index(idx, len(params), "ParameterList")]

    def __setitem__(self, idx, parameter):
        if not is_parameter(parameter):
            raise TypeError(f"ParameterList: item must be a Parameter, got "
                            f"{type(parameter).__name__}")
        idx = _index(idx, len(self._parameters), "ParameterList")
        self._parameters[str(idx)] = parameter

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters.values()))

    def forward(self, *inputs):
        raise TypeError("ParameterList is a container and has no forward(); use its items")
