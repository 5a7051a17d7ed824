"""The Guide pane's sections, one widget per module."""
