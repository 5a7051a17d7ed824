"""The ``?`` screen: the keys of the place you are in, those that work everywhere, and how a text
field takes text — every key with words, read off the bindings themselves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import HorizontalGroup, VerticalGroup, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from gpu_tui.ui.pane import Pane
from gpu_tui.ui.pane_registry import PANES

TITLES = {spec.name: spec.title for spec in PANES}


@dataclass(frozen=True)
class KeyRow:
    """One line: the keys (as shown) and what they do."""

    keys: str
    words: str
    more: str = ""
    """Said after the words, dimmed (the binding's tooltip)."""
    enabled: bool = True


@dataclass(frozen=True)
class KeySection:
    title: str
    rows: tuple[KeyRow, ...]


FIELDS = KeySection(
    "Text fields",
    (
        KeyRow(
            "enter",
            "Edit",
            "as a click does, or typing a letter that is no key (a digit, in a number's field)",
        ),
        KeyRow("esc", "Leave the field"),
        KeyRow("enter", "Done", "when editing"),
        KeyRow("", "Until a field is edited, every key listed here works in it."),
        KeyRow("", "A dialog's path field takes text from the first key; esc closes it."),
    ),
)
LISTS = KeySection(
    "Lists and tables",
    (
        KeyRow("↑ ↓ k j", "Move", "up, down"),
        KeyRow("pgup pgdn", "A page up, down"),
        KeyRow("tab", "Next area", "shift+tab goes back"),
        KeyRow("enter", "Choose"),
    ),
)


def _row(app: App[object], binding: Binding, enabled: bool = True) -> KeyRow:
    return KeyRow(app.get_key_display(binding), binding.description, binding.tooltip, enabled)


def _merge(rows: list[KeyRow]) -> tuple[KeyRow, ...]:
    """One line per meaning: keys that do the same thing share it (``+ =``, ``q ^c``)."""
    merged: dict[str, KeyRow] = {}
    for row in rows:
        before = merged.get(row.words)
        if before is None:
            merged[row.words] = row
            continue
        keys = before.keys.split(" ")
        keys += [] if row.keys in keys else [row.keys]
        more = before.more or row.more
        merged[row.words] = KeyRow(" ".join(keys), row.words, more, before.enabled or row.enabled)
    return tuple(merged.values())


def _place(node: DOMNode, screen: Screen[object]) -> str:
    """Which section a binding of ``node`` belongs to: its pane's, or the dialog's."""
    for ancestor in node.ancestors_with_self:
        if isinstance(ancestor, Pane):
            return TITLES.get(ancestor.id or "", "This pane")
    return "This dialog" if isinstance(screen, ModalScreen) else "Here"


def _ours(node: DOMNode, binding: Binding) -> bool:
    """Whether one of gpu-tui's classes declares ``binding`` (not a Textual list or field it
    builds on: their Scroll Left, Page Right … are summed up in ``LISTS``)."""
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("gpu_tui"):
            continue
        for declared in cls.__dict__.get("BINDINGS", ()):
            if isinstance(declared, Binding) and (declared.action, declared.description) == (
                binding.action,
                binding.description,
            ):
                return True
    return False


def everywhere(app: App[object]) -> KeySection:
    """The app's own keys (they work from every pane, form and dialog) and the palette."""
    rows = [
        _row(app, b)
        for b in type(app).BINDINGS
        if isinstance(b, Binding) and not b.action.startswith("move(")  # j/k: under LISTS
    ]
    rows.append(
        KeyRow(
            app.get_key_display(Binding(app.COMMAND_PALETTE_BINDING, "")),
            "Commands",
            "any pane, scenario or action, found by name",
        )
    )
    return KeySection("Everywhere", _merge(rows))


def place_sections(screen: Screen[object]) -> list[KeySection]:
    """The bindings of the focused widget and what holds it, those of gpu-tui's own widgets
    (Textual's lists and fields are summed up in ``LISTS`` and ``FIELDS``)."""
    places: dict[str, list[KeyRow]] = {}
    for active in screen.active_bindings.values():
        node = active.node
        app_wide = isinstance(node, App) or (
            isinstance(node, Screen) and not isinstance(node, ModalScreen)
        )
        if app_wide or not _ours(node, active.binding):
            continue
        place = _place(node, screen)
        places.setdefault(place, []).append(_row(screen.app, active.binding, active.enabled))
    return [KeySection(title, _merge(rows)) for title, rows in places.items()]


def legends(app: App[object]) -> list[KeySection]:
    """What the shown pane's short labels mean (the Monitor's MCTL, SMCLK …)."""
    panes: dict[str, Pane] = getattr(app, "panes", {})
    return [
        KeySection(
            f"What the {TITLES.get(name, name)} shows", tuple(KeyRow(*row) for row in shown.LEGEND)
        )
        for name, shown in panes.items()
        if shown.active and shown.LEGEND
    ]


def section_table(section: KeySection, key_width: int = 0) -> Table:
    """One section: keys right-aligned in a column ``key_width`` wide (the same in every
    section, so the words line up down the screen), then the action and what it does."""
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="bold", no_wrap=True, min_width=key_width)
    table.add_column()
    table.title = section.title
    table.title_justify = "left"
    table.title_style = "bold underline"
    for row in section.rows:
        words = Text(row.words)
        if row.more:
            words.append(f": {row.more}", style="dim")
        if not row.enabled:
            words.stylize("dim")
        table.add_row(row.keys, words)
    return table


class KeysScreen(ModalScreen[None]):
    """Every key, in words: the place's keys on the left, the rest on the right. ``?`` or Esc
    closes it; a pane key closes it and shows that pane."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Close"),
        # The screen lists j and k as moving down and up: here too.
        Binding("j", "scroll_keys(1)", "Down", show=False),
        Binding("k", "scroll_keys(-1)", "Up", show=False),
    ]

    def __init__(self, place: list[KeySection], shared: list[KeySection]) -> None:
        super().__init__()
        self.place = place
        self.shared = shared

    @classmethod
    def of(cls, screen: Screen[object]) -> KeysScreen:
        """The keys screen for where the keyboard is now on ``screen``, with the labels of the
        pane shown."""
        return cls(
            [*place_sections(screen), LISTS, *legends(screen.app)],
            [everywhere(screen.app), FIELDS],
        )

    def sections(self) -> list[KeySection]:
        return [*self.place, *self.shared]

    def compose(self) -> ComposeResult:
        widest = max(cell_len(row.keys) for section in self.sections() for row in section.rows)
        with VerticalScroll(id="keys-box"), HorizontalGroup(id="keys-columns"):
            for column in (self.place, self.shared):
                with VerticalGroup(classes="keys-column"):
                    for section in column:
                        table = section_table(section, widest)
                        yield Static(table, classes="keys-section")

    def action_scroll_keys(self, lines: int) -> None:
        self.query_one("#keys-box", VerticalScroll).scroll_relative(y=lines, animate=False)

    def on_mount(self) -> None:
        box = self.query_one("#keys-box")
        box.border_title = "Keys  ·  ? or esc closes"
