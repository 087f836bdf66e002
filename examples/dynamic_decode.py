"""Greedy decoding with a data-dependent loop, translated with ``@declarative``.

    python examples/dynamic_decode.py

``GreedyDecoder.forward`` feeds each step's most likely token back in, collects the tokens
with ``list.append``, and leaves the loop with ``break`` as soon as every sequence of the
batch has emitted the end token. How many steps run depends on the values computed, so the
translated Program holds a ``while`` op whose condition is a tensor; the list becomes a
tensor array. The script checks that the declarative decoder returns what the same code run
eagerly returns, for batches that stop after different numbers of steps.
"""
import sys

import numpy as np

import core
from translator import ProgramTranslator, declarative


class GreedyDecoder(core.nn.Layer):
    """A tanh RNN cell over token embeddings, decoded greedily."""

    def __init__(self, vocab_size=8, hidden=16, end_token=0):
        super().__init__()
        self.embedding = core.nn.Embedding([vocab_size, hidden])
        self.cell = core.nn.Linear(2 * hidden, hidden, act="tanh")
        self.project = core.nn.Linear(hidden, vocab_size)
        self.end_token = end_token

    @declarative
    def forward(self, state, tokens, max_steps=12):
        """Tokens [batch, steps] decoded from ``state`` [batch, hidden] and the start
        ``tokens`` [batch] (int64); a finished sequence keeps emitting the end token."""
        finished = tokens == self.end_token
        outputs = []
        for _ in range(max_steps):
            emb = self.embedding(tokens)
            state = self.cell(core.layers.concat([emb, state], axis=1))
            tokens = core.layers.argmax(self.project(state), axis=1)
            tokens = core.layers.where(finished, core.layers.zeros_like(tokens) + self.end_token,
                                       tokens)
            outputs.append(tokens)
            finished = core.layers.logical_or(finished, tokens == self.end_token)
            if core.layers.reduce_min(core.layers.cast(finished, "float32")) > 0:
                break
        # a Python list eagerly, a tensor array in the translated loop: stack takes either
        return core.layers.stack(outputs, axis=1)


def main():
    core.seed(4)
    decoder = GreedyDecoder()
    rng = np.random.default_rng(1)
    ok = True
    lengths = set()
    for batch in range(4):
        state = core.to_tensor(rng.standard_normal((3, 16)).astype(np.float32) * 2.0)
        start = core.to_tensor(rng.integers(1, 8, size=3).astype(np.int64))
        with core.no_grad():
            decoded = decoder(state, start).numpy()
            ProgramTranslator().enable(False)
            eager = decoder(state, start).numpy()
            ProgramTranslator().enable(True)
        same = decoded.shape == eager.shape and (decoded == eager).all()
        ok = ok and same
        lengths.add(decoded.shape[1])
        print(f"batch {batch}: {decoded.shape[1]} steps, declarative == eager: {same}")
        for row in decoded:
            print("   ", " ".join(str(int(t)) for t in row))
    print(f"{decoder.forward.translations} program(s) translated for {len(lengths)} "
          "different numbers of steps")
    return ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
