"""Every number a person reads is formatted here: pick the function whose rule you need.

Plain numbers (``,`` is the thousands separator; none of these writes ``1e+03``, except
``format_number`` and ``format_precise`` for values under 0.0001):

- :func:`format_number`: three significant figures, whole with separators from 100:
  ``0.0123`` · ``2.5`` · ``99.9`` · ``1,998`` (tables, rates, speed-ups).
- :func:`format_precise`: up to six significant figures with separators, whole from a
  million: ``0.0005`` · ``1.05`` · ``20,000`` · ``1,000,000,000`` (the Kitchen's model).
- :func:`format_rounded`: two decimals below 1, one below 100, whole with separators from
  100: ``0.25`` · ``98.5`` · ``1,979`` (bar labels: bars are for shape, tables for detail).
- :func:`format_exact`: every digit, whole numbers with separators: ``10,000,000`` ·
  ``0.000000001`` (the limits of a range, in messages about a value outside it).
- :func:`format_times`: :func:`format_number` and ``×``: ``1.05×`` · ``1,000×``.
- :func:`format_count`: a whole count and its noun, singular for one: ``1 onion`` ·
  ``10,000 onions``.
- :func:`format_percent`: a fraction as a percentage, a space before ``%`` as SI writes it,
  and a true minus sign: ``91.5 %`` · ``−66 %`` · ``+31 %`` (the Guide's prose and tables).
- :func:`format_reading`: a reading that may be :class:`Unknown`, in a format spec of the
  caller's, or a short marker when unknown: ``612 W`` · ``–``; and
  :func:`format_reading_percent`: one already in percent, as :func:`format_percent` writes
  it: ``45 %`` · ``–``.

Bytes are counted in bytes everywhere; only the text changes, to the unit the user chose (the
config file's ``size_unit``): binary by default (``KiB`` ``MiB`` ``GiB`` ``TiB``, steps of 1,024,
as memory is sold and nvidia-smi reports it), or decimal (``kB`` ``MB`` ``GB`` ``TB``, steps of
1,000). Each unit is used from one of it up: ``999.0 MB``, then ``1.0 GB`` (binary:
``1023.0 MiB``, then ``1.0 GiB``):

- :func:`format_bytes`: one decimal and a spaced unit: ``32.0 GiB`` · ``512 B`` (decimal:
  ``34.4 GB``).
- :func:`format_bytes_short`: one decimal and one letter: ``12.3G`` · ``512B`` (tight columns;
  decimal ``k`` is lower case, as ``ls --si`` writes it).
- :func:`format_bytes_exact`: whole, in the largest unit that divides it: ``4 MiB`` ·
  ``1536 MiB`` · ``1000 B`` (a size someone chose, shown as they would write it). A size that
  no decimal unit divides, as most chosen in binary steps, is shown in decimal with three
  significant figures: ``4 MiB`` is ``4.19 MB``.
- :func:`format_bytes_trimmed`: the largest unit not above it, six significant figures,
  trailing zeros dropped: ``1.875 GiB`` · ``64 MiB``.
- :func:`format_gigabytes`: a reading in GiB (or GB), one decimal, or without the symbol for
  a used/total pair: ``60.0/80.0 GiB``, the symbol from :func:`gigabyte_symbol`; one letter
  (``60.0/80.0G``) is written by the caller, as it is in either unit.
- :func:`format_byte_tick`: a byte axis's tick, at the positions :func:`byte_ticks` gives:
  ``2K`` · ``32K`` (binary, powers of 16 from 8) or ``1k`` · ``10k`` (decimal, powers of 10).
- The unit is one setting of this module, :func:`set_size_unit`, made once at start-up as the
  temperature unit is (below), with the same exceptions: ``--json`` and text stored with a
  result keep binary units. Rates are decimal in either (``GB/s`` is 10⁹ bytes a second, as
  links are quoted), and a figure quoted as its source wrote it keeps that source's unit
  (``published "80 GB" = 80 GiB``). :func:`gigabyte_meaning` says what the symbol means, for
  a note beside the sizes.

A model's parameters: :func:`format_parameters`, four significant figures in billions, or
trillions from 1,000B: ``8B`` · ``70.6B`` · ``1.2T`` · ``100T``.

Prefixed counts, for plot axes: :func:`format_binary_count` (``K`` ``M`` ``G`` ``T`` as
powers of 1,024, only for exact multiples: ``4K`` · ``1000``) and :func:`format_si_count`
(``k`` ``M`` ``G`` as powers of 1,000: ``1k`` · ``2.5M``). Both are counts (a matrix's ``n``),
whatever the size unit; a byte axis takes :func:`format_byte_tick`.

Rates and clocks: :func:`format_flops`, :func:`format_bandwidth` (SI: ``4.92 TB/s``),
:func:`format_mhz`.

Temperatures are read and kept in degrees Celsius everywhere (thresholds included); only the
text changes, to the unit the user chose (the config file's ``temperature_unit``):

- :func:`format_temperature`: ``63 °C`` · ``145 °F``, or ``–`` when unknown; without the
  symbol for a reading against its limit (``63/87 °C``, the symbol from
  :func:`temperature_symbol`).
- :func:`format_temperature_difference`: a margin, scaled but not offset: ``5 °C`` · ``9 °F``.
- The unit is one setting of this module, :func:`set_temperature_unit`, made once at start-up
  (the TUI, and a headless command that prints text); a command given ``--json`` leaves it at
  Celsius, and so does text that is stored with a result, so what a script or a later session
  reads never depends on who ran it.

Times, one function per way of writing them:

- :func:`format_seconds`: two decimals in s or ms, one in µs: ``1.50 s`` · ``4.20 ms``.
- :func:`format_time`: three figures in s, ms, µs or ns: ``1.25 s`` · ``17.1 ms``; and
  :func:`format_time_rough`: two figures, ms below a tenth of a second: ``0.32 s`` · ``8.9 ms``.
- :func:`format_seconds_precise`: :func:`format_precise` seconds: ``0.5 s`` · ``20,000 s``;
  :func:`format_time_long`: three figures in s, min, h or d: ``31.7 min`` · ``5.56 h``; and
  :func:`format_seconds_and_long`: the first with the second beside it: ``7,200 s (2 h)``.
- :func:`format_span`: words, whole units: ``45 s`` · ``12 min`` · ``2 h 05 min`` · ``3 d 4 h``;
  :func:`format_about`: an estimate, seconds up to 90 then minutes: ``75 s`` · ``3 min``.
- Clocks: :func:`format_clock` (a countdown: ``1:05``) and :func:`format_ps_elapsed` (ps's
  ELAPSED: ``05:07`` · ``3:05:07`` · ``2-03:05``).
- Ages, one letter for the unit: :func:`format_age` (``4m ago``), :func:`format_age_steps`
  (``<15s`` · ``4m``) and :func:`format_axis_ago` (``-5m`` · ``-1h05``, a time axis's labels).
"""

