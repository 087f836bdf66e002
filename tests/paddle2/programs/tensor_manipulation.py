# guides/beginner/tensor (indexing, slicing, manipulation) and the paddle.* API examples of
# concat / stack / split / gather / scatter / where / clip / topk / sort / cumsum / masked_select
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/beginner/tensor_en.html
import numpy as np

import dy2static as paddle

ndim_2_Tensor = paddle.to_tensor([[0, 1, 2, 3],
                                  [4, 5, 6, 7],
                                  [8, 9, 10, 11]])
print("Origin Tensor:", ndim_2_Tensor.numpy())
print("First row:", ndim_2_Tensor[0].numpy())
print("First row:", ndim_2_Tensor[0, :].numpy())
print("First column:", ndim_2_Tensor[:, 0].numpy())
print("Last column:", ndim_2_Tensor[:, -1].numpy())
print("All element:", ndim_2_Tensor[:].numpy())
print("First row and second column:", ndim_2_Tensor[0, 1].numpy())

x = paddle.to_tensor(np.arange(6).reshape(2, 3).astype("float32"))
y = paddle.to_tensor(np.arange(6, 12).reshape(2, 3).astype("float32"))
print(paddle.concat(x=[x, y], axis=0).shape, paddle.concat([x, y], axis=1).shape)
print(paddle.stack([x, y], axis=0).shape)
out0, out1, out2 = paddle.split(paddle.rand([3, 9, 5]), num_or_sections=3, axis=1)
print(out0.shape, out1.shape, out2.shape)
out0, out1, out2 = paddle.split(paddle.rand([3, 9, 5]), num_or_sections=[2, 3, 4], axis=1)
print(out0.shape, out1.shape, out2.shape)
index = paddle.to_tensor([0, 2])
print("gather", paddle.gather(x, index, axis=1).numpy().tolist())
updates = paddle.to_tensor([[9.0, 9.0, 9.0]])
print("scatter", paddle.scatter(x, paddle.to_tensor([1]), updates).numpy().tolist())
print("where", paddle.where(x > 2, x, y).numpy().tolist())
print("clip", paddle.clip(x, min=1.0, max=4.0).numpy().tolist())
value, idx = paddle.topk(paddle.to_tensor([1, 4, 5, 7]), k=1)
print("topk", value.numpy(), idx.numpy())
data = paddle.to_tensor([[5, 8, 9, 5], [0, 0, 1, 7], [6, 9, 2, 4]], dtype='float32')
print("topk axis 0", paddle.topk(data, k=2, axis=0)[0].numpy().tolist())
print("sort", paddle.sort(data, axis=1).numpy().tolist())
print("sort desc", paddle.sort(data, axis=0, descending=True).numpy().tolist())
print("argsort", paddle.argsort(data, axis=1).numpy().tolist())
print("cumsum", paddle.cumsum(data).numpy().tolist())
print("cumsum axis", paddle.cumsum(data, axis=0).numpy().tolist())
mask = data > 5
print("masked_select", paddle.masked_select(data, mask).numpy().tolist())
print("unsqueeze", paddle.unsqueeze(x, axis=[0, 2]).shape, x.unsqueeze(0).shape)
print("squeeze", paddle.squeeze(paddle.rand([5, 1, 10]), axis=1).shape)
print("flatten", paddle.flatten(paddle.rand([2, 3, 4, 4]), start_axis=1, stop_axis=2).shape)
print("transpose", paddle.transpose(paddle.rand([2, 3, 4]), perm=[1, 0, 2]).shape)
print("tile", paddle.tile(x, repeat_times=[2, 1]).shape, "expand",
      paddle.expand(paddle.to_tensor([1, 2, 3]), shape=[2, 3]).shape)
z = paddle.rand([4, 6])
z.reshape_([2, 12])
print("reshape_", z.shape)
print("RESULT", float(paddle.cumsum(data).numpy()[-1]), paddle.masked_select(data, mask).shape[0])
