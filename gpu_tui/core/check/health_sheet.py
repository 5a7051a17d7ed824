"""A health check as a section of the Specs pane's sheet: one row per finding, the worst first,
its explanation (what it should be, why it matters, the fix) as the row's note."""

from __future__ import annotations

from gpu_tui.core.check.findings import FAIL, SKIP, WARN, Finding, Report
from gpu_tui.core.devices.spec_rows import SpecRow, SpecSection

TITLE = "Health check"
_ORDER = {FAIL: 0, WARN: 1, SKIP: 2}
_VERDICT_WORDS = {FAIL: "FAIL", WARN: "WARN", SKIP: "not checked"}
VERDICT_HEADLINE = {0: "healthy", 1: "a check failed", 2: "could not check"}


def _row(finding: Finding) -> SpecRow:
    label = f"gpu{finding.gpu} {finding.check}" if finding.gpu is not None else finding.check
    word = _VERDICT_WORDS.get(finding.verdict, "ok")
    notes = []
    if finding.expected and finding.verdict != "ok":
        notes.append(f"Should be: {finding.expected}.")
    if finding.why:
        notes.append(f"Why it matters: {finding.why}.")
    if finding.fix and finding.verdict in (FAIL, WARN):
        notes.append(f"Fix: {finding.fix}.")
    return SpecRow(
        key=f"check-{finding.check}",
        label=label,
        value=f"{word}: {finding.reading}",
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
    headline = VERDICT_HEADLINE[status] + (
        f" — {report.could_not_check}" if report.could_not_check else ""
    )
    if measuring:
        headline += " · measuring GEMM, bandwidth and copies (about half a minute)…"
    rows = [SpecRow("check-verdict", "Verdict", headline)]
    ordered = sorted(report.findings, key=lambda f: _ORDER.get(f.verdict, 3))
    rows += [_row(f) for f in ordered]
    return SpecSection(
        f"{TITLE}: {VERDICT_HEADLINE[status]}", tuple(rows), label=TITLE, problem=status != 0
    )
