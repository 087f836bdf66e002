# practices/nlp/n_gram_model: an N-gram language model learning word vectors
# (a tiny synthetic corpus instead of the Shakespeare sonnet)
# https://www.paddlepaddle.org.cn/documentation/docs/en/practices/nlp/n_gram_model.html
import numpy as np

import dy2static as paddle
import dy2static.nn.functional as F

test_sentence = ("the quick brown fox jumps over the lazy dog and the quick red fox runs past "
                 "the sleepy cat while the lazy dog dreams of the quick brown fox").split()
context_size = 2
embedding_dim = 10
hidden_size = 64
batch_size = 8
trigram = [[[test_sentence[i], test_sentence[i + 1]], test_sentence[i + 2]]
           for i in range(len(test_sentence) - 2)]
vocab = sorted(set(test_sentence))
vocab_size = len(vocab)
word_to_idx = {word: i for i, word in enumerate(vocab)}
idx_to_word = {word_to_idx[word]: word for word in word_to_idx}


class TrainDataset(paddle.io.Dataset):
    def __init__(self, tuple_data):
        self.tuple_data = tuple_data

    def __getitem__(self, idx):
        data = self.tuple_data[idx][0]
        label = self.tuple_data[idx][1]
        data = np.array(list(map(lambda word: word_to_idx.get(word, 0), data)))
        label = np.array(word_to_idx.get(label, 0), dtype=np.int64)
        return data, label

    def __len__(self):
        return len(self.tuple_data)


train_dataset = TrainDataset(trigram)
train_loader = paddle.io.DataLoader(train_dataset, return_list=True, shuffle=True,
                                    batch_size=batch_size, drop_last=True)


class NGramModel(paddle.nn.Layer):
    def __init__(self, vocab_size, embedding_dim, context_size):
        super().__init__()
        self.embedding = paddle.nn.Embedding(num_embeddings=vocab_size,
                                             embedding_dim=embedding_dim)
        self.linear1 = paddle.nn.Linear(context_size * embedding_dim, hidden_size)
        self.linear2 = paddle.nn.Linear(hidden_size, vocab_size)

    def forward(self, x):
        x = self.embedding(x)
        x = paddle.reshape(x, [-1, context_size * embedding_dim])
        x = self.linear1(x)
        x = F.relu(x)
        x = self.linear2(x)
        return x


def train(model):
    model.train()
    optim = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    losses = []
    for epoch in range(20):
        for batch_id, data in enumerate(train_loader()):
            x_data = data[0]
            y_data = data[1]
            predicts = model(x_data)
            loss = F.cross_entropy(predicts, y_data)
            loss.backward()
            losses.append(float(loss))
            if batch_id % 2 == 0 and epoch % 5 == 0:
                print("epoch: {}, batch_id: {}, loss is: {}".format(epoch, batch_id,
                                                                   loss.numpy()))
            optim.step()
            optim.clear_grad()
    return losses


paddle.seed(0)
model = NGramModel(vocab_size, embedding_dim, context_size)
losses = train(model)
sample = 3
data = paddle.to_tensor(np.array([[word_to_idx[w] for w in trigram[sample][0]]]))
predict = model(data)
print('the input words is: ' + trigram[sample][0][0] + ', ' + trigram[sample][0][1])
print('the predict words is: ' + idx_to_word[int(paddle.argmax(predict[0]))])
print('the true words is: ' + trigram[sample][1])
vectors = model.embedding.weight
print("embedding", vectors.shape)
print("RESULT", np.mean(losses[:3]), np.mean(losses[-3:]))
