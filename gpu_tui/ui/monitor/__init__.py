"""Widgets of the Monitor pane: host panel, GPU cards, process table, and their drawing helpers."""
