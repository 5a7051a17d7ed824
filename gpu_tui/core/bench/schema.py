"""What a valid bench run file is: read within limits, parsed strictly, every field checked.

Every reader of a run document from disk (``gpu-tui bench --baseline FILE``, the saved runs in
the results store that the Bench pane lists, loads and compares, the guide's measured rate) goes
through :func:`read_json` and :func:`check_document`. A file is never trusted: the first problem
is a :class:`SchemaError` that says where it is, e.g.
``results[3].median_seconds must be a finite number > 0, got -1``.

Text in a file is treated in one of two ways. *Names* (benchmark, variant, device, dtype, unit,
suite, every object key) identify results and are matched between runs: one with a control or
format character cannot have come from gpu-tui, so the file is refused. *Free text* (warnings,
error messages, skip reasons, the environment) may quote what a library printed (a crash
message carries the worker's last stderr line, colour codes and all), so its control characters
are replaced by U+FFFD and the run still loads. Either way no escape sequence from a file reaches
a terminal.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

MAX_FILE_BYTES = 32 * 1024 * 1024
"""A saved run takes about 2 KB per result: a full suite on eight GPUs stays near 2 MB."""
MAX_DEPTH = 32
"""Nesting levels; a run document uses 7 (plan.benchmarks[i].gpu.dtypes.fp32[j])."""
MAX_VALUES = 1_000_000
"""Values of any kind in one document; a real run holds about 60 per result."""
MAX_NAME_CHARS = 200
MAX_TEXT_CHARS = 10_000
MAX_INT_DIGITS = 20
MAX_SECONDS = 1e6
"""Eleven days for one call: anything longer is not a measurement."""
MAX_FIGURE = 1e18
SMALLEST_FIGURE = 1e-12
"""A figure between 0 and this would make a baseline comparison overflow (now / then)."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # free text keeps tab and newline
_NOT_IN_NAMES = re.compile(  # controls, bidirectional and zero-width marks, line separators
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
    "\ufff9-\ufffb]"
)
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SchemaError(ValueError):
    """The first problem found in a run document; ``str()`` is one line, without the file name."""


Check = Callable[[Any, str], None]
"""Checks the value found at a path (``results[3].median_seconds``); raises SchemaError."""


