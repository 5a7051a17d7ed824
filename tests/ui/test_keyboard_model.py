"""The keyboard model with Pilot: the app's keys act from every text field and dialog and type
nothing; a field takes text once entered and Esc leaves it; the palette finds panes, scenarios
and actions; the footer keeps each pane's main keys whole at 80×24; ``?`` lists every key."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import DataTable, Footer, Input, Static
from textual.widgets._footer import FooterKey

from gpu_tui.ui.app import GpuTuiApp
from gpu_tui.ui.bench.path_dialog import PathDialog
from gpu_tui.ui.guide.cost_view import CLOUD_FIELDS, NODE_FIELDS
from gpu_tui.ui.keys_screen import KeysScreen
from gpu_tui.ui.palette import pane_bindings
from gpu_tui.ui.pane_registry import PANES
from gpu_tui.ui.widgets.field import Field
from tests.polling import until

SIZE = (80, 24)
GUIDE_FORMS = {
    "fit": ("f", ["#fit-params", "#fit-context", "#fit-batch"]),
    "cost": ("o", [f"#cost-{field.id}" for field in (*CLOUD_FIELDS, *NODE_FIELDS)]),
    "catalog": ("c", ["#guide-filter"]),
}
"""Every text field of the Guide, by the section key that shows its form."""


@pytest.fixture(autouse=True)
def _no_saved_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Bench and Cost views read saved runs: give each test an empty store of its own."""
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path / "data"))


def shown(app: GpuTuiApp) -> str:
    return next(name for name, pane in app.panes.items() if pane.display)


async def into_guide_field(pilot: Pilot[int], section: str, selector: str) -> Field:
    """Show the section and put the keyboard on the field, as Tab or ↑/↓ would: selected, not
    entered."""
    field = pilot.app.query_one(selector, Field)
    if not field.is_on_screen:
        await pilot.press(section)
    field.focus()
    await pilot.pause()
    assert pilot.app.focused is field
    assert not field.editing
    return field


ELSEWHERE = (("1", "specs"), ("2", "monitor"), ("3", "kitchen"), ("4", "bench"))


@pytest.mark.parametrize("form", list(GUIDE_FORMS))
async def test_app_keys_act_from_every_guide_field_and_type_nothing(
    app_factory: Callable[..., GpuTuiApp], form: str
) -> None:
    section, selectors = GUIDE_FORMS[form]
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        fields = [app.query_one(s, Field) for s in selectors]
        values = [field.value for field in fields]
        for number, selector in enumerate(selectors):
            # Every pane key from the form's first field and one from its last; from each
            # field between, the Guide's own key (a switch to another pane and back costs two
            # whole refreshes, and every field is the same Field: typed, "5" would show). A
            # number's field takes the digits as text (tested below): only ? and q there.
            if fields[number].takes_digits:
                keys = []
            elif number == 0:
                keys = list(ELSEWHERE)
            elif number == len(selectors) - 1:
                keys = [ELSEWHERE[number % len(ELSEWHERE)]]
            else:
                keys = [("5", "guide")]
            for key, pane in keys:
                await into_guide_field(pilot, section, selector)
                await pilot.press(key)
                assert shown(app) == pane, (selector, key)
                if pane != "guide":
                    await pilot.press("5")
                    assert shown(app) == "guide"
            if number == 0:
                await into_guide_field(pilot, section, selector)
                await pilot.press("question_mark")
                assert isinstance(app.screen, KeysScreen)
                await pilot.press("question_mark")
                assert not isinstance(app.screen, KeysScreen)
            assert [field.value for field in fields] == values
        await into_guide_field(pilot, section, selectors[-1])
        await pilot.press("q")
    assert app.return_code == 0
    assert [field.value for field in fields] == values


