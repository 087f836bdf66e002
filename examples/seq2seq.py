"""Seq2seq: an LSTM encoder-decoder with attention learns to reverse digit sequences, and
decodes them with beam search inside a ``declarative`` function.

    python examples/seq2seq.py                 # train until most sequences decode right
    python examples/seq2seq.py --steps 20      # a quick run (what the tests use)

The task is generated on the fly: a batch of random digit sequences (each batch has its own
length, 3 to 6) and, as target, the same digits reversed followed by an end token. Training is
teacher-forced with a declarative loss (``Seq2Seq.loss``) and an eager Adam update. Decoding
(``Seq2Seq.beam_decode``) runs ``core.nn.BeamSearchDecoder`` through ``core.nn.dynamic_decode``:
inside the declarative function the decode loop is one ``while`` op that stops when every beam
has finished. The script then saves that program with
``ProgramTranslator().save_inference_model``, reloads it with ``core.io.load_inference_model``,
decodes the same batch with the executor and prints how often the two agree.
"""
import argparse
import sys
import tempfile
import time

import numpy as np

import core
from translator import ProgramTranslator, declarative

L = core.layers
BOS, EOS, VOCAB = 10, 11, 12


def make_batch(rng, batch, length):
    """``(src, tgt_in, tgt_out)`` int64: digits, BOS + reversed digits, reversed digits +
    EOS."""
    src = rng.integers(0, 10, (batch, length)).astype(np.int64)
    rev = src[:, ::-1]
    tgt_in = np.concatenate([np.full((batch, 1), BOS, np.int64), rev], axis=1)
    tgt_out = np.concatenate([rev, np.full((batch, 1), EOS, np.int64)], axis=1)
    return src, tgt_in, tgt_out


