"""The base class of every pane: the app hands it the config, the inventory and its visibility."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widget import Widget

from gpu_tui.core.devices.model import Inventory
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.worker_failures import ReportsWorkerFailures


class Pane(ReportsWorkerFailures, Widget):
    """A tab's content. Attributes down: the app sets ``inventory`` and ``active``.

    Subclasses react in ``watch_inventory`` (hardware known; discovery runs in a thread, so it
    arrives after mount) and ``watch_active`` (shown or hidden: a hidden pane stops its timers
    and draws nothing). A background task of theirs that fails is reported, and
    ``worker_failed`` lets them start afresh.
    """

    inventory: reactive[Inventory | None] = reactive(None)
    active: reactive[bool] = reactive(False)

    LEGEND: tuple[tuple[str, str], ...] = ()
    """The pane's short labels and what each means, listed on the ``?`` screen."""

    def __init__(self, config: AppConfig, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
