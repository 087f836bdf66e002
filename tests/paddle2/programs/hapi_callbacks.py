# api paddle.callbacks (EarlyStopping, LRScheduler) and paddle.Model save / load / fit with
# eval_data and save_dir, on a synthetic regression-as-classification task
# https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/callbacks/EarlyStopping_en.html
import os
import tempfile

import numpy as np

import dy2static as paddle
from dy2static.static import InputSpec


class Blobs(paddle.io.Dataset):
    def __init__(self, n, seed):
        rng = np.random.RandomState(seed)
        self.y = rng.randint(0, 3, n).astype('int64')
        self.x = (rng.randn(n, 8) + 2.0 * self.y[:, None]).astype('float32')

    def __getitem__(self, i):
        return self.x[i], self.y[i:i + 1]

    def __len__(self):
        return len(self.y)


paddle.seed(7)
inputs = [InputSpec([None, 8], 'float32', 'x')]
labels = [InputSpec([None, 1], 'int64', 'label')]
net = paddle.nn.Sequential(paddle.nn.Linear(8, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 3))
model = paddle.Model(net, inputs, labels)
scheduler = paddle.optimizer.lr.PiecewiseDecay(boundaries=[20], values=[0.05, 0.01])
optim = paddle.optimizer.Adam(learning_rate=scheduler, parameters=model.parameters())
model.prepare(optim, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
save_dir = tempfile.mkdtemp()
callbacks = [paddle.callbacks.EarlyStopping(monitor='acc_top1', mode='max', patience=2,
                                            verbose=1, save_best_model=True),
             paddle.callbacks.LRScheduler(by_step=True)]
model.fit(Blobs(128, 0), Blobs(64, 1), batch_size=16, epochs=4, save_dir=save_dir,
          callbacks=callbacks, verbose=2, log_freq=4)
print("saved:", sorted(os.listdir(save_dir)))
print("lr after training:", optim.get_lr())
result = model.evaluate(Blobs(64, 1), batch_size=32, verbose=0)
model.save(os.path.join(save_dir, "inference"), training=False)
model2 = paddle.Model(paddle.nn.Sequential(paddle.nn.Linear(8, 16), paddle.nn.ReLU(),
                                           paddle.nn.Linear(16, 3)), inputs, labels)
model2.prepare(paddle.optimizer.Adam(parameters=model2.parameters()),
               paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
model2.load(os.path.join(save_dir, "final"))
result2 = model2.evaluate(Blobs(64, 1), batch_size=32, verbose=0)
print(result, result2)
loaded = paddle.jit.load(os.path.join(save_dir, "inference"))
x = paddle.to_tensor(Blobs(4, 2).x)
print("inference model difference:", float((loaded(x) - net(x)).abs().max()))
print("RESULT", result['acc_top1'], result2['acc_top1'], result['loss'][0])
