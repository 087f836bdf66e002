# guides/advanced/layer_and_model: sublayers, add_sublayer, apply, children, parameters,
# create_tensor / register_buffer with paddle.assign in forward, train / eval, hooks, state_dict
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/advanced/layer_and_model_en.html
import os
import tempfile

import numpy as np

import dy2static as paddle


class Model(paddle.nn.Layer):

    def __init__(self):
        super().__init__()
        self.flatten = paddle.nn.Flatten()

    def forward(self, inputs):
        y = self.flatten(inputs)
        return y


model = Model()
print(model.sublayers())

print("--------------------------")

for item in model.named_sublayers():
    print(item)

fc = paddle.nn.Linear(10, 3)
model.add_sublayer("fc", fc)
print(model.sublayers())


def function(layer):
    print(layer)


model.apply(function)

sublayer_iter = model.children()
for sublayer in sublayer_iter:
    print(sublayer)


class Model(paddle.nn.Layer):

    def __init__(self):
        super().__init__()
        img = self.create_parameter([1, 3, 256, 256])
        self.add_parameter("img", img)
        self.flatten = paddle.nn.Flatten()

    def forward(self):
        y = self.flatten(self.img)
        return y


model = Model()
model.parameters()

print('-----------------------------------------------------------------------------------')

for item in model.named_parameters():
    print(item[0], item[1].shape)

model = Model()
out = model()
out.backward()
print("img grad", model.img.grad.shape)
model.clear_gradients()
print("cleared", model.img.grad is None or float(np.abs(model.img.grad.numpy()).sum()) == 0.0)


class Model(paddle.nn.Layer):

    def __init__(self):
        super().__init__()
        self.saved_tensor = self.create_tensor(name="saved_tensor0")
        self.flatten = paddle.nn.Flatten()
        self.fc = paddle.nn.Linear(10, 100)

    def forward(self, input):
        y = self.flatten(input)
        # Save intermediate tensor
        paddle.assign(y, self.saved_tensor)
        y = self.fc(y)
        return y


x = paddle.to_tensor(np.arange(20, dtype="float32").reshape([2, 10]))
model = Model()
out = model(x)
print("temp", out.shape, np.allclose(model.saved_tensor.numpy(), x.numpy()))


class Model(paddle.nn.Layer):

    def __init__(self):
        super().__init__()
        saved_tensor = self.create_tensor(name="saved_tensor0")
        self.register_buffer("saved_tensor", saved_tensor, persistable=True)
        self.flatten = paddle.nn.Flatten()
        self.fc = paddle.nn.Linear(10, 100)

    def forward(self, input):
        y = self.flatten(input)
        # Save intermediate tensor
        paddle.assign(y, self.saved_tensor)
        y = self.fc(y)
        return y


model = Model()
print(len(model.buffers()))

print('-------------------------------------------')

for item in model.named_buffers():
    print(item[0])

# the same Layer converted: the buffer holds y after the call, as eagerly
x_saved = x.numpy()
static_model = paddle.jit.to_static(Model())
out = static_model(x)
print("buffer", out.shape, np.allclose(static_model.saved_tensor.numpy(), x.numpy()))
out = static_model(x * 2)
print("buffer again", np.allclose(static_model.saved_tensor.numpy(), x.numpy() * 2))


class Model(paddle.nn.Layer):

    def __init__(self):
        super().__init__()
        self.flatten = paddle.nn.Flatten()

    def forward(self, inputs):
        y = self.flatten(inputs)
        return y


x = paddle.randn([10, 1], 'float32')
model = Model()
model.eval()  # set model to eval mode
out = model(x)
model.train()  # set model to train mode
out = model(x)
print(out.shape)


def forward_post_hook(layer, input, output):
    return 2*output


x = paddle.ones([10, 1], 'float32')
model = Model()
forward_post_hook_handle = model.flatten.register_forward_post_hook(forward_post_hook)
out = model(x)
print("post hook", out.numpy().ravel().tolist())


def forward_pre_hook(layer, input):
    print("pre hook", type(input).__name__, input[0].shape)
    return input


x = paddle.ones([10, 1], 'float32')
model = Model()
forward_pre_hook_handle = model.flatten.register_forward_pre_hook(forward_pre_hook)
out = model(x)

# hooks under to_static
model = Model()
model.flatten.register_forward_post_hook(forward_post_hook)
static = paddle.jit.to_static(model)
hooked = static(paddle.ones([3, 1], 'float32')).numpy().ravel().tolist()
print("static post hook", hooked)

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "paddle_dy.pdparams")
    model = Model()
    state_dict = model.state_dict()
    paddle.save(state_dict, path)
    model = Model()
    state_dict = paddle.load(path)
    model.set_state_dict(state_dict)
    print("state dict", len(state_dict))

print("RESULT", float(np.abs(static_model.saved_tensor.numpy() - x_saved * 2).max()),
      sum(hooked), len(model.sublayers()))
