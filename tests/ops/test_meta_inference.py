"""Every op kernel infers its output on meta tensors: the zeros fallback of the job builder is never needed
(so building never runs real kernels, and data-dependent checks never see fake data)."""

import warnings

import numpy as np
import pytest
from helpers.ops import make_job

import flowtorch as flow
import flowtorch.layers
import flowtorch.nn
import flowtorch.random
from flowtorch._src import initializers
from flowtorch._src.capture import builder as builder_mod


@pytest.fixture
def no_zeros_fallback(monkeypatch):
    def refuse(_):
        raise AssertionError("a kernel could not run on meta tensors and fell back to zeros")
    monkeypatch.setattr(builder_mod, "_to_zeros", refuse)


def test_all_kernel_families_run_on_meta(no_zeros_fallback):
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32)
    labels = np.array([1, 7], np.int32)

    def body(a, lab):
        c = flow.layers.conv2d(a, 4, 3, padding="SAME", activation=flow.nn.relu)
        c = flow.layers.batch_normalization(c, axis=1)
        p = flow.nn.avg_pool2d(flow.nn.max_pool2d(c, 3, 2, "SAME"), 2, 1, "SAME_UPPER")
        u = flow.layers.upsample_2d(p, interpolation="bilinear")
        wt = flow.get_variable("wt", (4, 2, 2, 2), initializer=initializers.ones_initializer())
        t = flow.nn.conv2d_transpose(u, wt, output_shape=(2, 2, 12, 12), strides=2, padding="SAME")
        r = flow.reshape(t, [2, -1])
        h = flow.layers.dense(r, 8, activation=flow.math.gelu)
        h = flow.layers.layer_norm(flow.layers.prelu(flow.nn.dropout(h, 0.3)))
        logits = flow.layers.dense(h, 5)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(lab, logits)
        extra = [flow.math.reduce_variance(logits, 1), flow.math.argmax(logits, 0), flow.math.top_k(logits, k=2),
                 flow.one_hot(lab, 5), flow.gather(logits, flow.math.argmax(logits), axis=1),
                 flow.slice_v2(logits, [(None, None, -1)]),
                 flow.where(flow.ones_like(logits, dtype=flow.int8), logits, logits), flow.random.shuffle(logits),
                 flow.sort(logits), flow.nn.softmax_cross_entropy_with_logits(flow.nn.softmax(logits), logits),
                 flow.nn.sigmoid_cross_entropy_with_logits(flow.math.sigmoid(logits), logits),
                 flow.random.CoinFlip(2), flow.nn.BCEWithLogitsLoss(logits, flow.math.sigmoid(logits))]
        flow.losses.add_loss(loss + flow.math.reduce_sum(extra[0]))
        return loss
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = make_job(body, [x, labels], job_type="train")(x, labels)
    assert out.shape == (2,) and out[1] == 0  # label 7 is out of range for 5 classes