from __future__ import annotations

import math
from fractions import Fraction

from gpu_tui.core.devices.fields import Maybe, Unknown

_BINARY = (("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10))
"""Binary prefixes, largest first (``K``, not ``k``: 1,024 is not the SI kilo)."""
_SI = (("G", 1e9), ("M", 1e6), ("k", 1e3))
"""SI prefixes, largest first."""
_DECIMAL = (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3))
"""SI prefixes of bytes, largest first (``kB``: the SI kilo)."""


def _largest(value: float, prefixes: tuple[tuple[str, float], ...]) -> tuple[str, float]:
    """The largest prefix not above ``value`` and its scale; ``("", 1)`` below them all."""
    for prefix, scale in prefixes:
        if value >= scale:
            return prefix, scale
    return "", 1


def _dividing(value: float, prefixes: tuple[tuple[str, float], ...]) -> tuple[str, float]:
    """The largest prefix whose scale divides ``value`` exactly; ``("", 1)`` when none does."""
    for prefix, scale in prefixes:
        if value >= scale and value % scale == 0:
            return prefix, scale
    return "", 1


SIZE_UNITS = ("binary", "decimal")
"""The values of ``size_unit`` (the config file's key and ``--size-unit``)."""
_size_unit = "binary"


def set_size_unit(unit: str) -> None:
    """Show byte sizes in ``unit`` (one of ``SIZE_UNITS``) from now on."""
    global _size_unit
    if unit not in SIZE_UNITS:
        raise ValueError(f"size unit {unit!r} is not one of {', '.join(SIZE_UNITS)}")
    _size_unit = unit


def size_unit() -> str:
    """The unit byte sizes are shown in: ``binary`` unless set."""
    return _size_unit


def _byte_prefixes(unit: str | None = None) -> tuple[tuple[str, float], ...]:
    """The prefixes of ``unit`` (default: the unit shown), largest first."""
    return _DECIMAL if (unit or _size_unit) == "decimal" else _BINARY


def _byte_unit(prefix: str, unit: str | None = None) -> str:
    """``GiB`` or ``GB`` for the prefix ``G`` (``kB`` for the decimal kilo)."""
    return f"{prefix}B" if (unit or _size_unit) == "decimal" else f"{prefix}iB"


def format_bytes(value: int | float) -> str:
    """``34359738368`` → ``32.0 GiB``, or ``34.4 GB`` in decimal units; ``512 B``."""
    size = float(value)
    step = 1000 if _size_unit == "decimal" else 1024
    units = ("B", *(_byte_unit(prefix) for prefix, _ in reversed(_byte_prefixes())))
    for unit in units:
        # judged as written: 1,048,575 bytes read "1.0 MiB", never "1024.0 KiB"
        if round(abs(size), 0 if unit == "B" else 1) < step or unit == units[-1]:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= step
    raise AssertionError("unreachable")


def gigabytes(value: float) -> float:
    """``value`` bytes in GiB, or in GB (10⁹ bytes) in decimal units."""
    return value / (1e9 if _size_unit == "decimal" else 1 << 30)


def gigabyte_symbol() -> str:
    """``GiB`` or ``GB``."""
    return _byte_unit("G")


def gigabyte_meaning() -> str:
    """What the gigabyte shown is, for a note beside sizes: ``GiB = 2³⁰ bytes`` or
    ``GB = 10⁹ bytes``."""
    return "GB = 10⁹ bytes" if _size_unit == "decimal" else "GiB = 2³⁰ bytes"


def format_gigabytes(
    value: Maybe[float] | Maybe[int] | None,
    spec: str = ".1f",
    *,
    gap: str = " ",
    symbol: bool = True,
    unknown: str = "–",
) -> str:
    """A reading in bytes as GiB or GB: ``60.0 GiB`` or ``64.4 GB`` (``gap`` between the
    number and the symbol; no symbol with ``symbol=False``), ``unknown`` when not read."""
    if value is None or isinstance(value, Unknown):
        return unknown
    number = f"{gigabytes(value):{spec}}"
    return f"{number}{gap}{gigabyte_symbol()}" if symbol else number


TEMPERATURE_UNITS = ("celsius", "fahrenheit")
"""The values of ``temperature_unit`` (the config file's key and ``--temperature-unit``)."""
_temperature_unit = "celsius"


def set_temperature_unit(unit: str) -> None:
    """Show temperatures in ``unit`` (one of ``TEMPERATURE_UNITS``) from now on."""
    global _temperature_unit
    if unit not in TEMPERATURE_UNITS:
        raise ValueError(f"temperature unit {unit!r} is not one of {', '.join(TEMPERATURE_UNITS)}")
    _temperature_unit = unit


def temperature_unit() -> str:
    """The unit temperatures are shown in: ``celsius`` unless set."""
    return _temperature_unit


def temperature_symbol() -> str:
    """``°C`` or ``°F``."""
    return "°F" if _temperature_unit == "fahrenheit" else "°C"


def format_temperature(
    celsius: Maybe[float] | Maybe[int] | None,
    spec: str = ".0f",
    *,
    gap: str = " ",
    symbol: bool = True,
    unknown: str = "–",
) -> str:
    """A temperature read in °C, in the unit shown: ``63 °C`` or ``145 °F`` (``gap`` between
    the number and the symbol; no symbol with ``symbol=False``), ``unknown`` when not read."""
    if celsius is None or isinstance(celsius, Unknown):
        return unknown
    value = celsius * 9 / 5 + 32 if _temperature_unit == "fahrenheit" else celsius
    return f"{value:{spec}}{gap}{temperature_symbol()}" if symbol else f"{value:{spec}}"


def format_temperature_difference(celsius: float) -> str:
    """A difference of temperatures (a margin below a limit): ``5 °C`` or ``9 °F``."""
    value = celsius * 9 / 5 if _temperature_unit == "fahrenheit" else celsius
    return f"{value:.0f} {temperature_symbol()}"


def format_mhz(value: float) -> str:
    """``3500`` → ``3.50 GHz``; ``800`` → ``800 MHz``."""
    return f"{value / 1000:.2f} GHz" if value >= 1000 else f"{value:.0f} MHz"


def format_flops(tflops: float) -> str:
    """Pick TFLOP/s or GFLOP/s so the number reads naturally."""
    if tflops >= 1:
        return f"{tflops:,.1f} TFLOP/s"
    # The digits every TFLOP/s column shows for this rate (format_rounded), in GFLOP/s.
    return f"{format_rounded(tflops * 1000)} GFLOP/s"


def format_bandwidth(gb_per_second: float) -> str:
    """``4917`` → ``4.92 TB/s``; ``47`` → ``47.0 GB/s``."""
    if gb_per_second >= 1000:
        return f"{gb_per_second / 1000:.2f} TB/s"
    return f"{gb_per_second:.1f} GB/s"


def format_seconds(value: float) -> str:
    """``1.5`` → ``1.50 s``; ``0.0042`` → ``4.20 ms``; ``3.1e-6`` → ``3.1 µs``."""
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} µs"


