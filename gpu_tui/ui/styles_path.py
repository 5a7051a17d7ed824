"""Where the ``.tcss`` files are: inside the installed package, or ``styles/`` in a checkout."""

from __future__ import annotations

from pathlib import Path

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
