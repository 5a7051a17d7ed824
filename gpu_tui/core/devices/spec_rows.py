"""The spec sheet's building blocks: a labelled row and a section of rows.

Their own module so that every section builder (``spec_sheet`` for the devices,
``comm.topology_sheet`` for the links between them) shares them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpecRow:
    """One line of the sheet. ``key`` names the explanation (see
    :mod:`gpu_tui.core.devices.explain`)."""

    key: str
    label: str
    value: str
    note: str = ""
    unknown: bool = False


@dataclass(frozen=True)
class SpecSection:
    """A device or topic on the sheet."""

    title: str
    rows: tuple[SpecRow, ...]
    simulated: bool = False
    label: str = ""
    """A short name for lists (the title when empty)."""
    problem: bool = False
    """True when the section reports something wrong (a lost GPU, a driver problem)."""
