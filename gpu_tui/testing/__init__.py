"""Test doubles and process helpers shared by the tests and the scripts in ``scripts/``.

Nothing in the app imports this package. It lives here, not under ``tests/``, so that a script
runs against the installed ``gpu_tui`` with no ``sys.path`` edits:

- :mod:`gpu_tui.testing.fake_nvml`: a stand-in for nvidia-ml-py's ``pynvml``, driven by the
  GPU readings recorded in ``gpu_tui/testing/nvml_readings/``, with fault injection.
- :mod:`gpu_tui.testing.processes`: running gpu-tui as a user does (a headless command, or the
  TUI on a pseudo-terminal of its own) and watching the processes it leaves behind.

Like ``gpu_tui.core`` it never imports Textual or torch (a test checks it).
"""
