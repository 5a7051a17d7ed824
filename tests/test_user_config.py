"""The config file: read with flags over it, a bad file costs one line and the defaults,
``--print-config`` round-trips, and the theme chosen in the app is kept for the next start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gpu_tui.core import user_config
from gpu_tui.ui.app import AppConfig, make_app
from tests.polling import until
from tests.ui.conftest import fixed_inventory


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config"
    (home / "gpu-tui").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home / "gpu-tui" / "config.toml"


def print_config(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpu_tui", "--print-config", *flags],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_flags_win_over_the_file_and_print_config_round_trips(config_home: Path) -> None:
    config_home.write_text(
        'pane = "monitor"\nrefresh_seconds = 0.5\ntheme = "nord"\ntemperature_unit = "fahrenheit"\n'
        'size_unit = "decimal"\n'
    )
    done = print_config("--refresh", "2", "--read-only")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    printed = done.stdout
    assert 'pane = "monitor"' in printed
    assert "refresh_seconds = 2.0" in printed
    assert "read_only = true" in printed
    assert 'temperature_unit = "fahrenheit"' in printed
    assert 'size_unit = "decimal"' in printed
    config_home.write_text(printed)  # what it printed is a config file that says the same
    again = print_config()
    assert again.stdout == printed


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('pane = "nope"\n', 'pane = "nope" must be one of "specs", "monitor"'),
        ("refresh_seconds = 100\n", "refresh_seconds = 100 must be a number of seconds from 0.1"),
        ("theme = 3\n", "theme = 3 must be a theme's name in quotes;"),
        ('temperature_unit = "kelvin"\n', 'temperature_unit = "kelvin" must be "celsius" or "fah'),
        ('size_unit = "metric"\n', 'size_unit = "metric" must be "binary" or "decimal"'),
        ("refresh_seconds = [\n", "Invalid value"),
        ('prometheus_url = "http://user:secret@prom:9090"\n', "prometheus_url: "),
    ],
)
def test_a_bad_file_or_value_costs_one_line_and_the_defaults(
    config_home: Path, text: str, says: str
) -> None:
    config_home.write_text(text)
    done = print_config()
    assert done.returncode == 0
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"gpu-tui: warning: {config_home}: ")
    assert says in line
    assert 'pane = "specs"' in done.stdout
    assert "secret" not in done.stdout
    assert 'temperature_unit = "celsius"' in done.stdout
    assert 'size_unit = "binary"' in done.stdout


async def test_the_config_theme_is_used_and_a_theme_chosen_in_the_app_is_kept(
    config_home: Path,
) -> None:
    inventory = fixed_inventory(demo=True)
    app = make_app(AppConfig(demo=True, discover=lambda: inventory, host="h", theme="nord"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme == "nord"
        app.theme = "dracula"  # as Ctrl+P › Change theme sets it
        await until(pilot, lambda: user_config.remembered_theme() == "dracula", "kept")
    assert user_config.effective({}, user_config.UserConfig())["theme"] == "dracula"
    assert user_config.effective({}, user_config.UserConfig(theme="nord"))["theme"] == "nord"


async def test_an_unknown_theme_is_said_and_the_default_kept(config_home: Path) -> None:
    inventory = fixed_inventory(demo=True)
    app = make_app(AppConfig(demo=True, discover=lambda: inventory, host="h", theme="neon-pink"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme == "textual-dark"
        assert any("neon-pink" in str(n.message) for n in app._notifications)


def test_an_unknown_key_is_named_with_the_nearest_and_the_rest_of_the_file_holds(
    config_home: Path,
) -> None:
    config_home.write_text('refresh = 2\npane = "monitor"\n')
    done = print_config()
    assert done.returncode == 0
    (line,) = done.stderr.splitlines()
    assert line == (
        f"gpu-tui: warning: {config_home}: unknown key 'refresh' "
        "(did you mean 'refresh_seconds'?); the other settings are used"
    )
    assert 'pane = "monitor"' in done.stdout
    assert "refresh_seconds = 1.0" in done.stdout  # the default: the misspelt key is not read


def test_unknown_keys_list_the_keys_there_are(config_home: Path) -> None:
    config_home.write_text("colour = 1\nfoo = 2\n")
    (line,) = print_config().stderr.splitlines()
    assert "unknown keys 'colour', 'foo' (the keys are pane, refresh_seconds, theme," in line


def test_the_temperature_flag_wins_over_the_file(config_home: Path) -> None:
    config_home.write_text('temperature_unit = "fahrenheit"\n')
    done = print_config("--temperature-unit", "celsius")
    assert done.stderr == ""
    assert 'temperature_unit = "celsius"' in done.stdout


def test_the_config_accepts_every_unit_the_formatter_knows(config_home: Path) -> None:
    from gpu_tui.core.units import SIZE_UNITS, TEMPERATURE_UNITS

    for unit in TEMPERATURE_UNITS:
        config_home.write_text(f'temperature_unit = "{unit}"\n')
        found, problem = user_config.load()
        assert (found.temperature_unit, problem) == (unit, "")
    assert user_config.DEFAULTS["temperature_unit"] == "celsius"
    for unit in SIZE_UNITS:
        config_home.write_text(f'size_unit = "{unit}"\n')
        found, problem = user_config.load()
        assert (found.size_unit, problem) == (unit, "")
    assert user_config.DEFAULTS["size_unit"] == "binary"


def test_the_size_flag_wins_over_the_file(config_home: Path) -> None:
    config_home.write_text('size_unit = "decimal"\n')
    done = print_config("--size-unit", "binary")
    assert done.stderr == ""
    assert 'size_unit = "binary"' in done.stdout
    assert 'size_unit = "decimal"' in print_config().stdout  # and without the flag, the file


def test_each_wrong_value_is_named_and_left_out_and_the_other_settings_hold(
    config_home: Path,
) -> None:
    config_home.write_text(
        'pane = "monitor"\nrefresh_seconds = 100\nsize_unit = "metric"\nread_only = true\n'
    )
    done = print_config()
    assert done.returncode == 0
    (line,) = done.stderr.splitlines()
    assert "refresh_seconds = 100 must be" in line
    assert 'size_unit = "metric" must be' in line
    assert line.endswith("the other settings are used")
    assert 'pane = "monitor"' in done.stdout
    assert "read_only = true" in done.stdout
    assert "refresh_seconds = 1.0" in done.stdout
    assert 'size_unit = "binary"' in done.stdout
