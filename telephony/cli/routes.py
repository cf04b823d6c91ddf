"""`telephony routes`: every method and path the server answers."""

from __future__ import annotations

import argparse

from .. import wiring
from .arguments import AddCommand, settings_of


def add(add_command: AddCommand) -> None:
    add_command("routes", help="list every route").set_defaults(func=cmd_routes)


def cmd_routes(args: argparse.Namespace) -> int:
    for line in wiring.route_listing(settings_of(args).api.service):
        print(line)
    return 0
