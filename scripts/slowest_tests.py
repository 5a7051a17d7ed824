"""The suite's slowest tests: runs pytest as the README does (in parallel) and prints the 20 tests
that took longest, setup and teardown included, with each one's share of the whole.

    python scripts/slowest_tests.py                 # the whole suite
    python scripts/slowest_tests.py tests/ui -n 1   # any pytest arguments: these files, serially
    python scripts/slowest_tests.py --top 40

The shares are of the summed test time, which on two workers is about twice the wall time. Use it
before adding a slow test: the suite's budget (README, "Run the tests") is 7 minutes for all of
CI on a 2-core machine.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path


def timings(report: Path) -> list[tuple[float, str]]:
    """(seconds, node id) for every test case in a JUnit XML report."""
    found = []
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        found.append((float(case.get("time", "0")), f"{module}.py::{case.get('name', '')}"))
    return sorted(found, reverse=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=20, help="how many tests to list (20)")
    options, pytest_args = parser.parse_known_args()
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.xml"
        done = subprocess.run(
            [sys.executable, "-m", "pytest", f"--junit-xml={report}", *pytest_args],
            check=False,
        )
        if not report.is_file():
            print("pytest wrote no report", file=sys.stderr)
            return done.returncode or 1
        found = timings(report)
    total = sum(seconds for seconds, _ in found) or 1.0
    print(f"\n{len(found)} tests, {total:.0f} s summed; the {options.top} slowest:")
    for seconds, name in found[: options.top]:
        print(f"{seconds:7.2f} s {100 * seconds / total:5.1f} %  {name}")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
