"""The `telephony` command: its parser and the exit status of every subcommand.

Each subcommand lives in a module of this package with an `add(add_command)` that declares it (its
name, options and the function that runs it); `COMMANDS` lists them in the order `--help` shows
them; the modules that the entry points of the group `telephony.commands` name follow, by name
(`telephony.testing`'s `listen` and `scenario`: that package sits above the command line, which
imports nothing of it). A command returns its exit status: 0 done, 1 what it checked was refused;
one that cannot run as asked raises `CliError` (or a configuration or data dir error) and exits 2
with one line on standard error.
"""

from __future__ import annotations

import argparse
import functools
import sys
from importlib.metadata import entry_points
from typing import NoReturn

from .. import datadir
from ..config import ConfigError
from . import events, import_export, log, migrate, replay, routes, serve, verify
from .arguments import CliError

COMMANDS = (serve, log, replay, verify, migrate, routes, import_export, events)
"""The modules that declare the subcommands, in the order of `--help`."""
PLUGGED_IN = "telephony.commands"
"""The entry point group of the modules that declare further subcommands."""
DESCRIPTION = (
    "The `telephony` command: serve, log, replay, verify, migrate, routes, export, import, events, listen, scenario."
)
CONFIG_HELP = "config file (default: ./config.toml when present)"
DATA_DIR_HELP = "data directory (overrides [storage] data_dir)"


class Parser(argparse.ArgumentParser):
    """argparse's parser, a usage error said in one line (exit 2), as every other refusal is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="telephony", description=DESCRIPTION)
    parser.add_argument("--config", help=CONFIG_HELP)
    parser.add_argument("--data-dir", help=DATA_DIR_HELP)
    anywhere = Parser(add_help=False)
    """The two global options, accepted after the command as well (`telephony replay --data-dir D`)."""
    anywhere.add_argument("--config", default=argparse.SUPPRESS, help=CONFIG_HELP)
    anywhere.add_argument("--data-dir", default=argparse.SUPPRESS, help=DATA_DIR_HELP)
    sub = parser.add_subparsers(dest="command", required=True)
    add_command = functools.partial(sub.add_parser, parents=[anywhere])
    plugged_in = sorted(entry_points(group=PLUGGED_IN), key=lambda entry: entry.name)
    for command in (*COMMANDS, *(entry.load() for entry in plugged_in)):
        command.add(add_command)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CliError, ConfigError, datadir.DataDirUnusable) as exc:
        print(f"telephony: {one_line(str(exc))}", file=sys.stderr)
        return 2


def one_line(message: str) -> str:
    """A message as one line (a driver's error may span several: psycopg's names the server, then why)."""
    return " ".join(message.split())