@pytest.mark.parametrize(("section", "selector"), [("f", "#fit-context"), ("o", "#cost-price")])
async def test_a_digit_typed_on_a_numbers_field_is_the_number_not_a_pane_key(
    app_factory: Callable[..., GpuTuiApp], section: str, selector: str
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        field = await into_guide_field(pilot, section, selector)
        await pilot.press(*"32768")  # selected: the first digit replaces the whole value
        assert shown(app) == "guide"
        assert field.editing
        assert field.value == "32768"
        await pilot.press("enter")  # done
        assert not field.editing
        if app.focused is field:  # the form keeps the keyboard: a digit is still a number here
            await pilot.press("1")
            assert field.editing
            assert field.value == "1"
            await pilot.press("escape")  # out of the form: the digits choose panes again
        assert app.focused is not field
        await pilot.press("2")
        assert shown(app) == "monitor"
        assert field.value in ("32768", "1")


async def test_the_bench_dialog_takes_every_printable_key_as_text(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    """A dialog exists to take a path: digits (pane keys elsewhere), q (quit) and ? are text
    in it from the first key, and only Esc leaves it."""
    app = app_factory(pane="bench")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")  # compare: no saved runs, so the dialog is its field alone
        await until(pilot, lambda: isinstance(app.screen, PathDialog), "the path dialog")
        field = app.screen.query_one("#path-input", Field)
        await until(pilot, lambda: app.focused is field, "the field focused")
        typed = "~/runs/q6-2?.json"
        await pilot.press(*typed)
        assert field.value == typed
        assert isinstance(app.screen, PathDialog)  # no key left the dialog
        assert shown(app) == "bench"
        await pilot.press("escape")
        assert not isinstance(app.screen, PathDialog)
        await pilot.press("q")  # outside the dialog, q quits again
    assert app.return_code == 0


async def test_the_export_dialog_accepts_with_enter_and_edits_from_a_letter(
    app_factory: Callable[..., GpuTuiApp], tmp_path: Path
) -> None:
    app = app_factory(pane="bench")
    chosen: list[Path | None] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        default = str(tmp_path / "run")
        app.push_screen(PathDialog("Export", "Enter writes", default), chosen.append)
        await pilot.pause()
        await pilot.press("enter")  # what it shows, as it is
        assert chosen == [Path(default)]
        app.push_screen(PathDialog("Export", "Enter writes", default), chosen.append)
        await pilot.pause()
        field = app.screen.query_one("#path-input", Field)
        await pilot.press("end", "2", "b")  # End enters the field: now digits are text
        assert field.editing
        await pilot.press("enter")
        assert chosen[-1] == Path(default + "2b")


async def test_a_field_takes_text_only_once_entered_and_esc_leaves_it(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("right_square_bracket", "right_square_bracket")  # Catalog, Bars, Fit
        model = app.query_one("#fit-params", Field)
        assert app.focused is model
        assert not model.editing
        await pilot.press("enter")  # entered: the selected text is replaced by what is typed
        assert model.editing
        await pilot.press(*"qwen3-32b")
        assert model.value == "qwen3-32b"
        assert shown(app) == "guide"
        assert app.return_code is None
        await pilot.press("escape")  # leaves the field: the keyboard goes to the results
        assert not model.editing
        assert isinstance(app.focused, DataTable)
        # A letter no key uses enters the field and is typed; one that is a key acts.
        model.focus()
        await pilot.pause()
        await pilot.press("l")
        assert model.editing
        assert model.value == "l"
        await pilot.press("escape")
        model.focus()
        await pilot.pause()
        await pilot.press("o")  # the Cost section's key
        assert app.query_one("#guide-sections").active == "guide-cost"  # type: ignore[attr-defined]
        assert model.value == "l"
        # A click enters a field too.
        await pilot.press("f")
        batch = app.query_one("#fit-batch", Field)
        await pilot.click(batch)
        assert app.focused is batch
        assert batch.editing
        await pilot.press("end", "6")
        assert batch.value == "16"
        await pilot.press("enter")  # done: the keyboard goes to the results
        assert not batch.editing
        await pilot.press("2")
        assert shown(app) == "monitor"
        assert batch.value == "16"


async def test_slash_enters_the_catalog_filter_and_esc_hands_back_the_keys(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"h100")
        field = app.query_one("#guide-filter", Field)
        assert field.editing
        assert field.value == "h100"
        await pilot.press("escape")
        assert isinstance(app.focused, DataTable)
        await pilot.press("2")
        assert shown(app) == "monitor"
        assert field.value == "h100"


async def palette_hits(
    pilot: Pilot[int], query: str, expect: str, *, typed: bool = True
) -> list[str]:
    """Open the palette, type ``query`` (or paste it: ``typed=False``), wait for ``expect``
    among the hits, and read what it offers, best first."""
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), "the palette")
    if typed:
        await pilot.press(*query)
    else:
        pilot.app.screen.query_one(Input).value = query
    commands = pilot.app.screen.query_one(CommandList)

    def hits() -> list[str]:
        return [
            commands.get_option_at_index(index).hit.text or ""  # type: ignore[attr-defined]
            for index in range(commands.option_count)
        ]

    await until(pilot, lambda: expect in hits(), f"{expect!r} among the hits for {query!r}")
    await pilot.pause()
    return hits()


async def choose(pilot: Pilot[int], hits: list[str], title: str) -> None:
    highlighted = pilot.app.screen.query_one(CommandList).highlighted
    at = -1 if highlighted is None else highlighted
    await pilot.press(*["down"] * (hits.index(title) - at), "enter")
    await until(
        pilot, lambda: not isinstance(pilot.app.screen, CommandPalette), "the palette closed"
    )
    await pilot.pause()


async def test_the_palette_finds_panes_scenarios_and_actions_by_name(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="specs")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hits = await palette_hits(pilot, "monitor", "Monitor")
        assert hits[0] == "Monitor"
        await choose(pilot, hits, "Monitor")
        assert shown(app) == "monitor"
        hits = await palette_hits(pilot, "slow hallway", "Kitchen: slow hallway")
        await choose(pilot, hits, "Kitchen: slow hallway")
        assert shown(app) == "kitchen"
        assert app.panes["kitchen"].scenario.name == "slow-hallway"  # type: ignore[attr-defined]
        hits = await palette_hits(pilot, "monitor pause", "Monitor: Pause")
        await choose(pilot, hits, "Monitor: Pause")
        assert shown(app) == "monitor"
        assert app.panes["monitor"].paused  # type: ignore[attr-defined]
        for query, title in (
            ("export", "Bench: Export"),
            ("compare", "Bench: Compare"),
            ("run", "Bench: Run"),
            ("scenario", "Kitchen: Scenario"),
            ("will it fit", "Guide: Will it fit"),
            ("guide", "Guide"),
        ):
            hits = await palette_hits(pilot, query, title, typed=False)
            assert title in hits, (query, hits)
            await pilot.press("escape")


MAIN_KEYS = {
    "specs": [],
    "monitor": ["p", "s", "minus", "plus", "z", "slash", "t", "K"],
    "kitchen": ["space", "s", "left", "right"],
    "bench": ["r", "escape", "p", "c", "x", "o", "t"],
    "guide": ["slash", "s", "r", "left_square_bracket", "right_square_bracket"],
    "fleet": [],  # no keys of its own until a Prometheus server is given (tests/ui/test_fleet_pane)
}
"""What each pane needs most: its footer shows these at 80×24 (closed up, without the palette's
key, where that is what it takes)."""


def whole_keys(app: GpuTuiApp) -> list[str]:
    """The footer's keys shown whole: laid out, and clear of the palette key on the right."""
    footer = app.screen.query_one(Footer)
    palette = next((k for k in footer.query(FooterKey) if k.has_class("-command-palette")), None)
    if palette is None:  # not composed yet
        return []
    # Left out to make room for the pane's keys (Ctrl+P still opens the palette).
    edge = palette.region.x if palette.display else footer.region.right
    return [
        key.key
        for key in footer.query(FooterKey)
        if key is not palette
        and key.display
        and key.parent is not None
        and key.parent.display  # type: ignore[attr-defined]
        and key.region.width
        and key.region.right <= edge
    ]


@pytest.mark.parametrize("pane", [spec.name for spec in PANES])
async def test_the_footer_at_80x24_keeps_the_pane_keys_and_help_whole(
    app_factory: Callable[..., GpuTuiApp], pane: str
) -> None:
    app = app_factory(pane=pane)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "q" in whole_keys(app), "the footer", timeout=10)
        keys = whole_keys(app)
        assert [k for k in MAIN_KEYS[pane] if k not in keys] == []
        assert keys[-2:] == ["question_mark", "q"]  # last, and never cut
        assert not any(key in keys for key in ("1", "2", "3", "4", "5"))  # the tab bar has them


