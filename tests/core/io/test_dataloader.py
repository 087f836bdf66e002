"""Data feeding: DataLoader over datasets (in this process and in worker processes),
DataLoader.from_generator / PyReader (iterable and executor-driven), samplers, the reader
decorators and distributed_batch_reader."""
import os
import threading
import time

import numpy as np
import pytest

import core
from core import reader as R
from core.io import (BatchSampler, DataLoader, Dataset, DistributedBatchSampler,
                     IterableDataset, PyReader)


class Squares(Dataset):
    def __init__(self, n=10, fail_at=None, die_at=None, sleep=0.0):
        self.n, self.fail_at, self.die_at, self.sleep = n, fail_at, die_at, sleep

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise KeyError(f"no sample {i}")
        if i == self.die_at:
            os._exit(3)
        time.sleep(self.sleep)
        return np.full([2], i * i, "float32"), i


class Stream(IterableDataset):
    def __iter__(self):
        info = core.io.get_worker_info()
        k, n = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(k, 9, n):
            yield np.array([i], "int64")


def _epoch(loader):
    return [(x.numpy()[:, 0].tolist(), y.numpy().tolist()) for x, y in loader]


@pytest.mark.parametrize("workers", [0, 2])
def test_dataloader_epochs_in_order(workers):
    loader = DataLoader(Squares(), batch_size=4, num_workers=workers, timeout=30)
    want = [([0, 1, 4, 9], [0, 1, 2, 3]), ([16, 25, 36, 49], [4, 5, 6, 7]),
            ([64, 81], [8, 9])]
    assert len(loader) == 3
    for _ in range(2):
        got = _epoch(loader)
        assert got == want
    assert all(isinstance(t, core.Tensor) for t in next(iter(loader)))


def test_dataloader_shuffle_drop_last_and_early_exit():
    core.seed(5)
    loader = DataLoader(Squares(), batch_size=3, shuffle=True, drop_last=True, num_workers=2)
    seen = sorted(i for _, y in _epoch(loader) for i in y)
    assert len(seen) == 9 and len(set(seen)) == 9
    for k, _ in enumerate(loader):  # leaving early ends the workers
        if k == 1:
            break


def test_iterable_dataset_with_workers():
    got = [b[0].numpy().ravel().tolist() for b in DataLoader(Stream(), batch_size=2,
                                                                num_workers=2)]
    assert sorted(v for b in got for v in b) == list(range(9))
    assert [b[0].numpy().ravel().tolist() for b in DataLoader(Stream(), batch_size=4)] == \
        [[0, 1, 2, 3], [4, 5, 6, 7], [8]]


def test_worker_error_is_raised_with_its_traceback():
    with pytest.raises(KeyError) as info:
        list(DataLoader(Squares(fail_at=7), batch_size=2, num_workers=2))
    text = str(info.value)
    assert "DataLoader worker" in text and "no sample 7" in text
    assert "Traceback in the worker process" in text and "__getitem__" in text


def test_error_without_workers_keeps_its_type():
    with pytest.raises(KeyError, match="no sample 3"):
        list(DataLoader(Squares(fail_at=3), batch_size=2))


def test_dead_worker_is_reported_not_waited_for():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"worker \d \(pid \d+\) exited unexpectedly "
                                           r"\(exit code 3\)"):
        list(DataLoader(Squares(die_at=5), batch_size=2, num_workers=2))
    assert time.monotonic() - start < 10


def test_timeout_is_honoured():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out"):
        list(DataLoader(Squares(n=4, sleep=5.0), batch_size=2, num_workers=1, timeout=0.3))
    assert time.monotonic() - start < 4


def test_worker_init_fn_runs_in_each_worker_and_its_errors_surface():
    def init(worker_id):
        if worker_id == 1:
            raise ValueError("worker 1 cannot start")

    with pytest.raises(ValueError, match="worker 1 cannot start"):
        list(DataLoader(Squares(), batch_size=2, num_workers=2, worker_init_fn=init))


def test_batches_are_prepared_while_the_consumer_works():
    made = []

    def slow_samples():
        for i in range(4):
            made.append(threading.current_thread().name)
            yield np.zeros(2, "float32"), i

    loader = DataLoader.from_generator(capacity=4)
    loader.set_sample_generator(slow_samples, batch_size=1)
    batches = list(loader())
    assert len(batches) == 4
    assert all(name.endswith("-prefetch") for name in made)


def test_distributed_batch_sampler_splits_evenly():
    ds = Squares(n=10)
    parts = [list(DistributedBatchSampler(ds, batch_size=2, num_replicas=3, rank=r))
             for r in range(3)]
    assert [len(p) for p in parts] == [2, 2, 2]
    flat = [i for p in parts for b in p for i in b]
    assert sorted(set(flat)) == list(range(10)) and len(flat) == 12
    s = DistributedBatchSampler(ds, batch_size=4, num_replicas=2, rank=0, shuffle=True)
    s.set_epoch(1)
    a = list(s)
    s.set_epoch(2)
    assert a != list(s)
    with pytest.raises(ValueError, match="'rank' must be in"):
        DistributedBatchSampler(ds, 2, num_replicas=2, rank=2)
    loader = DataLoader(ds, batch_sampler=BatchSampler(dataset=ds, batch_size=5))
    assert len(list(loader)) == 2


