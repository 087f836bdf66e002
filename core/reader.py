"""Reader decorators (``paddle.reader`` / ``paddle.batch``).

A *reader* is a function of no arguments that returns an iterable of samples; these helpers
take readers and return new readers, so nothing is read until the result is iterated.
``batch`` is also reachable as ``core.batch``; the others live here.
"""
import itertools
import random as _pyrandom

__all__ = ["batch"]


def _check_reader(reader, who):
    if not callable(reader):
        raise TypeError(f"{who}: 'reader' must be a reader (a function returning an iterable "
                        f"of samples), got {type(reader).__name__}")


def batch(reader, batch_size, drop_last=False):
    """A reader of lists of ``batch_size`` consecutive samples; the last, shorter list is
    dropped when ``drop_last`` is True."""
    _check_reader(reader, "batch()")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
        raise ValueError(f"batch(): 'batch_size' must be a positive int, got {batch_size!r}")

    def batch_reader():
        chunk = []
        for sample in reader():
            chunk.append(sample)
            if len(chunk) == batch_size:
                yield chunk
                chunk = []
        if chunk and not drop_last:
            yield chunk

    return batch_reader


def shuffle(reader, buf_size, seed=None):
    """Shuffle within windows of ``buf_size`` samples. ``seed`` fixes the order; None takes
    it from ``core.seed`` when set (a fresh order each pass either way)."""
    _check_reader(reader, "shuffle()")
    if isinstance(buf_size, bool) or not isinstance(buf_size, int) or buf_size <= 0:
        raise ValueError(f"shuffle(): 'buf_size' must be a positive int, got {buf_size!r}")
    if seed is None:
        from .random import get_seed

        seed = get_seed()
    rng = _pyrandom.Random(seed)

    def shuffled_reader():
        buf = []
        for sample in reader():
            buf.append(sample)
            if len(buf) >= buf_size:
                rng.shuffle(buf)
                yield from buf
                buf = []
        rng.shuffle(buf)
        yield from buf

    return shuffled_reader


def firstn(reader, n):
    """The first ``n`` samples of ``reader``."""
    _check_reader(reader, "firstn()")

    def firstn_reader():
        return itertools.islice(reader(), int(n))

    return firstn_reader


def chain(*readers):
    """The samples of each reader in turn."""
    for r in readers:
        _check_reader(r, "chain()")

    def chain_reader():
        return itertools.chain.from_iterable(r() for r in readers)

    return chain_reader


def map_readers(func, *readers):
    """``func`` applied to the samples of the readers, taken in step."""
    for r in readers:
        _check_reader(r, "map_readers()")

    def mapped_reader():
        return map(func, *(r() for r in readers))

    return mapped_reader
