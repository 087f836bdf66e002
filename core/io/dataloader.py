"""Data loaders: the 2.0 ``DataLoader(dataset, ...)`` and fluid's
``DataLoader.from_generator`` / ``PyReader``.

Every loader runs the same pipeline: a source of batches (a dataset through a batch sampler,
possibly in worker processes, or a user's generator), then a :class:`~.prefetch.Prefetcher`
thread that shapes each batch for its consumer and keeps ``capacity`` of them ready while the
model runs. A batch reaches the consumer as

* a list of eager Tensors (``return_list=True``; always in eager mode),
* a dict ``{feed name: ndarray}`` for ``Executor.run`` (static mode with ``feed_list``; the
  arrays are cast and reshaped like fluid's ``DataFeeder`` to the ``data`` declarations),
* a list of ndarrays otherwise.

A non-iterable loader (``iterable=False``) is driven by the executor: ``start()`` begins an
epoch, each ``Executor.run`` of a program declaring its feed variables takes the next batch,
``core.EOFException`` ends the epoch, ``reset()`` prepares the next one.
"""
import itertools
import numbers

import numpy as np

from .. import mode as _mode
from ..checks import check_int
from ..backend import default_place, to_place
from ..errors import EOFException
from ..static import feed_source
from ..static.program import Variable
from ..tensor import Tensor
from .collate import as_fields, conform_to, default_collate_fn
from .dataset import BatchSampler, IterableDataset
from .prefetch import Prefetcher
from .worker import WorkerPoolIterator

__all__ = ["DataLoader", "GeneratorLoader", "PyReader"]

_DEFAULT_CAPACITY = 8


def _first_place(places):
    if places is None:
        return None
    if isinstance(places, (list, tuple)):
        if not places:
            return None
        places = places[0]
    return places


def _check_feed_list(feed_list, who):
    if feed_list is None:
        return None
    if not isinstance(feed_list, (list, tuple)) or not all(
            isinstance(v, Variable) for v in feed_list):
        raise TypeError(f"{who}: 'feed_list' must be a list of static data Variables, got "
                        f"{feed_list!r}")
    return list(feed_list)


class _Shaper:
    """Turns a batch (list/dict of ndarrays) into what the consumer wants."""

    def __init__(self, feed_list, return_list, place, who):
        self.feed_list = feed_list
        self.return_list = return_list
        self.place = place
        self.who = who

    def __call__(self, batch):
        fields = list(batch.values()) if isinstance(batch, dict) else list(batch)
        place = self.place if self.place is not None else default_place()
        if self.feed_list is not None and not self.return_list:
            if len(fields) != len(self.feed_list):
                raise ValueError(f"{self.who}: a batch has {len(fields)} field(s) but feed_list "
                                 f"names {len(self.feed_list)}: "
                                 f"{[v.name for v in self.feed_list]}")
            return {v.name: to_place(conform_to(a, v), place)
                    for v, a in zip(self.feed_list, fields)}
        if self.feed_list is not None:
            fields = [conform_to(a, v) for v, a in zip(self.feed_list, fields)]
        return [to_place(a, place) for a in fields]


def _wrap(item, as_tensors):
    if as_tensors and isinstance(item, list):
        return [Tensor(a) for a in item]
    return item


class _Epoch:
    """One pass over a loader: the prefetcher plus the final Tensor wrapping (done in the
    consuming thread)."""

    def __init__(self, prefetcher, as_tensors):
        self._pf = prefetcher
        self._as_tensors = as_tensors

    def __iter__(self):
        return self

    def __next__(self):
        return _wrap(next(self._pf), self._as_tensors)

    def close(self):
        self._pf.close()

    def __del__(self):
        pf = getattr(self, "_pf", None)
        if pf is not None:
            pf.close(wait=False)


