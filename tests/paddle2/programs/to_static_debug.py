# guides/jit/debugging: set_code_level / set_verbosity, the converted code, turning
# to_static off to debug eagerly
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/jit/debugging_en.html
import dy2static as paddle


@paddle.jit.to_static
def func(x):
    x = paddle.to_tensor(x)
    if x > 3:
        x = x - 1
    return x


paddle.jit.set_code_level()
paddle.jit.set_verbosity(3)
out = func(paddle.to_tensor([5.0]))
print(out.numpy())
print(paddle.jit.ProgramTranslator().get_code(func))
paddle.jit.set_verbosity(0)
paddle.jit.set_code_level(-1)

paddle.jit.enable_to_static(False)
print("eager:", func(paddle.to_tensor([2.0])).numpy())
paddle.jit.enable_to_static(True)
print("RESULT", float(out))
