# guides/beginner/model: a network built with paddle.nn.Sequential, inspected with summary
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/beginner/model_en.html
import dy2static as paddle

mnist = paddle.nn.Sequential(
    paddle.nn.Flatten(),
    paddle.nn.Linear(784, 512),
    paddle.nn.ReLU(),
    paddle.nn.Dropout(0.2),
    paddle.nn.Linear(512, 10)
)
params_info = paddle.summary(mnist, (1, 28, 28))
print(params_info)
x = paddle.rand([4, 1, 28, 28])
out = mnist(x)
print(out.shape)
for name, param in mnist.named_parameters():
    print(name, param.shape)
print("RESULT", params_info['total_params'], out.shape[1])
