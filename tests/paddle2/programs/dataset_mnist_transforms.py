# guides/beginner/data_preprocessing + data_load: paddle.vision.datasets.MNIST with
# paddle.vision.transforms (the MNIST files come from core.dataset.mnist; nothing is downloaded)
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/beginner/data_preprocessing_en.html
import numpy as np

import dy2static as paddle
import dy2static.vision.transforms as T
from dy2static.vision.transforms import Compose, Normalize

print('Transforms: ', [n for n in ("Compose", "Normalize", "ToTensor", "Resize")
                       if hasattr(paddle.vision.transforms, n)])
transform = Compose([Normalize(mean=[127.5], std=[127.5], data_format='CHW')])
train_dataset = paddle.vision.datasets.MNIST(mode='train', transform=transform)
test_dataset = paddle.vision.datasets.MNIST(mode='test', transform=transform)
print('train images: ', len(train_dataset), ', test images: ', len(test_dataset))
for data in train_dataset:
    image, label = data
    print('shape of image: ', image.shape)
    print('label: ', label)
    print('range: ', float(image.min()), float(image.max()))
    break

train_loader = paddle.io.DataLoader(train_dataset, batch_size=64, shuffle=True)
for batch_id, data in enumerate(train_loader()):
    images, labels = data
    print("batch_id: {}, images shape: {}, labels shape: {}".format(
        batch_id, images.shape, labels.shape))
    break

transform = T.Compose([T.Resize(size=(32, 32)), T.ToTensor()])
fake_image = np.random.randint(0, 256, (48, 40, 3)).astype('uint8')
out = transform(fake_image)
print("resized to tensor:", out.shape, out.dtype, float(out.max()) <= 1.0)
print("RESULT", len(train_dataset), image.shape[0])
