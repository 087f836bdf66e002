"""A background thread that prepares batches while the model runs.

:class:`Prefetcher` pulls batches from a source iterator in a daemon thread, applies
``convert`` (copying to the device, shaping for the feed variables) and keeps up to
``capacity`` of them in a queue. An exception in the source (or in ``convert``) is raised by
the consumer's ``next()`` with its original traceback. ``close()`` stops the thread and closes
the source (ending loader worker processes), also when the consumer leaves early.
"""
import queue
import threading

__all__ = ["Prefetcher"]

_END = object()
_PUT_POLL_S = 0.1


class _Failure:
    __slots__ = ("exc",)

    def __init__(self, exc):
        self.exc = exc


class Prefetcher:
    """An iterator over ``convert(batch)`` for the batches of ``source``, ``capacity`` of them
    prepared ahead by a thread. ``timeout`` (seconds, 0 for none) bounds the wait for one."""

    def __init__(self, source, convert, capacity, timeout=0, name="loader"):
        self._source = source
        self._convert = convert
        self._queue = queue.Queue(max(int(capacity), 1))
        self._stop = threading.Event()
        self._timeout = float(timeout or 0)
        self._done = False
        self._thread = threading.Thread(target=self._run, name=f"{name}-prefetch", daemon=True)
        self._thread.start()

    def _put(self, item):
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=_PUT_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def _run(self):
        try:
            for batch in self._source:
                if self._stop.is_set() or not self._put(self._convert(batch)):
                    break
            else:
                self._put(_END)
        except BaseException as e:  # handed to the consumer
            self._put(_Failure(e))
        finally:
            close = getattr(self._source, "close", None)
            if close is not None:
                close()

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        try:
            item = self._queue.get(timeout=self._timeout) if self._timeout > 0 else \
                self._queue.get()
        except queue.Empty:
            self.close()
            raise RuntimeError(f"DataLoader timed out: no batch within timeout="
                               f"{self._timeout:g} s") from None
        if item is _END:
            self._done = True
            self._thread.join()
            raise StopIteration
        if isinstance(item, _Failure):
            self.close()
            raise item.exc
        return item

    def close(self, wait=True):
        """Stop preparing batches and release the source (the thread does that as it ends;
        ``wait`` gives it a moment to)."""
        self._done = True
        self._stop.set()
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        if wait and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)

    def __del__(self):
        if not getattr(self, "_done", True):
            self._stop.set()
