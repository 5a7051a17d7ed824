"""A scenario's results as the documented JSON object, and as an aligned table for people."""

from __future__ import annotations

from fractions import Fraction

from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.headline import story
from gpu_tui.core.kitchen.params import SPECS, KitchenParams, json_number
from gpu_tui.core.kitchen.scenarios import SCENARIOS, Scenario
from gpu_tui.core.units import (
    format_percent,
    format_precise,
    format_seconds_and_long,
    format_times,
)

SCHEMA_VERSION = 1


def changes(scenario: Scenario, params: KitchenParams) -> list[str]:
    """The parameters set otherwise than the scenario, as ``--set`` names them."""
    return [
        f"{key}={format_precise(float(now))} (was {format_precise(float(own))})"
        for key, own, now in scenario.changes(params)
        if isinstance(own, int | float) and isinstance(now, int | float)
    ]


def build_report(scenario: Scenario, params: KitchenParams) -> dict[str, object]:
    """The result of ``scenario`` run with ``params`` (schema_version 1; times in seconds)."""
    chef = model.chef_seconds(params)
    brigade = model.brigade_seconds(params)
    report: dict[str, object] = {
        "schema_version": SCHEMA_VERSION,
        "scenario": scenario.name,
        "title": scenario.title_for(params),
        "caption": story(scenario, params, changes(scenario, params)),
        "in_real_life": scenario.in_real_life,
        "comparison": scenario.comparison,
        "sources": [
            {"url": s.url, "title": s.title, "says": s.says, "primary": s.primary}
            for s in scenario.sources
        ],
        "parameters": params.as_dict(),
        "chef_seconds": float(chef),
        "brigade_seconds": float(brigade),
        "brigade_roofline_seconds": float(model.brigade_roofline_seconds(params)),
        "speedup": float(chef / brigade),
        "winner": "brigade" if brigade < chef else "chef" if chef < brigade else "tie",
        "cook_busy_fraction": float(model.cook_busy_fraction(params)),
    }
    if params.single_phase:
        report["crossover_tasks"] = model.crossover_tasks(params)
    else:
        hybrid = model.hybrid_seconds(params)
        serial = model.serial_share(params)
        report["hybrid_seconds"] = float(hybrid)
        report["hybrid_speedup"] = float(chef / hybrid)
        report["serial_share"] = float(serial)
        report["amdahl_speedup"] = float(
            model.amdahl_speedup(serial, params.cooks, params.slowdown)
        )
    if params.kitchens > 1:
        series = model.kitchens_series(params)
        best = min(series, key=lambda p: (p.seconds, p.kitchens))
        report["kitchens"] = [
            {
                "kitchens": p.kitchens,
                "seconds": float(p.seconds),
                "speedup": float(p.speedup),
                "speedup_vs_chef": float(p.speedup_vs_chef),
            }
            for p in series
        ]
        report["best_kitchens"] = best.kitchens
        report["best_kitchens_estimate"] = model.best_kitchens_estimate(params)
    return report


def _value(key: str, value: object) -> str:
    unit = SPECS[key].unit
    shown = format_precise(float(value)) if isinstance(value, (int, float)) else str(value)
    if shown == "1" and unit.isalpha() and unit.endswith("s") and len(unit) > 1:
        unit = unit[:-1]  # "1 task", "1 unit" (a symbol such as "s" stays)
    return f"{shown} {unit}".rstrip()


