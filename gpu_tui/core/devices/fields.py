"""A reading that is either a value or *unknown, with a reason* — never a guess."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Unknown:
    """A field we could not read, and why (shown to the user, so write it for them)."""

    reason: str

    def __bool__(self) -> bool:
        return False

    def __str__(self) -> str:
        return f"unknown ({self.reason})"


Maybe: TypeAlias = T | Unknown
"""A value of type ``T`` or ``Unknown(reason)``."""


def known(value: Maybe[T]) -> bool:
    """True when ``value`` holds a real reading."""
    return not isinstance(value, Unknown)


def value_or_none(value: Maybe[T]) -> T | None:
    """The value, or ``None`` when unknown (for JSON, where unknown is ``null``)."""
    return None if isinstance(value, Unknown) else value


def attempt(read: Callable[[], T], describe: Callable[[Exception], str]) -> Maybe[T]:
    """Run ``read``; turn any exception into ``Unknown`` with a reason from ``describe``."""
    try:
        return read()
    except Exception as error:  # each field fails on its own; the caller keeps going
        return Unknown(describe(error))