async def test_the_footer_closes_up_only_where_the_keys_need_it(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="monitor")
    async with app.run_test(size=SIZE) as pilot:
        footer = app.screen.query_one(Footer)
        await until(pilot, lambda: "K" in whole_keys(app), "the Monitor's keys", timeout=10)
        assert footer.compact  # every Monitor key whole, clear of the palette's (if it shows)
        await pilot.press("1")  # Specs: a few keys, room for the palette's and for spaces
        await until(pilot, lambda: "c" in whole_keys(app), "the Specs keys", timeout=10)

        def roomy() -> bool:
            keys = footer.query(FooterKey)
            palette = next((k for k in keys if k.has_class("-command-palette")), None)
            return not footer.compact and palette is not None and bool(palette.display)

        await until(pilot, roomy, "the roomy footer with the palette's key", timeout=10)


def screen_text(app: GpuTuiApp) -> str:
    """What the screen's text widgets show, as plain text."""
    console = Console(width=200, record=True, file=io.StringIO())
    for static in app.screen.query(Static):
        console.print(static.content)
    return console.export_text()


@pytest.mark.parametrize("pane", [spec.name for spec in PANES])
async def test_question_mark_lists_every_key_with_words(
    app_factory: Callable[..., GpuTuiApp], pane: str
) -> None:
    app = app_factory(pane=pane)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert isinstance(app.screen, KeysScreen)
        text = screen_text(app)
        spec = next(s for s in PANES if s.name == pane)
        own = [
            b.description
            for b in pane_bindings(spec)
            if app.panes[pane].check_action(b.action.split("(")[0], ()) is not False
        ]
        everywhere = [s.title for s in PANES] + ["Keys", "Quit", "Commands", "Text fields"]
        assert [words for words in own + everywhere if words not in text] == []
        await pilot.press("3")  # a pane key closes it and shows the pane
        assert not isinstance(app.screen, KeysScreen)
        assert shown(app) == "kitchen"


