"""Numbers at the edges: every numeric input is refused in one line (exit 2) or gives finite JSON.

Covers each flag of ``gpu-tui kitchen``, ``gpu-tui guide --fit`` and ``gpu-tui guide --cost``
through the real entry point, and the core functions behind them (and behind the TUI forms and
knobs) with property tests.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gpu_tui.cli import main
from gpu_tui.core.errors import UsageError
from gpu_tui.core.guide import cost as c
from gpu_tui.core.guide import fit as f
from gpu_tui.core.guide.report import cost_json, fit_json
from gpu_tui.core.guide.shapes import parse_params
from gpu_tui.core.kitchen.params import PHASE_KEYS, SPECS, to_value
from gpu_tui.core.kitchen.report import build_report
from gpu_tui.core.kitchen.scenarios import SCENARIOS
from gpu_tui.core.limits import Limit

T = TypeVar("T")

# Refused by every numeric input: not numbers, not finite, negative, far too big, or written in
# a way Python reads but a person should not be surprised by (hex, a hex float, Arabic-Indic 3).
HOSTILE = [
    "",
    " ",
    "abc",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "-1",
    "1e308",
    "-1e308",
    "1e400",
    "1" + "0" * 400,  # 10**400 as text
    "1e999999999",
    "0x10",
    "0x1p-2",
    "٣",
]


@dataclass(frozen=True)
class Input:
    """One numeric input: how to pass it, what its message says, and values at its edges."""

    argv: tuple[str, ...]
    """The command line before the value; the value is appended to the last item."""
    flag: str
    """What the one-line error must name."""
    span: str
    """The range as the error must state it."""
    outside: tuple[str, ...]
    """Just outside the range."""
    inside: tuple[str, ...]
    """The ends of the range and other odd but valid spellings."""

    def command(self, value: str) -> list[str]:
        return [*self.argv[:-1], self.argv[-1] + value]

    @property
    def id(self) -> str:
        return self.flag


def _cost(flag: str, span: str, outside: tuple[str, ...], inside: tuple[str, ...]) -> Input:
    return Input(("guide", "--cost", f"{flag}="), flag, span, outside, inside)


def _set(key: str, span: str, outside: tuple[str, ...], inside: tuple[str, ...]) -> Input:
    argv = ("kitchen", "--scenario", "onions", f"--set={key}=")
    return Input(argv, f"--set: {key} must be", span, outside, inside)


_NANO = "0.000000001 and "
INPUTS = [
    Input(
        ("guide", "--fit="),
        "--fit",
        "between 1K and 100T",
        ("0", "-0", "999", "100.001T", "1e-320", "٣B"),
        ("1000", "1k", "100T", "1e14", "llama-3.1-405b"),
    ),
    Input(
        ("guide", "--fit", "8B", "--context="),
        "--context",
        "between 0 and 10,000,000 tokens",
        ("10000001", "1.5", "1e-320", "²"),
        ("0", "-0", "10000000", "1e7", "1_000"),
    ),
    Input(
        ("guide", "--fit", "8B", "--batch="),
        "--batch",
        "between 1 and 100,000 sequences",
        ("0", "100001", "2.5"),
        ("1", "100000", " 7 "),
    ),
    _cost("--cloud-price", "between $0.01 and $1,000", ("0", "0.0099", "1000.01"), ("0.01", "1e3")),
    _cost(
        "--utilisation",  # its first spelling, --utilization, is the same option
        "between 0.1 % and 100 %",
        ("0", "0.0009", "0.09%", "100.1%", "1.01", "50", "1e-320"),
        ("0.001", "0.1%", "100%", "1", "50 %"),
    ),
    _cost(
        "--measured-tflops",
        "between 0.001 and 1,000,000",
        ("0", "0.0009", "1000001", "1e-320"),
        ("0.001", "1e6"),
    ),
    _cost("--hardware-usd", "between $100 and $1,000,000,000", ("99.99", "1e9001"), ("100", "1e9")),
    _cost("--install-usd", "between $0 and $1,000,000,000", ("1e9000",), ("0", "-0", "1e-320")),
    _cost("--gpus-per-node", "between 1 and 1,024 GPUs", ("0", "1025", "8.5"), ("1", "1024")),
    _cost("--life-years", "between 0.1 and 50 years", ("0", "0.09", "50.01"), ("0.1", "50")),
    _cost("--maintenance", "between 0 % and 100 %", ("1.01", "101%"), ("0", "1", "100%")),
    _cost("--staff-usd", "between $0 and $100,000,000", ("100000001",), ("0", "1e8")),
    _cost("--colo-usd-per-kw-year", "between $0 and $1,000,000", ("1000001",), ("0", "1e6")),
    _cost("--node-kw", "between 0 and 1,000 kW", ("1000.1",), ("0", "1000")),
    _cost("--idle-fraction", "between 0 % and 100 %", ("1.5", "100.5%"), ("0", "1", "30%")),
    _cost("--pue", "between 1 and 5", ("0.99", "5.01"), ("1", "5")),
    _cost("--usd-per-kwh", "between $0 and $10", ("10.01",), ("0", "10")),
    _set("tasks", "between 1 and 1,000,000,000,000", ("0", "1000000000001", "2.5"), ("1", "1e12")),
    _set(
        "chef_seconds",
        "between " + _NANO + "1,000,000,000 s",
        ("0", "1e-10", "1000000000.1", "1/0"),
        ("1e-9", "1e9", "1/3"),
    ),
    _set(
        "pantry_units",
        "0 or between " + _NANO + "1,000,000,000,000,000 units",
        ("1e-10", "1e15000", "1e16"),
        ("0", "-0", "1e-9", "1e15"),
    ),
    _set("cooks", "between 1 and 1,000,000,000", ("0", "1000000001", "1e99"), ("1", "1e9")),
    _set("slowdown", "between 0.001 and 1,000,000", ("0", "0.0009", "1000001"), ("0.001", "1e6")),
    _set(
        "launch_seconds",
        "0 or between " + _NANO + "1,000,000,000 s",
        ("1e-10", "1000000001"),
        ("0", "1e-9", "1e9"),
    ),
    _set(
        "pantry_rate",
        "between " + _NANO + "1,000,000,000,000,000 units/s",
        ("0", "1e-10", "1e16"),
        ("1e-9", "1e15"),
    ),
    _set(
        "chef_pantry_rate",
        "between " + _NANO + "1,000,000,000,000,000 units/s",
        ("0", "1e-320", "1e16"),
        ("1e-9", "1e15"),
    ),
    _set("kitchens", "between 1 and 4,096", ("0", "4097"), ("1", "4096")),
    _set(
        "hallway_latency_seconds",
        "0 or between " + _NANO + "1,000,000,000 s",
        ("1e-320", "1e10"),
        ("0", "1e-9", "1e9"),
    ),
    _set(
        "hallway_rate",
        "between " + _NANO + "1,000,000,000,000,000 units/s",
        ("0", "1e-10", "1e16"),
        ("1e-9", "1e15"),
    ),
    _set(
        "sync_units",
        "0 or between " + _NANO + "1,000,000,000,000,000 units",
        ("1e-10", "1e16"),
        ("0", "1e-9", "1e15"),
    ),
    _set("rounds", "between 1 and 1,000,000,000", ("0", "1000000001"), ("1", "1e9")),
]


@pytest.fixture(autouse=True)
def no_hardware(monkeypatch: pytest.MonkeyPatch) -> None:
    """``guide --fit`` lists this machine's devices and RAM: these tests touch no driver."""
    machine = SimpleNamespace(
        accelerators=(),
        cpu=SimpleNamespace(model="Test CPU"),
        memory=SimpleNamespace(total_bytes=24 * 2**30),
    )
    monkeypatch.setattr("gpu_tui.core.devices.discover", lambda *, demo=False: machine)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse refuses a flag's value from inside parse_args
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _no_constant(name: str) -> object:
    raise AssertionError(f"non-standard JSON constant {name} in the output")


