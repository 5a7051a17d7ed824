"""RowsWidget: a tick repaints only the rows whose text or colour changed."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region

from gpu_tui.ui.monitor.rows import RowsWidget


class Rows(RowsWidget):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[Text] = [Text("a"), Text("b"), Text("c")]

    def build_rows(self, width: int, height: int) -> list[Text]:
        return [text.copy() for text in self.texts]


class RowsApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Rows()


async def test_only_changed_rows_are_marked_dirty(monkeypatch: pytest.MonkeyPatch) -> None:
    app = RowsApp()
    async with app.run_test(size=(20, 5)) as pilot:
        rows = app.query_one(Rows)
        rows.update_rows()
        await pilot.pause()
        assert rows.render_line(1).text == "b".ljust(20)
        calls: list[tuple[tuple[Region, ...], dict[str, Any]]] = []

        def refresh(*regions: Region, **options: Any) -> Rows:
            calls.append((regions, options))
            return rows

        monkeypatch.setattr(rows, "refresh", refresh)
        rows.update_rows()
        assert calls == []  # the same rows: nothing to repaint
        rows.texts[1] = Text("B")
        rows.update_rows()
        assert calls == [((Region(0, 1, 20, 1),), {})]
        rows.texts[2] = Text("c", style="bold")  # same letters, new look
        rows.update_rows()
        assert calls[-1] == ((Region(0, 2, 20, 1),), {})
        rows.texts.append(Text("d"))  # a new row count changes an auto height
        rows.update_rows()
        assert calls[-1] == ((), {"layout": True})
        assert rows.render().plain == "a\nB\nc\nd"
