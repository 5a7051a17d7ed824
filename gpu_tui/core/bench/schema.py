"""What a valid bench run file is: read within limits, parsed strictly, every field checked.

Every reader of a run document from disk (``gpu-tui bench --baseline FILE``, the saved runs in
the results store that the Bench pane lists, loads and compares, the guide's measured rate) goes
through :func:`read_json` and :func:`check_document`. A file is never trusted: the first problem
is a :class:`SchemaError` that says where it is, e.g.
``results[3].median_seconds: expected a number > 0, got text``.

The fields are declared as msgspec structs (``RunFile`` and what it holds), so the checks are
the types and their ranges. Keys this gpu-tui does not know are allowed (a newer one may add
some) and kept as they are.

Text in a file is treated in one of two ways. *Names* (benchmark, variant, device, dtype, unit,
suite, parameter names) identify results and are matched between runs: one with a control or
format character cannot have come from gpu-tui, so the file is refused. *Free text* (warnings,
error messages, skip reasons, the environment, every key and text in free-form parts) may quote
what a library printed (a crash message carries the worker's last stderr line, colour codes and
all), so its control characters are replaced by U+FFFD and the run still loads. Either way no
escape sequence from a file reaches a terminal.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import Meta, Struct

SCHEMA_VERSION = 1

MAX_FILE_BYTES = 32 * 1024 * 1024
"""A saved run takes about 2 KB per result: a full suite on eight GPUs stays near 2 MB."""
MAX_NAME_CHARS = 200
MAX_TEXT_CHARS = 10_000
MAX_SECONDS = 1e6
"""Eleven days for one call: anything longer is not a measurement."""
MAX_FIGURE = 1e18
SMALLEST_FIGURE = 1e-12
"""A figure between 0 and this would make a baseline comparison overflow (now / then)."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # free text keeps tab and newline
_ONE_PRINTABLE_LINE = (  # no controls, bidirectional or zero-width marks, line separators
    "^[^\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
    "\ufff9-\ufffb]*$"
)
_TIME = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?$"


class SchemaError(ValueError):
    """The first problem found in a run document; ``str()`` is one line, without the file name."""


