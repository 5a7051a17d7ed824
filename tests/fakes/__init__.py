"""Test doubles: a simulated NVML driver under the real binding, a stand-in ``pynvml`` with
faults, recorded GPU readings (``nvml_readings/``), a scripted bench worker, the real worker with
faults injected, host processes."""