class AttentionCell(core.nn.Layer):
    """The decoder cell: an LSTM step, then dot-product attention over the encoder outputs
    ``[rows, src_len, hidden]``; the output is ``tanh(W [h; context])``."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.lstm = core.nn.LSTMCell(input_size, hidden_size)
        self.combine = core.nn.Linear(2 * hidden_size, hidden_size, act="tanh")

    def forward(self, inputs, states, encoder_output):
        h, states = self.lstm(inputs, states)
        weights = L.softmax(L.matmul(encoder_output, L.unsqueeze(h, [2])), axis=1)
        context = L.reduce_sum(encoder_output * weights, dim=[1])
        return self.combine(L.concat([h, context], axis=1)), states


class Seq2Seq(core.nn.Layer):
    def __init__(self, hidden=64, beam_size=3, max_len=10):
        super().__init__()
        self.hidden = hidden
        self.beam_size = beam_size
        self.max_len = max_len
        self.src_emb = core.nn.Embedding([VOCAB, hidden])
        self.tgt_emb = core.nn.Embedding([VOCAB, hidden])
        self.encoder = core.nn.LSTMCell(hidden, hidden)
        self.decoder = AttentionCell(hidden, hidden)
        self.project = core.nn.Linear(hidden, VOCAB)

    def encode(self, src):
        """Encoder outputs ``[batch, src_len, hidden]`` and the final ``(h, c)``."""
        x = self.src_emb(src)
        h = L.zeros_like(x[:, 0])
        state = (h, h)
        outputs = []
        for t in range(x.shape[1]):
            out, state = self.encoder(x[:, t], state)
            outputs.append(out)
        return L.stack(outputs, axis=1), state

    @declarative
    def loss(self, src, tgt_in, tgt_out):
        """Mean cross entropy of the teacher-forced decoder."""
        enc, state = self.encode(src)
        y = self.tgt_emb(tgt_in)
        logits = []
        for t in range(y.shape[1]):
            out, state = self.decoder(y[:, t], state, enc)
            logits.append(self.project(out))
        logits = L.stack(logits, axis=1)
        ce = L.softmax_with_cross_entropy(logits, L.unsqueeze(tgt_out, [2]))
        return L.mean(ce)

    @declarative
    def beam_decode(self, src):
        """The best ``beam_size`` outputs per sequence, ``[batch, steps, beam_size]``."""
        enc, state = self.encode(src)
        enc = core.nn.BeamSearchDecoder.tile_beam_merge_with_batch(enc, self.beam_size)
        decoder = core.nn.BeamSearchDecoder(self.decoder, BOS, EOS, self.beam_size,
                                            embedding_fn=self.tgt_emb, output_fn=self.project)
        ids, _ = core.nn.dynamic_decode(decoder, inits=state, max_step_num=self.max_len,
                                        encoder_output=enc)
        return ids


def train_step(model, optimizer, batch):
    src, tgt_in, tgt_out = (core.to_tensor(a) for a in batch)
    loss = model.loss(src, tgt_in, tgt_out)
    loss.backward()
    optimizer.minimize(loss)
    model.clear_gradients()
    return float(loss)


def exact(ids, src):
    """Fraction of sequences whose best beam is the reversed source followed by EOS."""
    want = np.concatenate([src[:, ::-1], np.full((len(src), 1), EOS)], axis=1)
    best = ids[:, :, 0]
    if best.shape[1] < want.shape[1]:
        return 0.0
    return float((best[:, :want.shape[1]] == want).all(axis=1).mean())


def train(model, steps, batch_size=64, learning_rate=5e-3, seed=0, log_every=50, log=print,
          target=None, eval_batch=None):
    """Train for ``steps`` steps (stopping early once beam decoding of ``eval_batch`` gets
    ``target`` right); returns the losses."""
    rng = np.random.default_rng(seed)
    optimizer = core.optimizer.AdamOptimizer(learning_rate=learning_rate,
                                             parameter_list=model.parameters())
    losses = []
    start = time.time()
    for step in range(1, steps + 1):
        losses.append(train_step(model, optimizer, make_batch(rng, batch_size,
                                                              int(rng.integers(3, 7)))))
        if log_every and step % log_every == 0:
            msg = f"step {step}: loss {np.mean(losses[-log_every:]):.4f}"
            if eval_batch is not None:
                with core.no_grad():
                    acc = exact(model.beam_decode(core.to_tensor(eval_batch)).numpy(),
                                eval_batch)
                msg += f", beam-decoded exactly right {acc:.0%}"
                if target is not None and acc >= target:
                    log(msg + f" ({time.time() - start:.0f} s)")
                    break
            log(msg + f" ({time.time() - start:.0f} s)")
    return losses


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=3000, help="at most this many training steps")
    ap.add_argument("--target", type=float, default=0.9,
                    help="stop once this fraction of a held-out batch decodes exactly right")
    ap.add_argument("--beam", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    core.seed(args.seed)
    model = Seq2Seq(beam_size=args.beam)
    held_out = make_batch(np.random.default_rng(args.seed + 100), 64, 5)[0]
    log_every = max(1, min(25, args.steps // 2))
    train(model, args.steps, seed=args.seed, log_every=log_every, target=args.target,
          eval_batch=held_out)
    with core.no_grad():
        ids = model.beam_decode(core.to_tensor(held_out)).numpy()
    acc = exact(ids, held_out)
    print(f"declarative beam search: {acc:.0%} of {len(held_out)} held-out sequences exactly "
          f"right, e.g. {held_out[0].tolist()} -> {ids[0, :, 0].tolist()}")
    program = ProgramTranslator().get_program(model.beam_decode, core.to_tensor(held_out))[0]
    print(f"decode program: {[op.type for op in program.global_block().ops].count('while')} "
          f"while op")
    with tempfile.TemporaryDirectory() as d:
        ProgramTranslator().save_inference_model(d)
        exe = core.Executor(core.CPUPlace())
        prog, feeds, fetches = core.io.load_inference_model(d, exe)
        (saved,) = exe.run(prog, feed={feeds[0]: held_out}, fetch_list=fetches)
    same = saved.shape == ids.shape and bool((saved == ids).all())
    agree = float((saved == ids).all(axis=(1, 2)).mean()) if saved.shape == ids.shape else 0.0
    print(f"reloaded inference model vs declarative: {agree:.0%} of sequences identical")
    return same


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
