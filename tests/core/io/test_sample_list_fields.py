"""``DataLoader.from_generator().set_sample_list_generator``: an ndarray sample is the
sequence of its rows, one field each (fluid's DataFeeder zips a sample with the feed slots),
so a reader yielding ``np.array([query, pos, neg])`` gives three batched fields."""
import numpy as np

import core


def test_an_ndarray_sample_gives_one_field_per_row():
    samples = [np.array([[i, i + 1], [10 + i, 11 + i], [20 + i, 21 + i]], dtype="int64")
               for i in range(4)]

    def reader():
        yield samples[:2]
        yield samples[2:]

    loader = core.io.DataLoader.from_generator(capacity=2, return_list=True)
    loader.set_sample_list_generator(reader, core.CPUPlace())
    batches = list(loader())
    assert len(batches) == 2
    first, second, third = batches[1]
    np.testing.assert_array_equal(first.numpy(), [[2, 3], [3, 4]])
    np.testing.assert_array_equal(second.numpy(), [[12, 13], [13, 14]])
    np.testing.assert_array_equal(third.numpy(), [[22, 23], [23, 24]])


def test_tuple_samples_are_unchanged():
    def reader():
        yield [(np.float32(1.0), np.array([1, 2])), (np.float32(2.0), np.array([3, 4]))]

    loader = core.io.DataLoader.from_generator(capacity=2, return_list=True)
    loader.set_sample_list_generator(reader)
    (x, y), = list(loader())
    assert x.shape[0] == 2 and y.shape == [2, 2]
