# guides/beginner/tensor: creating tensors, shape / dtype, conversion, arithmetic methods
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/beginner/tensor_en.html
import numpy as np

import dy2static as paddle

ndim_1_Tensor = paddle.to_tensor([2.0, 3.0, 4.0], dtype='float64')
print(ndim_1_Tensor)
ndim_2_Tensor = paddle.to_tensor([[1.0, 2.0, 3.0],
                                  [4.0, 5.0, 6.0]])
print(ndim_2_Tensor)
ndim_3_Tensor = paddle.to_tensor([[[1, 2, 3, 4, 5],
                                   [6, 7, 8, 9, 10]],
                                  [[11, 12, 13, 14, 15],
                                   [16, 17, 18, 19, 20]]])
print("Data Type of every element:", ndim_3_Tensor.dtype)
print("Number of dimensions:", ndim_3_Tensor.ndim)
print("Shape of Tensor:", ndim_3_Tensor.shape)
print("Elements number along axis 0 of Tensor:", ndim_3_Tensor.shape[0])
print("Elements number along the last axis of Tensor:", ndim_3_Tensor.shape[-1])

ndim_2_Tensor = paddle.to_tensor([[1, 2, 3], [4, 5, 6]], dtype='int64')
print("Tensor after reshape:", paddle.reshape(ndim_3_Tensor, [2, 5, 2]).shape)
print(ndim_3_Tensor.reshape([-1]).shape, ndim_3_Tensor.reshape([0, 5, -1]).shape)

float32_Tensor = paddle.to_tensor(1.0)
float64_Tensor = paddle.cast(float32_Tensor, dtype='float64')
print("Tensor after cast to float64:", float64_Tensor.dtype)
int64_Tensor = paddle.cast(float32_Tensor, dtype='int64')
print("Tensor after cast to int64:", int64_Tensor.dtype)
print("astype:", float32_Tensor.astype('int32').dtype)
print("numpy:", ndim_2_Tensor.numpy().tolist())
print(paddle.to_tensor(np.array([1, 2])).numpy())

x = paddle.to_tensor([[1.1, 2.2], [3.3, 4.4]], dtype="float64")
y = paddle.to_tensor([[5.5, 6.6], [7.7, 8.8]], dtype="float64")
print(paddle.add(x, y), "\n")
print(x.add(y), "\n")
print(x.abs(), x.ceil(), x.floor(), x.round(), x.exp(), x.log(), x.sqrt(), x.square())
print(x.sin(), x.cos(), x.reciprocal())
print(x.subtract(y), x.multiply(y), x.divide(y), x.pow(y), x.mod(y), x.floor_divide(y))
print(x.max(), x.min(), x.prod(), x.sum(), x.mean(axis=0))
print(x.equal(y), x.not_equal(y), x.less_than(y), x.less_equal(y), x.greater_than(y),
      x.greater_equal(y), x.allclose(y))
b = paddle.to_tensor([True, False])
c = paddle.to_tensor([False, False])
print(b.logical_and(c), b.logical_or(c), b.logical_not(), b.logical_xor(c))
print(x.t(), x.transpose([1, 0]), x.norm(), x.dist(y), x.matmul(y))
print("argmax", x.argmax(), x.argmax(axis=1).numpy().tolist())
print("RESULT", float(x.add(y).sum()), float(x.matmul(y).sum()))
