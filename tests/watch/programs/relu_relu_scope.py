# OneFlow v0.1.0's test_watch_scope, in a fresh process: relu → relu inside a dict watch_scope.
import json

import numpy as np
import oneflow as flow

blob_watched = {}


@flow.global_function()
def ReluJob(x=flow.FixedTensorDef((2, 5))):
    with flow.watch_scope(blob_watched):
        return flow.nn.relu(flow.nn.relu(x))


x = np.random.uniform(-1, 1, (2, 5)).astype(np.float32)
y = ReluJob(x).get().numpy()
print(json.dumps({"keys": list(blob_watched),
                  "values": all(np.array_equal(d["blob"].numpy(), np.maximum(x, 0)) for d in blob_watched.values()),
                  "y": bool(np.array_equal(y, np.maximum(x, 0))),
                  "location": blob_watched["Relu_2/out_0"]["blob_def"].location}))
