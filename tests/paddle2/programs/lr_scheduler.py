# api paddle.optimizer.lr: StepDecay, PiecewiseDecay, CosineAnnealingDecay, ExponentialDecay,
# LinearWarmup driving an optimizer, stepped per batch and per epoch as the API docs show
# https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/optimizer/lr/StepDecay_en.html
import dy2static as paddle

linear = paddle.nn.Linear(10, 10)
scheduler = paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=5, gamma=0.8,
                                          verbose=True)
sgd = paddle.optimizer.SGD(learning_rate=scheduler, parameters=linear.parameters())
lrs = []
for epoch in range(20):
    for batch_id in range(5):
        x = paddle.uniform([10, 10])
        out = linear(x)
        loss = paddle.mean(out)
        loss.backward()
        sgd.step()
        sgd.clear_gradients()
    lrs.append(sgd.get_lr())
    scheduler.step()    # If you update learning rate each epoch

piecewise = paddle.optimizer.lr.PiecewiseDecay(boundaries=[3, 6, 9], values=[0.1, 0.2, 0.3, 0.4])
cosine = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=0.5, T_max=10)
exponential = paddle.optimizer.lr.ExponentialDecay(learning_rate=0.5, gamma=0.9)
warmup = paddle.optimizer.lr.LinearWarmup(learning_rate=0.5, warmup_steps=20, start_lr=0,
                                          end_lr=0.5)
values = {"piecewise": [], "cosine": [], "exponential": [], "warmup": []}
for step in range(12):
    for name, s in (("piecewise", piecewise), ("cosine", cosine),
                    ("exponential", exponential), ("warmup", warmup)):
        values[name].append(s())
        s.step()
print({k: [round(v, 4) for v in vs] for k, vs in values.items()})
print("RESULT", lrs[0], lrs[-1], values["piecewise"][-1], values["warmup"][1])
