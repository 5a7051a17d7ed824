"""Fakes for the tests alone; the NVML double, shared with scripts/, is gpu_tui.testing."""
