"""A fleet snapshot in words, one line per GPU (``gpu-tui fleet`` without ``--json``)."""

from __future__ import annotations

from gpu_tui.core.fleet.model import IDLE_MAX_UTIL, FleetGpu, FleetSnapshot, MigInstance
from gpu_tui.core.units import (
    format_age,
    format_gigabytes,
    format_reading_percent,
    format_temperature,
)


def _num(value: float | None, fmt: str) -> str:
    return "?" if value is None else f"{value:{fmt}}"


def _percent(value: float | None) -> str:
    return "?" if value is None else format_reading_percent(value)


def window_text(window: str) -> str:
    """A PromQL window such as ``900s`` in words: ``15 min``."""
    seconds = int(window.removesuffix("s")) if window.removesuffix("s").isdigit() else None
    if seconds is None:
        return window
    return f"{seconds / 60:g} min" if seconds % 60 == 0 else f"{seconds} s"


def _memory(used: int | None, total: int | None) -> str:
    if used is None or total is None:
        return "?"
    return f"{format_gigabytes(used, '.0f', symbol=False)}/{format_gigabytes(total, '.0f', gap='')}"


def gpu_line(gpu: FleetGpu) -> str:
    memory = _memory(gpu.memory_used_bytes, gpu.memory_total_bytes)
    temp = format_temperature(gpu.temperature_c, gap="", unknown="?")
    if gpu.temperature_slowdown_c is not None:
        temp += "/" + format_temperature(gpu.temperature_slowdown_c, symbol=False)
    power = _num(gpu.power_watts, ".0f")
    if gpu.power_limit_watts is not None:
        power += f"/{gpu.power_limit_watts:.0f}"
    flags = [
        word
        for word, on in (
            ("HOT", gpu.hot),
            ("THROTTLED " + ",".join(gpu.throttle_reasons or ()), gpu.throttled),
            (f"XID {gpu.xid_last}", gpu.erroring),
            ("SIMULATED", gpu.simulated),
        )
        if on
    ]
    who = f"  {gpu.namespace}/{gpu.pod}" if gpu.pod else ""
    util = _percent(gpu.utilization_percent).rjust(5)  # "100 %" whole, digits under digits
    return f"  gpu{gpu.gpu:<3} {util} {memory:>9} {temp:>8} {power:>8}W  {gpu.model}{who}" + (
        "  " + " ".join(flags) if flags else ""
    )


def mig_line(instance: MigInstance) -> str:
    """``    MIG 3g.40gb #1    20/39GiB  research/llama-ft-0``"""
    memory = _memory(instance.memory_used_bytes, instance.memory_total_bytes)
    who = f"  {instance.namespace}/{instance.pod}" if instance.pod else ""
    return f"    MIG {instance.profile or '?'} #{instance.instance_id:<3} {memory:>9}{who}"


def fleet_lines(snapshot: FleetSnapshot, now: float) -> list[str]:
    t = snapshot.totals
    lines = [
        f"{snapshot.prometheus}: {t.nodes} nodes ({t.nodes_down} down), {t.gpus} GPUs: "
        f"{t.busy} busy, {t.idle} idle, {t.hot} hot, {t.throttled} throttled, "
        f"{t.erroring} with XID errors, {t.idle_while_allocated} idle while allocated"
    ]
    for node in snapshot.nodes:
        state = {True: "up", False: "DOWN", None: "no target"}[node.up]
        scraped = None if node.last_scrape_time is None else now - node.last_scrape_time
        problem = node.check_problem(now)
        lines.append(
            f"{node.name}  {state}, scraped {format_age(scraped)}, {len(node.gpus)} GPUs"
            + (f", {problem.upper()}" if problem else "")
        )
        for gpu in node.gpus:
            lines.append(gpu_line(gpu))
            lines.extend(mig_line(instance) for instance in gpu.mig_instances)
    if snapshot.idle_while_allocated:
        lines.append(
            f"Idle while allocated (≤{_percent(IDLE_MAX_UTIL)} for "
            f"{window_text(snapshot.idle_window)}, memory held):"
        )
        for idle in snapshot.idle_while_allocated:
            who = f" {idle.namespace}/{idle.pod}" if idle.pod else ""
            lines.append(
                f"  {idle.node} gpu{idle.gpu}{who} (max {_percent(idle.max_utilization_percent)})"
            )
    return lines