def format_number(value: float) -> str:
    """Three significant figures, trailing zeros dropped, below 100 (``0.0123``, ``2.5``,
    ``99.9``, ``0.0000712``: never ``7.12e-05``); whole with thousands separators from 100
    (``123``, ``1,998``)."""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    text = f"{value:.3g}"
    if "e" in text:  # below 0.0001: as many decimals as three significant figures need
        decimals = 2 - math.floor(math.log10(abs(value)))
        text = f"{value:.{decimals}f}".rstrip("0")
    return text


def format_count(count: int, noun: str) -> str:
    """``1 onion``, ``10,000 onions``: the noun is given in the plural and loses its ``s``
    for one (the nouns counted here are regular: tasks, onions, cooks, squads, units)."""
    return f"{count:,} {noun[:-1] if count == 1 and noun.endswith('s') else noun}"


def format_precise(value: float) -> str:
    """Up to six significant figures with thousands separators (``20,000``, ``0.0005``,
    ``1.05``); whole from a million (``1,000,000,000``, never ``1e+09``)."""
    return f"{value:,.0f}" if abs(value) >= 1e6 else f"{value:,.6g}"


def format_rounded(value: float) -> str:
    """Three significant figures below 1, at least two decimals (``0.235``, ``0.0683``,
    ``0.30``), one decimal below 100
    (``98.5``), whole with thousands separators from 100 (``1,979``): as many digits as a bar
    label needs, and below 1 the same digits the value has in the unit a thousand times
    smaller (a CPU's ``0.235`` TFLOP/s is its ``235`` GFLOP/s, never ``0.24`` beside it)."""
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 1:
        return f"{value:.1f}"
    if size == 0:
        return "0.00"
    text = f"{value:.3g}"
    if "e" in text:  # below 0.0001: as many decimals as three figures need
        text = f"{value:.{2 - math.floor(math.log10(size))}f}"
    return text if len(text.lstrip("-")) >= 4 else f"{value:.2f}"


