"""gpu-tui: see your CPU and GPUs, see why GPUs win at AI work, then measure it."""

__version__ = "0.1.0"
