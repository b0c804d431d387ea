"""``oneflow.sysconfig``: where OneFlow's C++ headers and library were, for building custom ops against
them (flowtorch has no such library: each function says so and names what to use instead), and v0.4.0's
build flags, answered for the torch build flowtorch runs on."""

from __future__ import annotations

import torch

__all__ = ["get_compile_flags", "get_include", "get_lib", "get_link_flags", "has_rpc_backend_grpc",
           "has_rpc_backend_local", "with_cuda", "with_xla"]

_WHY = ("flow.sysconfig.{}: flowtorch has no OneFlow C++ library to build against; write the op in torch, or build "
        "it as a torch C++ extension (torch.utils.cpp_extension)")


def get_include(*_: object) -> str:
    raise NotImplementedError(_WHY.format("get_include"))


def get_lib(*_: object) -> str:
    raise NotImplementedError(_WHY.format("get_lib"))


def get_compile_flags(*_: object) -> list[str]:
    raise NotImplementedError(_WHY.format("get_compile_flags"))


def get_link_flags(*_: object) -> list[str]:
    raise NotImplementedError(_WHY.format("get_link_flags"))


def with_cuda() -> bool:
    """v0.4.0: whether the build has CUDA: torch's (``torch.backends.cuda.is_built()``)."""
    return bool(torch.backends.cuda.is_built())


def with_xla() -> bool:
    """v0.4.0: XLA was an optional OneFlow backend; flowtorch has none."""
    return False


def has_rpc_backend_grpc() -> bool:
    """v0.4.0: OneFlow's gRPC control plane; flowtorch's processes talk through torch.distributed."""
    return False


def has_rpc_backend_local() -> bool:
    """v0.4.0: OneFlow's in-process control plane for one machine, which flowtorch's one process is."""
    return True
