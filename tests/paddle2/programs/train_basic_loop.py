# guides/beginner/train_eval_predict: training, evaluation and prediction with the basic loop
# (LeNet on the MNIST subset bundled with core.dataset.mnist, a few steps)
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/beginner/train_eval_predict_en.html
import numpy as np

import dy2static as paddle
import dy2static.nn.functional as F
from dy2static.vision.transforms import Normalize

paddle.seed(0)
transform = Normalize(mean=[127.5], std=[127.5], data_format='CHW')
train_dataset = paddle.vision.datasets.MNIST(mode='train', transform=transform)
test_dataset = paddle.vision.datasets.MNIST(mode='test', transform=transform)
model = paddle.vision.models.LeNet(num_classes=10)

train_loader = paddle.io.DataLoader(train_dataset, batch_size=64, shuffle=True)
model.train()
epochs = 1
optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
loss_fn = paddle.nn.CrossEntropyLoss()
losses = []
for epoch in range(epochs):
    for batch_id, data in enumerate(train_loader()):
        x_data = data[0]
        y_data = data[1]
        predicts = model(x_data)
        loss = loss_fn(predicts, y_data)
        acc = paddle.metric.accuracy(predicts, y_data)
        loss.backward()
        losses.append(float(loss))
        if (batch_id + 1) % 5 == 0:
            print("epoch: {}, batch_id: {}, loss is: {}, acc is: {}".format(
                epoch, batch_id + 1, loss.numpy(), acc.numpy()))
        optim.step()
        optim.clear_grad()
        if batch_id == 19:
            break

test_loader = paddle.io.DataLoader(test_dataset, batch_size=64, drop_last=True)
model.eval()
accs = []
for batch_id, data in enumerate(test_loader()):
    x_data = data[0]
    y_data = data[1]
    predicts = model(x_data)
    loss = loss_fn(predicts, y_data)
    acc = paddle.metric.accuracy(predicts, y_data)
    accs.append(float(acc))
    if (batch_id + 1) % 5 == 0:
        print("batch_id: {}, loss is: {}, acc is: {}".format(batch_id + 1, loss.numpy(),
                                                            acc.numpy()))
img, label = test_dataset[0]
out = model(paddle.to_tensor(img[np.newaxis]))
pred_label = F.softmax(out).argmax()
print("true label: {}, pred label: {}".format(label[0], pred_label.numpy()))
print("RESULT", np.mean(losses[:3]), np.mean(losses[-3:]), np.mean(accs))
