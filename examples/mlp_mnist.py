# A OneFlow 0.x training program, unedited (the docs' MLP with sync and Callback results).
# Run: python -m flowtorch examples/mlp_mnist.py   (reads ./mnist.npz; `flowtorch make-mnist` writes one)
import sys
from typing import Tuple

import numpy as np
import oneflow as flow
import oneflow.typing as tp

BATCH_SIZE = 100
EPOCHS = int(sys.argv[1]) if len(sys.argv) > 1 else 2


def mlp(data):
    initializer = flow.truncated_normal(0.1)
    reshape = flow.reshape(data, [data.shape[0], -1])
    hidden = flow.layers.dense(reshape, 512, activation=flow.nn.relu, kernel_initializer=initializer,
                               name="hidden")
    return flow.layers.dense(hidden, 10, kernel_initializer=initializer, name="output")


@flow.global_function(type="train")
def train_job(
    images: tp.Numpy.Placeholder((BATCH_SIZE, 1, 28, 28), dtype=flow.float),
    labels: tp.Numpy.Placeholder((BATCH_SIZE,), dtype=flow.int32),
) -> tp.Numpy:
    with flow.scope.placement("cpu", "0:0"):
        logits = mlp(images)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="softmax_loss")
    lr_scheduler = flow.optimizer.PiecewiseConstantScheduler([], [0.1])
    flow.optimizer.SGD(lr_scheduler, momentum=0).minimize(loss)
    return loss


@flow.global_function(type="predict")
def eval_job(
    images: tp.Numpy.Placeholder((BATCH_SIZE, 1, 28, 28), dtype=flow.float),
    labels: tp.Numpy.Placeholder((BATCH_SIZE,), dtype=flow.int32),
) -> tp.Callback[Tuple[tp.Numpy, tp.Numpy]]:
    with flow.scope.placement("cpu", "0:0"):
        logits = mlp(images)
    return (labels, logits)


g_total = 0
g_correct = 0


def acc(arguments: Tuple[tp.Numpy, tp.Numpy]):
    global g_total, g_correct
    labels, logits = arguments
    g_total += labels.shape[0]
    g_correct += int(np.sum(np.argmax(logits, 1) == labels))


if __name__ == "__main__":
    flow.config.gpu_device_num(1)
    (train_images, train_labels), (test_images, test_labels) = flow.data.load_mnist(BATCH_SIZE, BATCH_SIZE)
    for epoch in range(EPOCHS):
        for i, (images, labels) in enumerate(zip(train_images, train_labels)):
            loss = train_job(images, labels)
            if i % 20 == 0:
                print(loss.mean())
    for images, labels in zip(test_images, test_labels):
        eval_job(images, labels)(acc)
    flow.sync_default_session()
    print("accuracy: {:.1f}%".format(g_correct * 100 / g_total))
