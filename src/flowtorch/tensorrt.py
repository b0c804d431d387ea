"""``oneflow.tensorrt``: OneFlow's TensorRT int8 calibration helpers. flowtorch runs on PyTorch, not through
OneFlow's XRT/TensorRT path: each function says so and names what to use instead."""

from __future__ import annotations

__all__ = ["cache_int8_calibration", "write_int8_calibration"]

_WHY = ("flow.tensorrt.{}: flowtorch has no TensorRT path (OneFlow's XRT); export the model "
        "(flowtorch.export, then torch.onnx or Torch-TensorRT) and calibrate there")


def cache_int8_calibration(*_: object) -> None:
    raise NotImplementedError(_WHY.format("cache_int8_calibration"))


def write_int8_calibration(path: str) -> None:
    raise NotImplementedError(_WHY.format("write_int8_calibration"))
