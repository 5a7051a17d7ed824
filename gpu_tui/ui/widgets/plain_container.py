"""Containers that draw nothing of their own: only their children reach the screen."""

from __future__ import annotations

from textual.containers import Container
from textual.widgets import TabPane


class PlainContainer(Container):
    """For layout only. On every repaint Textual renders each container behind the repainted
    rows, line by line, through its styles cache; ``BLANK`` makes that one blank strip, which
    the children cover. Only for containers with no border, padding or content of their own.
    """

    BLANK = True


class PlainTabPane(TabPane):
    """A tab holding one pane that fills it (see ``PlainContainer``)."""

    BLANK = True
