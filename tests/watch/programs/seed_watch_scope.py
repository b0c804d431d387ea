# Seed 002's watch_scope program (OneFlow v0.1 API), unedited apart from the checks at the end, which
# print one JSON line for the test to read. Runs in a fresh process so the global name counter starts at 0.
import json

import numpy as np
import oneflow as flow


def get_train_config():
    config = flow.function_config()
    config.default_data_type(flow.float)
    config.train.primary_lr(0.1)
    config.train.model_update_conf({"naive_conf": {}})
    return config


tensor_watched = {}
tensor_grad_watched = {}


@flow.global_function(get_train_config())
def train_job(images=flow.FixedTensorDef((8, 1, 28, 28), dtype=flow.float),
              labels=flow.FixedTensorDef((8,), dtype=flow.int32)):
    initializer = flow.truncated_normal(0.1)
    reshape = flow.reshape(images, [images.shape[0], -1])
    hidden = flow.layers.dense(reshape, 512, activation=flow.nn.relu, kernel_initializer=initializer)
    with flow.watch_scope(tensor_watched, tensor_grad_watched):
        logits = flow.layers.dense(hidden, 10, kernel_initializer=initializer)
    loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
    flow.losses.add_loss(loss)

    return loss


flow.train.CheckPoint().init()
images = np.random.uniform(-10, 10, (8, 1, 28, 28)).astype(np.float32)
labels = np.random.randint(-10, 10, (8,)).astype(np.int32)
before = {k: v.numpy() for k, v in flow.get_all_variables().items()}
loss = train_job(images, labels).get().mean()

print("view watched tensors")
for lbn in tensor_watched:
    print(lbn)
print("view watched grad tensors")
for lbn in tensor_grad_watched:
    print(lbn)

# --- checks against numpy (not in the seed) -----------------------------------------------------------
value = {k: v["blob"].numpy() for k, v in tensor_watched.items()}
grad = {k: v["blob"].numpy() for k, v in tensor_grad_watched.items()}
x = images.reshape(8, -1).astype(np.float64)
hidden = np.maximum(x @ before["Dense_5-weight"].T + before["Dense_5-bias"], 0)
w, b = before["Dense_6-weight"], before["Dense_6-bias"]
matmul = hidden @ w.T
logits = matmul + b
p = np.exp(logits - logits.max(1, keepdims=True))
p /= p.sum(1, keepdims=True)
valid = (labels >= 0) & (labels < 10)
dlogits = p.copy()
dlogits[np.arange(8)[valid], labels[valid]] -= 1
dlogits[~valid] = 0  # out-of-range labels contribute nothing (spec §10)
checks = {
    "value_keys": sorted(value), "grad_keys": sorted(grad),
    "shapes": {k: list(v.shape) for k, v in sorted(value.items())},
    "dtypes": sorted({str(v.dtype) for v in list(value.values()) + list(grad.values())}),
    "weight": bool(np.allclose(value["Dense_6-weight/out"], w)),
    "bias": bool(np.allclose(value["Dense_6-bias/out"], b)),
    "matmul": bool(np.allclose(value["Dense_6_matmul/out_0"], matmul, rtol=1e-4, atol=1e-3)),
    "bias_add": bool(np.allclose(value["Dense_6_bias_add/out_0"], logits, rtol=1e-4, atol=1e-3)),
    "grad_bias_add": bool(np.allclose(grad["Dense_6_bias_add/out_0"], dlogits, atol=1e-5)),
    "grad_matmul": bool(np.allclose(grad["Dense_6_matmul/out_0"], dlogits, atol=1e-5)),
    "grad_bias": bool(np.allclose(grad["Dense_6-bias/out"], dlogits.sum(0), atol=1e-5)),
    "grad_weight": bool(np.allclose(grad["Dense_6-weight/out"], dlogits.T @ hidden, rtol=1e-4, atol=1e-3)),
    "location": tensor_watched["Dense_6_matmul/out_0"]["blob_def"].location,
    "blob_def": [tensor_watched["Dense_6_matmul/out_0"]["blob_def"].op_name,
                 tensor_watched["Dense_6_matmul/out_0"]["blob_def"].blob_name,
                 list(tensor_watched["Dense_6_matmul/out_0"]["blob_def"].shape)],
}
print("CHECKS " + json.dumps(checks))
