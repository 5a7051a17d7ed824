"""The one form of every complaint gpu-tui writes to stderr: ``gpu-tui watch: error: …`` for bad
usage or input (exit 2) and for a run that failed (exit 1), ``gpu-tui watch: warning: …`` for a
problem the command goes on past; ``gpu-tui: error: …`` before any command is known. Naming the
command tells a log of several runs (a cron job's, a CI job's) which one complained."""

from __future__ import annotations

import re
import sys

from gpu_tui.core import ending

PROGRAM = "gpu-tui"


def who(command: str | None = None) -> str:
    """``gpu-tui`` or ``gpu-tui watch``: the name a complaint starts with."""
    return f"{PROGRAM} {command}" if command else PROGRAM


def error_line(message: str, command: str | None = None) -> str:
    return f"{who(command)}: error: {message}"


def usage_line(message: str, command: str | None = None) -> str:
    """Bad usage or input (exit 2), from the parser or from the command: the error, and where
    the usage is explained."""
    return error_line(f"{message} (try '{who(command)} --help')", command)


_ARGUMENT = re.compile(r"argument (?P<flags>[^:]+): (?P<rest>.*)", re.DOTALL)


def flag_message(message: str) -> str:
    """argparse's ``argument --pue: must be …`` as every other complaint names a flag:
    ``--pue must be …``, ``--listen: expected HOST:PORT …`` (the first of a flag's spellings)."""
    match = _ARGUMENT.fullmatch(message)
    if match is None:
        return message
    flag, rest = match["flags"].split("/")[0], match["rest"]
    return f"{flag} {rest}" if rest.startswith("must ") else f"{flag}: {rest}"


def say_usage_error(message: str, command: str | None = None, *, with_help: bool = True) -> bool:
    """Write the line for bad usage or input; ``with_help`` False leaves out the pointer to
    ``--help`` where the fix is not a flag (a file, a port)."""
    line = usage_line(message, command) if with_help else error_line(message, command)
    return ending.say(sys.stderr, line)


def warning_line(message: str, command: str | None = None) -> str:
    return f"{who(command)}: warning: {message}"


def say_error(message: str, command: str | None = None) -> bool:
    """Write the error line to stderr; False when stderr is gone (a terminal that hung up)."""
    return ending.say(sys.stderr, error_line(message, command))


def say_warning(message: str, command: str | None = None) -> bool:
    return ending.say(sys.stderr, warning_line(message, command))
