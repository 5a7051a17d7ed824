"""Option values that more than one command parses: each turns the text of an option into a
value, or into argparse's one-line error naming the range it must lie in."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable

from gpu_tui.core.errors import UsageError
from gpu_tui.core.limits import Limit


def for_flag(limit: Limit) -> Limit:
    """``limit`` without a name of its own: its refusal then starts ``must be``, and the parser
    puts the flag as typed in front (``--pue must be between 1 and 5, got '0'``), where the TUI
    field's message names the field (``pue must be …``)."""
    return dataclasses.replace(limit, name="")


REFRESH = Limit("", 0.1, 60, "seconds")
"""``--refresh`` and the ``--interval`` of watch and export."""
TIMEOUT = Limit("", 0.1, 300, "seconds")
"""fleet's ``--timeout``: how long one Prometheus query may take."""


def within(limit: Limit) -> Callable[[str], float]:
    """An argparse ``type=`` for a flag that takes a number in ``limit``'s range."""

    def parse(text: str) -> float:
        try:
            return for_flag(limit).parse(text)
        except UsageError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parse


def refresh_seconds(text: str) -> float:
    """Parse ``--refresh``, ``watch --interval`` and ``export --interval``: 0.1 to 60 seconds."""
    try:
        return REFRESH.parse(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def prometheus_url(text: str) -> str:
    """Parse ``--prometheus``: an http(s) URL with no credentials in it."""
    from gpu_tui.core.fleet.url import check_url  # urllib's parsing only when the option is given

    try:
        return check_url(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