class DataLoader:
    """2.0 loader over a ``Dataset`` / ``IterableDataset``; see the module docstring.

    ``num_workers > 0`` makes the batches in that many worker processes (see
    :mod:`core.io.worker`): an error there is raised here with the worker's traceback, a
    worker that dies is reported, and ``timeout > 0`` bounds the wait for a batch.
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list=True,
                 batch_sampler=None, batch_size=1, shuffle=False, drop_last=False,
                 collate_fn=None, num_workers=0, use_buffer_reader=True, use_shared_memory=True,
                 timeout=0, worker_init_fn=None, prefetch_factor=2):
        who = "DataLoader"
        self.dataset = dataset
        self.feed_list = _check_feed_list(feed_list, who)
        self.places = places
        self.return_list = bool(return_list) or _mode.in_dynamic_mode()
        num_workers = check_int(num_workers, "num_workers", who, minimum=0)
        if not isinstance(timeout, numbers.Real) or timeout < 0:
            raise ValueError(f"{who}: 'timeout' must be a number of seconds >= 0, got "
                             f"{timeout!r}")
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"{who}: 'collate_fn' must be callable, got "
                            f"{type(collate_fn).__name__}")
        self.num_workers = int(num_workers)
        self.timeout = float(timeout)
        self.worker_init_fn = worker_init_fn
        self.collate_fn = collate_fn or default_collate_fn
        self.use_buffer_reader = bool(use_buffer_reader)
        self.use_shared_memory = bool(use_shared_memory)
        self.capacity = max(int(prefetch_factor) * max(self.num_workers, 1), 2)
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if batch_sampler is not None or shuffle:
                raise ValueError(f"{who}: an IterableDataset sets its own order; do not pass "
                                 "batch_sampler or shuffle")
            self.batch_size, self.drop_last, self.batch_sampler = \
                check_int(batch_size, "batch_size", who, minimum=1), drop_last, None
        elif batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError(f"{who}: 'batch_sampler' sets the batches; do not also pass "
                                 "batch_size, shuffle or drop_last")
            self.batch_sampler = batch_sampler
        else:
            self.batch_sampler = BatchSampler(dataset=dataset, shuffle=shuffle,
                                              batch_size=batch_size, drop_last=drop_last)

    def __len__(self):
        if self._iterable:
            raise TypeError("DataLoader over an IterableDataset has no length")
        return len(self.batch_sampler)

    # -- the source of batches ----------------------------------------------------------------
    def _fetch(self, indices):
        if indices is None:
            return self._iter_batches()
        return self.collate_fn([self.dataset[i] for i in indices])

    def _iter_batches(self):
        it = iter(self.dataset)
        while True:
            chunk = list(itertools.islice(it, self.batch_size))
            if not chunk or (len(chunk) < self.batch_size and self.drop_last):
                return
            yield self.collate_fn(chunk)

    def _source(self):
        if self.num_workers > 0:
            return WorkerPoolIterator(self.dataset, self._iterable, self._fetch,
                                      self.batch_sampler, self.num_workers, self.timeout,
                                      self.worker_init_fn,
                                      use_shared_memory=self.use_shared_memory)
        if self._iterable:
            return self._iter_batches()
        return (self._fetch(ix) for ix in self.batch_sampler)

    def __iter__(self):
        shaper = _Shaper(self.feed_list, self.return_list,
                         _first_place(self.places), "DataLoader")
        as_tensors = self.return_list and _mode.in_dynamic_mode()
        if not self.use_buffer_reader:
            return (_wrap(shaper(b), as_tensors) for b in self._source())
        return _Epoch(Prefetcher(self._source(), shaper, self.capacity, self.timeout),
                      as_tensors)

    def __call__(self):
        return self.__iter__()

    @staticmethod
    def from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                       return_list=False, use_multiprocess=False, drop_last=True):
        """fluid's loader fed by a Python generator (see :class:`GeneratorLoader`)."""
        return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list,
                               drop_last, use_multiprocess)


def _sample_batches(reader, batch_size, drop_last):
    chunk = []
    for sample in reader():
        chunk.append(sample)
        if len(chunk) == batch_size:
            yield default_collate_fn(chunk)
            chunk = []
    if chunk and not drop_last:
        yield default_collate_fn(chunk)


