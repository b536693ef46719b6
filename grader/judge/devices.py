"""The devices a grading can run on, and whether this machine has CUDA, asked without taking it."""

from __future__ import annotations

import os

from grader.core.exercise import Device

ALL_DEVICES: tuple[Device, ...] = ("cpu", "cuda")
_NVML_CHECK = "PYTORCH_NVML_BASED_CUDA_CHECK"
#: what CUDA needs to exist: NVIDIA's driver (also in containers), WSL's GPU, ROCm's (torch.cuda
#: on AMD)
_GPU_DEVICE_FILES = ("/dev/nvidiactl", "/proc/driver/nvidia", "/dev/dxg", "/dev/kfd")


def cuda_available() -> bool:
    """Whether CUDA can be used, asked through NVML so that this process can still fork healthy
    children.

    torch's default check initialises the CUDA driver, after which forked children cannot use
    CUDA. Where no GPU driver has made its device files, the answer is no without importing torch
    here, which costs as much as grading a torch exercise.
    """
    if not any(os.path.exists(path) for path in _GPU_DEVICE_FILES):
        return False
    import torch

    previous = os.environ.get(_NVML_CHECK)
    os.environ[_NVML_CHECK] = "1"
    try:
        return bool(torch.cuda.is_available())
    finally:
        if previous is None:
            del os.environ[_NVML_CHECK]
        else:
            os.environ[_NVML_CHECK] = previous