def test_from_generator_feeds_the_executor_until_eof(static_mode):
    main, startup = core.Program(), core.Program()
    with core.program_guard(main, startup):
        x = core.static.data("x", [-1, 2])
        y = core.static.data("y", [-1, 1], "int64")
        out = core.layers.reduce_sum(x) + core.layers.cast(core.layers.reduce_sum(y),
                                                            "float32")

    def samples():
        for i in range(5):
            yield np.full([2], i, "float32"), i

    exe = core.Executor()
    exe.run(startup)
    loader = core.io.DataLoader.from_generator(feed_list=[x, y], capacity=2, iterable=False)
    loader.set_sample_generator(samples, batch_size=2, drop_last=False)
    for _ in range(2):
        loader.start()
        got = []
        with pytest.raises(core.core.EOFException):
            while True:
                got.append(float(exe.run(main, fetch_list=[out])[0]))
        loader.reset()
        assert got == [3.0, 15.0, 12.0]
    with pytest.raises(RuntimeError, match="not iterable"):
        loader()
    it = core.io.DataLoader.from_generator(feed_list=[x, y], capacity=2)
    it.set_sample_list_generator(core.batch(samples, 5))
    assert [float(exe.run(main, feed=d, fetch_list=[out])[0]) for d in it()] == [30.0]
    assert all(set(d) == {"x", "y"} and d["y"].shape == (5, 1) for d in it())
    pr = PyReader(feed_list=[x, y], capacity=2)
    pr.decorate_batch_generator(lambda: iter([(np.ones((2, 2), "float32"),
                                               np.ones((2, 1), "int64"))] * 3))
    assert [float(exe.run(main, feed=d, fetch_list=[out])[0]) for d in pr()] == [6.0] * 3
    assert core.EOFException is core.core.EOFException


def test_from_generator_in_eager_mode_yields_tensors_and_reports_errors():
    def batches():
        yield np.ones((2, 3), "float32"), np.zeros((2, 1), "int64")
        raise IndexError("the reader broke")

    loader = DataLoader.from_generator(capacity=2)
    loader.set_batch_generator(batches)
    it = iter(loader)
    x, y = next(it)
    assert isinstance(x, core.Tensor) and x.shape == [2, 3] and y.dtype == np.int64
    with pytest.raises(IndexError, match="the reader broke"):
        next(it)
    with pytest.raises(RuntimeError, match="no data yet"):
        DataLoader.from_generator()()
    child = DataLoader.from_generator(capacity=2, use_multiprocess=True)
    child.set_sample_generator(lambda: ((np.full(2, i, "float32"), os.getpid())
                                        for i in range(5)), batch_size=2, drop_last=False)
    got = [(x.numpy()[:, 0].tolist(), pid.numpy().tolist()) for x, pid in child()]
    assert [g[0] for g in got] == [[0, 1], [2, 3], [4]]
    assert all(p != os.getpid() for g in got for p in g[1])  # made in another process
    with pytest.raises(ValueError, match="needs feed_list"):
        DataLoader.from_generator(iterable=False)


def test_reader_decorators():
    def r():
        return iter(range(6))

    assert list(R.buffered(r, 2)()) == list(range(6))
    assert list(R.compose(r, lambda: ((i, -i) for i in range(6)))())[1] == (1, 1, -1)
    with pytest.raises(R.ComposeNotAligned):
        list(R.compose(r, lambda: iter(range(3)))())
    assert len(list(R.compose(r, lambda: iter(range(3)), check_alignment=False)())) == 3
    assert list(R.xmap_readers(lambda v: v * 10, r, 3, 2, order=True)()) == \
        [0, 10, 20, 30, 40, 50]
    assert sorted(R.xmap_readers(lambda v: v * 10, r, 3, 2)()) == [0, 10, 20, 30, 40, 50]
    calls = []

    def counted():
        calls.append(1)
        return iter(range(3))

    c = R.cache(counted)
    assert list(c()) == list(c()) == [0, 1, 2] and len(calls) == 1
    assert sorted(R.multiprocess_reader([r, r])()) == sorted(list(range(6)) * 2)

    def broken():
        yield 1
        raise ValueError("reader failed")

    with pytest.raises(ValueError, match="reader failed"):
        list(R.buffered(broken, 2)())
    with pytest.raises(RuntimeError, match="reader failed"):
        list(R.multiprocess_reader([broken])())


def test_distributed_batch_reader(monkeypatch):
    batches = core.batch(lambda: iter(range(10)), 2)
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    monkeypatch.setenv("PADDLE_TRAINER_ID", "1")
    assert list(core.io.distributed_batch_reader(batches)()) == [[2, 3], [6, 7]]
    monkeypatch.setenv("PADDLE_TRAINER_ID", "0")
    assert list(core.contrib.reader.distributed_batch_reader(batches)()) == [[0, 1], [4, 5]]


class Noisy(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return np.array([np.random.random()], "float64")


def test_workers_draw_different_random_numbers_and_can_skip_shared_memory():
    for shared in (True, False):
        loader = DataLoader(Noisy(), batch_size=1, num_workers=2, use_shared_memory=shared)
        values = [float(b[0].numpy()[0, 0]) for b in loader]
        assert len(values) == 8 and len(set(values)) == 8
