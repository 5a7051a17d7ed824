"""What a check finds: one line of verdict, reading, what it should be, why it matters and the
fix; and a report's exit status (0 healthy, 1 a check failed, 2 could not check)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

OK = "ok"
WARN = "warn"
FAIL = "fail"
SKIP = "skip"
"""Verdicts. A warning is worth reading but does not fail the node; a skipped check could not
be read here and says why."""
VERDICTS = (OK, WARN, FAIL, SKIP)
STATUS_WIDTH = 5
"""Where a finding's text starts on its line, after the status word (``WARN ``, ``OK   ``)."""

HEALTHY = 0
FAILED = 1
COULD_NOT_CHECK = 2


@dataclass(frozen=True)
class Finding:
    """One check of one GPU (``gpu`` None: of the host)."""

    check: str
    """A short stable name scripts can match: ``pcie-link``, ``xid``, ``cpu-governor``."""
    verdict: str
    reading: str
    """What was read, in words: ``Gen4 x8``."""
    expected: str = ""
    """What it should be: ``Gen5 x16``."""
    why: str = ""
    """Why it matters, for a verdict other than OK."""
    fix: str = ""
    gpu: int | None = None

    def line(self, gpus: Sequence[int] = ()) -> str:
        """The finding in one line: ``FAIL gpu3 pcie-link: Gen4 x8 (should be Gen5 x16) — …``;
        ``gpus``: every GPU it was found on (``gpu0-7``, ``gpu1,4``), when more than this one."""
        where = f"gpu{self.gpu} " if self.gpu is not None else ""
        if len(gpus) > 1:
            where = f"gpu{gpu_list(gpus)} "
        text = f"{self.verdict.upper():{STATUS_WIDTH}}{where}{self.check}: {self.reading}"
        if self.expected and self.verdict != OK:
            text += f" (should be {self.expected})"
        if self.verdict in (WARN, FAIL, SKIP) and self.why:
            text += f" — {self.why}"
        if self.fix and self.verdict in (WARN, FAIL):
            text += f"; fix: {self.fix}"
        return text


def run_failures(check: str, errors: Iterable[dict[str, Any]], rerun: str) -> list[Finding]:
    """One FAIL per error of an active check's run, pointing at ``rerun`` for the whole error."""
    return [
        Finding(
            check,
            FAIL,
            f"{error.get('benchmark') or 'the run'} failed",
            why=str(error.get("message") or error),
            fix=f"run {rerun} to see the whole error",
        )
        for error in errors
    ]


def gpu_list(gpus: Sequence[int]) -> str:
    """``0-7``, ``1,4``, ``0-2,5``: runs of consecutive GPUs joined."""
    runs: list[list[int]] = []
    for gpu in sorted(gpus):
        if runs and gpu == runs[-1][-1] + 1:
            runs[-1].append(gpu)
        else:
            runs.append([gpu])
    return ",".join(f"{r[0]}-{r[-1]}" if len(r) > 2 else ",".join(map(str, r)) for r in runs)


def same_on_several_gpus(findings: Iterable[Finding]) -> list[tuple[Finding, list[int]]]:
    """The findings with those that say the same thing on several GPUs as one, with the GPUs
    (a fabric manager that is down shows on all eight: one line, not eight), in order, and the
    lines of one check together (gpu0,3,6 temperature beside gpu1,4,7 temperature)."""
    groups: dict[tuple[object, ...], tuple[Finding, list[int]]] = {}
    first_of_check: dict[str, int] = {}
    for finding in findings:
        first_of_check.setdefault(finding.check, len(first_of_check))
        if finding.gpu is None:
            groups[("host", len(groups))] = (finding, [])
            continue
        key = (
            finding.check,
            finding.verdict,
            finding.reading,
            finding.expected,
            finding.why,
            finding.fix,
        )
        _, gpus = groups.setdefault(key, (finding, []))
        gpus.append(finding.gpu)
    return sorted(groups.values(), key=lambda group: first_of_check[group[0].check])


@dataclass(frozen=True)
class Report:
    """Every finding of one run, and whether the GPUs could be checked at all."""

    findings: tuple[Finding, ...]
    gpu_count: int
    could_not_check: str = ""
    """Why the GPUs could not be checked on a machine that has them (exit status 2)."""

    @property
    def exit_status(self) -> int:
        if self.could_not_check:
            return COULD_NOT_CHECK
        return FAILED if any(f.verdict == FAIL for f in self.findings) else HEALTHY

    def count(self, verdict: str) -> int:
        return sum(f.verdict == verdict for f in self.findings)
