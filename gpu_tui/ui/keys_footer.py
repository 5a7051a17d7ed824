"""The footer: the pane's keys first, then ``?`` and ``q``. When the keys do not all fit, the footer
first closes up the space between them, then leaves out the palette's key (Ctrl+P still opens it,
and the ``?`` screen lists it), and only then leaves out whole keys, from the first that does not
fit (``?`` then reads "More keys", and its screen lists them): no label is ever cut and ``?`` and
``q`` always show."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

from gpu_tui.ui.widgets.textual_internals import FooterKey, FooterLabel, KeyGroup

EVERYWHERE = frozenset({"question_mark", "q"})
"""The app's keys the footer always keeps (pane keys are on the tab bar instead)."""
HELP_KEY = "question_mark"
MORE_KEYS = "More keys"
"""``?``'s label while some of the pane's keys are left out: says there are more, and where."""


def units(children: list[Widget]) -> list[list[Widget]]:
    """The footer's items as they must stay together: a key group with the label after it."""
    grouped: list[list[Widget]] = []
    for child in children:
        if isinstance(child, FooterLabel) and grouped and isinstance(grouped[-1][0], KeyGroup):
            grouped[-1].append(child)
        else:
            grouped.append([child])
    return grouped


def width(widget: Widget) -> int:
    """The columns a footer item takes, its margins included."""
    return widget.outer_size.width + widget.styles.margin.width


class KeysFooter(Footer):
    """Textual's footer, fitted to its width once laid out (and again on every resize)."""

    def compose(self) -> ComposeResult:
        # Other keys (another pane's) may fit in the roomy layout: start from it every time.
        self.set_reactive(Footer.compact, False)
        self.set_class(False, "-compact", update=False)
        self._roomy_width: int | None = None
        """The keys' width in the roomy layout, once the footer has closed up."""
        yield from super().compose()
        self.call_after_refresh(self.fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self.recompose)

    def fit(self, tries: int = 10) -> None:
        """Close up, then hide the palette's key, then the pane's keys that would be cut."""
        if not self.is_attached:
            return
        if any(not child.outer_size.width for child in self.children) and tries:
            self.call_after_refresh(self.fit, tries - 1)  # not laid out yet
            return
        kept: list[Widget] = []
        palette: list[Widget] = []
        pane: list[list[Widget]] = []
        for unit in units(list(self.children)):
            first = unit[0]
            if first.has_class("-command-palette"):
                palette.extend(unit)
            elif isinstance(first, FooterKey) and first.key in EVERYWHERE:
                kept.extend(unit)
            else:
                pane.append(unit)
        needed = sum(width(widget) for unit in pane for widget in unit)
        room = self.size.width - sum(map(width, kept))
        total = sum(map(width, self.children))
        if needed > room - sum(map(width, palette)) and not self.compact and tries:
            self._roomy_width = total
            self.compact = True
            self.call_after_refresh(self.fit, tries - 1)
            return
        if self.compact and self._roomy_width is not None and total >= self._roomy_width and tries:
            self.call_after_refresh(self.fit, tries - 1)  # not laid out closed up yet
            return
        if needed <= room - sum(map(width, palette)):
            room -= sum(map(width, palette))
        else:
            for widget in palette:
                widget.display = False
        if needed > room:  # some keys are left out: ``?`` says so, in the room it grows by
            room -= self._say_more_keys(kept)
        used, fits = 0, True
        for unit in pane:
            used += sum(map(width, unit))
            fits = fits and used <= room
            for widget in unit:
                widget.display = fits

    def _say_more_keys(self, kept: list[Widget]) -> int:
        """Label ``?`` "More keys"; returns the columns that takes beyond its usual label."""
        for widget in kept:
            if isinstance(widget, FooterKey) and widget.key == HELP_KEY:
                grown = len(MORE_KEYS) - len(widget.description)
                widget.description = MORE_KEYS
                widget.refresh(layout=True)
                return max(grown, 0)
        return 0
