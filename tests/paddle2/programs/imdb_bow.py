# practices/nlp/imdb_bow_classification: an embedding bag (sum of word vectors) classifier,
# on synthetic IMDB-shaped id sequences padded to a fixed length
# https://www.paddlepaddle.org.cn/documentation/docs/en/practices/nlp/imdb_bow_classification.html
import numpy as np

import dy2static as paddle

vocab_size = 500
emb_size = 32
seq_len = 40
pad_id = 0
rng = np.random.RandomState(0)


def make_data(n):
    labels = rng.randint(0, 2, n)
    docs = rng.randint(3, vocab_size, (n, seq_len))
    docs[labels == 1, :8] = 1  # word 1 marks a positive review, word 2 a negative one
    docs[labels == 0, :8] = 2
    lengths = rng.randint(10, seq_len, n)
    for i, n_words in enumerate(lengths):
        docs[i, n_words:] = pad_id
    return docs.astype('int64'), labels.astype('int64')


train_x, train_y = make_data(256)
test_x, test_y = make_data(64)


class IMDBDataset(paddle.io.Dataset):
    def __init__(self, sents, labels):
        self.sents = sents
        self.labels = labels

    def __getitem__(self, index):
        data = self.sents[index]
        label = self.labels[index]
        return data, label

    def __len__(self):
        return len(self.sents)


train_loader = paddle.io.DataLoader(IMDBDataset(train_x, train_y), batch_size=32, shuffle=True)
test_loader = paddle.io.DataLoader(IMDBDataset(test_x, test_y), batch_size=32)


class MyNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(vocab_size, emb_size)
        self.fc = paddle.nn.Linear(in_features=emb_size, out_features=2)
        self.dropout = paddle.nn.Dropout(0.5)

    def forward(self, x):
        x = self.emb(x)
        x = paddle.mean(x, axis=1)
        x = self.dropout(x)
        x = self.fc(x)
        return x


def train(model):
    model.train()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    losses = []
    for epoch in range(3):
        for batch_id, data in enumerate(train_loader):
            sent = data[0]
            label = data[1]
            logits = model(sent)
            loss = paddle.nn.functional.cross_entropy(logits, label)
            losses.append(float(loss))
            if batch_id % 4 == 0:
                print("epoch: {}, batch_id: {}, loss is: {}".format(epoch, batch_id,
                                                                   loss.numpy()))
            loss.backward()
            opt.step()
            opt.clear_grad()
    return losses


def evaluate(model):
    model.eval()
    accuracies = []
    for data in test_loader:
        sent, label = data
        logits = model(sent)
        pred = paddle.argmax(logits, axis=-1)
        accuracies.append(float(paddle.mean(paddle.cast(pred == label, 'float32'))))
    return np.mean(accuracies)


paddle.seed(0)
model = MyNet()
losses = train(model)
acc = evaluate(model)
print("[validation] accuracy: {}".format(acc))
print("RESULT", np.mean(losses[:3]), np.mean(losses[-3:]), acc)
