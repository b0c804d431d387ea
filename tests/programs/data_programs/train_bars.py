"""A OneFlow 0.4-style training program reading its images inside the job: OFRecord reader, random-crop
decode, resize, mirror + normalize, a small CNN, Adam; prints the loss of each step, then evaluates with a
center-crop predict job and prints the accuracy."""

import sys

import oneflow as flow
import oneflow.typing as tp

DATA, STEPS, BATCH = sys.argv[1], int(sys.argv[2]), 16


def cnn(images):
    init = flow.truncated_normal(0.1)
    x = flow.layers.conv2d(images, 16, 3, padding="SAME", activation=flow.nn.relu, kernel_initializer=init,
                           name="conv1")
    x = flow.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID")
    x = flow.layers.conv2d(x, 32, 3, padding="SAME", activation=flow.nn.relu, kernel_initializer=init, name="conv2")
    x = flow.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID")
    x = flow.reshape(x, [x.shape[0], -1])
    return flow.layers.dense(x, 10, kernel_initializer=init, name="fc")


def train_data():
    records = flow.data.ofrecord_reader(DATA, batch_size=BATCH, data_part_num=4, part_name_suffix_length=5,
                                        random_shuffle=True, shuffle_after_epoch=True, seed=1)
    labels = flow.data.OFRecordRawDecoder(records, "class/label", shape=(), dtype=flow.int32)
    images = flow.data.OFRecordImageDecoderRandomCrop(records, "encoded", color_space="RGB", seed=2,
                                                      random_area=[0.8, 1.0], random_aspect_ratio=[0.9, 1.1])
    images = flow.image.Resize(images, target_size=[24, 24])[0]
    images = flow.image.CropMirrorNormalize(images, mirror_blob=flow.random.CoinFlip(batch_size=BATCH, seed=3),
                                            color_space="RGB", output_layout="NCHW", mean=[100.0], std=[80.0],
                                            output_dtype=flow.float)
    return labels, images


def eval_data():
    records = flow.data.ofrecord_reader(DATA, batch_size=BATCH, data_part_num=4, part_name_suffix_length=5)
    labels = flow.data.OFRecordRawDecoder(records, "class/label", shape=(), dtype=flow.int32)
    images = flow.data.OFRecordImageDecoder(records, "encoded", color_space="RGB")
    images = flow.image.Resize(images, resize_side="shorter", keep_aspect_ratio=True, target_size=24)[0]
    images = flow.image.CropMirrorNormalize(images, color_space="RGB", crop_h=24, crop_w=24, mean=[100.0],
                                            std=[80.0], output_dtype=flow.float)
    return labels, images


@flow.global_function(type="train")
def train_job() -> tp.Numpy:
    labels, images = train_data()
    loss = flow.math.reduce_mean(flow.nn.sparse_softmax_cross_entropy_with_logits(labels, cnn(images)))
    flow.optimizer.Adam(flow.optimizer.PiecewiseConstantScheduler([], [0.003])).minimize(loss)
    return loss


@flow.global_function(type="predict")
def eval_job():
    labels, images = eval_data()
    return flow.math.argmax(cnn(images)), labels


for _ in range(STEPS):
    print("loss", float(train_job()[0]))
right = total = 0
for _ in range(4):
    predictions, labels = eval_job().get()
    right += int((predictions.numpy() == labels.numpy()).sum())
    total += labels.numpy().size
print("accuracy", right / total)
