"""Running a scenario on a server: its setup, then its steps and expectations in clock order.

Before each step or expectation the clock is moved to its `at` with a settled move (`POST
/_telephony/clock {"advance", "settle": true}`, also when it stays where it is), so everything due
by then has happened and every reactor has caught up: what runs next sees the same server whatever
the speed of the machine, and an in-process run writes the same log each time. Steps come before
the expectations of the same time, each kind in the file's order; the expectations without `at` are
checked at the end (`until`). A step that fails ends the run: what it did not reach is skipped.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ...domain.scenario_file import Expectation, Scenario, Step, action, check
from ..client import Http, HttpError
from . import checks, setup, steps
from .context import Run
from .loading import Lines, line_of

AFTER_THE_LAST = 3600.0
"""How long a run goes on after its last step or expectation when it names no `until`."""


@dataclass(frozen=True)
class Result:
    """How one step or expectation went: `problem` None when it passed; `skipped` when not reached;
    `seconds` of real time it took (moving the clock to it, then taking or checking it)."""

    kind: str
    number: int
    line: int
    offset: float
    title: str
    said: str = ""
    problem: str | None = None
    skipped: bool = False
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.problem is not None and not self.skipped


Report = Callable[[Result], None]


def until(scenario: Scenario) -> float:
    """The offset the run ends at."""
    times = [step.at for step in scenario.steps] + [e.at for e in scenario.expect if e.at is not None]
    return scenario.until if scenario.until is not None else max(times, default=0) + AFTER_THE_LAST


def run(scenario: Scenario, lines: Lines, source: str, control: Http, service: str, report: Report) -> list[Result]:
    """Run `scenario` on the server `control` speaks to (as the operator); every result, each also
    given to `report` as it comes. Unrunnable when the scenario cannot run as written."""
    state = Run(control, service, source, lines)
    setup.make(state, scenario)
    start = clock = control.request("GET", "/_telephony/clock")["data"]["epoch"]
    end = until(scenario)
    timeline = sorted(
        [(step.at, 0, n, step) for n, step in enumerate(scenario.steps)]
        + [(e.at if e.at is not None else end, 1, n, e) for n, e in enumerate(scenario.expect)],
        key=lambda entry: entry[:3],
    )
    results: list[Result] = []
    last_step, broken = "before the first step", False
    for offset, _, n, item in timeline:
        at = f"steps[{n}]" if isinstance(item, Step) else f"expect[{n}]"
        if broken:
            result = _result(item, n, line_of(at, lines), offset, "", "not reached: a step before it failed", True)
        else:
            began = time.perf_counter()
            moved = control.request("POST", "/_telephony/clock", {"advance": max(0.0, start + offset - clock),
                                                                  "settle": True})  # fmt: skip
            clock = moved["data"]["epoch"]
            result = _taken(state, item, n, at, offset, last_step)
            result = dataclasses.replace(result, seconds=time.perf_counter() - began)
            if isinstance(item, Step):
                last_step, broken = f"after step {n + 1}", result.failed
        results.append(result)
        report(result)
    return results


def _taken(state: Run, item: Step | Expectation, n: int, at: str, offset: float, last_step: str) -> Result:
    line = line_of(at, state.lines)
    try:
        if isinstance(item, Step):
            return _result(item, n, line, offset, steps.take(state, item, at), None)
        found = checks.problem(state, item, at)
    except (steps.StepFailed, HttpError) as exc:
        return _result(item, n, line, offset, "", str(exc))
    return _result(item, n, line, offset, "", f"{found} ({last_step})" if found else None)


def _result(item: Step | Expectation, n: int, line: int, offset: float, said: str, problem: str | None,
            skipped: bool = False) -> Result:  # fmt: skip
    if isinstance(item, Step):
        return Result("step", n + 1, line, offset, action(item), said, problem, skipped)
    title = check(item) + (f": {item.name}" if item.name else "")
    return Result("expect", n + 1, line, offset, title, said, problem, skipped)


def numbered(prefix: str = "scenario") -> Iterator[str]:
    """Ids for a run's requests (`X-Request-Id`, which every event's metadata holds): the same each run."""
    return (f"{prefix}-{n}" for n in itertools.count(1))
