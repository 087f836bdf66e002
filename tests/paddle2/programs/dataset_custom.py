# guides/beginner/data_load: a custom paddle.io.Dataset read by paddle.io.DataLoader
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/beginner/data_load_en.html
import numpy as np

import dy2static as paddle
from dy2static.io import DataLoader, Dataset

BATCH_SIZE = 8
BATCH_NUM = 4
IMAGE_SIZE = 28 * 28
CLASS_NUM = 10


class MyDataset(Dataset):
    """Step 1: subclass paddle.io.Dataset"""

    def __init__(self, num_samples):
        """Step 2: the data the set holds"""
        super().__init__()
        self.num_samples = num_samples
        rng = np.random.RandomState(0)
        self.images = rng.rand(num_samples, IMAGE_SIZE).astype('float32')
        self.labels = rng.randint(0, CLASS_NUM - 1, (num_samples, 1)).astype('int64')

    def __getitem__(self, index):
        """Step 3: one sample (data, label) by index"""
        return self.images[index], self.labels[index]

    def __len__(self):
        """Step 4: the number of samples"""
        return self.num_samples


custom_dataset = MyDataset(BATCH_SIZE * BATCH_NUM)
print('=============custom dataset=============')
for data, label in [custom_dataset[i] for i in range(3)]:
    print(data.shape, label)

train_loader = DataLoader(custom_dataset, batch_size=BATCH_SIZE, shuffle=True, drop_last=False)
for batch_id, data in enumerate(train_loader()):
    x_data = data[0]
    y_data = data[1]
    print("batch_id: {}, x shape: {}, y shape: {}".format(batch_id, x_data.shape, y_data.shape))

sampler = paddle.io.SequenceSampler(custom_dataset)
batch_sampler = paddle.io.BatchSampler(sampler=sampler, batch_size=BATCH_SIZE)
loader = DataLoader(custom_dataset, batch_sampler=batch_sampler)
print("batches:", len(loader), len(batch_sampler))
print("RESULT", len(train_loader), sum(1 for _ in loader))
