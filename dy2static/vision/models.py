"""``paddle.vision.models.LeNet``: two convolution + max-pool stages and three linear layers,
with PaddlePaddle's layout (input [N, 1, 28, 28])."""
from core import nn

__all__ = ["LeNet"]


class LeNet(nn.Layer):
    """LeNet-5 as in PaddlePaddle; ``num_classes <= 0`` leaves out the linear head."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(),
            nn.Pool2D(2, "max", 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(),
            nn.Pool2D(2, "max", 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                    nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = x.flatten(1)
            x = self.fc(x)
        return x
