# practices/quick_start/linear_regression (Boston housing): Linear(13, 1) trained with SGD
# on a synthetic housing-shaped regression problem
# https://www.paddlepaddle.org.cn/documentation/docs/en/practices/quick_start/linear_regression.html
import numpy as np

import dy2static as paddle
import dy2static.nn.functional as F

rng = np.random.RandomState(1)
feature_num = 13
data = rng.rand(128, feature_num).astype('float32')
true_w = rng.rand(feature_num, 1).astype('float32')
label = (data @ true_w + 0.5).astype('float32')
ratio = 0.8
offset = int(data.shape[0] * ratio)
train_data, test_data = data[:offset], data[offset:]
train_label, test_label = label[:offset], label[offset:]


class Regressor(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(in_features=13, out_features=1)

    def forward(self, inputs):
        return self.fc(inputs)


paddle.seed(1)
model = Regressor()
model.train()
opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=model.parameters())
EPOCH_NUM = 10
BATCH_SIZE = 10
first = last = None
for epoch_id in range(EPOCH_NUM):
    idx = rng.permutation(len(train_data))
    mini_batches = [idx[k:k + BATCH_SIZE] for k in range(0, len(train_data), BATCH_SIZE)]
    for iter_id, batch in enumerate(mini_batches):
        house_features = paddle.to_tensor(train_data[batch])
        prices = paddle.to_tensor(train_label[batch])
        predicts = model(house_features)
        loss = F.square_error_cost(predicts, label=prices)
        avg_loss = paddle.mean(loss)
        if first is None:
            first = float(avg_loss)
        if iter_id % 4 == 0:
            print("epoch: {}, iter: {}, loss is: {}".format(epoch_id, iter_id, avg_loss.numpy()))
        avg_loss.backward()
        opt.step()
        opt.clear_grad()
        last = float(avg_loss)
model.eval()
test_loss = float(F.mse_loss(model(paddle.to_tensor(test_data)), paddle.to_tensor(test_label)))
print("test mse:", test_loss)
print("RESULT", first, last, test_loss)
