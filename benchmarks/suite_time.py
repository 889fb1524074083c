"""Where the test suite's time goes: per-module and per-xdist-group totals from pytest's JUnit XML.

    .venv/bin/python -m pytest -n 3 --dist loadgroup --junitxml=/tmp/suite.xml ...
    .venv/bin/python benchmarks/suite_time.py /tmp/suite.xml [--top 30]
    .venv/bin/python benchmarks/suite_time.py BEFORE.xml AFTER.xml     # the two side by side, per module

A test case's time is its setup, call and teardown (pytest's default `junit_duration_report`), so a module's
shared fixture is counted in the test that first used it. The group is the `@GROUP` suffix xdist's loadgroup
gives the test's name (tests/conftest.py `xdist_group_of`), else the module. With two workers the suite's wall
time is at least the larger of half the total and the longest group; the lower bound is printed with the sums.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Case:
    module: str
    group: str
    seconds: float
    outcome: str


def read_cases(path: Path) -> list[Case]:
    """Every test case of a JUnit XML file, with its module (file), xdist group and outcome."""
    cases = []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").split(".")
        file_parts = [part for part in module if part.startswith("test_")]
        name = file_parts[0] + ".py" if file_parts else ".".join(module)
        test = case.get("name", "")
        group = test.rsplit("@", 1)[1] if "@" in test else name
        outcome = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        cases.append(Case(name, group, float(case.get("time") or 0.0), outcome))
    return cases


def totals(cases: list[Case], key: str) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for case in cases:
        out[getattr(case, key)] += case.seconds
    return dict(sorted(out.items(), key=lambda item: -item[1]))


def report(cases: list[Case], top: int) -> list[str]:
    total = sum(case.seconds for case in cases)
    outcomes: dict[str, int] = defaultdict(int)
    for case in cases:
        outcomes[case.outcome] += 1
    groups = totals(cases, "group")
    lines = [f"{len(cases)} test cases ({', '.join(f'{n} {k}' for k, n in sorted(outcomes.items()))}), "
             f"{total:.0f} s in all; with 2 workers at least {max(total / 2, max(groups.values(), default=0)):.0f} s",
             "", "per group (tests that share a host run in one worker, one after another):"]
    lines += [f"  {seconds:8.1f} s  {group}" for group, seconds in list(groups.items())[:top]]
    lines += ["", "per module:"]
    lines += [f"  {seconds:8.1f} s  {module}" for module, seconds in list(totals(cases, "module").items())[:top]]
    return lines


def compare(before: list[Case], after: list[Case], top: int) -> list[str]:
    old, new = totals(before, "module"), totals(after, "module")
    rows = sorted(set(old) | set(new), key=lambda m: -max(old.get(m, 0.0), new.get(m, 0.0)))[:top]
    lines = [f"{'before':>9} {'after':>9} {'change':>8}  module"]
    for module in rows:
        a, b = old.get(module, 0.0), new.get(module, 0.0)
        lines.append(f"{a:9.1f} {b:9.1f} {b - a:+8.1f}  {module}")
    a, b = sum(old.values()), sum(new.values())
    lines.append(f"{a:9.1f} {b:9.1f} {b - a:+8.1f}  (all; cases {len(before)} -> {len(after)})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("xml", nargs="+", type=Path, help="one JUnit XML file, or two to compare (before, after)")
    parser.add_argument("--top", type=int, default=40, help="rows per table (default 40)")
    args = parser.parse_args(argv)
    if len(args.xml) > 2:
        parser.error("give one JUnit XML file, or two to compare")
    try:
        runs = [read_cases(path) for path in args.xml]
    except (OSError, ElementTree.ParseError) as exc:
        print(f"cannot read the JUnit XML: {exc}", file=sys.stderr)
        return 2
    lines = report(runs[0], args.top) if len(runs) == 1 else compare(runs[0], runs[1], args.top)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
