"""Command line: ``gpu-tui`` starts the TUI; subcommands are the headless forms."""

from __future__ import annotations

import argparse
import gc
import sys
import textwrap
from typing import Any, NoReturn

from gpu_tui import __version__
from gpu_tui.commands import error_lines
from gpu_tui.commands.options import prometheus_url, refresh_seconds
from gpu_tui.core import ending
from gpu_tui.core.errors import InputError, RunError, UsageError
from gpu_tui.ui.pane_registry import pane_names

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, wrapped without breaking a word at its hyphen ("dcgm-" / "exporter")
    or cutting a long one (a URL, a path)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        text = self._whitespace_matcher.sub(" ", text).strip()
        return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        text = self._whitespace_matcher.sub(" ", text).strip()
        return textwrap.fill(
            text,
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
            break_long_words=False,
        )


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one clear line and exit code 2, and that takes flags
    only as spelled: with argparse's prefix matching, ``--price -3`` was read as the start of
    another flag and refused with that flag's complaint."""

    def __init__(self, *args: Any, command: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self.command = command
        """The subcommand this parses (None: the top level), for the error line."""

    def error(self, message: str) -> NoReturn:
        line = error_lines.usage_line(error_lines.flag_message(message), self.command)
        self.exit(EXIT_USAGE, line + "\n")


def add_global_options(
    parser: argparse.ArgumentParser, *, top_level: bool, units_note: tuple[str, str] = ("", "")
) -> None:
    """Options accepted both before and after the subcommand (``gpu-tui --demo info``).

    ``units_note``: what the temperature and size units leave alone in this command (its
    ``--json``), so each command's help says only what is true of it."""
    default = False if top_level else argparse.SUPPRESS
    temperature_note, size_note = (f"; {note}" if note else "" for note in units_note)
    parser.add_argument(
        "--demo",
        action="store_true",
        default=default,
        help="add a SIMULATED accelerator (for talks and screenshots on a machine with no GPU)",
    )
    parser.add_argument(
        "--temperature-unit",
        choices=("celsius", "fahrenheit"),
        default=None if top_level else argparse.SUPPRESS,
        help=f"show temperatures in this unit{temperature_note} (default: celsius, or the "
        "config file's)",
    )
    parser.add_argument(
        "--size-unit",
        choices=("binary", "decimal"),
        default=None if top_level else argparse.SUPPRESS,
        help=f"show sizes in GiB (binary) or GB (decimal){size_note} (default: binary, or the "
        "config file's)",
    )


def build_parser(*, with_commands: bool = True) -> argparse.ArgumentParser:
    """TUI options, and every subcommand unless ``with_commands`` is False (the fast path)."""
    from gpu_tui.commands import load_commands

    parser = OneLineParser(
        prog="gpu-tui",
        description="See your CPU and GPUs, see why GPUs win at AI work, then measure it.",
        epilog="Without a subcommand, starts the terminal UI. Keys: 1-6 panes, ? help, q quit.",
    )
    parser.add_argument("--version", action="version", version=f"gpu-tui {__version__}")
    add_global_options(parser, top_level=True)
    parser.add_argument(
        "--pane",
        choices=pane_names(),
        default=None,
        help="pane to open at start (default: specs, or the config file's)",
    )
    parser.add_argument(
        "--print-config",
        action="store_true",
        help="print the settings in effect (config file, then these flags) and exit",
    )
    parser.add_argument(
        "--autoplay",
        action="store_true",
        help="kitchen pane: cycle through the scenarios (for talks) until a key is pressed",
    )
    parser.add_argument(
        "--bench-python",
        metavar="PATH",
        help="bench pane: run benchmarks with this Python (one that has torch, e.g. a conda env)",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        default=None,
        help="change nothing on this machine: the Monitor sends no signal to a process",
    )
    parser.add_argument(
        "--refresh",
        type=refresh_seconds,
        default=None,
        metavar="SECONDS",
        help="live refresh interval, 0.1 to 60 (default: 1, or the config file's)",
    )
    parser.add_argument(
        "--prometheus",
        dest="prometheus_url",
        type=prometheus_url,
        metavar="URL",
        help="fleet pane (key 6): the Prometheus server to read (default: $GPU_TUI_PROMETHEUS)",
    )
    if not with_commands:
        return parser
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=OneLineParser
    )
    for command in load_commands():
        sub = subparsers.add_parser(
            command.NAME, help=command.HELP, description=command.HELP, command=command.NAME
        )
        notes = getattr(command, "UNITS_NOTE", ("--json keeps celsius", "--json keeps bytes"))
        add_global_options(sub, top_level=False, units_note=notes)
        command.add_arguments(sub)
        sub.set_defaults(run=command.run)
    return parser


def needs_commands(argv: list[str]) -> bool:
    """Whether the subcommands must be loaded to parse ``argv``: when one is named, or for help.

    Plain ``gpu-tui`` skips importing them, which is worth ~0.1 s of start-up.
    """
    from gpu_tui.commands import COMMAND_NAMES

    return any(arg in COMMAND_NAMES or arg in ("-h", "--help") for arg in argv)


