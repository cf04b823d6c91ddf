"""`telephony scenario run FILE`: run a scenario file in-process (a fresh data dir, a reproducible
clock, secrets drawn from its seed) or against a running server (`--server`, which refuses a file
with a `simulator:` block: the server's own settings would play it otherwise), print each step and
expectation as it goes, and exit 1 when an expectation failed, 2 when the file is bad or cannot run."""

from __future__ import annotations

import argparse
import contextlib
import secrets
import sys
import tempfile
import time
from pathlib import Path

from ... import embedded
from ...cli.arguments import AddCommand, CliError, settings_of
from ...clock import Clock, parse_wire_time
from ...config import Settings, load_settings
from ...domain.scenario_file import Scenario
from ...eventlog import LOG_FILE, store
from ...security import Entropy
from ..client import CONTROL_HEADER, Http
from ..inprocess import replace, settings_for
from ..scenarios import BadScenario, load
from ..scenarios.context import Unrunnable
from ..scenarios.loading import line_of
from ..scenarios.report import Console, junit, summary
from ..scenarios.runner import Result, numbered, run


def add(add_command: AddCommand) -> None:
    scenario = add_command("scenario", help="run a scenario file and check its expectations")
    scenario.add_argument("action", choices=["run"], help="what to do with the file")
    scenario.add_argument("file", help="the scenario (YAML or JSON)")
    scenario.add_argument("--seed", type=int, help="the seed of an in-process run (default: the file's)")
    scenario.add_argument("--junit", metavar="OUT.xml", help="also write the results as JUnit XML")
    scenario.add_argument("--server", metavar="URL", help="run against this server instead of in-process")
    scenario.add_argument("--control-key", help="the server's control key (default: [control] key)")
    scenario.set_defaults(func=cmd_scenario)


def cmd_scenario(args: argparse.Namespace) -> int:
    try:
        scenario, lines = load(Path(args.file))
    except BadScenario as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 2
    out = Console(sys.stdout)
    began = time.perf_counter()
    try:
        if args.server:
            if scenario.simulator is not None:
                print(f"{args.file}:{line_of('simulator', lines)}: simulator: applies in-process only, and a server "
                      "keeps its own [simulator] settings: run the file in-process, or leave the block out and "
                      "give the server those settings", file=sys.stderr)  # fmt: skip
                return 2
            control = Http(args.server, {CONTROL_HEADER: args.control_key or settings_of(args).control.key},
                           ids=numbered())  # fmt: skip
            print(f"scenario {scenario.name!r} ({args.file}) on {args.server}", flush=True)
            results = run(scenario, lines, args.file, control, "voipstudio", out)
        else:
            results = _in_process(args, scenario, lines, out)
    except Unrunnable as exc:
        print(exc, file=sys.stderr)
        return 2
    except OSError as exc:
        raise CliError(f"the server could not be reached: {exc}") from None
    if args.junit:
        junit(results, scenario.name, Path(args.file).stem, Path(args.junit), time.perf_counter() - began)
    print(summary(results))
    return 1 if any(result.failed for result in results) else 0


def _in_process(args: argparse.Namespace, scenario: Scenario, lines: dict, out: Console) -> list[Result]:
    """The run on a fresh data dir (`--data-dir`, kept; a temporary one otherwise) on a reproducible
    clock at the scenario's start, secrets drawn from its seed; the log's head printed at the end. Its
    commits are not flushed to the disk one by one (`synchronous` NORMAL, as the demo's history): a
    power cut may lose a run's last commits, which a run can bear."""
    seed = args.seed if args.seed is not None else scenario.seed
    base = load_settings(args.config, environ={}) if args.config else Settings()
    with contextlib.ExitStack() as stack:
        data_dir = Path(args.data_dir) if getattr(args, "data_dir", None) else Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="telephony-scenario-")))  # fmt: skip
        if (data_dir / LOG_FILE).exists():
            raise CliError(f"{data_dir} holds a log already: a scenario runs on a fresh data dir")
        key = secrets.token_hex(20)
        settings = settings_for(base, data_dir, seed, key, simulator=scenario.simulator)
        settings = replace(settings, eventlog=replace(settings.eventlog, synchronous="NORMAL"))
        clock = Clock.reproducible(parse_wire_time(scenario.start).timestamp())
        print(f"scenario {scenario.name!r} ({args.file}) in-process, seed {seed}, from {scenario.start}", flush=True)
        with embedded.serving(settings, clock=clock, entropy=Entropy(seed)) as url:
            control = Http(url, {CONTROL_HEADER: key}, ids=numbered())
            results = run(scenario, lines, args.file, control, settings.api.service, out)
        conn = store.connect(data_dir / LOG_FILE, readonly=True)
        try:
            position, head = store.head(conn)
        finally:
            conn.close()
        print(f"log: {position} events, head {head.hex()}")
    return results
