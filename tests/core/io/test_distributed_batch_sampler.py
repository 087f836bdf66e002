"""DistributedBatchSampler hands out batches in PaddlePaddle's order: rank r takes the r-th
``batch_size`` indices of every global batch of ``batch_size * num_replicas``, so the ranks'
batches put side by side are the batches of one process with the global batch size."""
import numpy as np
import pytest

from core.io import DataLoader, DistributedBatchSampler, TensorDataset


def _flat(batches):
    return [i for b in batches for i in b]


def _ranks(n, batch_size, nranks, **kw):
    return [list(DistributedBatchSampler(list(range(n)), batch_size, num_replicas=nranks,
                                         rank=r, **kw)) for r in range(nranks)]


def test_rank_r_takes_the_r_th_batch_of_every_group():
    assert _ranks(8, 2, 2) == [[[0, 1], [4, 5]], [[2, 3], [6, 7]]]
    # the short last global batch [8, 9] is shared equally, one index per rank
    assert _ranks(10, 2, 2) == [[[0, 1], [4, 5], [8]], [[2, 3], [6, 7], [9]]]
    assert _ranks(9, 2, 3) == [[[0, 1], [6]], [[2, 3], [7]], [[4, 5], [8]]]
    # 10 samples padded to 12 by repeating the first ones
    assert _ranks(10, 2, 3) == [[[0, 1], [6, 7]], [[2, 3], [8, 9]], [[4, 5], [0, 1]]]
    # fewer samples than ranks: the padding goes round the list again
    assert _ranks(2, 3, 5) == [[[0]], [[1]], [[0]], [[1]], [[0]]]
    assert _ranks(6, 2, 2, drop_last=True) == [[[0, 1]], [[2, 3]]]
    assert _ranks(5, 2, 1) == [[[0, 1], [2, 3], [4]]]


@pytest.mark.parametrize("n,batch_size,nranks", [(12, 2, 3), (20, 3, 2), (11, 2, 3),
                                                 (7, 4, 2), (3, 2, 4), (1, 1, 2)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_ranks_side_by_side_are_the_global_batches(n, batch_size, nranks, drop_last):
    parts = _ranks(n, batch_size, nranks, drop_last=drop_last)
    step = batch_size * nranks
    total = -(-n // nranks) * nranks
    padded = (list(range(n)) * nranks)[:total]
    one = [padded[k:k + step] for k in range(0, total, step)]
    if drop_last:  # each rank's share of a short global batch is short, and dropped
        one = [b for b in one if len(b) == step]
    for r in range(nranks):
        assert len(parts[r]) == len(DistributedBatchSampler(
            list(range(n)), batch_size, num_replicas=nranks, rank=r, drop_last=drop_last))
    assert len({len(p) for p in parts}) == 1
    joined = [_flat(p[k] for p in parts) for k in range(len(parts[0]))]
    assert joined == one


def test_shuffle_is_paddles_order_and_moves_on_each_pass():
    n = 13
    one = DistributedBatchSampler(list(range(n)), 4, num_replicas=1, rank=0, shuffle=True)
    for epoch in range(3):
        order = _flat(one)
        assert order == np.random.RandomState(epoch).permutation(n).tolist()
    assert one.epoch == 3
    one.set_epoch(1)
    assert _flat(one) == np.random.RandomState(1).permutation(n).tolist()


def test_shuffled_ranks_share_one_order():
    n, batch_size, nranks = 16, 2, 2
    samplers = [DistributedBatchSampler(list(range(n)), batch_size, num_replicas=nranks,
                                        rank=r, shuffle=True) for r in range(nranks)]
    one = DistributedBatchSampler(list(range(n)), batch_size * nranks, num_replicas=1,
                                  rank=0, shuffle=True)
    for epoch in (0, 5):
        for s in samplers + [one]:
            s.set_epoch(epoch)
        parts = [list(s) for s in samplers]
        joined = [parts[0][k] + parts[1][k] for k in range(len(parts[0]))]
        assert joined == list(one)
        assert sorted(_flat(joined)) == list(range(n))


def test_len_counts_the_batches():
    for n, bs, nranks, drop in [(10, 3, 2, False), (10, 3, 2, True), (0, 2, 2, False),
                                (5, 10, 2, True)]:
        s = DistributedBatchSampler(list(range(n)), bs, num_replicas=nranks, rank=0,
                                    drop_last=drop)
        assert len(s) == len(list(s))


def test_loader_reads_this_ranks_share():
    x = np.arange(8, dtype="float32").reshape(8, 1)
    ds = TensorDataset([x])
    sampler = DistributedBatchSampler(ds, 2, num_replicas=2, rank=1)
    got = [b[0].numpy()[:, 0].tolist() for b in DataLoader(ds, batch_sampler=sampler)]
    assert got == [[2.0, 3.0], [6.0, 7.0]]


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="'batch_size'"):
        DistributedBatchSampler(list(range(4)), 0, num_replicas=2, rank=0)
    with pytest.raises(ValueError, match="'num_replicas'"):
        DistributedBatchSampler(list(range(4)), 2, num_replicas=0, rank=0)
    with pytest.raises(ValueError, match="'rank' must be in"):
        DistributedBatchSampler(list(range(4)), 2, num_replicas=2, rank=2)
    with pytest.raises(TypeError, match="'dataset' must have a length"):
        DistributedBatchSampler(object(), 2, num_replicas=2, rank=0)
