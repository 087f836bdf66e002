"""Worker processes of ``DataLoader(num_workers=N)``.

The main process forks N workers. For a map-style dataset it sends each worker lists of
sample indices (round robin, at most ``2 * N`` batches outstanding) through that worker's
index queue; for an iterable dataset each worker iterates its own copy (``get_worker_info()``
tells it which one it is, so it can read its share) and batches it itself. A worker puts
every batch into shared memory (:mod:`.shared_batch`) and sends the block's name through the
result queue (with ``use_shared_memory=False`` the batch itself goes through the queue,
pickled). The main side gives batches back in sampler order (map-style) or as they
arrive (iterable).

Failure paths, each ending the workers and raising in the main process:

* an exception in a worker (in the dataset, ``collate_fn`` or ``worker_init_fn``): raised
  with the worker's traceback in the message, as the same exception type where it can be
  built from a message, else ``RuntimeError``;
* a worker that dies (killed, ``os._exit``, a crash in C): found within about a second by
  checking that the workers are alive while waiting, reported with its exit code;
* no batch within ``timeout`` seconds (when ``timeout > 0``).
"""
import collections
import itertools
import multiprocessing
import os
import queue
import random
import sys
import time
import traceback
from multiprocessing import resource_tracker

import numpy as np

from .shared_batch import discard, read_batch, write_batch

__all__ = ["WorkerInfo", "WorkerPoolIterator", "get_worker_info"]

_POLL_S = 0.5
_info = {"current": None}


class WorkerInfo:
    """What a worker process knows about itself: ``id``, ``num_workers``, ``dataset`` and
    ``seed`` (its numpy and ``random`` global generators are seeded with it, a different
    seed per worker and per epoch)."""

    def __init__(self, id, num_workers, dataset, seed):
        self.id, self.num_workers, self.dataset, self.seed = id, num_workers, dataset, seed

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers})"


def get_worker_info():
    """This worker's :class:`WorkerInfo` inside a DataLoader worker process, else None."""
    return _info["current"]


def _context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _fresh_tracker_lock():
    """Give a forked worker its own resource-tracker lock.

    NOTE: a fork copies the lock the resource tracker guards its pipe with in whatever
    state it is in. When another thread of the main process was registering or unregistering
    a shared-memory block at that moment (a loader thread freeing batches), the worker's copy
    stays locked forever and the worker hangs at its first batch. The worker holds no other
    thread that could own it, so a new lock is safe."""
    tracker = getattr(resource_tracker, "_resource_tracker", None)
    if tracker is not None and hasattr(tracker, "_lock"):
        tracker._lock = type(tracker._lock)()


def _send_error(results, key, worker_id):
    etype, exc, _ = sys.exc_info()
    tb = traceback.format_exc()
    results.put((key, ("error", worker_id, etype.__name__, str(exc), tb, etype)))


def _pack(batch, shared):
    return ("shm",) + write_batch(batch) if shared else ("data", batch)


def _worker_loop(worker_id, num_workers, dataset, iterable, fetch, index_queue, results,
                 init_fn, seed, shared):
    _info["current"] = WorkerInfo(worker_id, num_workers, dataset, seed)
    _fresh_tracker_lock()
    # NOTE: forked workers inherit the parent's random state; give each its own stream.
    np.random.seed(seed % 2 ** 32)
    random.seed(seed)
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except BaseException:  # reported to the main process
        _send_error(results, ("init", worker_id), worker_id)
        return
    if iterable:
        seq = itertools.count()
        try:
            for batch in fetch(None):
                results.put(((worker_id, next(seq)), _pack(batch, shared)))
            results.put(((worker_id, next(seq)), ("done", worker_id)))
        except BaseException:
            _send_error(results, (worker_id, next(seq)), worker_id)
        return
    while True:
        task = index_queue.get()
        if task is None:
            return
        key, indices = task
        try:
            results.put((key, _pack(fetch(indices), shared)))
        except BaseException:
            _send_error(results, key, worker_id)


def _rebuild_error(payload):
    _, worker_id, tname, message, tb, etype = payload
    text = (f"DataLoader worker {worker_id} raised {tname}: {message}\n"
            f"Traceback in the worker process:\n{tb}")
    try:
        err = etype(text)
    except Exception:  # types that cannot be built from one message
        err = RuntimeError(text)
    return err


