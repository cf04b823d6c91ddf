"""`telephony events [--json]`: the catalogue of event types, the audit contract."""

from __future__ import annotations

import argparse
import os
import sys

import msgspec

from ..event_catalogue import as_text, described
from .arguments import AddCommand


def add(add_command: AddCommand) -> None:
    events = add_command("events", help="print the catalogue of event types: the audit contract")
    events.add_argument("--json", action="store_true", help="as JSON")
    events.set_defaults(func=cmd_events)


def cmd_events(args: argparse.Namespace) -> int:
    contract = described()
    try:
        print(msgspec.json.encode(contract).decode() if args.json else as_text(contract), flush=True)
    except BrokenPipeError:  # a reader that stopped early (`telephony events | head`): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