def help_label(app: GpuTuiApp) -> str:
    footer = app.screen.query_one(Footer)
    return next(k.description for k in footer.query(FooterKey) if k.key == "question_mark")


@pytest.mark.parametrize(("size", "label"), [((80, 24), "More keys"), ((160, 48), "Keys")])
async def test_the_help_key_says_more_keys_when_the_footer_leaves_some_out(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int], label: str
) -> None:
    app = app_factory(pane="kitchen")  # r, ., g, e, +/- do not fit 80 columns
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: "q" in whole_keys(app), "the footer", timeout=10)
        await until(pilot, lambda: help_label(app) == label, f"? labelled {label!r}", timeout=10)
        keys = whole_keys(app)
        assert ("r" in keys) is (label == "Keys")
        assert keys[-2:] == ["question_mark", "q"]  # the longer label still fits, whole


async def test_the_keys_screen_leaves_out_textuals_own_list_keys_and_says_what_space_does(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="bench")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "q" in whole_keys(app), "the footer", timeout=10)
        await pilot.press("question_mark")
        assert isinstance(app.screen, KeysScreen)
        text = screen_text(app)
        assert "Tick / untick" in text  # space in the benchmark list
        for textual_words in ("Scroll Left", "Page Left", "Toggle option", "Select"):
            assert textual_words not in text  # summed up under "Lists and tables"


async def test_j_and_k_move_through_lists_and_tables_as_down_and_up(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    from textual.widgets import OptionList

    app = app_factory(pane="specs")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        devices = app.query_one("#spec-devices", OptionList)
        assert app.focused is devices
        await pilot.press("j", "j")
        assert devices.highlighted == 2
        await pilot.press("k", "k")
        assert devices.highlighted == 0
        await pilot.press("enter")  # into the CPU's fields
        table = app.query_one("#spec-table", DataTable)
        assert app.focused is table
        await pilot.press("j", "j", "j")
        assert table.cursor_row == 3
        await pilot.press("k")
        assert table.cursor_row == 2
        await pilot.press("5")  # the Guide's catalog
        await until(pilot, lambda: isinstance(app.focused, DataTable), "the catalog", timeout=10)
        catalog = app.focused
        assert isinstance(catalog, DataTable)
        start = catalog.cursor_row
        await pilot.press("j", "j")
        assert catalog.cursor_row == start + 2


@pytest.mark.parametrize(("size", "stacked"), [((80, 24), True), ((160, 48), False)])
async def test_the_keys_screen_stacks_its_columns_on_a_narrow_screen(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int], stacked: bool
) -> None:
    """At 80 columns two columns would wrap every description; one under the other, they fit."""
    app = app_factory(pane="monitor")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)
        first, second = app.screen.query(".keys-column")
        assert (first.region.x == second.region.x) is stacked
        assert (second.region.y > first.region.y) is stacked


@pytest.mark.parametrize("pane", ["specs", "monitor", "bench", "guide"])
async def test_tab_moves_within_the_pane_and_never_onto_the_tab_bar(
    app_factory: Callable[..., GpuTuiApp], pane: str
) -> None:
    """On the tab bar none of the pane's keys work (Bench's r and p did nothing there)."""
    app = app_factory(pane=pane)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = app.panes[pane]
        visited = set()
        for _ in range(6):
            await pilot.press("tab")
            await pilot.pause()
            focused = app.focused
            assert focused is not None
            assert shown in focused.ancestors_with_self, focused
            visited.add(focused)
        assert visited  # at least one stop, every one inside the pane


async def test_j_and_k_scroll_the_keys_screen_as_it_says_they_move(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="monitor")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        box = app.screen.query_one("#keys-box")
        assert box.max_scroll_y > 3  # 80×24: more keys than rows
        await pilot.press("j", "j", "j")
        await pilot.pause()
        assert box.scroll_y == 3
        await pilot.press("k")
        await pilot.pause()
        assert box.scroll_y == 2
        assert isinstance(app.screen, KeysScreen)  # still open: j and k are not pane keys here


def test_every_palette_entry_says_its_key_first_in_a_sentence() -> None:
    """Textual's own entries are sentences ("Quit the application …"): ours read the same,
    key first, so a tooltip's own brackets never run into a "(key K)"."""
    from gpu_tui.ui.palette import commands

    found = commands()
    panes_and_actions = [command for command in found if command.scenario is None]
    assert len(panes_and_actions) > 20
    for command in panes_and_actions:
        assert command.help.startswith("Key "), command
        assert "(key " not in command.help
    assert any(c.help == "Key 1: show the Specs pane" for c in found)
