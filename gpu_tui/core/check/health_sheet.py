"""A health check as a section of the Specs pane's sheet: one row per finding, the worst first,
its explanation (what it should be, why it matters, the fix) as the row's note."""

from __future__ import annotations

from gpu_tui.core.check.findings import (
    FAIL,
    OK,
    SKIP,
    WARN,
    Finding,
    Report,
    gpu_list,
    same_on_several_gpus,
)
from gpu_tui.core.devices.spec_rows import SpecRow, SpecSection

TITLE = "Health check"
_ORDER = {FAIL: 0, WARN: 1, SKIP: 2}
_VERDICT_WORDS = {FAIL: "FAIL", WARN: "WARN", SKIP: "not checked"}


def verdict_words(report: Report) -> str:
    """``healthy``, ``2 checks failed``, ``could not check``, or ``no NVIDIA GPU here``."""
    if report.could_not_check:
        return "could not check"
    failed = report.count(FAIL)
    if failed:
        return f"{failed} check{'s' if failed != 1 else ''} failed"
    return "healthy" if report.gpu_count else "no NVIDIA GPU here; the host is fine"


def count_words(report: Report) -> str:
    """``8 GPUs; checks: 1 failed, 0 warnings, 80 passed, 2 not checked``."""
    warnings = report.count(WARN)
    gpus = f"{report.gpu_count} GPU{'s' if report.gpu_count != 1 else ''}; checks: "
    return (
        f"{gpus}{report.count(FAIL)} failed, {warnings} warning{'s' if warnings != 1 else ''}, "
        f"{report.count(OK)} passed, {report.count(SKIP)} not checked"
    )


def _row(finding: Finding, gpus: list[int]) -> SpecRow:
    where = gpu_list(gpus) if len(gpus) > 1 else finding.gpu
    label = f"gpu{where} {finding.check}" if finding.gpu is not None else finding.check
    word = _VERDICT_WORDS.get(finding.verdict, "ok")
    notes = []
    if finding.expected and finding.verdict != "ok":
        notes.append(f"Should be: {finding.expected}.")
    if finding.why and finding.verdict == SKIP:
        notes.append(f"Not checked because {finding.why}.")
    elif finding.why:
        notes.append(f"Why it matters: {finding.why}.")
    if finding.fix and finding.verdict in (FAIL, WARN):
        notes.append(f"Fix: {finding.fix}.")
    return SpecRow(
        key=f"check-{finding.check}",
        label=label,
        value=f"{word} — {finding.reading}",
        note=" ".join(notes),
        unknown=finding.verdict == SKIP,
    )


def health_section(report: Report | None, *, measuring: bool = False) -> SpecSection:
    """The section for ``report`` (None: still checking)."""
    if report is None:
        return SpecSection(
            TITLE, (SpecRow("check-running", "Checking", "reading every GPU…"),), label=TITLE
        )
    status = report.exit_status
    headline = verdict_words(report) + (
        f" — {report.could_not_check}" if report.could_not_check else f" ({count_words(report)})"
    )
    if measuring:
        headline += " · measuring matrix-multiply speed, memory bandwidth and copies…"
    rows = [SpecRow("check-verdict", "Verdict", headline)]
    # Grouped by check, then worst first: a check that passed on seven GPUs and failed on one
    # shows its failure at the top and its passes with the others that passed.
    grouped = sorted(
        same_on_several_gpus(report.findings), key=lambda g: _ORDER.get(g[0].verdict, 3)
    )
    rows += [_row(finding, gpus) for finding, gpus in grouped]
    return SpecSection(
        f"{TITLE}: {verdict_words(report)}", tuple(rows), label=TITLE, problem=status != 0
    )
