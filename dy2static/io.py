"""``paddle.io``: datasets, samplers and ``DataLoader`` (:mod:`core.io`)."""
from core.io import (BatchSampler, DataLoader, Dataset, DistributedBatchSampler,
                     IterableDataset, RandomSampler, Sampler, SequenceSampler, TensorDataset,
                     get_worker_info)

__all__ = ["BatchSampler", "DataLoader", "Dataset", "DistributedBatchSampler", "IterableDataset",
           "RandomSampler", "Sampler", "SequenceSampler", "TensorDataset", "get_worker_info"]
