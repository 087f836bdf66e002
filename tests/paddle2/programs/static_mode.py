# guides/beginner (static graph): paddle.enable_static, static.data, static.nn.fc, Executor
# https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/static/nn/fc_en.html
import numpy as np

import dy2static as paddle

paddle.seed(2024)  # the initial parameters, so the check on the loss is deterministic
paddle.enable_static()
main_program = paddle.static.Program()
startup_program = paddle.static.Program()
with paddle.static.program_guard(main_program, startup_program):
    x = paddle.static.data(name='x', shape=[None, 13], dtype='float32')
    y = paddle.static.data(name='y', shape=[None, 1], dtype='float32')
    hidden = paddle.static.nn.fc(x=x, size=10, activation='relu')
    y_predict = paddle.static.nn.fc(x=hidden, size=1)
    cost = paddle.nn.functional.square_error_cost(input=y_predict, label=y)
    avg_loss = paddle.mean(cost)
    sgd_optimizer = paddle.optimizer.SGD(learning_rate=0.01)
    sgd_optimizer.minimize(avg_loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup_program)
rng = np.random.RandomState(0)
xs = rng.rand(32, 13).astype('float32')
ys = xs.sum(1, keepdims=True).astype('float32') / 13
losses = []
for step in range(30):
    loss, = exe.run(main_program, feed={'x': xs, 'y': ys}, fetch_list=[avg_loss])
    losses.append(float(loss))
    if step % 10 == 0:
        print("step {} loss {}".format(step, loss))
paddle.disable_static()
print("dynamic again:", paddle.in_dynamic_mode())
print("RESULT", losses[0], losses[-1])