def finite_json(text: str) -> Any:
    """``text`` parsed as strict JSON, with every number in it checked to be finite."""
    data = json.loads(text, parse_constant=_no_constant)
    assert_finite(data)
    return data


def assert_finite(data: object) -> None:
    """Every number in ``data`` is finite, and it writes as strict JSON (no inf, no nan)."""
    numbers = list(_numbers(data))
    assert all(math.isfinite(number) for number in numbers)
    json.dumps(data, allow_nan=False)


def _numbers(data: object) -> Iterator[float]:
    if isinstance(data, dict):
        for value in data.values():
            yield from _numbers(value)
    elif isinstance(data, (list, tuple)):
        for value in data:
            yield from _numbers(value)
    elif isinstance(data, (int, float)) and not isinstance(data, bool):
        yield float(data)


@pytest.mark.parametrize("item", INPUTS, ids=lambda item: item.id)
def test_every_bad_value_is_one_line_naming_the_flag_and_its_range(
    item: Input, capsys: pytest.CaptureFixture[str]
) -> None:
    for value in (*HOSTILE, *item.outside):
        code, out, err = run(item.command(value), capsys)
        where = f"{item.id}={value[:12]!r}: {err}"
        assert (code, out) == (2, ""), where
        assert err.count("\n") == 1, where
        assert err.startswith("gpu-tui"), where
        assert "Traceback" not in err, where
        assert item.flag in err, where
        assert item.span in err, where
        assert len(err) < 400, where  # a pasted wall of digits is cut short in the message


