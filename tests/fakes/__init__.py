"""Test doubles: a simulated NVML driver under nvidia-ml-py's own binding (``simulated_driver``,
and ``simulated_binding`` for a subprocess), the GPU readings it answers with
(``nvml_readings/``), a scripted bench worker, the real worker with faults injected, host
processes."""
