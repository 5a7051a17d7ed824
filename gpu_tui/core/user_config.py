"""The user's settings: ``$XDG_CONFIG_HOME/gpu-tui/config.toml`` (``~/.config/gpu-tui``).

Every key is optional; a flag on the command line wins over the file, the file over the
defaults. A file that cannot be read costs one line naming the problem, and the defaults are
used; a key gpu-tui does not know, or one with a wrong value, is named in that line (with the
nearest known key, or what the value must be) and left out, the rest used (gpu-tui never
refuses to start over its config)::

    pane = "monitor"            # specs, monitor, kitchen, bench, guide, fleet
    refresh_seconds = 0.5       # 0.1 to 60
    theme = "nord"              # any Textual theme (Ctrl+P › Change theme lists them)
    read_only = true            # the Monitor sends no signal to a process
    prometheus_url = "http://prometheus:9090"
    temperature_unit = "fahrenheit"   # or "celsius": what the panes and text output show
    size_unit = "decimal"             # or "binary": GB (10⁹ bytes) or GiB (2³⁰ bytes)

``temperature_unit`` and ``size_unit`` change only what people read: every ``--json`` output,
saved result and the exporter keep degrees Celsius and bytes.

The theme last chosen in the app (Ctrl+P) is remembered apart, in the data dir's
``ui-state.json``, and used when the file names none.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from gpu_tui.core.bench.outputs import atomic_write
from gpu_tui.core.data_dir import data_dir

DEFAULTS: dict[str, Any] = {
    "pane": "specs",
    "refresh_seconds": 1.0,
    "theme": "textual-dark",
    "read_only": False,
    "prometheus_url": None,
    "temperature_unit": "celsius",
    "size_unit": "binary",
}


class UserConfig(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """What the file sets (None: not set)."""

    pane: str | None = None
    refresh_seconds: Annotated[float, msgspec.Meta(ge=0.1, le=60)] | None = None
    theme: str | None = None
    read_only: bool | None = None
    prometheus_url: str | None = None
    temperature_unit: Literal["celsius", "fahrenheit"] | None = None
    size_unit: Literal["binary", "decimal"] | None = None


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME")
    return (Path(base) if base else Path.home() / ".config") / "gpu-tui" / "config.toml"


def load(path: Path | None = None, panes: tuple[str, ...] = ()) -> tuple[UserConfig, str]:
    """The file's settings and its problems in one line (empty when none); a file that cannot
    be read gives no settings at all, a wrong or unknown key only loses that key."""
    source = path or config_path()
    try:
        data = source.read_bytes()
    except FileNotFoundError:
        return UserConfig(), ""
    except OSError as error:
        return UserConfig(), f"{source}: {error.strerror or error}; using the defaults"
    try:
        table = msgspec.toml.decode(data)
    except msgspec.DecodeError as error:
        return UserConfig(), f"{source}: {error}; using the defaults"
    # A key gpu-tui does not know (a typo, or one from a later version) is left out, named,
    # with the nearest known key; so is a known key with a wrong value, named with what it
    # must be. The file's other settings still hold.
    unknown = sorted(set(table) - set(UserConfig.__struct_fields__))
    wrong = [key for key in UserConfig.__struct_fields__ if key in table and not _fits(table, key)]
    pane = table.get("pane")
    if panes and isinstance(pane, str) and pane not in panes:
        wrong.append("pane")
    problems = [f"{key} = {_as_toml(table[key])} must be {_must_be(key, panes)}" for key in wrong]
    for key in (*unknown, *wrong):
        del table[key]
    if unknown:
        problems.append(_unknown_keys(unknown))
    found = msgspec.convert(table, type=UserConfig)
    if problems:
        return found, f"{source}: {'; '.join(problems)}; the other settings are used"
    return found, ""


MUST_BE = {
    "refresh_seconds": "a number of seconds from 0.1 to 60",
    "theme": "a theme's name in quotes",
    "read_only": "true or false",
    "prometheus_url": "a URL in quotes",
    "temperature_unit": '"celsius" or "fahrenheit"',
    "size_unit": '"binary" or "decimal"',
}
"""What each setting must be, in the words of the file (the pane's list is the app's)."""


def _fits(table: dict[str, Any], key: str) -> bool:
    try:
        msgspec.convert({key: table[key]}, type=UserConfig)
    except msgspec.ValidationError:
        return False
    return True


def _must_be(key: str, panes: tuple[str, ...]) -> str:
    if key == "pane":
        return "one of " + ", ".join(f'"{pane}"' for pane in panes) if panes else "a pane's name"
    return MUST_BE[key]


def _as_toml(value: object) -> str:
    """A value as the file wrote it (``100``, ``"kelvin"``, ``true``), kept short."""
    text = json.dumps(value) if isinstance(value, str | bool | int | float) else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _unknown_keys(keys: list[str]) -> str:
    """``unknown key 'refresh' (did you mean 'refresh_seconds'?)``, or the keys there are."""
    known = UserConfig.__struct_fields__
    named = ", ".join(repr(key) for key in keys)
    near = difflib.get_close_matches(keys[0], known, n=1, cutoff=0.5) if len(keys) == 1 else []
    hint = f"did you mean {near[0]!r}?" if near else f"the keys are {', '.join(known)}"
    return f"unknown key{'s' if len(keys) > 1 else ''} {named} ({hint})"


def effective(given: dict[str, Any], config: UserConfig) -> dict[str, Any]:
    """Each setting as it will be used: ``given`` (the command line; None: not given), else
    the file, else the remembered theme (for the theme), else the default."""
    out: dict[str, Any] = {}
    for key, default in DEFAULTS.items():
        value = given.get(key)
        if value is None:
            value = getattr(config, key)
        if value is None and key == "theme":
            value = remembered_theme()
        out[key] = default if value is None else value
    return out


def to_toml(values: dict[str, Any]) -> str:
    """The settings as a config file (unset ones as comments), for ``--print-config``."""
    lines = []
    for key, value in values.items():
        if value is None:
            lines.append(f"# {key} =")
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def _state_path() -> Path:
    return data_dir() / "ui-state.json"


def remembered_theme() -> str | None:
    try:
        state = json.loads(_state_path().read_text())
    except (OSError, ValueError):
        return None
    theme = state.get("theme") if isinstance(state, dict) else None
    return theme if isinstance(theme, str) and 0 < len(theme) < 100 else None


def remember_theme(name: str) -> str | None:
    """Keep the theme chosen in the app for the next start; what went wrong, or None."""
    path = _state_path()
    try:
        atomic_write(path, json.dumps({"theme": name}) + "\n")
    except OSError as error:
        return f"{path}: {error.strerror or error}"
    return None
