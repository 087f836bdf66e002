# practices/nlp (sentiment analysis with an LSTM): Embedding + LSTM + Linear, trained with
# paddle.Model on synthetic padded sequences
# https://www.paddlepaddle.org.cn/documentation/docs/en/practices/nlp/imdb_bow_classification.html
import numpy as np

import dy2static as paddle
import dy2static.nn as nn

vocab_size, emb_dim, hidden, seq_len = 200, 16, 32, 12
rng = np.random.RandomState(1)


class SentimentData(paddle.io.Dataset):
    def __init__(self, n):
        self.labels = rng.randint(0, 2, n).astype('int64')
        self.docs = rng.randint(3, vocab_size, (n, seq_len)).astype('int64')
        self.docs[:, -1] = 1 + self.labels  # the last word carries the sentiment

    def __getitem__(self, i):
        return self.docs[i], self.labels[i:i + 1]

    def __len__(self):
        return len(self.labels)


class LSTMClassifier(nn.Layer):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim)
        self.lstm = nn.LSTM(emb_dim, hidden, num_layers=1)
        self.fc = nn.Linear(hidden, 2)

    def forward(self, x):
        emb = self.embedding(x)
        output, (h, c) = self.lstm(emb)
        return self.fc(h[-1])


paddle.seed(2)
model = paddle.Model(LSTMClassifier())
model.prepare(paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters()),
              nn.CrossEntropyLoss(), paddle.metric.Accuracy())
model.fit(SentimentData(256), epochs=4, batch_size=32, verbose=2, log_freq=4)
result = model.evaluate(SentimentData(64), batch_size=32, verbose=0)
print(result)
print("RESULT", result['loss'][0], result['acc'])
