"""The bench worker: the only code importing torch; stdlib + torch only, runs without gpu-tui.

Start it with ``PYTHON -u .../worker/launch.py``; it reads one JSON plan line on stdin and writes
JSON lines on stdout (see ``protocol.py``). Modules here import torch inside functions only, so
importing them from gpu-tui (for their pure helpers) never loads torch.
"""
