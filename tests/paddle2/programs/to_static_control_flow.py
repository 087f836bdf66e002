# guides/jit/principle + grammar_list: while / for / break / if on tensors inside to_static
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/jit/grammar_list_en.html
import dy2static as paddle


@paddle.jit.to_static
def sum_until(x, limit):
    total = paddle.zeros([1])
    i = paddle.zeros([1], dtype='int64')
    while total < limit:
        total = total + x[i]
        i = i + 1
    return total, i


@paddle.jit.to_static
def for_loop(x):
    out = paddle.zeros_like(x)
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[i] = x[i] * 2
        else:
            out[i] = -x[i]
    return out


@paddle.jit.to_static
def find_first_negative(x):
    idx = paddle.full([1], -1, dtype='int64')
    for i in range(x.shape[0]):
        if x[i] < 0:
            idx = paddle.full([1], i, dtype='int64')
            break
    return idx


x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0, 5.0])
total, steps = sum_until(x, paddle.to_tensor([6.0]))
print("total", total.numpy(), "steps", steps.numpy())
print(for_loop(paddle.to_tensor([1.0, -2.0, 3.0])).numpy())
print(find_first_negative(paddle.to_tensor([1.0, -2.0, -3.0])).numpy())
paddle.jit.enable_to_static(False)
total_eager, _ = sum_until(x, paddle.to_tensor([6.0]))
paddle.jit.enable_to_static(True)
print("eager total", total_eager.numpy())
print("RESULT", float(total), float(total_eager))
