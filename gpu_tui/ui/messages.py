"""Messages the app broadcasts to its panes."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from gpu_tui.core.devices.model import Inventory


@dataclass
class InventoryReady(Message):
    """Hardware discovery finished (it runs in a thread, off the event loop)."""

    inventory: Inventory
