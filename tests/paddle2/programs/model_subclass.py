# guides/beginner/model: a network as a paddle.nn.Layer subclass; sublayers and parameters
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/beginner/model_en.html
import dy2static as paddle


class Mnist(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.flatten = paddle.nn.Flatten()
        self.linear_1 = paddle.nn.Linear(784, 512)
        self.linear_2 = paddle.nn.Linear(512, 10)
        self.relu = paddle.nn.ReLU()
        self.dropout = paddle.nn.Dropout(0.2)

    def forward(self, inputs):
        y = self.flatten(inputs)
        y = self.linear_1(y)
        y = self.relu(y)
        y = self.dropout(y)
        y = self.linear_2(y)
        return y


mnist_2 = Mnist()
print(mnist_2.sublayers())
for name, layer in mnist_2.named_sublayers():
    print(name, type(layer).__name__)
print(paddle.summary(mnist_2, (1, 28, 28)))
x = paddle.randn([2, 1, 28, 28])
mnist_2.eval()
y1, y2 = mnist_2(x), mnist_2(x)
print("eval is deterministic:", bool((y1 == y2).all()))
mnist_2.train()
print("state dict keys:", list(mnist_2.state_dict().keys()))
print("RESULT", len(mnist_2.parameters()), y1.shape[1])
