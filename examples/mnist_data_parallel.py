"""Data-parallel MNIST: the eager model of ``mnist_model.py`` trained by several processes.

    python -m core.distributed.launch --nproc_per_node 2 examples/mnist_data_parallel.py
    python -m core.distributed.launch --nproc_per_node 2 --log_dir logs \\
        examples/mnist_data_parallel.py --epochs 1

Each process reads its share of every epoch (``DistributedBatchSampler``) through a
``DataLoader`` whose background thread prepares the next batch while the model runs;
``DataParallel`` starts every rank from rank 0's parameters and averages the gradients during
backward, so the ranks stay identical. At the end each rank reports its accuracy on its half of
the bundled test subset, and rank 0 the accuracy over the whole of it.
"""
import argparse
import sys
import time

import numpy as np
from mnist_model import MNIST

import core
import core.distributed as dist
from core.dataset import mnist
from core.io import DataLoader, Dataset, DistributedBatchSampler


class MnistSamples(Dataset):
    """The samples of an MNIST reader as ``(image [1, 28, 28] float32, label [1] int64)``."""

    def __init__(self, reader):
        samples = list(reader())
        self.images = np.stack([s[0] for s in samples]).reshape(-1, 1, 28, 28)
        self.labels = np.array([s[1] for s in samples], dtype=np.int64).reshape(-1, 1)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]


def main(argv=None):
    ap = argparse.ArgumentParser(description="Data-parallel eager MNIST")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64, help="global batch (all ranks)")
    ap.add_argument("--max-steps", type=int, default=None, help="stop after this many steps")
    ap.add_argument("--num-workers", type=int, default=0, help="loader worker processes")
    args = ap.parse_args(argv)

    env = dist.init_parallel_env()
    rank, nranks = env.rank, env.nranks
    if args.batch_size % nranks:
        ap.error(f"--batch-size {args.batch_size} must divide among {nranks} processes")
    core.seed(90 + rank)  # different on purpose: DataParallel broadcasts rank 0's parameters
    model = core.DataParallel(MNIST())
    optimizer = core.optimizer.Adam(learning_rate=1e-3, parameter_list=model.parameters())
    train_set = MnistSamples(mnist.train())
    sampler = DistributedBatchSampler(train_set, batch_size=args.batch_size // nranks,
                                      shuffle=True, drop_last=True)
    loader = DataLoader(train_set, batch_sampler=sampler, num_workers=args.num_workers)

    start, step = time.perf_counter(), 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for images, labels in loader:
            prediction, _ = model(images, labels)
            loss = core.layers.mean(core.layers.cross_entropy(prediction, labels))
            loss.backward()
            optimizer.minimize(loss)
            model.clear_gradients()
            step += 1
            if step % 20 == 0:
                print(f"rank {rank} epoch {epoch} step {step}: loss {float(loss):.4f}",
                      flush=True)
            if args.max_steps is not None and step >= args.max_steps:
                break
        if args.max_steps is not None and step >= args.max_steps:
            break
    elapsed = time.perf_counter() - start

    test_set = MnistSamples(mnist.test())
    share = DistributedBatchSampler(test_set, batch_size=500)
    correct = total = 0
    model.eval()
    with core.no_grad():
        for images, labels in DataLoader(test_set, batch_sampler=share):
            hit = model(images).numpy().argmax(axis=1) == labels.numpy()[:, 0]
            correct, total = correct + int(hit.sum()), total + len(hit)
    print(f"rank {rank}: {step} steps in {elapsed:.1f} s, test accuracy on its "
          f"{total} samples {correct / total:.4f}", flush=True)
    counts = core.to_tensor(np.array([correct, total], dtype=np.int64))
    dist.all_reduce(counts)
    correct, total = (int(v) for v in counts.numpy())
    if rank == 0:
        print(f"test accuracy over all {total} samples: {correct / total:.4f}", flush=True)
    return correct / total


if __name__ == "__main__":
    sys.exit(0 if main() > 0.5 else 1)