def format_exact(value: float | Fraction) -> str:
    """Every digit, never an exponent: whole numbers with thousands separators
    (``10,000,000``), others to at most 12 decimals, trailing zeros dropped (``0.001``)."""
    if int(value) == value:
        return f"{int(value):,}"
    return f"{float(value):.12f}".rstrip("0")


def format_times(ratio: float) -> str:
    """A speed-up or ratio: :func:`format_number` and ``×`` (``1.05×``, ``1,000×``)."""
    return f"{format_number(ratio)}×"


MINUS = "\u2212"
"""The minus sign (−), not the hyphen: it lines up with ``+`` and reads as a sign."""


def format_percent(fraction: float, digits: int | None = 1, *, signed: bool = False) -> str:
    """``0.915`` → ``91.5 %`` (``digits`` decimals; ``None``: as few as the value needs, for
    a value someone typed: ``55.5 %``, ``50 %``); negative with a true minus (``−66 %``);
    ``signed`` also writes ``+`` before a positive one (a return or a change)."""
    return _percent_text(fraction * 100, digits, signed)


def _percent_text(percentage: float, digits: int | None, signed: bool) -> str:
    """The one rule every percentage is written by, from a value already in percent (a reading
    in percent is not divided by 100 and multiplied back, which can move a rounding)."""
    spec = ",g" if digits is None else f",.{digits}f"
    text = f"{abs(percentage):{spec}} %"
    if percentage < 0 and text.strip("0., %"):  # "−0 %" would be a sign on nothing
        return MINUS + text
    return f"+{text}" if signed and text.strip("0., %") else text