@pytest.mark.parametrize("item", INPUTS, ids=lambda item: item.id)
def test_values_at_the_edge_of_the_range_give_finite_strict_json(
    item: Input, capsys: pytest.CaptureFixture[str]
) -> None:
    assert item.inside, "each input lists the ends of its range"
    for value in item.inside:
        code, out, err = run([*item.command(value), "--json"], capsys)
        assert (code, err) == (0, ""), f"{item.id}={value!r}"
        finite_json(out)


def test_minus_zero_is_plain_zero_in_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["guide", "--cost", "--install-usd=-0", "--json"], capsys)
    assert code == 0
    assert finite_json(out)["inputs"]["install_usd"] == 0
    assert '"install_usd": -0.0' not in out


# Each value alone is in its range; their product overflows a float.
@pytest.mark.parametrize(
    "overrides",
    [
        ["tasks=1e200", "chef_seconds=1e200"],
        ["rounds=1e300", "chef_seconds=1e10"],
        ["pantry_units=1e300", "chef_pantry_rate=1e-300"],
        ["hallway_latency_seconds=1e-320", "kitchens=2"],
    ],
)
def test_values_whose_product_overflows_are_refused(
    overrides: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["kitchen", "--scenario", "onions", "--json"]
    code, out, err = run(argv + [f"--set={item}" for item in overrides], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "must be" in err


KITCHEN_CORNERS = {
    "everything slow and huge": {
        "tasks": "1e12",
        "chef_seconds": "1e9",
        "pantry_units": "1e15",
        "cooks": "1",
        "slowdown": "1e6",
        "launch_seconds": "1e9",
        "pantry_rate": "1e-9",
        "chef_pantry_rate": "1e-9",
        "kitchens": "4096",
        "hallway_latency_seconds": "1e9",
        "hallway_rate": "1e-9",
        "sync_units": "1e15",
        "rounds": "1e9",
    },
    "the largest speed-up": {
        "tasks": "1e12",
        "chef_seconds": "1e9",
        "pantry_units": "1e15",
        "cooks": "1e9",
        "slowdown": "0.001",
        "launch_seconds": "0",
        "pantry_rate": "1e15",
        "chef_pantry_rate": "1e-9",
        "kitchens": "64",
        "hallway_latency_seconds": "1e-9",
        "hallway_rate": "1e15",
        "sync_units": "1e-9",
        "rounds": "1e9",
    },
    "everything tiny": {
        "tasks": "1",
        "chef_seconds": "1e-9",
        "pantry_units": "1e-9",
        "cooks": "1",
        "slowdown": "0.001",
        "launch_seconds": "0",
        "pantry_rate": "1e15",
        "chef_pantry_rate": "1e15",
        "kitchens": "2",
        "hallway_latency_seconds": "1e-9",
        "hallway_rate": "1e15",
        "sync_units": "1e-9",
        "rounds": "1",
    },
}


@pytest.mark.parametrize("corner", list(KITCHEN_CORNERS))
def test_kitchen_corners_of_the_range_stay_finite(
    corner: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sets = [f"--set={key}={value}" for key, value in KITCHEN_CORNERS[corner].items()]
    code, out, err = run(["kitchen", "--scenario", "onions", "--json", *sets], capsys)
    assert (code, err) == (0, "")
    data = finite_json(out)
    assert data["chef_seconds"] > 0
    assert data["brigade_seconds"] > 0


@pytest.mark.parametrize(
    "argv",
    [
        ["--fit=100T", "--dtype=fp32", "--kv-dtype=fp32", "--context=1e7", "--batch=1e5"],
        ["--fit=1000", "--dtype=int4", "--context=0", "--batch=1"],
    ],
)
def test_fit_corners_stay_finite_and_exact(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["guide", *argv, "--json"], capsys)
    assert (code, err) == (0, "")
    data = finite_json(out)
    assert data["total_bytes"] == data["weight_bytes"] + data["kv_cache_bytes"]


@pytest.mark.parametrize(
    "argv",
    [
        # The dearest node, used least, against the cheapest cloud: the largest $/useful hour.
        [
            "--hardware-usd=1e9",
            "--install-usd=1e9",
            "--gpus-per-node=1",
            "--life-years=0.1",
            "--maintenance=1",
            "--staff-usd=1e8",
            "--colo-usd-per-kw-year=1e6",
            "--node-kw=1000",
            "--idle-fraction=1",
            "--pue=5",
            "--usd-per-kwh=10",
            "--cloud-price=0.01",
            "--utilization=0.1%",
            "--measured-tflops=0.001",
        ],
        # The cheapest node against the dearest cloud: the largest ROI.
        [
            "--hardware-usd=100",
            "--install-usd=0",
            "--gpus-per-node=1024",
            "--life-years=50",
            "--maintenance=0",
            "--staff-usd=0",
            "--colo-usd-per-kw-year=0",
            "--node-kw=0",
            "--idle-fraction=0",
            "--pue=1",
            "--usd-per-kwh=0",
            "--cloud-price=1000",
            "--utilization=1",
            "--measured-tflops=1e6",
        ],
    ],
)
def test_cost_corners_stay_finite(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["guide", "--cost", *argv, "--json"], capsys)
    assert (code, err) == (0, "")
    finite_json(out)


@pytest.mark.parametrize(
    "argv",
    [
        ["guide", "--fit=1e400"],
        ["guide", "--cost", "--utilization=1e-320"],
        ["kitchen", "--scenario", "onions", "--set=tasks=1e400"],
    ],
)
def test_the_real_process_exits_2_without_a_traceback(argv: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gpu_tui", *argv, "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert "between" in result.stderr


# -- property tests over the core: refused with UsageError, or every output number finite ----


def accepted(build: Callable[[], T]) -> T | None:
    """``build()``, or ``None`` when it refuses its input, which it must do in one line."""
    try:
        built = build()
    except UsageError as error:
        message = str(error)
    else:
        event("accepted")  # --hypothesis-show-statistics: how many examples got computed
        return built
    event("refused")
    assert "\n" not in message
    return None


# Anything a float or an int can hold: nan, ±inf, subnormals, 10**400.
WIDE = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.sampled_from([-0.0, 1e-320, 5e-324, 1e300, 1.7e308]),
)
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def mostly_inside(inside: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Nine draws in ten from the accepted domain, so that most examples (which draw several
    inputs at once) compute a result rather than stop at the first refusal; one from WIDE.
    """
    return st.integers(0, 9).flatmap(lambda draw: WIDE if draw == 0 else inside)


def spread(low: float, high: float) -> st.SearchStrategy[float]:
    """Values from ``low`` to ``high`` spread over the decades, the two ends themselves often."""
    lowest = math.floor(math.log10(low)) if low > 0 else -12
    decades = st.integers(lowest, math.ceil(math.log10(high)))
    scaled = st.builds(lambda m, e: min(max(m * 10.0**e, low), high), st.floats(1, 10), decades)
    return st.one_of(scaled, st.sampled_from([low, high]))


def kitchen_value(key: str) -> st.SearchStrategy[Any]:
    spec = SPECS[key]
    low, high = float(spec.low), float(spec.high)
    if spec.whole:
        inside: st.SearchStrategy[Any] = spread(low, high).map(round)
    else:
        inside = spread(low, high).map(lambda x: min(max(Fraction(x), spec.low), spec.high))
    if spec.zero:
        inside = st.one_of(inside, st.just(0))
    return mostly_inside(inside)


# Kitchens beyond a few make every example compute a long per-K series; their edge (4096) is
# covered by the corners above.
KITCHEN_VALUES = {key: kitchen_value(key) for key in SPECS} | {
    "kitchens": st.sampled_from([0, 1, 2, 3, 64, 4097, 1.5, math.nan])
}


@PROPERTY
@given(
    scenario=st.sampled_from(["onions", "complex-recipe"]),
    overrides=st.fixed_dictionaries({}, optional=KITCHEN_VALUES),
)
def test_kitchen_any_numbers_are_refused_or_give_finite_results(
    scenario: str, overrides: dict[str, object]
) -> None:
    base = SCENARIOS[scenario].params
    if not base.single_phase:  # a per-phase key is refused there anyway: test the others
        overrides = {k: v for k, v in overrides.items() if k not in PHASE_KEYS}
    params = accepted(lambda: base.replace(overrides))
    if params is not None:
        assert_finite(build_report(SCENARIOS[scenario], params))


@PROPERTY
@given(
    key=st.sampled_from(list(SPECS)),
    text=st.from_regex(r"[ +-]?[0-9]{1,5}(\.[0-9]{0,4})?([eE][+-]?[0-9]{1,5})?", fullmatch=True),
)
def test_kitchen_any_typed_number_is_refused_or_in_range(key: str, text: str) -> None:
    spec = SPECS[key]
    try:
        value = to_value(key, text)
    except UsageError:
        return
    assert (spec.zero and value == 0) or spec.low <= value <= spec.high


@PROPERTY
@given(
    params=mostly_inside(spread(1e3, 1e14)),
    dtype=st.sampled_from(list(f.DTYPE_BYTES)),
    kv_dtype=st.sampled_from([None, *f.DTYPE_BYTES]),
    context=mostly_inside(st.one_of(st.integers(0, f.MAX_CONTEXT), st.just(f.MAX_CONTEXT))),
    batch=mostly_inside(st.one_of(st.integers(1, f.MAX_BATCH), st.just(f.MAX_BATCH))),
)
def test_fit_any_numbers_are_refused_or_give_finite_results(
    params: float, dtype: str, kv_dtype: str | None, context: int, batch: int
) -> None:
    targets = f.catalog_targets()
    result = accepted(
        lambda: f.fit(
            params, dtype, context=context, batch=batch, kv_dtype=kv_dtype, targets=targets
        )
    )
    if result is not None:
        assert_finite(fit_json(result))


@PROPERTY
@given(
    text=st.from_regex(
        r"[0-9]{1,4}(\.[0-9]{0,3})?([eE][+-]?[0-9]{1,5})?[kmbtKMBT]?", fullmatch=True
    )
)
def test_any_typed_model_size_is_refused_or_in_range(text: str) -> None:
    try:
        params, _ = parse_params(text)
    except UsageError:
        return
    assert 1e3 <= params <= 1e14


def cost_value(limit: Limit) -> st.SearchStrategy[Any]:
    if limit.whole:
        return mostly_inside(st.integers(int(limit.low), int(limit.high)))
    low = limit.low if limit.low > 0 else 1e-12
    return mostly_inside(st.one_of(spread(low, limit.high), st.just(limit.low)))


COST_FIELDS = {item.name: cost_value(c.INPUT_LIMITS[item.name]) for item in fields(c.CostInputs)}


@PROPERTY
@given(
    changes=st.fixed_dictionaries({}, optional=COST_FIELDS),
    price=cost_value(c.PRICE),
    utilization=cost_value(c.UTILIZATION),
    tflops=st.one_of(st.none(), cost_value(c.MEASURED_TFLOPS)),
)
def test_cost_any_numbers_are_refused_or_give_finite_results(
    changes: dict[str, Any], price: float, utilization: float, tflops: float | None
) -> None:
    inputs = replace(c.CostInputs(), **changes)
    cloud = c.CloudPrice(price, "test", "today", "test")
    report = accepted(lambda: c.cost_report(inputs, (cloud,), (utilization,), tflops, None))
    if report is not None:
        assert_finite(cost_json(report))


def test_the_knobs_cannot_leave_the_models_range() -> None:
    from gpu_tui.ui.kitchen.knobs import KNOBS

    for knob in KNOBS:
        spec = SPECS[knob.key]
        assert spec.low <= knob.minimum <= knob.maximum <= spec.high
        assert knob.zero == spec.zero
        assert to_value(knob.key, knob.maximum) == knob.maximum
    tasks = next(k for k in KNOBS if k.key == "tasks")
    # The pane's size plot draws up to 100 × the tasks: that too must be a valid recipe.
    assert 100 * tasks.maximum <= SPECS["tasks"].high
    assert to_value("tasks", Fraction(100) * tasks.maximum) == 100 * tasks.maximum