class WorkerPoolIterator:
    """An iterator of batches (lists / dicts of ndarrays) made by ``num_workers`` processes.
    ``fetch(indices)`` makes one batch (map-style); for an iterable dataset ``fetch(None)``
    is the generator of a worker's batches. ``close()`` ends the workers."""

    def __init__(self, dataset, iterable, fetch, batches, num_workers, timeout=0,
                 worker_init_fn=None, seed=None, use_shared_memory=True):
        self._iterable = iterable
        self._timeout = float(timeout or 0)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        ctx = _context()
        resource_tracker.ensure_running()  # one tracker, shared with the forked workers
        self._results = ctx.Queue()
        self._index_queues, self._workers = [], []
        for w in range(num_workers):
            iq = ctx.Queue() if not iterable else None
            p = ctx.Process(target=_worker_loop, daemon=True,
                            args=(w, num_workers, dataset, iterable, fetch, iq, self._results,
                                  worker_init_fn, seed + w, bool(use_shared_memory)))
            p.start()
            self._index_queues.append(iq)
            self._workers.append(p)
        self._batches = iter(batches) if batches is not None else None
        self._sent = 0
        self._next = 0
        self._waiting = {}
        self._live = set(range(num_workers))
        self._stash = collections.deque()
        self._owner_pid = os.getpid()
        self._closed = False
        if not iterable:
            for _ in range(2 * num_workers):
                self._send_one()

    def _send_one(self):
        indices = next(self._batches, None)
        if indices is None:
            return
        w = self._sent % len(self._workers)
        self._index_queues[w].put((self._sent, list(indices)))
        self._sent += 1

    def __iter__(self):
        return self

    def __next__(self):
        if self._closed:
            raise StopIteration
        try:
            return self._next_batch()
        except StopIteration:
            raise
        except BaseException:
            self.close(graceful=False)
            raise

    def _next_batch(self):
        if self._iterable:
            while self._live:
                key, payload = self._get()
                if payload[0] == "done":
                    self._live.discard(payload[1])
                    continue
                return self._open(payload)
            self.close()
            raise StopIteration
        if self._next >= self._sent:
            self.close()
            raise StopIteration
        while self._next not in self._waiting:
            key, payload = self._get()
            if isinstance(key, tuple) and key[0] == "init":
                self._open(payload)
            self._waiting[key] = payload
        payload = self._waiting.pop(self._next)
        self._next += 1
        self._send_one()
        return self._open(payload)

    def _open(self, payload):
        if payload[0] == "error":
            raise _rebuild_error(payload)
        if payload[0] == "data":
            return payload[1]
        return read_batch(payload[1], payload[2])

    def _get(self):
        if self._stash:
            return self._stash.popleft()
        start = time.monotonic()
        while True:
            wait = _POLL_S
            if self._timeout > 0:
                left = self._timeout - (time.monotonic() - start)
                if left <= 0:
                    raise RuntimeError(f"DataLoader timed out: no batch from the workers within "
                                       f"timeout={self._timeout:g} s")
                wait = min(wait, left)
            try:
                return self._results.get(timeout=wait)
            except queue.Empty:
                self._check_workers()

    def _check_workers(self):
        for w, p in enumerate(self._workers):
            if p.is_alive() or (self._iterable and w not in self._live):
                continue
            try:  # its last message may still be on its way
                self._stash.append(self._results.get(timeout=0.2))
                return
            except queue.Empty:
                code = p.exitcode
                how = f"killed by signal {-code}" if code is not None and code < 0 else \
                    f"exit code {code}"
                raise RuntimeError(f"DataLoader worker {w} (pid {p.pid}) exited unexpectedly "
                                   f"({how}); it may have run out of memory or crashed in "
                                   "native code") from None

    def close(self, graceful=True):
        """End the workers (asking them to stop, or at once when not ``graceful``) and free
        the batches nobody will read."""
        if self._closed:
            return
        self._closed = True
        for iq in self._index_queues:
            if iq is not None:
                iq.put(None)
        deadline = time.monotonic() + (2.0 if graceful else 0.2)
        for p in self._workers:
            p.join(max(deadline - time.monotonic(), 0.0))
            if p.is_alive():
                p.terminate()
                p.join(1.0)
        pending = list(self._waiting.values()) + [m[1] for m in self._stash]
        self._stash.clear()
        while True:  # batches still in flight from the workers' queue feeder threads
            try:
                pending.append(self._results.get(timeout=0.05)[1])
            except (queue.Empty, OSError, ValueError):
                break
        for payload in pending:
            if payload[0] == "shm":
                discard(payload[1])
        self._waiting.clear()
        for q in [self._results] + [iq for iq in self._index_queues if iq is not None]:
            q.close()
            q.join_thread()

    def __del__(self):
        if not getattr(self, "_closed", True) and os.getpid() == self._owner_pid:
            self.close()
