"""Widgets and playback logic of the Kitchen pane (the race, its controls and its plots)."""
