"""Readers (``core.reader``) and the MNIST data set: bundled subset, ``data_dir`` and
``MNIST_DIR`` lookup, and errors for missing, truncated and foreign files."""
import gzip
import os

import numpy as np
import pytest

import core
from core import reader
from core.dataset import mnist


def numbers(n):
    def r():
        return iter(range(n))

    return r


def write_mnist(directory, split="train", n=7, compress=True, seed=0):
    """Small, valid idx files for ``split`` in ``directory``; returns (images, labels)."""
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, n, dtype=np.uint8)
    img_stem, lab_stem = mnist.DATA_FILES[split]
    suffix = ".gz" if compress else ""
    mnist.write_idx(os.path.join(directory, img_stem + suffix), images, compress)
    mnist.write_idx(os.path.join(directory, lab_stem + suffix), labels, compress)
    return images, labels


# -- reader decorators -----------------------------------------------------------------------
def test_batch_sizes_and_drop_last():
    assert [len(b) for b in reader.batch(numbers(10), 4)()] == [4, 4, 2]
    assert [len(b) for b in core.batch(numbers(10), 4, drop_last=True)()] == [4, 4]
    assert list(core.batch(numbers(10), 5)()) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    with pytest.raises(ValueError, match="batch_size"):
        core.batch(numbers(3), 0)
    with pytest.raises(TypeError, match="reader"):
        core.batch([1, 2, 3], 2)


def test_shuffle_firstn_chain_map():
    a = list(reader.shuffle(numbers(50), buf_size=20, seed=1)())
    b = list(reader.shuffle(numbers(50), buf_size=20, seed=1)())
    assert a == b and sorted(a) == list(range(50)) and a != list(range(50))
    # windows of buf_size are shuffled within themselves
    assert sorted(a[:20]) == list(range(20))
    assert list(reader.firstn(numbers(10), 3)()) == [0, 1, 2]
    assert list(reader.chain(numbers(2), numbers(3))()) == [0, 1, 0, 1, 2]
    assert list(reader.map_readers(lambda x, y: x + y, numbers(3), numbers(3))()) == [0, 2, 4]


# -- MNIST -----------------------------------------------------------------------------------
def test_bundled_subset(monkeypatch):
    monkeypatch.delenv("MNIST_DIR", raising=False)
    samples = list(mnist.train()())
    assert len(samples) == 5000
    image, label = samples[0]
    assert image.shape == (784,) and image.dtype == np.float32 and isinstance(label, int)
    images = np.stack([s[0] for s in samples])
    assert images.min() == -1.0 and images.max() == 1.0
    assert np.bincount([s[1] for s in samples]).tolist() == [500] * 10
    test = list(mnist.test()())
    assert len(test) == 1000


def test_samples_are_scaled_to_minus_one_one(tmp_path):
    images, labels = write_mnist(str(tmp_path), "test", n=3)
    got = list(mnist.test(str(tmp_path))())
    assert [lab for _, lab in got] == labels.tolist()
    np.testing.assert_allclose(got[1][0], images[1].reshape(-1) / 127.5 - 1.0, atol=1e-6)


def test_mnist_dir_is_read_at_call_time_and_data_dir_wins(tmp_path, monkeypatch):
    env_dir, arg_dir = tmp_path / "env", tmp_path / "arg"
    env_dir.mkdir()
    arg_dir.mkdir()
    write_mnist(str(env_dir), "train", n=5, compress=False)
    write_mnist(str(arg_dir), "train", n=3)
    monkeypatch.setenv("MNIST_DIR", str(env_dir))
    assert len(list(mnist.train()())) == 5
    assert len(list(mnist.train(str(arg_dir))())) == 3
    monkeypatch.delenv("MNIST_DIR")
    assert len(list(mnist.train()())) == 5000


def test_directory_without_the_files_names_dir_and_files(tmp_path, monkeypatch):
    write_mnist(str(tmp_path), "train")
    with pytest.raises(FileNotFoundError) as e:
        mnist.test(str(tmp_path))
    msg = str(e.value)
    assert str(tmp_path) in msg and "t10k-images-idx3-ubyte" in msg and \
        "t10k-labels-idx1-ubyte" in msg
    monkeypatch.setenv("MNIST_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match=r"nowhere.*MNIST_DIR"):
        mnist.train()


def test_truncated_file_is_reported(tmp_path):
    write_mnist(str(tmp_path), "train", n=4, compress=False)
    path = tmp_path / "train-images-idx3-ubyte"
    data = path.read_bytes()
    path.write_bytes(data[:-100])
    with pytest.raises(ValueError, match=r"train-images-idx3-ubyte.*truncated"):
        list(mnist.train(str(tmp_path))())
    path.write_bytes(data[:10])
    with pytest.raises(ValueError, match="too short"):
        mnist.read_images(str(path))


def test_foreign_and_damaged_files_are_reported(tmp_path):
    write_mnist(str(tmp_path), "test", n=4)
    labels = tmp_path / "t10k-labels-idx1-ubyte.gz"
    images = tmp_path / "t10k-images-idx3-ubyte.gz"
    labels.write_bytes(images.read_bytes())  # an image file where the labels should be
    with pytest.raises(ValueError, match=r"magic number 2051.*2049"):
        list(mnist.test(str(tmp_path))())
    raw = gzip.compress(b"\x00\x00\x08\x01" + b"\x00\x00\x00\x02" + b"\x01\x02", mtime=0)
    labels.write_bytes(raw[:-6])  # cut inside the gzip trailer
    with pytest.raises(ValueError, match="gzip"):
        mnist.read_labels(str(labels))


def test_images_and_labels_must_agree(tmp_path):
    write_mnist(str(tmp_path), "train", n=4)
    mnist.write_idx(str(tmp_path / "train-labels-idx1-ubyte.gz"), np.zeros(3, np.uint8))
    with pytest.raises(ValueError, match="4 images but 3 labels"):
        list(mnist.train(str(tmp_path))())
    mnist.write_idx(str(tmp_path / "train-labels-idx1-ubyte.gz"), np.full(4, 12, np.uint8))
    with pytest.raises(ValueError, match="label 12"):
        list(mnist.train(str(tmp_path))())


def test_write_idx_is_deterministic(tmp_path):
    arr = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28) % 251
    mnist.write_idx(str(tmp_path / "a.gz"), arr)
    mnist.write_idx(str(tmp_path / "b.gz"), arr)
    assert (tmp_path / "a.gz").read_bytes() == (tmp_path / "b.gz").read_bytes()
    np.testing.assert_array_equal(mnist.read_images(str(tmp_path / "a.gz")), arr)
