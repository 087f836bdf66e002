"""Reader decorators (``paddle.reader`` / ``paddle.batch``).

A *reader* is a function of no arguments that returns an iterable of samples; these helpers
take readers and return new readers, so nothing is read until the result is iterated.
``batch`` is also reachable as ``core.batch``; the others live here: ``shuffle``,
``firstn``, ``chain``, ``map_readers``, ``compose``, ``buffered`` (a reading thread),
``xmap_readers`` (a pool of mapping threads), ``multiprocess_reader`` (a process per reader)
and ``cache``.
"""
import collections
import concurrent.futures
import itertools
import multiprocessing
import queue
import random as _pyrandom
import threading
import traceback

from .checks import check_int
from .random import get_seed

__all__ = ["batch"]


def _check_reader(reader, who):
    if not callable(reader):
        raise TypeError(f"{who}: 'reader' must be a reader (a function returning an iterable "
                        f"of samples), got {type(reader).__name__}")


def batch(reader, batch_size, drop_last=False):
    """A reader of lists of ``batch_size`` consecutive samples; the last, shorter list is
    dropped when ``drop_last`` is True."""
    _check_reader(reader, "batch()")
    batch_size = check_int(batch_size, "batch_size", "batch", minimum=1)

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
    buf_size = check_int(buf_size, "buf_size", "shuffle", minimum=1)
    if seed is None:
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


class ComposeNotAligned(ValueError):
    """``compose(..., check_alignment=True)``: the readers ran out at different samples."""


def compose(*readers, check_alignment=True):
    """One sample of each reader in turn, flattened into one tuple: samples ``(a, b)`` and
    ``c`` make ``(a, b, c)``. ``check_alignment`` raises :class:`ComposeNotAligned` when a
    reader ends before the others; without it the shortest ends the composition."""
    for r in readers:
        _check_reader(r, "compose()")

    def _flat(sample):
        return tuple(sample) if isinstance(sample, tuple) else (sample,)

    def composed_reader():
        its = [r() for r in readers]
        if not check_alignment:
            for parts in zip(*its):
                yield sum((_flat(p) for p in parts), ())
            return
        for parts in itertools.zip_longest(*its, fillvalue=_MISSING):
            if any(p is _MISSING for p in parts):
                ended = [k for k, p in enumerate(parts) if p is _MISSING]
                raise ComposeNotAligned(f"compose(): reader(s) {ended} ended before the "
                                        "others; pass check_alignment=False to stop at the "
                                        "shortest")
            yield sum((_flat(p) for p in parts), ())

    return composed_reader


_MISSING = object()
_END = object()


class _ReaderFailure:
    def __init__(self, exc):
        self.exc = exc


def _fill(reader, q, stop):
    try:
        for sample in reader():
            if stop.is_set():
                return
            q.put(sample)
    except BaseException as e:  # re-raised by the consumer
        q.put(_ReaderFailure(e))
        return
    q.put(_END)


def buffered(reader, size):
    """The samples of ``reader``, read ahead by a background thread into a buffer of up to
    ``size`` samples; an error in the reader is raised where the samples are consumed."""
    _check_reader(reader, "buffered()")
    size = check_int(size, "size", "buffered", minimum=1)

    def buffered_reader():
        q = queue.Queue(maxsize=size)
        stop = threading.Event()
        t = threading.Thread(target=_fill, args=(reader, q, stop), daemon=True)
        t.start()
        try:
            while True:
                item = q.get()
                if item is _END:
                    return
                if isinstance(item, _ReaderFailure):
                    raise item.exc
                yield item
        finally:
            stop.set()
            while t.is_alive():  # unblock a producer waiting on a full buffer
                try:
                    q.get_nowait()
                except queue.Empty:
                    t.join(0.01)

    return buffered_reader


def cache(reader):
    """``reader``'s samples read once, on the first pass, and kept in memory for every pass
    after it."""
    _check_reader(reader, "cache()")
    store = []
    state = {"complete": False}

    def cached_reader():
        if state["complete"]:
            yield from store
            return
        store.clear()
        for sample in reader():
            store.append(sample)
            yield sample
        state["complete"] = True

    return cached_reader


def xmap_readers(mapper, reader, process_num, buffer_size, order=False):
    """``mapper`` applied to ``reader``'s samples by ``process_num`` threads, keeping up to
    ``buffer_size`` results ahead; ``order=True`` keeps the reader's order. An error in
    ``mapper`` or ``reader`` is raised in the consumer."""
    _check_reader(reader, "xmap_readers()")
    if not callable(mapper):
        raise TypeError(f"xmap_readers(): 'mapper' must be callable, got "
                        f"{type(mapper).__name__}")
    process_num = check_int(process_num, "process_num", "xmap_readers", minimum=1)
    buffer_size = check_int(buffer_size, "buffer_size", "xmap_readers", minimum=1)

    def xreader():
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=process_num)
        pending = collections.deque()
        try:
            it = iter(reader())
            for sample in it:
                pending.append(pool.submit(mapper, sample))
                if len(pending) >= buffer_size:
                    yield from _drain(pending, order, keep=buffer_size - 1)
            yield from _drain(pending, order, keep=0)
        finally:
            for f in pending:
                f.cancel()
            pool.shutdown(wait=True)

    return xreader


def _drain(pending, order, keep):
    while len(pending) > keep:
        if order:
            yield pending.popleft().result()
            continue
        done, _ = concurrent.futures.wait(pending,
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        for f in list(pending):
            if f in done and len(pending) > keep:
                pending.remove(f)
                yield f.result()


def _reader_process(reader, q):
    try:
        for sample in reader():
            q.put(("sample", sample))
    except BaseException as e:  # sent to the consumer
        q.put(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
        return
    q.put(("end", None))


def multiprocess_reader(readers, use_pipe=True, queue_size=1000):
    """The samples of several readers, each run in its own process, interleaved as they
    come. An error in a reader process is raised in the consumer with that process's
    traceback; a reader process that dies is reported. (``use_pipe`` is accepted for
    fluid's signature; samples always travel through a process queue.)"""
    if not isinstance(readers, (list, tuple)) or not readers:
        raise TypeError("multiprocess_reader(): 'readers' must be a non-empty list of readers")
    for r in readers:
        _check_reader(r, "multiprocess_reader()")

    def mp_reader():
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        q = ctx.Queue(queue_size)
        procs = [ctx.Process(target=_reader_process, args=(r, q), daemon=True)
                 for r in readers]
        for p in procs:
            p.start()
        live = len(procs)
        try:
            while live:
                try:
                    kind, value = q.get(timeout=0.5)
                except queue.Empty:
                    dead = [k for k, p in enumerate(procs)
                            if not p.is_alive() and p.exitcode not in (0, None)]
                    if dead:
                        k = dead[0]
                        raise RuntimeError(f"multiprocess_reader(): reader process {k} exited "
                                           f"unexpectedly (exit code {procs[k].exitcode})"
                                           ) from None
                    continue
                if kind == "end":
                    live -= 1
                elif kind == "error":
                    raise RuntimeError(f"multiprocess_reader(): a reader process failed: "
                                       f"{value}")
                else:
                    yield value
        finally:
            for p in procs:
                if p.is_alive():
                    p.terminate()
                p.join(1.0)
            q.close()
            q.join_thread()

    return mp_reader
