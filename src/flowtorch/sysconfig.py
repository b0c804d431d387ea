"""``oneflow.sysconfig``: where OneFlow's C++ headers and library were, for building custom ops against
them. flowtorch has no such library: each function says so and names what to use instead."""

from __future__ import annotations

__all__ = ["get_compile_flags", "get_include", "get_lib", "get_link_flags"]

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