def main(argv: list[str] | None = None) -> int:
    """Run gpu-tui; returns the process exit code."""
    argv = sys.argv[1:] if argv is None else argv
    with_commands = needs_commands(argv)
    parser = build_parser(with_commands=with_commands)
    args, extra = parser.parse_known_args(argv)
    if extra:
        if not with_commands and not extra[0].startswith("-"):  # a word where a command goes
            from gpu_tui.commands import COMMAND_NAMES

            parser.error(f"unknown command {extra[0]!r} (one of: {', '.join(COMMAND_NAMES)})")
        # Said as the subcommand's parser would: the command whose usage to read.
        ending.say(
            sys.stderr,
            error_lines.usage_line(
                f"unrecognized arguments: {' '.join(extra)}", getattr(args, "command", None)
            ),
        )
        return EXIT_USAGE
    command = getattr(args, "command", None)
    try:
        if command is None:
            if args.print_config:
                return print_config(args)
            return run_tui(args)
        # SIGTERM and SIGHUP end a headless command like Ctrl-C (a command that measures, such
        # as bench, stops its run politely instead; see gpu_tui.core.ending).
        ending.raise_on_termination()
        if not getattr(args, "json", False):  # JSON keeps its base units, whoever runs it
            show_units(args)
        return int(args.run(args))
    except UsageError as error:
        error_lines.say_usage_error(
            str(error), command, with_help=not isinstance(error, InputError)
        )
        return EXIT_USAGE
    except RunError as error:
        error_lines.say_error(str(error), command)
        return EXIT_FAILED
    except KeyboardInterrupt:
        ending.say(sys.stderr, f"{error_lines.who(command)}: interrupted")
        return EXIT_INTERRUPTED
    except ending.Terminated as stop:
        stopped = f"{error_lines.who(command)}: stopped by {ending.signal_name(stop.signum)}"
        if not ending.say(sys.stderr, stopped):
            ending.silence(sys.stdout)  # the terminal hung up: nothing more to show anyone
        return ending.exit_code(stop.signum)
    except BrokenPipeError:
        # `gpu-tui info --json | head` closes the pipe early; that is not an error.
        return EXIT_OK


def settings(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """The TUI's settings (flags over the config file over the defaults), and the config
    file's problem in one line (empty when none)."""
    from gpu_tui.core import user_config
    from gpu_tui.core.fleet.url import check_url, configured_prometheus

    config, problem = user_config.load(panes=tuple(pane_names()))
    given = {
        "pane": args.pane,
        "refresh_seconds": args.refresh,
        "read_only": args.read_only,
        "prometheus_url": configured_prometheus(args.prometheus_url),
        "temperature_unit": args.temperature_unit,
        "size_unit": args.size_unit,
    }
    values = user_config.effective(given, config)
    if config.prometheus_url and not given["prometheus_url"]:
        try:
            values["prometheus_url"] = check_url(config.prometheus_url)
        except UsageError as error:
            values["prometheus_url"] = None
            problem = f"{user_config.config_path()}: prometheus_url: {error}; not used"
    return values, problem


def show_units(args: argparse.Namespace) -> None:
    """A headless command's temperature and size units: each flag, else the config file's
    (whose problem, if any, is said in one line), else Celsius and binary."""
    from gpu_tui.core import units, user_config

    temperature, size = args.temperature_unit, args.size_unit
    if temperature is None or size is None:
        config, problem = user_config.load()
        if problem:
            error_lines.say_warning(problem, getattr(args, "command", None))
        temperature = (
            temperature or config.temperature_unit or user_config.DEFAULTS["temperature_unit"]
        )
        size = size or config.size_unit or user_config.DEFAULTS["size_unit"]
    units.set_temperature_unit(temperature)
    units.set_size_unit(size)


def print_config(args: argparse.Namespace) -> int:
    from gpu_tui.core import user_config

    values, problem = settings(args)
    if problem:
        error_lines.say_warning(problem)
    print(f"# {user_config.config_path()}")
    sys.stdout.write(user_config.to_toml(values))
    return EXIT_OK


def run_tui(args: argparse.Namespace) -> int:
    """Start the Textual app (imported here so headless commands never load Textual)."""
    if not sys.stdout.isatty():
        error_lines.say_usage_error(
            "the terminal UI needs a terminal; for scripts use 'gpu-tui info --json'"
        )
        return EXIT_USAGE
    # No garbage collection until the first screen is up and the hardware read (the app turns
    # it on again in ``settle_memory``): start-up builds ~80,000 objects that live as long as
    # the app, and the collector walked them again and again, a sixth of the time to the first
    # screen. Few of them are garbage; what is, is collected then.
    gc.disable()
    from gpu_tui.core.devices import discover_host
    from gpu_tui.core.devices.nvml_guard import in_daemon_thread

    # The CPU and memory are read on a thread started before Textual is imported, so they are
    # known when the first frame is drawn: that frame shows them, instead of a "Reading
    # hardware…" frame followed by a second one (NVML waits until the first frame is up).
    host_inventory = in_daemon_thread(discover_host, "gpu-tui-discover")
    from gpu_tui.ui.app import AppConfig, make_app

    values, problem = settings(args)
    if problem:
        error_lines.say_warning(problem)
    config = AppConfig(
        demo=args.demo,
        pane=values["pane"],
        refresh_seconds=values["refresh_seconds"],
        autoplay=args.autoplay,
        bench_python=args.bench_python,
        prometheus_url=values["prometheus_url"],
        read_only=values["read_only"],
        theme=values["theme"],
        temperature_unit=values["temperature_unit"],
        size_unit=values["size_unit"],
        startup_note=problem,
    )
    app = make_app(config, host_inventory)
    app.run()
    return app.return_code or EXIT_OK
