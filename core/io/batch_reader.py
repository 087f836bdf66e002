"""``distributed_batch_reader``: each process of a data-parallel job reads its own batches."""
from ..distributed.env import ParallelEnv

__all__ = ["distributed_batch_reader"]


def distributed_batch_reader(batch_reader):
    """A batch reader yielding, in a job of N processes, the batches ``rank, rank + N, ...``
    of ``batch_reader``; a last round with fewer than N batches is dropped so that every
    process runs the same number of steps (fluid's ``contrib.reader``)."""
    if not callable(batch_reader):
        raise TypeError(f"distributed_batch_reader: 'batch_reader' must be a reader (a function "
                        f"returning an iterable of batches), got {type(batch_reader).__name__}")
    env = ParallelEnv()
    rank, nranks = env.rank, env.nranks

    def reader():
        round_ = []
        for b in batch_reader():
            round_.append(b)
            if len(round_) == nranks:
                yield round_[rank]
                round_ = []

    return reader