def format_reading(
    value: Maybe[float] | Maybe[int], spec: str = ".0f", unit: str = "", *, unknown: str = "–"
) -> str:
    """A reading in the format ``spec`` with ``unit`` after it (``612 W``), or ``unknown`` (an
    en dash by default) when it could not be read: the reason is shown elsewhere. A reading in
    percent takes :func:`format_reading_percent`."""
    if isinstance(value, Unknown):
        return unknown
    return f"{value:{spec}}{unit}"


def format_reading_percent(
    value: Maybe[float] | Maybe[int], digits: int = 0, *, width: int = 0, unknown: str = "–"
) -> str:
    """A reading already in percent (0 to 100, as the driver and the kernel report it) as
    :func:`format_percent` writes a fraction: ``45 %``, right-aligned to ``width`` so figures
    stay under each other (``5``: `` 45 %``); or ``unknown`` when it could not be read."""
    if isinstance(value, Unknown):
        return unknown
    return _percent_text(value, digits, False).rjust(width)


def format_bytes_short(value: float) -> str:
    """``12.3G``-style sizes for tight columns: one decimal, the unit as one letter (binary,
    as nvidia-smi's MiB, or decimal with ``k`` for the kilo), ``512B`` below the first."""
    prefix, scale = _largest(value, _byte_prefixes())
    return f"{value / scale:.1f}{prefix}" if prefix else f"{value:.0f}B"


def format_bytes_exact(value: int, *, unit: str | None = None) -> str:
    """Whole, in the largest unit that divides it: ``4 MiB``, ``1536 MiB``, ``1000 B`` (a size
    someone chose, written as they would write it); in decimal units ``1 kB``, and a size no
    decimal unit divides in three significant figures (``4194304`` → ``4.19 MB``).

    ``unit``: one of ``SIZE_UNITS`` whatever is shown (``binary`` for text stored with a
    result); the unit shown when None."""
    unit = unit or _size_unit
    prefix, scale = _dividing(value, _byte_prefixes(unit))
    if prefix:
        return f"{value // int(scale)} {_byte_unit(prefix, unit)}"
    if unit == "decimal":  # ``4194304 B`` is exact, and of no use to a reader
        prefix, scale = _largest(value, _DECIMAL)
        if prefix:
            return f"{value / scale:.3g} {_byte_unit(prefix, unit)}"
    return f"{value} B"


