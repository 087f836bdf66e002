"""Datasets (``paddle.io.Dataset``, ``IterableDataset``) and samplers (``BatchSampler``,
``DistributedBatchSampler``, with ``SequenceSampler`` and ``RandomSampler`` under them).

A map-style :class:`Dataset` has ``__getitem__(index)`` and ``__len__``; an
:class:`IterableDataset` has ``__iter__``. A batch sampler yields lists of indices.
"""
import math

import numpy as np

from ..checks import check_int
from ..distributed.env import ParallelEnv
from ..random import get_seed

__all__ = ["BatchSampler", "Dataset", "DistributedBatchSampler", "IterableDataset",
           "RandomSampler", "Sampler", "SequenceSampler", "TensorDataset"]


class Dataset:
    """Map-style dataset: subclasses define ``__getitem__(index)`` (one sample) and
    ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


class IterableDataset(Dataset):
    """Stream dataset: subclasses define ``__iter__`` (the samples). With several loader
    workers each iterates its own copy; ``core.io.get_worker_info()`` tells a copy which
    share to read."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __getitem__(self, index):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: iterate it, it has no "
                        "indices")

    def __len__(self):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: it has no length")


class TensorDataset(Dataset):
    """Samples ``(t[i] for t in tensors)`` of equally long arrays / tensors."""

    def __init__(self, tensors):
        arrays = [t.numpy() if hasattr(t, "numpy") else np.asarray(t) for t in tensors]
        if not arrays or any(len(a) != len(arrays[0]) for a in arrays):
            raise ValueError(f"TensorDataset: 'tensors' must be arrays of the same length, got "
                             f"lengths {[len(a) for a in arrays]}")
        self._arrays = arrays

    def __getitem__(self, index):
        return tuple(a[index] for a in self._arrays)

    def __len__(self):
        return len(self._arrays[0])


def _length(dataset, who):
    if isinstance(dataset, IterableDataset):
        raise TypeError(f"{who}: an IterableDataset has no indices to sample")
    try:
        return len(dataset)
    except TypeError:
        raise TypeError(f"{who}: 'dataset' must have a length (a map-style Dataset), got "
                        f"{type(dataset).__name__}") from None


class Sampler:
    """Yields sample indices."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        return len(self.data_source)


class SequenceSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __iter__(self):
        return iter(range(len(self.data_source)))


class RandomSampler(Sampler):
    """A permutation of the indices, new each pass; ``generator`` (an int seed) fixes it,
    else ``core.seed`` when set."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        if replacement:
            raise ValueError("RandomSampler: replacement=True is not supported")
        self._rng = np.random.default_rng(generator if generator is not None else get_seed())

    def __iter__(self):
        return iter(self._rng.permutation(len(self.data_source)).tolist())


class BatchSampler:
    """Lists of ``batch_size`` indices from ``sampler`` (or from the dataset, in order or
    shuffled); the last short list is dropped with ``drop_last``."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1,
                 drop_last=False):
        who = "BatchSampler"
        if (dataset is None) == (sampler is None):
            raise ValueError(f"{who}: give exactly one of 'dataset' and 'sampler'")
        if sampler is None:
            _length(dataset, who)
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        elif shuffle:
            raise ValueError(f"{who}: 'shuffle' goes with 'dataset'; a given sampler sets the "
                             "order itself")
        self.sampler = sampler
        self.batch_size = check_int(batch_size, "batch_size", who, minimum=1)
        self.drop_last = bool(drop_last)

    def __iter__(self):
        chunk = []
        for i in self.sampler:
            chunk.append(i)
            if len(chunk) == self.batch_size:
                yield chunk
                chunk = []
        if chunk and not self.drop_last:
            yield chunk

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


class DistributedBatchSampler(BatchSampler):
    """The batches of rank ``rank`` of ``num_replicas`` (default: this process in its job),
    in PaddlePaddle's order, so that N processes on N shards train as one process whose
    batches are N times as large:

    1. the indices ``0 .. len(dataset) - 1`` are padded, by repeating them from the start, to
       ``num_samples * num_replicas`` (``num_samples = ceil(len(dataset) / num_replicas)``),
       so every rank gets as many samples as the others;
    2. with ``shuffle`` the padded list is shuffled with ``numpy.random.RandomState(epoch)``
       (the same order on every rank), and ``epoch`` then goes up by one: each pass is a new
       order, and ``set_epoch`` chooses it;
    3. the list is cut into global batches of ``batch_size * num_replicas``; rank ``r`` takes
       the ``r``-th ``batch_size`` indices of each, and an equal ``1 / num_replicas`` of the
       short last global batch;
    4. those indices are batched by ``batch_size``; ``drop_last`` drops a short last batch.
    """

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False,
                 drop_last=False):
        who = "DistributedBatchSampler"
        self.dataset = dataset
        self.total = _length(dataset, who)
        self.batch_size = check_int(batch_size, "batch_size", who, minimum=1)
        env = ParallelEnv()
        self.nranks = check_int(env.nranks if num_replicas is None else num_replicas,
                                "num_replicas", who, minimum=1)
        self.local_rank = check_int(env.local_rank if rank is None else rank, "rank", who,
                                    minimum=0)
        if self.local_rank >= self.nranks:
            raise ValueError(f"{who}(): argument 'rank' must be in [0, {self.nranks}) for "
                             f"num_replicas={self.nranks}, got {self.local_rank}")
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.epoch = 0
        self.num_samples = math.ceil(self.total / self.nranks)
        self.total_size = self.num_samples * self.nranks

    def set_epoch(self, epoch):
        """Shuffle the next pass for ``epoch`` (the same order on every rank)."""
        self.epoch = int(epoch)

    def _indices(self):
        """This rank's indices for the next pass (steps 1-3 of the class docstring)."""
        indices = list(range(self.total))
        pad = self.total_size - self.total
        if self.total:
            # NOTE: cyclic, so a dataset shorter than num_replicas still fills every rank
            indices += (indices * math.ceil(pad / self.total))[:pad]
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks == 1:
            return indices
        step = self.batch_size * self.nranks
        tail = self.total_size % step  # a multiple of nranks, since total_size is
        mine = []
        for start in range(self.local_rank * self.batch_size, self.total_size - tail, step):
            mine.extend(indices[start:start + self.batch_size])
        share = tail // self.nranks
        first = self.total_size - tail + self.local_rank * share
        mine.extend(indices[first:first + share])
        return mine

    def __iter__(self):
        mine = self._indices()
        for k in range(0, len(mine), self.batch_size):
            chunk = mine[k:k + self.batch_size]
            if len(chunk) == self.batch_size or not self.drop_last:
                yield chunk

    def __len__(self):
        n = self.num_samples
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