class GeneratorLoader:
    """``DataLoader.from_generator(feed_list, capacity, use_double_buffer, iterable,
    return_list, drop_last)``; give it data with one of :meth:`set_sample_generator`,
    :meth:`set_sample_list_generator`, :meth:`set_batch_generator`. Iterable loaders are
    iterated (``for data in loader():``); non-iterable ones are driven by ``start()`` /
    ``reset()`` and the executor (module docstring).

    The prefetch thread always makes the device copy (what ``use_double_buffer`` asks for).
    ``use_multiprocess=True`` runs the generator in a child process that passes the batches
    through shared memory (as a loader worker does). ``drop_last`` concerns fluid's several
    devices per process; with one device per process no batch is dropped for it.
    """

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False, drop_last=True, use_multiprocess=False):
        who = "DataLoader.from_generator"
        self._who = who
        self.feed_list = _check_feed_list(feed_list, who)
        if capacity is None:
            capacity = _DEFAULT_CAPACITY
        self.capacity = check_int(capacity, "capacity", who, minimum=1)
        self.use_double_buffer = bool(use_double_buffer)
        self.iterable = bool(iterable)
        self.return_list = bool(return_list) or _mode.in_dynamic_mode()
        self.drop_last = bool(drop_last)
        self.use_multiprocess = bool(use_multiprocess)
        if not self.iterable and self.feed_list is None:
            raise ValueError(f"{who}: a non-iterable loader (iterable=False) needs feed_list: "
                             "the executor feeds those variables from it")
        if not self.iterable and self.return_list:
            raise ValueError(f"{who}: return_list=True needs iterable=True (a non-iterable "
                             "loader feeds the executor)")
        self._batches = None
        self._places = None
        self._running = None

    # -- data -----------------------------------------------------------------------------------
    def _check_reader(self, reader, what):
        if not callable(reader):
            raise TypeError(f"{self._who}.{what}: 'reader' must be a generator function "
                            f"(called once per epoch), got {type(reader).__name__}")

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        """``reader()`` yields samples (tuples of fields); they are batched by
        ``batch_size``."""
        self._check_reader(reader, "set_sample_generator")
        batch_size = check_int(batch_size, "batch_size", f"{self._who}.set_sample_generator",
                               minimum=1)
        self._batches = lambda: _sample_batches(reader, batch_size, drop_last)
        self._places = places
        return self

    def set_sample_list_generator(self, reader, places=None):
        """``reader()`` yields lists of samples (``core.batch`` output), one list a batch. A
        sample is a sequence of fields, as fluid's DataFeeder reads it: an ndarray sample's
        fields are its rows."""
        self._check_reader(reader, "set_sample_list_generator")
        self._batches = lambda: (default_collate_fn([_sample_fields(s) for s in b])
                                 for b in reader())
        self._places = places
        return self

    def set_batch_generator(self, reader, places=None):
        """``reader()`` yields batches: an array or a tuple/list of arrays."""
        self._check_reader(reader, "set_batch_generator")
        who = f"{self._who} batch generator"
        self._batches = lambda: (as_fields(b, who) for b in reader())
        self._places = places
        return self

    def _epoch(self):
        if self._batches is None:
            raise RuntimeError(f"{self._who}: no data yet; call set_sample_generator, "
                               "set_sample_list_generator or set_batch_generator first")
        shaper = _Shaper(self.feed_list, self.return_list, _first_place(self._places),
                         self._who)
        if self.use_multiprocess:
            batches = self._batches
            source = WorkerPoolIterator(None, True, lambda _: batches(), None, 1)
        else:
            source = self._batches()
        return Prefetcher(source, shaper, self.capacity)

    # -- iterable -------------------------------------------------------------------------------
    def __call__(self):
        if not self.iterable:
            raise RuntimeError(f"{self._who}: this loader is not iterable (iterable=False); "
                               "call start() and run the executor until core.EOFException")
        return _Epoch(self._epoch(), self.return_list and _mode.in_dynamic_mode())

    def __iter__(self):
        return self()

    # -- non-iterable ---------------------------------------------------------------------------
    @property
    def feed_names(self):
        return [v.name for v in self.feed_list] if self.feed_list else []

    def start(self):
        """Begin an epoch of a non-iterable loader."""
        if self.iterable:
            raise RuntimeError(f"{self._who}: start() is for non-iterable loaders "
                               "(iterable=False); iterate this one")
        if self._running is not None:
            raise RuntimeError(f"{self._who}: start() called twice; call reset() after "
                               "core.EOFException before starting the next epoch")
        self._running = self._epoch()
        feed_source.attach(self)

    def reset(self):
        """End the current epoch (after ``core.EOFException``, or early)."""
        if self.iterable:
            raise RuntimeError(f"{self._who}: reset() is for non-iterable loaders "
                               "(iterable=False)")
        feed_source.detach(self)
        if self._running is not None:
            self._running.close()
            self._running = None

    def next_feed(self):
        """The next batch as a feed dict; ``EOFException`` at the end of the epoch."""
        if self._running is None:
            raise RuntimeError(f"{self._who}: call start() before running the program")
        try:
            return next(self._running)
        except StopIteration:
            raise EOFException(f"{self._who}: the epoch's data is exhausted; call reset() "
                               "(and start() for another epoch)") from None


class PyReader(GeneratorLoader):
    """fluid 1.5's spelling of :class:`GeneratorLoader`: ``decorate_sample_generator``,
    ``decorate_sample_list_generator``, ``decorate_batch_generator``."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False):
        super().__init__(feed_list, capacity, use_double_buffer, iterable, return_list)
        self._who = "PyReader"

    def decorate_sample_generator(self, sample_generator, batch_size, drop_last=True,
                                  places=None):
        return self.set_sample_generator(sample_generator, batch_size, drop_last, places)

    def decorate_sample_list_generator(self, reader, places=None):
        return self.set_sample_list_generator(reader, places)

    def decorate_batch_generator(self, reader, places=None):
        return self.set_batch_generator(reader, places)


def _sample_fields(sample):
    """A sample of a sample list as its fields: an ndarray of at least one dimension is the
    sequence of its rows (fluid's DataFeeder zips a sample with the feed slots)."""
    if isinstance(sample, np.ndarray) and sample.ndim >= 1:
        return list(sample)
    return sample