def format_bytes_trimmed(value: int) -> str:
    """The largest unit not above it, six significant figures, trailing zeros dropped
    (``1.875 GiB``, ``64 MiB``, ``100 B``; decimal: ``2.01327 GB``, ``67.1089 MB``), or the unit
    below it where the size is whole there and takes more than three decimals in the larger
    (``1,040 MiB``, not ``1.01562 GiB``)."""
    prefixes = _byte_prefixes()
    prefix, scale = _largest(value, prefixes)
    if not prefix:
        return f"{value} B"
    below = next(((p, s) for p, s in prefixes if s < scale), None)  # never down to bytes
    if below is not None and (value * 1000) % scale and value % below[1] == 0:
        return f"{value // below[1]:,.0f} {_byte_unit(below[0])}"
    return f"{value / scale:g} {_byte_unit(prefix)}"


_BYTE_TICKS = {
    "binary": tuple(float(8 * 16**i) for i in range(8)),  # 8 B, 128 B, 2 KiB, … 2 GiB
    "decimal": tuple(float(10**i) for i in range(10)),  # 1 B, 10 B, … 1 GB
}


def byte_ticks(low: float, high: float) -> tuple[float, ...]:
    """A byte axis's tick positions from ``low`` to ``high``, at round sizes of the unit shown."""
    return tuple(t for t in _BYTE_TICKS[_size_unit] if low <= t <= high)


def format_byte_tick(value: float) -> str:
    """A byte axis's tick in the unit shown: ``8`` · ``2K`` · ``512M`` (binary, a prefix only
    for exact multiples) or ``10`` · ``1k`` · ``100M`` (decimal)."""
    return format_si_count(value) if _size_unit == "decimal" else format_binary_count(value)


def format_binary_count(value: float) -> str:
    """An axis tick with a binary prefix where it is an exact multiple (``4096`` → ``4K``,
    ``1 << 20`` → ``1M``), as it is otherwise (``1000``, ``0.5``)."""
    prefix, scale = _dividing(value, _BINARY)
    return f"{int(value // scale)}{prefix}" if prefix else f"{value:g}"


def format_si_count(value: float) -> str:
    """An axis tick with an SI prefix (``1k``, ``2.5M``, ``1G``), six significant figures."""
    prefix, scale = _largest(value, _SI)
    return f"{value / scale:g}{prefix}" if prefix else f"{value:g}"


def format_parameters(count: float) -> str:
    """A parameter count as people say it: ``8B``, ``70.6B``, ``405B``, ``1.2T``, ``100T``."""
    billions = count / 1e9
    if round(billions, 1) < 1000:
        return f"{billions:.4g}B"
    trillions = count / 1e12
    return f"{trillions:.4g}T" if trillions < 10_000 else f"{trillions:,.0f}T"


_SMALL_TIMES = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
_LARGE_TIMES = (("d", 86_400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0))
_AGE_UNITS = (("h", 3600.0), ("m", 60.0), ("s", 1.0))


def _in_unit(value: float, units: tuple[tuple[str, float], ...], at: float) -> tuple[float, str]:
    """``value`` in the first (largest) of ``units`` that it reaches ``at`` times, else the last."""
    unit, size = next(((u, size) for u, size in units if value >= at * size), units[-1])
    return value / size, unit


def _split(seconds: int) -> tuple[int, int, int, int]:
    """Whole seconds as days, hours, minutes and seconds."""
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    return days, hours, minutes, secs


def format_time(seconds: float) -> str:
    """Three figures in the largest unit it reaches: ``1.25 s``, ``17.1 ms``, ``2.87 µs``,
    ``5 ns`` (a measured time)."""
    value, unit = _in_unit(seconds, _SMALL_TIMES, 1)
    return f"{value:.3g} {unit}"


