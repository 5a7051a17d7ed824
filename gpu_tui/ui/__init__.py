"""The Textual app: a thin view over :mod:`gpu_tui.core`."""
