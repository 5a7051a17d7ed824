"""Tests of the kitchen model, its timelines, scenarios and the ``gpu-tui kitchen`` command."""
