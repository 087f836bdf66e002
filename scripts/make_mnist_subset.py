"""Write the MNIST subset bundled with the package (``core/dataset/data/``).

Usage: ``python scripts/make_mnist_subset.py FULL_MNIST_DIR [--out DIR] [--per-class 500]
[--test 1000] [--seed 2020]``

Reads the standard MNIST idx files from FULL_MNIST_DIR and writes gzipped idx files with
``per-class`` training images of each digit, chosen at random with a fixed seed and kept in
their original order, and the first ``test`` test images. The output is byte-for-byte
deterministic (gzip timestamps are zero).
"""
import argparse
import os
import sys

import numpy as np

from core.dataset import mnist

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(mnist.__file__)), "data")


def stratified_indices(labels, per_class, seed):
    """Sorted indices of ``per_class`` random samples of each label (fixed ``seed``)."""
    rng = np.random.default_rng(seed)
    chosen = []
    for digit in range(10):
        idx = np.flatnonzero(labels == digit)
        if len(idx) < per_class:
            raise ValueError(f"only {len(idx)} training images of digit {digit}, "
                             f"{per_class} requested")
        chosen.append(rng.choice(idx, per_class, replace=False))
    return np.sort(np.concatenate(chosen))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", help="directory holding the full MNIST idx files")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory")
    ap.add_argument("--per-class", type=int, default=500, help="training images per digit")
    ap.add_argument("--test", type=int, default=1000, help="number of leading test images")
    ap.add_argument("--seed", type=int, default=2020, help="seed of the stratified sample")
    args = ap.parse_args(argv)

    train_images, train_labels = (mnist.read_images(p) if i == 0 else mnist.read_labels(p)
                                  for i, p in enumerate(mnist.find_files("train", args.source)))
    test_images, test_labels = (mnist.read_images(p) if i == 0 else mnist.read_labels(p)
                                for i, p in enumerate(mnist.find_files("test", args.source)))
    keep = stratified_indices(train_labels, args.per_class, args.seed)
    os.makedirs(args.out, exist_ok=True)
    outputs = [(mnist.SUBSET_FILES["train"][0], train_images[keep]),
               (mnist.SUBSET_FILES["train"][1], train_labels[keep]),
               (mnist.SUBSET_FILES["test"][0], test_images[:args.test]),
               (mnist.SUBSET_FILES["test"][1], test_labels[:args.test])]
    for name, array in outputs:
        path = os.path.join(args.out, name)
        mnist.write_idx(path, array)
        print(f"wrote {path}: {list(array.shape)}, {os.path.getsize(path)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