def render_text(report: dict[str, object]) -> str:
    """The report as an aligned table for a terminal (units on every number)."""
    params = report["parameters"]
    assert isinstance(params, dict)
    scenario = SCENARIOS.get(str(report["scenario"]))
    noun = scenario.noun if scenario is not None else "tasks"  # the TUI's word: "onions"
    rows: list[tuple[str, str, str]] = []
    for key, value in params.items():
        if key == "tasks":
            # The name --set takes, and the scenario's word for them, which the pane's knob uses.
            name = key if noun == key else f"{key} ({noun})"
            rows.append((name, _count(scenario, value), f"{noun} in the recipe (w)"))
        elif key != "phases":
            rows.append((key, _value(key, value), SPECS[key].meaning))
    phases = params.get("phases")
    if isinstance(phases, list):
        rows += _phase_rows(phases)
    results: list[tuple[str, str, str]] = [
        ("chef", format_seconds_and_long(_f(report, "chef_seconds")), "one master chef"),
        ("brigade", format_seconds_and_long(_f(report, "brigade_seconds")), "exact conveyor time"),
        (
            "roofline",
            format_seconds_and_long(_f(report, "brigade_roofline_seconds")),
            "perfect-overlap bound",
        ),
        (
            "speed-up",
            format_times(_f(report, "speedup")),
            f"chef (1 CPU core) ÷ brigade ({_gpus(params)}): {report['winner']} wins",
        ),
        (
            "cooks busy",
            format_percent(_f(report, "cook_busy_fraction")),
            "of all cook time spent cooking",
        ),
    ]
    if "crossover_tasks" in report:
        w = report["crossover_tasks"]
        text = _count(scenario, w) if isinstance(w, int) else "none"
        results.append(("crossover", text, "brigade wins from here (one wave)"))
    if "hybrid_seconds" in report:
        results.append(
            ("chef + brigade", format_seconds_and_long(_f(report, "hybrid_seconds")), "hybrid")
        )
        results.append(("hybrid gain", format_times(_f(report, "hybrid_speedup")), "over the chef"))
        amdahl = f"Amdahl with serial share {format_percent(_f(report, 'serial_share'))}"
        results.append(("Amdahl", format_times(_f(report, "amdahl_speedup")), amdahl))
    series = report.get("kitchens")
    if isinstance(series, list):
        for point in series:
            mark = "  <- best" if point["kitchens"] == report["best_kitchens"] else ""
            results.append(
                (
                    f"K = {point['kitchens']}",
                    format_seconds_and_long(point["seconds"]),
                    f"{format_times(point['speedup'])} vs one kitchen{mark}",
                )
            )
    lines = [f"Kitchen: {report['scenario']} · {report['title']}", f"  {report['caption']}"]
    if report.get("comparison"):
        lines.append(f"  {report['comparison']}")
    if scenario is not None and scenario.try_it is not None:
        key, value = scenario.try_it
        lines.append(f"  Try: --set {key}={json_number(value):g}")
    lines += ["", *_table("Parameters", rows), "", *_table("Results", results)]
    lines += ["", f"In real life: {report['in_real_life']}"]
    sources = report.get("sources")
    if isinstance(sources, list) and sources:
        lines += ["", "Sources"]
        listed: set[str] = set()
        for source in sources:
            if source["url"] in listed:  # one document, quoted for several figures
                continue
            listed.add(source["url"])
            weak = "" if source["primary"] else " (secondary source)"
            lines.append(f"  {source['title']}{weak}: {source['url']}")
    return "\n".join(lines)


def _count(scenario: Scenario | None, tasks: object) -> str:
    """A count of tasks in the scenario's word, singular for one: "1 onion", "8 onions"."""
    if scenario is not None and isinstance(tasks, int):
        return scenario.counted(tasks)
    return _value("tasks", tasks)


def _gpus(params: dict[str, object]) -> str:
    kitchens = params.get("kitchens", 1)
    return f"{kitchens} GPUs" if isinstance(kitchens, int) and kitchens > 1 else "1 GPU"


def _phase_rows(phases: list[dict[str, object]]) -> list[tuple[str, str, str]]:
    """One row per run of identical phases, so 30 equal judgment steps take one line."""
    rows: list[tuple[str, str, str]] = []
    i = 0
    while i < len(phases):
        j = i
        while j + 1 < len(phases) and phases[j + 1] == phases[i]:
            j += 1
        name = f"phase {i + 1}" if i == j else f"phases {i + 1}–{j + 1}"
        text = ", ".join(_value(k, v) for k, v in phases[i].items())
        rows.append((name, text, "each" if i != j else ""))
        i = j + 1
    return rows


def _f(report: dict[str, object], key: str) -> float:
    value = report[key]
    assert isinstance(value, (int, float, Fraction))
    return float(value)


def _table(title: str, rows: list[tuple[str, str, str]]) -> list[str]:
    left = max(len(r[0]) for r in rows)
    mid = max(len(r[1]) for r in rows)
    body = [f"  {a:<{left}}  {b:>{mid}}  {c}".rstrip() for a, b, c in rows]
    return [title, *body]
