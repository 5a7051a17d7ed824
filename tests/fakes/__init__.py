"""Test doubles for hardware libraries this machine lacks (NVML)."""
