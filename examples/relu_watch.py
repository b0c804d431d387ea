# A OneFlow 0.x program, unedited: run it with `python -m flowtorch examples/relu_watch.py`.
import numpy as np
import oneflow as flow
import oneflow.typing as tp


def watch_handler(y: tp.Numpy):
    print("out:", y)


@flow.global_function()
def ReluJob(x: tp.Numpy.Placeholder((5,), dtype=flow.float)) -> None:
    y = flow.nn.relu(x)
    flow.watch(y, watch_handler)


flow.config.gpu_device_num(1)
data = np.array([0.15727027, 0.45887455, 0.10939325, 0.66666406, -0.62354755], dtype=np.float32)
print("in:", data)
ReluJob(data)
flow.sync_default_session()
