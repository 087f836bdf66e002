"""Run under ``python -m core.distributed.launch --nproc_per_node N``: each rank reads its
share of a shuffled dataset through ``DistributedBatchSampler`` and a ``DataLoader`` and
trains a ``DataParallel`` model; beside it, the same loop in one process reads the global
batches (``batch_size * N``, ``num_replicas=1``). After every step, on every rank, the
parameters must be equal. The dataset's length is not a multiple of the global batch, so
the last step of each epoch reads the short last global batch. Prints ``CHECKS OK``.
"""
import numpy as np

import core
import core.distributed as dist
from core import nn
from core.io import DataLoader, DistributedBatchSampler, TensorDataset

RTOL, ATOL = 1e-5, 1e-6
SAMPLES, LOCAL_BATCH, IN, CLASSES, EPOCHS = 20, 3, 5, 3, 2

env = dist.init_parallel_env()
rank, nranks = env.rank, env.nranks
rng = np.random.default_rng(1)
data = TensorDataset([rng.standard_normal((SAMPLES, IN)).astype("float32"),
                      rng.integers(0, CLASSES, (SAMPLES, 1)).astype("int64")])


def model():
    core.seed(11)
    return nn.Sequential(nn.Linear(IN, 8, act="tanh"), nn.Linear(8, CLASSES))


def train_step(net, opt, x, y):
    loss = core.layers.mean(core.layers.softmax_with_cross_entropy(net(x), y))
    loss.backward()
    opt.minimize(loss)
    net.clear_gradients()


ref = model()
dp = core.DataParallel(model())
opt_ref = core.optimizer.Momentum(0.2, 0.9, parameter_list=ref.parameters())
opt = core.optimizer.Momentum(0.2, 0.9, parameter_list=dp.parameters())
one = DistributedBatchSampler(data, LOCAL_BATCH * nranks, num_replicas=1, rank=0,
                              shuffle=True)
mine = DistributedBatchSampler(data, LOCAL_BATCH, shuffle=True)
assert (mine.nranks, mine.local_rank) == (nranks, rank)
steps = 0
for epoch in range(EPOCHS):
    one.set_epoch(epoch)
    mine.set_epoch(epoch)
    pairs = list(zip(DataLoader(data, batch_sampler=one), DataLoader(data, batch_sampler=mine)))
    assert len(pairs) == len(one) == len(mine) == -(-SAMPLES // (LOCAL_BATCH * nranks))
    for (gx, gy), (x, y) in pairs:
        train_step(ref, opt_ref, gx, gy)
        train_step(dp, opt, x, y)
        steps += 1
        for (k, a), b in zip(ref.state_dict().items(), dp.state_dict().values()):
            if not np.allclose(a.numpy(), b.numpy(), rtol=RTOL, atol=ATOL):
                raise AssertionError(f"rank {rank}: epoch {epoch} {k} differs from one "
                                     f"process by {np.abs(a.numpy() - b.numpy()).max()}")
            got = []
            dist.all_gather(got, b)
            for r, t in enumerate(got):
                if not np.array_equal(t.numpy(), b.numpy()):
                    raise AssertionError(f"rank {rank}: {k} on rank {r} differs")
print(f"CHECKS OK rank {rank} of {nranks} after {steps} steps", flush=True)
