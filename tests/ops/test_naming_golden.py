"""Golden lists of logical blob names for a small network built in a known counter state (spec §4, §10)."""

import numpy as np
from helpers.ops import lbns, make_job, next_id

import flowtorch as flow
import flowtorch.layers
import flowtorch.nn
from flowtorch._src import initializers


def test_lenet_like_train_job_names():
    x = np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32)
    y = np.array([1, 3], np.int32)
    seen = []

    def body(images, labels):
        init = initializers.truncated_normal(0.1)
        c1 = flow.layers.conv2d(images, 4, 3, padding="SAME", activation=flow.nn.relu, kernel_initializer=init)
        p1 = flow.nn.max_pool2d(c1, 2, 2, "SAME")
        r = flow.reshape(p1, [2, -1])
        h = flow.layers.dense(r, 8, activation=flow.nn.relu, kernel_initializer=init)
        h = flow.nn.dropout(h, rate=0.5)
        logits = flow.layers.dense(h, 5, kernel_initializer=init, name="fc2")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
        flow.losses.add_loss(loss)
        seen.extend(images.builder.all_blobs)
        return loss
    n = next_id()
    make_job(body, [x, y], job_type="train")(x, y)
    i = n + 2  # Input_n, Input_{n+1}
    assert lbns(seen) == [
        f"Input_{n}/out", f"Input_{n + 1}/out",
        f"Conv2D_{i}-weight/out", f"Conv2d_{i + 1}/out_0", f"Conv2D_{i}-bias/out", f"Conv2D_{i}-bias_add/out_0",
        f"Conv2D_{i}-activation/out_0",
        f"MaxPool2D_{i + 2}/y_0",
        f"Reshape_{i + 3}/out_0",
        f"Dense_{i + 4}-weight/out", f"Dense_{i + 4}_matmul/out_0", f"Dense_{i + 4}-bias/out",
        f"Dense_{i + 4}_bias_add/out_0", f"Dense_{i + 4}_activation/out_0",
        f"RandomMaskLike_{i + 5}/out_0", f"Dropout_{i + 6}/out_0",
        "fc2-weight/out", "fc2_matmul/out_0", "fc2-bias/out", "fc2_bias_add/out_0",
        f"SparseSoftmaxCrossEntropy_{i + 7}/prob_0", f"SparseSoftmaxCrossEntropy_{i + 7}/out_0",
    ]


def test_namespace_prefixes_layer_variables_and_ops():
    x = np.zeros((2, 3), np.float32)
    seen = []

    def body(a):
        with flow.name_scope("net"):
            out = flow.layers.dense(a, 4, name="fc")
        seen.extend(a.builder.all_blobs[1:])
        return out
    make_job(body, [x])(x)
    assert lbns(seen) == ["net-fc-weight/out", "net-fc_matmul/out_0", "net-fc-bias/out", "net-fc_bias_add/out_0"]
