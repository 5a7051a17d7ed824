"""Fleet: many machines' GPUs read through Prometheus; this machine's readings exported to it.

The one range kept here is the idle window's, which the command line checks before it loads
the reader (a hundred milliseconds of imports that ``gpu-tui fleet --help`` need not pay)."""

from gpu_tui.core.limits import Limit

IDLE_MINUTES = Limit("the idle window", 0.1, 24 * 60, "minutes")
"""6 s to a day: 6 s is a window of a few scrapes, for a demo or a test (a GPU is flagged only
once its readings cover the whole window, so a short one is never flagged early)."""
