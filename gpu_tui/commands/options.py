"""Option values that more than one command parses: each turns the text of an option into a
value, or into argparse's one-line error naming the range it must lie in."""

from __future__ import annotations

import argparse

from gpu_tui.core.errors import UsageError
from gpu_tui.core.limits import Limit

REFRESH = Limit("the refresh interval", 0.1, 60, "seconds")


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
