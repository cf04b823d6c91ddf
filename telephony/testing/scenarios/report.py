"""Telling how a run went: a line per step and expectation as it comes, and a JUnit XML file.

The JUnit file is one `testsuite` named after the scenario, with a `testcase` per expectation (and one
per step that failed): a `failure` saying what differed, or `skipped` when the run did not reach it.
Times are real seconds: a case's, what it took; the suite's, the whole run's (its setup too).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from .runner import Result


def offset(seconds: float) -> str:
    """`+HH:MM:SS` from the scenario's start."""
    whole = int(seconds)
    return f"+{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def line(result: Result) -> str:
    """One result as a line: when, how it went, which step or expectation, what it made or what differed."""
    outcome = "skip" if result.skipped else "FAIL" if result.failed else "ok"
    what = f"{result.kind} {result.number} (line {result.line}) {result.title}"
    told = result.problem if result.problem is not None else result.said
    return f"{offset(result.offset)}  {outcome:<4}  {what}" + (f": {told}" if told else "")


class Console:
    """Prints each result as it comes, to `out`."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def __call__(self, result: Result) -> None:
        print(line(result), file=self.out, flush=True)


def summary(results: Sequence[Result]) -> str:
    expectations = [r for r in results if r.kind == "expect"]
    failed = [r for r in results if r.failed]
    skipped = [r for r in expectations if r.skipped]
    passed = len(expectations) - len([r for r in expectations if r.failed]) - len(skipped)
    return f"{passed} passed, {len(failed)} failed" + (f", {len(skipped)} skipped" if skipped else "")


def junit(results: Sequence[Result], name: str, classname: str, path: Path, seconds: float) -> None:
    """Write the JUnit XML of a run that took `seconds` to `path`."""
    cases = [r for r in results if r.kind == "expect" or r.failed]
    took = f"{seconds:.3f}"
    suite = ET.Element("testsuite", name=name, tests=str(len(cases)), time=took,
                       failures=str(sum(r.failed for r in cases)), errors="0",
                       skipped=str(sum(r.skipped for r in cases)))  # fmt: skip
    for result in cases:
        case = ET.SubElement(suite, "testcase", classname=classname, time=f"{result.seconds:.3f}",
                             name=f"{result.kind} {result.number} (line {result.line}) {result.title}")  # fmt: skip
        if result.skipped:
            ET.SubElement(case, "skipped", message=result.problem or "")
        elif result.failed:
            ET.SubElement(case, "failure", message=result.problem or "").text = result.problem
    suites = ET.Element("testsuites", name=name, tests=suite.get("tests", "0"), failures=suite.get("failures", "0"),
                        errors="0", skipped=suite.get("skipped", "0"), time=took)  # fmt: skip
    suites.append(suite)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