def format_time_rough(seconds: float | Fraction) -> str:
    """Two figures, in seconds from a tenth of one, else in ms: ``0.32 s``, ``8.9 ms``."""
    value, unit = _in_unit(float(seconds), _SMALL_TIMES[:2], 0.1)
    return f"{value:.2g} {unit}"


def format_seconds_precise(seconds: float | Fraction) -> str:
    """:func:`format_precise` in seconds: ``0.5 s``, ``20,000 s``."""
    return f"{format_precise(float(seconds))} s"


def format_time_long(seconds: float) -> str:
    """Three figures in the largest of d, h, min and s it reaches twice (below two of a unit
    the smaller one reads better): ``20 s``, ``31.7 min``, ``5.56 h``, ``2.31 d``."""
    value, unit = _in_unit(seconds, _LARGE_TIMES, 2)
    return f"{value:,.3g} {unit}"


def format_seconds_and_long(seconds: float) -> str:
    """A result in seconds to four figures (whole from 10,000), with :func:`format_time_long`
    beside it once that is in a larger unit: ``90 s``, ``70.94 s``, ``9,160 s (2.54 h)``."""
    figures = f"{seconds:,.0f}" if abs(seconds) >= 10_000 else f"{seconds:,.4g}"
    text = f"{figures} s"
    return f"{text} ({format_time_long(seconds)})" if seconds >= 120 else text


def format_span(seconds: float) -> str:
    """A span in the units people use for it: ``45 s``, ``12 min``, ``2 h 05 min``, ``3 d 4 h``
    (rounded to the second, then cut to the minute)."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min"
    days, hours, minutes, _ = _split(whole)
    if not days:
        return f"{hours} h {minutes:02d} min" if minutes else f"{hours} h"
    return f"{days} d {hours} h" if hours else f"{days} d"


def format_about(seconds: float) -> str:
    """An estimate: whole seconds below 90 (``75 s``, where ``1 min`` would be off by a
    quarter), whole minutes from there (``3 min``)."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def format_clock(seconds: float) -> str:
    """A countdown's minutes and seconds, rounded: ``1:05``, ``75:00``."""
    whole = round(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def format_ps_elapsed(seconds: float) -> str:
    """Time since a start, as ps prints ELAPSED: ``05:07``, ``3:05:07``, ``2-03:05``."""
    days, hours, minutes, secs = _split(max(0, int(seconds)))
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}"
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def _age(seconds: float) -> str:
    value, unit = _in_unit(seconds, _AGE_UNITS, 1.5)
    return f"{value:.0f}{unit}"


def format_age(seconds: float | None) -> str:
    """How long ago, whole, in s below 90 s, m below 90 min, then h: ``3s ago``, ``4m ago``,
    ``2h ago``; ``never`` when it never happened."""
    return "never" if seconds is None else f"{_age(seconds)} ago"


def format_age_steps(seconds: float | None) -> str:
    """An age in steps while it is fresh (``<15s``, ``<30s``, ``<1m``), then as
    :func:`format_age` without ``ago`` (``4m``): in a column of many ages that each refresh
    moves, fresh ones stay still and a late one stands out."""
    if seconds is None:
        return "never"
    for step, words in ((15, "<15s"), (30, "<30s"), (60, "<1m")):
        if seconds < step:
            return words
    return _age(seconds)


def format_axis_ago(seconds: int) -> str:
    """A time axis's label for ``seconds`` ago: ``-45s``, ``-5m``, ``-5m30``, ``-1h05``,
    ``-2d``, ``-2d3h`` (minutes and seconds after the unit, as a clock would)."""
    days, hours, minutes, secs = _split(seconds)
    if days:
        return f"-{days}d{hours}h" if hours else f"-{days}d"
    if hours:
        return f"-{hours}h{minutes:02d}" if minutes or secs else f"-{hours}h"
    if minutes:
        return f"-{minutes}m{secs:02d}" if secs else f"-{minutes}m"
    return f"-{secs}s"