# --- saying what was found, safely ---------------------------------------------------------------
def printable(text: str) -> str:
    """``text`` with every character a terminal could act on written as an escape (``\\x1b``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def shown(value: object) -> str:
    """A found value for a message: JSON spelling, long text cut short, nothing unprintable."""
    if isinstance(value, _Literal):
        return value.text
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "a number beyond the range of a float"
    if isinstance(value, (int, float)):
        number = repr(value)
        return number if len(number) <= 24 else number[:24] + "…"
    if isinstance(value, str):
        return f"'{printable(value if len(value) <= 40 else value[:40] + '…')}'"
    return _kind(value)


def _kind(value: object) -> str:
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, str):
        return "text"
    return "null" if value is None else f"a {type(value).__name__}"


def _where(path: str) -> str:
    return path or "the top level"


def _join(path: str, key: str) -> str:
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{shown(key)}]"


# --- reading -------------------------------------------------------------------------------------
class _Literal(float):
    """``NaN``, ``Infinity`` or ``-Infinity`` as the file spells them (Python's json reads
    them as floats): kept so that the check can say what and where they are, and refuse them."""

    text: str

    def __new__(cls, text: str) -> _Literal:
        made = super().__new__(cls, math.nan)
        made.text = text
        return made


class _Duplicated(dict[str, Any]):
    """An object in which a key appears twice: JSON readers disagree on which one wins."""

    key: str


def _parse_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) == len(pairs):
        return found
    marked, seen = _Duplicated(found), set()
    for key, _ in pairs:
        if key in seen:
            marked.key = key
            break
        seen.add(key)
    return marked


def read_json(path: Path) -> object:
    """The JSON value in ``path``: a regular file of at most MAX_FILE_BYTES, UTF-8, valid JSON.
    What the value holds is :func:`check_document`'s job."""
    raw = _read_capped(path)
    if not raw.strip():
        raise SchemaError("is empty")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        where = f"byte 0x{raw[error.start]:02x} at offset {error.start}"
        raise SchemaError(f"is not UTF-8 text ({where})") from None
    # The parser calls back once per object: bound the work before it starts.
    if text.count(",") > MAX_VALUES:
        raise SchemaError(f"holds more than {MAX_VALUES:,} values")
    try:
        return json.loads(text, parse_constant=_Literal, object_pairs_hook=_parse_object)
    except RecursionError:  # the parser recurses per level: far deeper than MAX_DEPTH anyway
        raise SchemaError(f"is nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise SchemaError(f"is not valid JSON: {error.msg} at {where}") from None
    except ValueError:  # Python refuses integers of over 4,300 digits (quadratic to convert)
        raise SchemaError("holds a number of thousands of digits") from None


def _read_capped(path: Path) -> bytes:
    """The file's bytes. A FIFO, device or directory is refused before it is opened (a FIFO
    blocks and /dev/zero never ends), and no more than MAX_FILE_BYTES + 1 bytes are read."""
    try:
        _small_regular_file(os.stat(path))  # follows links: judged by what a link points to
        # O_NONBLOCK: should the path have become a FIFO since, opening it must not wait
        handle = os.open(path, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise SchemaError(f"cannot be read: {error.strerror or error}") from None
    chunks, total = [], 0
    try:
        _small_regular_file(os.fstat(handle))
        while total <= MAX_FILE_BYTES:
            chunk = os.read(handle, min(1 << 20, MAX_FILE_BYTES + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as error:
        raise SchemaError(f"cannot be read: {error.strerror or error}") from None
    finally:
        os.close(handle)
    if total > MAX_FILE_BYTES:  # it grew after it was measured
        raise SchemaError(f"is larger than {MAX_FILE_BYTES >> 20} MiB, the most a run file holds")
    return b"".join(chunks)


_NOT_REGULAR = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _small_regular_file(info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _NOT_REGULAR if test(info.st_mode)), "not a file")
        raise SchemaError(f"is {kind}, not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        size = f"{info.st_size / (1 << 20):,.0f} MiB"
        raise SchemaError(f"is {size}; a run file is at most {MAX_FILE_BYTES >> 20} MiB")


# --- the shape of any JSON value -----------------------------------------------------------------
def _check_shape(data: object) -> bool:
    """Depth, size, keys, text length and usable numbers everywhere, free-form parts included;
    True when some free text holds control characters (to be replaced). Iterative, so that no
    document can exhaust the stack (the field checks that follow recurse no deeper than this
    allows), and in document order, so that the first problem is the one reported."""
    if not isinstance(data, (Mapping, list, tuple)):
        return _check_scalar(data, "")
    stack: list[tuple[Iterator[tuple[Any, Any]], str, int]] = [(_items(data, ""), "", 1)]
    count, dirty, good_keys = 0, False, set()
    while stack:
        items, path, depth = stack[-1]
        for key, value in items:  # resumes where it left off when a nested level is done
            count += 1
            if type(key) is str and key not in good_keys:
                _check_name_text(key, f"a key in {_where(path)}")
                good_keys.add(key)
            kind = type(value)
            if kind is str:
                if len(value) > MAX_TEXT_CHARS or _CONTROL.search(value):
                    dirty = _check_scalar(value, _step(path, key)) or dirty
            elif kind in _PLAIN_SCALARS and (kind is not float or math.isfinite(value)):
                if kind is int and abs(value) >= _LONGEST:
                    _check_scalar(value, _step(path, key))
            elif kind in _CONTAINERS or isinstance(value, (Mapping, list, tuple)):
                inner = _step(path, key)
                if depth >= MAX_DEPTH:
                    raise SchemaError(f"{inner} is nested deeper than {MAX_DEPTH} levels")
                stack.append((_items(value, inner), inner, depth + 1))
                break
            else:
                dirty = _check_scalar(value, _step(path, key)) or dirty
        else:
            stack.pop()
        if count > MAX_VALUES:
            raise SchemaError(f"holds more than {MAX_VALUES:,} values")
    return dirty


_PLAIN_SCALARS = frozenset({int, float, bool, type(None)})
_CONTAINERS = frozenset({dict, list, _Duplicated})
_LONGEST = 10**MAX_INT_DIGITS


def _items(
    container: Mapping[Any, Any] | list[Any] | tuple[Any, ...], path: str
) -> Iterator[tuple[Any, Any]]:
    if isinstance(container, _Duplicated):
        raise SchemaError(f"{_where(path)} has the key {shown(container.key)} twice")
    if not isinstance(container, Mapping):
        return enumerate(container)
    bad = next((key for key in container if not isinstance(key, str)), None)
    if bad is not None:
        raise SchemaError(f"{_where(path)} has a key that is not text: {shown(bad)}")
    return iter(container.items())


def _step(path: str, key: str | int) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else _join(path, key)


def _check_scalar(value: object, path: str) -> bool:
    """Refuses text that is too long and numbers that are unusable or too long; True when
    ``value`` is text holding control characters."""
    if isinstance(value, str):
        if len(value) > MAX_TEXT_CHARS:
            length = f"{len(value):,} characters long; at most {MAX_TEXT_CHARS:,}"
            raise SchemaError(f"{_where(path)} is {length}")
        return bool(_CONTROL.search(value))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        problem = _number_problem(value)
        if problem:
            raise SchemaError(f"{_where(path)} must be {problem}, got {shown(value)}")
    elif value is not None and not isinstance(value, bool):
        raise SchemaError(f"{_where(path)} must be JSON data, got {shown(value)}")
    return False


LONG_NUMBER = f"a number of at most {MAX_INT_DIGITS} digits"


def _number_problem(value: float) -> str | None:
    """What a number must be, when this one cannot be used; None when it can."""
    if isinstance(value, float):
        return None if math.isfinite(value) else "a finite number"
    return LONG_NUMBER if abs(value) >= _LONGEST else None


def _check_name_text(text: str, where: str) -> None:
    if len(text) > MAX_NAME_CHARS:
        raise SchemaError(f"{where} is {len(text):,} characters long; at most {MAX_NAME_CHARS}")
    if _NOT_IN_NAMES.search(text):
        raise SchemaError(f"{where} must be one line of printable text, got {shown(text)}")


def _cleaned(value: Any) -> Any:
    """A copy with control characters in free text replaced (names have none by now)."""
    if isinstance(value, str):
        return _CONTROL.sub("\ufffd", value)
    if isinstance(value, Mapping):
        return {key: _cleaned(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cleaned(item) for item in value]
    return value


# --- kinds of field ------------------------------------------------------------------------------
def name(*, empty: bool = False) -> Check:
    """Text that identifies something: one printable line of at most MAX_NAME_CHARS."""

    def check(value: Any, path: str) -> None:
        if not isinstance(value, str):
            raise SchemaError(f"{path} must be text, got {shown(value)}")
        if not value and not empty:
            raise SchemaError(f"{path} must not be empty")
        _check_name_text(value, path)

    return check


def text(value: Any, path: str) -> None:
    """Free text (its length is checked with the shape, its control characters replaced)."""
    if not isinstance(value, str):
        raise SchemaError(f"{path} must be text, got {shown(value)}")


def timestamp(value: Any, path: str) -> None:
    if not isinstance(value, str) or not _TIMESTAMP.fullmatch(value):
        example = "2026-12-03T17:46:00+0000"
        raise SchemaError(f"{path} must be a time like {example}, got {shown(value)}")


def flag(value: Any, path: str) -> None:
    if not isinstance(value, bool):
        raise SchemaError(f"{path} must be true or false, got {shown(value)}")


def number(
    low: float = 0.0,
    high: float = MAX_FIGURE,
    *,
    above: bool = False,
    whole: bool = False,
    smallest: float = 0.0,
) -> Check:
    """A finite number from ``low`` (excluded when ``above``) to ``high``; a whole number when
    ``whole``; non-zero values under ``smallest`` refused."""
    rule = f"{'a whole' if whole else 'a finite'} number {'>' if above else '>='} {low:g}"

    def check(value: Any, path: str) -> None:
        usable = isinstance(value, int if whole else (int, float)) and not isinstance(value, bool)
        if not usable or not math.isfinite(value) or value < low or (above and value == low):
            raise SchemaError(f"{path} must be {rule}, got {shown(value)}")
        if value > high:
            raise SchemaError(f"{path} must be at most {high:g}, got {shown(value)}")
        if 0 < abs(value) < smallest:
            raise SchemaError(f"{path} must be 0 or at least {smallest:g}, got {shown(value)}")

    return check


def nullable(check: Check) -> Check:
    def either(value: Any, path: str) -> None:
        if value is not None:
            check(value, path)

    return either


def list_of(item: Check) -> Check:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, (list, tuple)):
            raise SchemaError(f"{path} must be a list, got {shown(value)}")
        for index, element in enumerate(value):
            item(element, f"{path}[{index}]")

    return check


def any_object(value: Any, path: str) -> None:
    """An object with free-form content (already shape-checked)."""
    if not isinstance(value, Mapping):
        raise SchemaError(f"{_where(path)} must be an object, got {shown(value)}")


def scalar(value: Any, path: str) -> None:
    if isinstance(value, (Mapping, list, tuple)):
        raise SchemaError(f"{path} must be a number, text, true/false or null, got {shown(value)}")


def record(
    required: Mapping[str, Check] | None = None,
    optional: Mapping[str, Check] | None = None,
    *,
    other: Check | None = None,
) -> Check:
    """An object with the ``required`` keys and perhaps the ``optional`` ones. Other keys are
    allowed (a newer gpu-tui may add some) and checked with ``other`` when it is given."""
    fields = {**(optional or {}), **(required or {})}
    must = tuple(required or ())

    def check(value: Any, path: str) -> None:
        any_object(value, path)
        missing = next((key for key in must if key not in value), None)
        if missing is not None:
            raise SchemaError(f"{_join(path, missing)} is missing")
        for key, item in value.items():
            field_check = fields.get(key, other)
            if field_check is not None:
                field_check(item, _join(path, key))

    return check


# --- the run document, field by field ------------------------------------------------------------
SECONDS = number(above=True, high=MAX_SECONDS)
SPREAD_SECONDS = number(high=MAX_SECONDS)
FIGURE = number(smallest=SMALLEST_FIGURE)
COUNT = number(whole=True, high=2**62)
NAME = name()

SIZES = ("n", "m", "k", "array_bytes", "bytes", "batch", "in_features", "out_features", "d")
PARAMS = record(
    optional={
        **dict.fromkeys((*SIZES, "heads", "seq", "kernels"), COUNT),
        "threads": nullable(COUNT),
    },
    other=scalar,
)
"""What was measured: sizes are whole numbers, since tables, plots and lessons compute with them."""
PARAMS_NEEDED = {"gemm": ("n",), "crossover": ("n",), "reduction": ("n",), "linear": ("batch",)}
"""Parameters that reports and plots read for these benchmarks (sweeps by n, Linear's batch)."""

TIMING = record(
    optional={
        **dict.fromkeys(
            ("median_seconds", "p20_seconds", "p80_seconds", "best_seconds"),
            nullable(SPREAD_SECONDS),
        ),
        "cold_start_seconds": nullable(SPREAD_SECONDS),
        "launch_inclusive_seconds": nullable(SPREAD_SECONDS),
        "repeats": nullable(COUNT),
        "calls_per_graph": nullable(COUNT),
        "graph_skipped": nullable(text),
    },
)
SPAN = record({"min": number(), "median": number()})
TELEMETRY = record(
    optional={
        "samples": COUNT,
        "window_seconds": SPREAD_SECONDS,
        "sm_clock_mhz": nullable(SPAN),
        "memory_clock_mhz": nullable(SPAN),
        "power_watts": nullable(record({"max": number()}, {"limit": nullable(number())})),
        "temperature_c": nullable(record({"max": number(-273.0, 1000.0)})),
        "throttle_reasons": list_of(NAME),
        "lost": flag,
    },
)
"""What NVML saw while one result was timed (core.bench.telemetry.summarise)."""

RESULT_FIELDS = record(
    required={
        "benchmark": NAME,
        "variant": name(empty=True),
        "device": NAME,
        "dtype": nullable(NAME),
        "params": PARAMS,
        "median_seconds": SECONDS,
        "p20_seconds": SPREAD_SECONDS,
        "p80_seconds": SPREAD_SECONDS,
        "repeats": number(1, whole=True, high=2**62),
        "value": FIGURE,
        "unit": NAME,
        "percent_of_peak": nullable(number()),
    },
    optional={
        "warnings": list_of(text),
        "best_seconds": nullable(SPREAD_SECONDS),
        "throughput": nullable(FIGURE),
        "throughput_unit": nullable(NAME),
        "peak": nullable(FIGURE),
        "scope": NAME,
        "timing": TIMING,
        "checks": nullable(any_object),
        "foreign_cpu_vcpus": nullable(number(high=1e6)),
        "precision": nullable(any_object),
        "cache": nullable(NAME),
        "telemetry": nullable(TELEMETRY),
        "launch_inclusive_seconds": nullable(SPREAD_SECONDS),
    },
)


def result(value: Any, path: str) -> None:
    """One measurement (core.bench.results.BenchResult)."""
    RESULT_FIELDS(value, path)
    for key in PARAMS_NEEDED.get(value["benchmark"], ()):
        if key not in value["params"]:
            raise SchemaError(f"{_join(_join(path, 'params'), key)} is missing")


ENVIRONMENT = record(
    optional={
        "cpu_threads": nullable(number(1, whole=True, high=2**31)),
        "devices": list_of(any_object),
        "telemetry": nullable(record(optional={"devices": record(other=any_object)})),
    },
)
SKIP = record(
    optional={
        "benchmark": nullable(NAME),
        "device": nullable(NAME),
        "reason": nullable(text),
        "params": nullable(any_object),
    },
)
ERROR = record(
    {"kind": NAME, "message": text},
    {"benchmark": nullable(NAME), "device": nullable(NAME), "fatal": flag},
)
DOCUMENT = record(
    required={
        "schema_version": number(whole=True),
        "suite": NAME,
        "budget_seconds": number(high=MAX_SECONDS),
        "started_at": timestamp,
        "results": list_of(result),
    },
    optional={
        "finished_at": nullable(timestamp),
        "finished": flag,
        "interrupted": flag,
        "environment": nullable(ENVIRONMENT),
        "skipped": list_of(SKIP),
        "errors": list_of(ERROR),
        "plan": nullable(any_object),
    },
)
"""A run (core.bench.document.RunDocument.to_dict)."""


def _check_version(data: Mapping[str, Any]) -> None:
    if "schema_version" not in data:
        raise SchemaError("is not a gpu-tui bench results file: it has no schema_version")
    version = data["schema_version"]
    whole = isinstance(version, int) and not isinstance(version, bool)
    if whole and version > SCHEMA_VERSION:
        raise SchemaError(
            f"has schema_version {version}; this gpu-tui reads version {SCHEMA_VERSION}: "
            "upgrade gpu-tui to read it"
        )
    if not whole or version != SCHEMA_VERSION:
        raise SchemaError(f"schema_version must be {SCHEMA_VERSION}, got {shown(version)}")


def check_document(data: object) -> dict[str, Any]:
    """``data`` checked as a run document; free text with control characters comes back
    replaced in a copy (``data`` itself is left as it is)."""
    if not isinstance(data, Mapping):
        raise SchemaError(
            f"is not a gpu-tui bench results file: the top level is {_kind(data)}, not an object"
        )
    _check_version(data)
    dirty = _check_shape(data)
    DOCUMENT(data, "")
    checked: dict[str, Any] = _cleaned(data) if dirty else dict(data)
    return checked


def check_result(data: object, path: str = "result") -> dict[str, Any]:
    """One result on its own, checked as inside a document."""
    any_object(data, path)
    assert isinstance(data, Mapping)  # for mypy: any_object refused everything else
    dirty = _check_shape(data)
    result(data, path)
    checked: dict[str, Any] = _cleaned(data) if dirty else dict(data)
    return checked
