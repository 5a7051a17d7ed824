"""Where the ``.tcss`` files are: inside the installed package, or ``styles/`` in a checkout."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePath

PACKAGE_DIR = Path(__file__).resolve().parent.parent


def styles_dir() -> Path:
    """The styles directory (the wheel ships ``styles/`` as ``gpu_tui/styles``)."""
    for candidate in (PACKAGE_DIR / "styles", PACKAGE_DIR.parent / "styles"):
        if (candidate / "app.tcss").is_file():
            return candidate
    raise FileNotFoundError(
        f"gpu-tui's styles are missing (looked in {PACKAGE_DIR / 'styles'}); reinstall gpu-tui"
    )


def stylesheets() -> list[Path]:
    """Every stylesheet, app-wide first."""
    folder = styles_dir()
    rest = sorted(p for p in folder.glob("*.tcss") if p.name != "app.tcss")
    return [folder / "app.tcss", *rest]


def pane_stylesheet(name: str) -> Path | None:
    """The stylesheet of the pane called ``name`` (``styles/NAME.tcss``), if it has one."""
    path = styles_dir() / f"{name}.tcss"
    return path if path.is_file() else None


def startup_stylesheets(first_pane: str, panes: Iterable[str]) -> list[str | PurePath]:
    """Every stylesheet but those of the ``panes`` other than ``first_pane``: a pane's own is
    read when the pane is first built (``GpuTuiApp.ensure_pane``)."""
    later = {f"{name}.tcss" for name in panes if name != first_pane}
    # typed as App(css_path=...) takes it: a list is invariant in its item type
    return [path for path in stylesheets() if path.name not in later]
