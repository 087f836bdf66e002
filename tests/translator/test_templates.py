"""Template filling: placed code is never searched for placeholders again."""
import numpy as np

import core
from translator import declarative


def uses_placeholder_names(x, n):
    # names that the loop / if templates use as placeholders
    body, test, names, target, item, iterable = 1.0, 2.0, 3.0, 0.0, 0.0, 0.0
    i = 0
    while i < n:
        if x.sum() > 0:
            target = x * body + test
        else:
            target = x * names
        item = target + iterable
        x = item
        i += 1
    return x, body, test, names


def test_user_names_equal_to_placeholders_are_left_alone():
    x = core.to_tensor(np.array([1.0, 2.0], np.float32))
    for n in (0, 2):
        n_t = core.to_tensor(np.array(n, np.int64))
        eager = uses_placeholder_names(x, n_t)
        static = declarative(uses_placeholder_names)(x, n_t)
        np.testing.assert_allclose(static[0].numpy(), eager[0].numpy())
        assert [float(v) for v in static[1:]] == [1.0, 2.0, 3.0]