def printable(text: str) -> str:
    """``text`` with every character a terminal could act on written as an escape (``\\x1b``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


# --- kinds of field ------------------------------------------------------------------------------
Name = Annotated[str, Meta(min_length=1, max_length=MAX_NAME_CHARS, pattern=_ONE_PRINTABLE_LINE)]
MaybeEmptyName = Annotated[str, Meta(max_length=MAX_NAME_CHARS, pattern=_ONE_PRINTABLE_LINE)]
Text = Annotated[str, Meta(max_length=MAX_TEXT_CHARS)]
Timestamp = Annotated[str, Meta(pattern=_TIME)]
Seconds = Annotated[float, Meta(gt=0, le=MAX_SECONDS)]
Spread = Annotated[float, Meta(ge=0, le=MAX_SECONDS)]
Figure = Annotated[float, Meta(ge=0, le=MAX_FIGURE)]
Number = Annotated[float, Meta(ge=0, le=MAX_FIGURE)]
Count = Annotated[int, Meta(ge=0, le=10**18)]
FreeObject = dict[str, Any]


class _Record(Struct, omit_defaults=True):
    """Keys not declared are allowed and ignored by the check (kept in the document)."""


class Params(_Record):
    """What was measured: sizes are whole numbers, since tables, plots and lessons compute with
    them; any other parameter is a plain value."""

    n: Count | None = None
    m: Count | None = None
    k: Count | None = None
    array_bytes: Count | None = None
    bytes: Count | None = None
    batch: Count | None = None
    in_features: Count | None = None
    out_features: Count | None = None
    d: Count | None = None
    heads: Count | None = None
    seq: Count | None = None
    kernels: Count | None = None
    threads: Count | None = None


class Timing(_Record):
    median_seconds: Spread | None = None
    p20_seconds: Spread | None = None
    p80_seconds: Spread | None = None
    best_seconds: Spread | None = None
    cold_start_seconds: Spread | None = None
    launch_inclusive_seconds: Spread | None = None
    repeats: Count | None = None
    calls_per_graph: Count | None = None
    graph_skipped: Text | None = None


class Span(_Record):
    min: Number
    median: Number


class Power(_Record):
    max: Number
    limit: Number | None = None


class Temperature(_Record):
    max: Annotated[float, Meta(ge=-273.0, le=1000.0)]


class Telemetry(_Record):
    """What NVML saw while one result was timed (core.bench.telemetry.summarise)."""

    samples: Count | None = None
    window_seconds: Spread | None = None
    sm_clock_mhz: Span | None = None
    memory_clock_mhz: Span | None = None
    power_watts: Power | None = None
    temperature_c: Temperature | None = None
    throttle_reasons: list[Name] = []
    lost: bool = False


PARAMS_NEEDED = {"gemm": ("n",), "crossover": ("n",), "reduction": ("n",), "linear": ("batch",)}
"""Parameters that reports and plots read for these benchmarks (sweeps by n, Linear's batch)."""


class Result(_Record):
    """One measurement (core.bench.results.BenchResult)."""

    benchmark: Name
    variant: MaybeEmptyName
    device: Name
    dtype: Name | None
    params: Params
    median_seconds: Seconds
    p20_seconds: Spread
    p80_seconds: Spread
    repeats: Annotated[int, Meta(ge=1, le=10**18)]
    value: Figure
    unit: Name
    percent_of_peak: Number | None
    warnings: list[Text] = []
    best_seconds: Spread | None = None
    throughput: Figure | None = None
    throughput_unit: Name | None = None
    peak: Figure | None = None
    scope: Name = "resident"
    timing: Timing | None = None
    checks: FreeObject | None = None
    foreign_cpu_vcpus: Annotated[float, Meta(ge=0, le=1e6)] | None = None
    precision: FreeObject | None = None
    cache: Name | None = None
    telemetry: Telemetry | None = None
    launch_inclusive_seconds: Spread | None = None
    bus_bandwidth_bytes_per_second: Figure | None = None
    algorithm_bandwidth_bytes_per_second: Figure | None = None

    def __post_init__(self) -> None:
        for figure in ("value", "throughput", "peak"):
            found = getattr(self, figure)
            if found is not None and 0 < found < SMALLEST_FIGURE:
                raise ValueError(f"{figure} must be 0 or at least {SMALLEST_FIGURE:g}")
        for key in PARAMS_NEEDED.get(self.benchmark, ()):
            if getattr(self.params, key) is None:
                raise ValueError(f"params.{key} is missing")


class TelemetryEnvironment(_Record):
    devices: dict[str, FreeObject] = {}


class Environment(_Record):
    cpu_threads: Annotated[int, Meta(ge=1, le=2**31)] | None = None
    devices: list[FreeObject] = []
    telemetry: TelemetryEnvironment | None = None


class Skip(_Record):
    benchmark: Name | None = None
    device: Name | None = None
    reason: Text | None = None
    params: FreeObject | None = None


class Error(_Record):
    kind: Name
    message: Text
    benchmark: Name | None = None
    device: Name | None = None
    fatal: bool = False


class RunFile(_Record):
    """A run (core.bench.document.RunDocument.to_dict)."""

    schema_version: int
    suite: Name
    budget_seconds: Annotated[float, Meta(ge=0, le=MAX_SECONDS)]
    started_at: Timestamp
    results: list[Result]
    finished_at: Timestamp | None = None
    finished: bool = False
    interrupted: bool = False
    environment: Environment | None = None
    skipped: list[Skip] = []
    errors: list[Error] = []
    plan: FreeObject | None = None


# --- reading and checking ------------------------------------------------------------------------
def read_json(path: Path) -> object:
    """The JSON value in ``path``: a regular file of at most MAX_FILE_BYTES, UTF-8, valid JSON
    (no NaN or Infinity). What the value holds is :func:`check_document`'s job."""
    raw = _read_capped(path)
    if not raw.strip():
        raise SchemaError("is empty")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        where = f"byte 0x{raw[error.start]:02x} at offset {error.start}"
        raise SchemaError(f"is not UTF-8 text ({where})") from None
    try:
        return msgspec.json.decode(raw)
    except RecursionError:
        raise SchemaError("is nested too deeply to be a run file") from None
    except msgspec.ValidationError:  # msgspec reads numbers as 64-bit integers and floats
        raise SchemaError("holds a number out of range: no run file field is that large") from None
    except msgspec.DecodeError as error:
        raise SchemaError(f"is not valid JSON: {_located(str(error), raw)}") from None


def check_document(data: object) -> dict[str, Any]:
    """``data`` checked as a run document; free text with control characters comes back
    replaced in a copy (``data`` itself is left as it is)."""
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else "not an object"
        raise SchemaError(f"is not a gpu-tui bench results file: the top level is {kind}")
    _check_version(data)
    try:
        msgspec.convert(data, RunFile)
        cleaned: dict[str, Any] = _cleaned(data)
    except msgspec.ValidationError as error:
        raise SchemaError(_said(error)) from None
    except RecursionError:
        raise SchemaError("is nested too deeply to be a run file") from None
    return cleaned


def _check_version(data: dict[str, Any]) -> None:
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
        raise SchemaError(
            f"schema_version must be {SCHEMA_VERSION}, got {printable(repr(version))}"
        )


_KINDS = {
    "float": "a number",
    "int": "a whole number",
    "str": "text",
    "bool": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
_PATTERNS = {  # msgspec names a pattern by its repr
    repr(_ONE_PRINTABLE_LINE): "one line of printable text",
    repr(_TIME): "a time like 2026-12-03T17:46:00Z",
}
_FOUND = re.compile(r"^(?P<problem>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_WORDING = (  # msgspec's phrase → ours, in turn
    (
        re.compile(r"`([a-z| ]+)`"),
        lambda m: " or ".join(_KINDS.get(k, k) for k in m[1].split(" | ")),
    ),
    (
        re.compile(r"text matching regex ('.*'|\".*\")", re.DOTALL),
        lambda m: _PATTERNS.get(m[1], "text"),
    ),
    (re.compile(r"text of length <= (\d+)"), lambda m: f"text of at most {int(m[1]):,} characters"),
    (re.compile(r"text of length >= 1"), lambda m: "text, not empty"),
    (re.compile(r"\b(\d{7,})(\.0)?\b"), lambda m: f"{float(m[1]):g}"),
    (re.compile(r"(\d)\.0\b"), lambda m: m[1]),
)


def _said(error: msgspec.ValidationError) -> str:
    """msgspec's message as a line a user reads: the field's path first, kinds in words
    (``results[3].median_seconds: expected a number > 0, got text``)."""
    found = _FOUND.match(str(error))
    assert found is not None  # the pattern matches any text
    path, problem = (found["path"] or "").lstrip("."), found["problem"]
    missing = re.fullmatch(r"Object missing required field `(.+)`", problem)
    if missing:
        return f"{printable(_joined(path, missing[1]))} is missing"
    field = re.fullmatch(r"([a-z_.]+) ((?:must|is) .*)", problem)  # from a __post_init__
    if field:
        return f"{printable(_joined(path, field[1]))} {printable(field[2])}"
    for pattern, words in _WORDING:
        problem = pattern.sub(words, problem)
    return f"{printable(path) or 'the top level'}: {printable(problem[:1].lower() + problem[1:])}"


def _joined(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _located(message: str, raw: bytes) -> str:
    """``JSON is malformed: … (byte 1234)`` with the byte offset as a line and column, and
    NaN or Infinity named (Python writes them; JSON has no such numbers)."""
    offset = re.search(r"\(byte (\d+)\)", message)
    message = message.removeprefix("JSON is malformed: ")
    if offset is None:
        return message
    at = int(offset[1])
    before = raw[:at]
    line, column = before.count(b"\n") + 1, at - (before.rfind(b"\n") + 1) + 1
    where = f"at line {line}, column {column}"
    literal = re.match(rb"-?(NaN|Infinity)", raw[at - 1 if raw[at - 1 : at] == b"-" else at :])
    if literal:
        return f"{literal[0].decode()} {where}: a run file holds finite numbers only"
    return message.replace(offset[0], where)


def _cleaned(value: Any) -> Any:
    """A copy with control characters in keys and free text replaced (names have none)."""
    if isinstance(value, str):
        return _CONTROL.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_cleaned(key): _cleaned(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_cleaned(item) for item in value]
    return value


# --- reading a file within limits ----------------------------------------------------------------
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
